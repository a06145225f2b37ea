"""Without a terminal `mcp-planner` never prompts: it lists what waits, exits 3, and takes the
answer as options of `resume`; `--json` prints exactly one JSON object in every outcome."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from strategies.cli import prompts
from strategies.cli.app import app
from tests.doubles import ScriptedChatModel, calls, install_scripted, tool_call
from tests.unit_tests.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
KEYS = {"thread_id", "status", "exit_code", "pending", "answer", "tasks", "problems", "error"}
runner = CliRunner()


@pytest.fixture(autouse=True)
def _no_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    def never_prompt(value: Any) -> Any:
        raise AssertionError("prompted without a terminal")

    monkeypatch.setattr(prompts, "stdin_is_terminal", lambda: False)
    monkeypatch.setattr(prompts, "ask_in_terminal", never_prompt)


def write_note_model(title: str, answer: str = "Done.") -> str:
    script: list[Any] = [
        {"plan": [{"id": "t1", "expert": "notes", "task": f"Write note {title}"}]},
        "IRREVERSIBLE: YES\nBLOCKED_TOOLS: write_note",
        calls(tool_call("write_note", {"title": title, "body": "from a script"})),
        {"completed": True, "reason": "handled"},
        answer,
    ]
    return install_scripted(ScriptedChatModel(script=script, name_=f"scripts-{title}"))


def notes(workdir: Path) -> dict[str, str]:
    path = workdir / "notes.json"
    return dict(json.loads(path.read_text())) if path.exists() else {}


def test_no_terminal_lists_the_approval_exits_3_and_resume_approve_runs_it(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    model = write_note_model("script-approved", "Saved script-approved.")
    waiting = runner.invoke(
        app, ["run", "Save a note", "--thread", "s-1", "--new", "--model", model]
    )
    assert waiting.exit_code == 3, waiting.output
    assert "write_note" in waiting.stdout
    assert '"title": "script-approved"' in waiting.stdout
    assert "irreversible" in waiting.stdout
    # The printed command names the question shown, so it cannot answer a later one.
    approve = re.search(
        rf"mcp-planner resume s-1 --model {model} --question (\w+) --approve", waiting.stdout
    )
    assert approve is not None, waiting.stdout
    assert "script-approved" not in notes(workdir)

    listed = json.loads(runner.invoke(app, ["threads", "--json"]).stdout)
    assert listed[0]["status"] == "waiting for approval"

    done = runner.invoke(
        app, ["resume", "s-1", "--model", model, "--question", approve[1], "--approve"]
    )
    assert done.exit_code == 0, done.output
    assert "Saved script-approved." in done.stdout
    assert notes(workdir)["script-approved"] == "from a script"


def test_run_json_waits_then_resume_reject_json_completes(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    model = write_note_model("script-rejected", "Not saved, as you asked.")
    waiting = runner.invoke(
        app, ["run", "Save", "--thread", "s-2", "--new", "--model", model, "--json"]
    )
    assert waiting.exit_code == 3, waiting.output
    outcome = json.loads(waiting.stdout)
    assert set(outcome) >= KEYS
    assert outcome["status"] == "awaiting_approval"
    assert outcome["thread_id"] == "s-2"
    (pending,) = outcome["pending"]
    assert pending["name"] == "write_note"
    assert pending["args"] == {"title": "script-rejected", "body": "from a script"}
    assert "irreversible" in pending["reason"]
    assert outcome["resume"].startswith("mcp-planner resume s-2")

    done = runner.invoke(
        app, ["resume", "s-2", "--model", model, "--reject", "--message", "no", "--json"]
    )
    assert done.exit_code == 0, done.output
    outcome = json.loads(done.stdout)
    assert outcome["status"] == "completed"
    assert outcome["pending"] == []
    assert "Not saved, as you asked." in outcome["answer"]
    assert [t["id"] for t in outcome["tasks"]] == ["t1"]
    assert set(outcome["tasks"][0]) == {"id", "expert", "task", "status", "result", "error"}
    assert "script-rejected" not in notes(workdir)


def test_resume_decisions_edit_runs_the_edited_call(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    model = write_note_model("script-edit-before")
    assert (
        runner.invoke(app, ["run", "Save", "--thread", "s-3", "--new", "--model", model]).exit_code
        == 3
    )
    edit = {
        "decisions": [
            {
                "type": "edit",
                "edited_action": {
                    "name": "write_note",
                    "args": {"title": "script-edited", "body": "edited"},
                },
            }
        ]
    }
    wrong = runner.invoke(
        app, ["resume", "s-3", "--model", model, "--decisions", json.dumps({"decisions": []})]
    )
    assert wrong.exit_code == 2
    assert wrong.stderr.strip() == (
        "--decisions has 0 decision(s) but 1 call(s) are pending: give one per call, in the "
        "order listed."
    )
    done = runner.invoke(app, ["resume", "s-3", "--model", model, "--decisions", json.dumps(edit)])
    assert done.exit_code == 0, done.output
    assert notes(workdir)["script-edited"] == "edited"
    assert "script-edit-before" not in notes(workdir)

    again = runner.invoke(app, ["resume", "s-3", "--model", model, "--approve"])
    assert again.exit_code == 2
    assert "is not waiting for approval" in again.stderr


def test_run_json_of_a_completed_run(chdir_tmp: Path, mcp_config: dict[str, Any]) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))

    def reply(messages: list[Any], meta: dict[str, Any]) -> Any:
        # One model for every role: the analyser is asked alongside the planner.
        if meta.get("schema") == "PlannerResult":
            return {"plan": []}
        if meta.get("schema"):
            return {"irreversible": False, "blocked_tools": [], "reasons": {}}
        return "Hello there."

    script: list[Any] = [reply] * 3
    model = install_scripted(ScriptedChatModel(script=script, name_="scripts-hello"))
    result = runner.invoke(app, ["run", "Say hello", "--model", model, "--json"])
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.stdout)
    assert outcome["status"] == "completed"
    assert outcome["answer"].startswith("Hello there.")
    assert outcome["problems"] == []


def test_an_expert_that_cannot_start_makes_run_exit_1_in_the_tools_words(
    chdir_tmp: Path, mcp_config: dict[str, Any]
) -> None:
    crash = "import sys; sys.stderr.write('kaput'); sys.exit(3)"
    broken = {"command": sys.executable, "args": ["-c", crash], "description": "Broken."}
    config = {"mcpServers": {"broken": broken}}
    (chdir_tmp / "mcp.json").write_text(json.dumps(config))

    def reply(messages: list[Any], meta: dict[str, Any]) -> Any:
        # Plans on the broken expert whenever asked for a plan; plain text otherwise.
        if meta.get("schema") is not None:
            return {"plan": [{"id": "t1", "expert": "broken", "task": "Do it"}]}
        return "It could not be done."

    script: list[Any] = [reply] * 20
    model = install_scripted(ScriptedChatModel(script=script, name_="scripts-broken"))
    result = runner.invoke(app, ["run", "Use the broken one", "--model", model, "--json"])
    assert result.exit_code == 1, (result.output, result.exception)
    outcome = json.loads(result.stdout)
    assert outcome["status"] == "failed"
    assert outcome["problems"]
    tools = runner.invoke(app, ["tools"])
    assert tools.exit_code == 1
    (words,) = [line for line in tools.stderr.splitlines() if "is unavailable" in line]
    # Its only expert failed: one line, the expert's words after what was not listed.
    assert words.startswith("No expert could be listed: Expert 'broken' is unavailable")
    assert any(words.split(": ")[1] in p for p in outcome["problems"]), outcome["problems"]
    assert "mcp_config in context" not in result.stderr + result.stdout


def test_the_demo_without_a_terminal_ends_with_exit_3_and_how_to_approve(tmp_path: Path) -> None:
    """What `make demo </dev/null` runs (the Makefile counts exit 3 as the demo's end)."""
    (tmp_path / "mcp.json").write_text((ROOT / "mcp.json").read_text())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MODEL", "OPENAI"))}
    request = 'How many units of WID-1 are in stock, then write a note titled "stock"'
    done = run_cli(["run", request], tmp_path, env, timeout=180)
    assert done.returncode == 3, done.stderr
    assert "offline:rules" in done.stderr
    assert "write_note" in done.stdout
    assert "Approve: mcp-planner resume " in done.stdout
    assert "Traceback" not in done.stderr
    thread = done.stdout.split("Approve: mcp-planner resume ", 1)[1].split()[0]
    resumed = run_cli(["resume", thread, "--approve", "--json"], tmp_path, env, timeout=180)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "completed"
    assert "stock" in json.loads((tmp_path / ".mcp-planner" / "notes.json").read_text())


def test_a_new_request_on_a_waiting_thread_is_refused_not_dropped(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    model = write_note_model("still-pending")
    waiting = runner.invoke(
        app, ["run", "Save a note", "--thread", "s-wait", "--new", "--model", model]
    )
    assert waiting.exit_code == 3, waiting.output
    again = runner.invoke(app, ["run", "list the notes", "--thread", "s-wait", "--model", model])
    assert again.exit_code == 2, again.output
    (line,) = again.stderr.strip().splitlines()
    assert "still waits for your decision" in line
    assert "mcp-planner resume s-wait" in line
    # The held call is still pending and can be approved.
    approved = runner.invoke(app, ["resume", "s-wait", "--approve", "--model", model])
    assert approved.exit_code == 0, approved.output
    assert notes(workdir)["still-pending"] == "from a script"


def test_plan_only_is_done_as_asked_and_says_how_to_release_the_held_call(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    request = 'How many units of WID-1 are in stock, then write a note titled "held-plan-only"'
    result = runner.invoke(app, ["run", request, "--mode", "plan_only", "--json"])
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.stdout)
    assert outcome["status"] == "completed"
    assert "Held back for your approval (plan_only)" in outcome["answer"]
    assert 'Reply "go ahead"' in outcome["answer"]
    assert "held-plan-only" not in notes(workdir)
