"""`mcp-planner audit`: the trail of a run answered at the prompt, as a table and as JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from strategies.cli import prompts
from strategies.cli.app import app
from tests.doubles import ScriptedChatModel, calls, install_scripted, tool_call
from tests.unit_tests.helpers import plan, task, unique

runner = CliRunner()
PRIVATE = "body-only-the-owner-sees"


@pytest.fixture(autouse=True)
def _terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prompts, "stdin_is_terminal", lambda: True)


def write_note_model(title: str) -> str:
    script: list[Any] = [
        plan(task("t1", "notes", f"Write note {title}")),
        "IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE",
        calls(tool_call("write_note", {"title": title, "body": PRIVATE})),
        {"completed": True, "reason": "written"},
        f"Saved {title}.",
    ]
    return install_scripted(ScriptedChatModel(script=script, name_=f"audit-{title}"))


def run(title: str, answers: str, thread: str) -> Any:
    model = write_note_model(title)
    return runner.invoke(
        app, ["run", "Save", "--model", model, "--thread", thread, "--new"], input=answers
    )


def test_audit_lists_what_was_asked_and_answered(
    chdir_tmp: Path, mcp_config: dict[str, Any]
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    assert run(unique("approved"), "a\n", "th-approved").exit_code == 0
    assert run(unique("rejected"), "r\nnot now\n", "th-rejected").exit_code == 0

    listed = runner.invoke(app, ["audit", "--json"])
    assert listed.exit_code == 0, listed.output
    trail = json.loads(listed.stdout)
    assert [(e["thread_id"], e["event"], e["decision"]) for e in trail] == [
        ("th-approved", "asked", None),
        ("th-approved", "answered", "approve"),
        ("th-rejected", "asked", None),
        ("th-rejected", "answered", "reject"),
    ]
    assert PRIVATE not in listed.stdout

    one = runner.invoke(app, ["audit", "--thread", "th-rejected", "--json"])
    assert [e["decision"] for e in json.loads(one.stdout)] == [None, "reject"]
    table = runner.invoke(app, ["audit", "--user", "default"])
    assert "th-approved" in table.output
    assert trail[1]["args_digest"][:12] in table.output
    later = runner.invoke(app, ["audit", "--since", "2999-01-01"])
    assert "No audit entries match" in later.output
    assert runner.invoke(app, ["audit", "--user", "bob", "--json"]).stdout.strip() == "[]"


def test_nothing_recorded_creates_no_store(chdir_tmp: Path) -> None:
    listed = runner.invoke(app, ["audit"])
    assert listed.exit_code == 0, listed.output
    assert "No audit entries match" in listed.output
    assert not (chdir_tmp / ".mcp-planner" / "store.sqlite").exists()


def test_a_bad_since_is_one_sentence_and_exit_2(chdir_tmp: Path) -> None:
    result = runner.invoke(app, ["audit", "--since", "yesterday"])
    assert result.exit_code == 2, result.output
    assert "--since 'yesterday' is not an ISO 8601 date or time" in result.stderr
    assert "Traceback" not in result.output
