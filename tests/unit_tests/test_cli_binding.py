"""The CLI answers the question it showed: keyed by its id, the same tool, or exit 2."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from langgraph.types import Interrupt
from typer.testing import CliRunner

from strategies.cli import prompts
from strategies.cli.app import app
from strategies.cli.drive import resume_command
from tests.unit_tests.helpers import unique
from tests.unit_tests.test_cli_scripts import notes, write_note_model

runner = CliRunner()
QUESTION = re.compile(r"--question (\w+)")


@pytest.fixture(autouse=True)
def _no_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prompts, "stdin_is_terminal", lambda: False)


def waiting_thread(chdir: Path, mcp_config: dict[str, Any], title: str) -> tuple[str, str, str]:
    """A thread waiting to write note `title`: (thread, model, the printed question id)."""
    (chdir / "mcp.json").write_text(json.dumps(mcp_config))
    model, thread = write_note_model(title), unique("cli-bound")
    waiting = runner.invoke(app, ["run", "Save", "--thread", thread, "--new", "--model", model])
    assert waiting.exit_code == 3, waiting.output
    found = QUESTION.search(waiting.stdout)
    assert found is not None, waiting.stdout
    assert f"(question {found[1]})" in waiting.stdout
    return thread, model, found[1]


def test_resume_decisions_editing_into_another_tool_exits_2_and_runs_nothing(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path
) -> None:
    title = unique("cli-swap")
    thread, model, _ = waiting_thread(chdir_tmp, mcp_config, title)
    swap = {"name": "delete_note", "args": {"title": "keep"}}
    decisions = json.dumps({"decisions": [{"type": "edit", "edited_action": swap}]})

    refused = runner.invoke(app, ["resume", thread, "--model", model, "--decisions", decisions])

    assert refused.exit_code == 2, refused.output
    (line,) = refused.stderr.strip().splitlines()
    assert "edits 'write_note' into 'delete_note'" in line
    assert "not the tool" in line
    assert title not in notes(workdir)
    # The question still waits, unchanged.
    listed = json.loads(runner.invoke(app, ["threads", "--json"]).stdout)
    assert {t["thread_id"]: t["status"] for t in listed}[thread] == "waiting for approval"


def test_resume_with_a_stale_question_id_exits_2_and_the_right_one_is_used(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path
) -> None:
    title = unique("cli-stale")
    thread, model, question = waiting_thread(chdir_tmp, mcp_config, title)
    stale = "0" * 32

    refused = runner.invoke(
        app, ["resume", thread, "--model", model, "--question", stale, "--approve"]
    )

    assert refused.exit_code == 2, refused.output
    (line,) = refused.stderr.strip().splitlines()
    assert f"Question {stale} is not the one waiting on thread {thread!r}" in line
    assert question in line
    assert title not in notes(workdir)

    done = runner.invoke(
        app, ["resume", thread, "--model", model, "--question", question, "--approve"]
    )
    assert done.exit_code == 0, done.output
    assert notes(workdir)[title] == "from a script"


def test_question_without_an_answer_is_a_usage_error(chdir_tmp: Path) -> None:
    result = runner.invoke(app, ["resume", "t", "--question", "0" * 32])
    assert result.exit_code == 2
    assert "--question goes with the answer it binds" in result.stderr


def test_answers_are_keyed_by_the_question_shown_even_for_one() -> None:
    asked = Interrupt(value={"action_requests": []}, id="a" * 32)
    command = resume_command([asked], [{"decisions": []}])
    assert command.resume == {"a" * 32: {"decisions": []}}
