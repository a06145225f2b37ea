"""The `mcp-planner` command, driven in-process with a scripted model for every node."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from strategies.cli import prompts
from strategies.cli.app import app
from tests.doubles import ScriptedChatModel, calls, install_scripted, tool_call

runner = CliRunner()


@pytest.fixture(autouse=True)
def _terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests answer prompts, as a person at a terminal would."""
    monkeypatch.setattr(prompts, "stdin_is_terminal", lambda: True)


def _one_model_for_all(title: str) -> str:
    script: list[Any] = [
        {"plan": [{"id": "t1", "expert": "notes", "task": f"Write note {title}"}]},
        "IRREVERSIBLE: YES\nBLOCKED_TOOLS: write_note",
        calls(tool_call("write_note", {"title": title, "body": "120 in stock"})),
        {"completed": True, "reason": "note written"},
        f"Saved the note {title}.",
    ]
    return install_scripted(ScriptedChatModel(script=script, name_="cli"))


def test_run_asks_approval_in_terminal_and_runs_on_approve(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    model = _one_model_for_all("cli-approved")
    result = runner.invoke(
        app,
        ["run", "Save the stock as a note", "--model", model, "--config", "mcp.json"],
        input="a\n",
    )
    assert result.exit_code == 0, result.output
    assert "Approve write_note?" in result.output
    assert "Saved the note cli-approved." in result.output
    notes = json.loads((workdir / "notes.json").read_text())
    assert notes["cli-approved"] == "120 in stock"
    assert (chdir_tmp / ".mcp-planner" / "checkpoints.sqlite").exists()


def test_run_reject_in_terminal_never_writes(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    model = _one_model_for_all("cli-rejected")
    result = runner.invoke(
        app, ["run", "Save it", "--model", model, "--config", "mcp.json"], input="r\nnot now\n"
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Approve write_note?" in result.output
    log = workdir / "notes.log"
    assert "cli-rejected" not in (log.read_text() if log.exists() else "")
    notes = workdir / "notes.json"
    assert "cli-rejected" not in (json.loads(notes.read_text()) if notes.exists() else {})


def test_run_reject_shows_the_declined_call(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    model = _one_model_for_all("cli-rejected-shown")
    result = runner.invoke(
        app, ["run", "Save it", "--model", model, "--config", "mcp.json"], input="r\nnot now\n"
    )
    # One planner step shown for the turn: the step that only fixes its settings is not.
    assert result.output.count("· planner") == 1, result.output
    # The task's nodes, inside the run_task subgraph, are streamed...
    assert "· orchestrate" in result.output, result.output
    assert "· assess_task" in result.output, result.output
    # ...and so is what call_tool did with the call.
    assert "The user declined to run 'write_note'. Their reason: not now" in result.output, (
        result.output
    )


def test_run_without_api_key_fails_with_one_sentence(
    chdir_tmp: Path, mcp_config: dict[str, Any]
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    result = runner.invoke(app, ["run", "hello", "--model", "openai:gpt-4o-mini"])
    assert result.exit_code == 2
    assert "OPENAI_API_KEY" in result.stderr or "ALLOW_MODEL_REQUESTS" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_bad_mcp_config_is_reported_with_exit_code_2(chdir_tmp: Path) -> None:
    (chdir_tmp / "bad.json").write_text(json.dumps({"mcpServers": {"x": {"comand": "y"}}}))
    model = install_scripted(ScriptedChatModel(script=[], name_="unused"))
    result = runner.invoke(app, ["run", "hi", "--model", model, "--config", "bad.json"])
    assert result.exit_code == 2
    assert "server 'x'" in result.stderr
    assert "comand" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not (chdir_tmp / ".mcp-planner").exists()


def test_graph_command_prints_mermaid() -> None:
    result = runner.invoke(app, ["graph"])
    assert result.exit_code == 0
    assert "irreversibility_check" in result.output
    assert "graph TD" in result.output
