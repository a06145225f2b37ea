"""Prompts in a terminal: bad JSON at the edit prompt is explained and asked again; Ctrl-C or
the end of input at any prompt stops cleanly (exit 130) with nothing run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rich.prompt import Prompt
from typer.testing import CliRunner

from strategies.cli import prompts
from strategies.cli.app import app
from tests.doubles import ScriptedChatModel, calls, install_scripted, tool_call

runner = CliRunner()


@pytest.fixture(autouse=True)
def _terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prompts, "stdin_is_terminal", lambda: True)


def write_note_model(title: str) -> str:
    script: list[Any] = [
        {"plan": [{"id": "t1", "expert": "notes", "task": f"Write note {title}"}]},
        "IRREVERSIBLE: YES\nBLOCKED_TOOLS: write_note",
        calls(tool_call("write_note", {"title": title, "body": "proposed"})),
        {"completed": True, "reason": "handled"},
        f"Handled {title}.",
    ]
    return install_scripted(ScriptedChatModel(script=script, name_=f"prompts-{title}"))


def notes(workdir: Path) -> dict[str, str]:
    path = workdir / "notes.json"
    return dict(json.loads(path.read_text())) if path.exists() else {}


def test_invalid_json_at_the_edit_prompt_is_explained_and_asked_again(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    model = write_note_model("prompt-edit")
    edited = json.dumps({"title": "prompt-edited", "body": "edited"})
    answers = f"e\n{{not json\n[1, 2]\n{edited}\n"
    result = runner.invoke(app, ["run", "Save", "--model", model], input=answers)
    assert result.exit_code == 0, result.output
    assert "Not valid JSON (Expecting property name" in result.stderr
    assert "try again" in result.stderr
    assert "The args must be a JSON object" in result.stderr
    assert "Traceback" not in result.output
    assert notes(workdir)["prompt-edited"] == "edited"
    assert "prompt-edit" not in notes(workdir)


@pytest.mark.parametrize("answers", ["", "e\n"], ids=["at-approve", "at-edit"])
def test_end_of_input_at_a_prompt_stops_with_130_and_runs_nothing(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path, answers: str
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    title = f"prompt-eof-{len(answers)}"
    model = write_note_model(title)
    result = runner.invoke(
        app,
        ["run", "Save", "--thread", f"eof-{len(answers)}", "--new", "--model", model],
        input=answers,
    )
    assert result.exit_code == 130, result.output
    assert f"Stopped. The thread is saved: mcp-planner resume eof-{len(answers)}" in result.stderr
    assert "Traceback" not in result.output
    assert title not in notes(workdir)
    listed = json.loads(runner.invoke(app, ["threads", "--json"]).stdout)
    assert listed[0]["status"] == "waiting for approval"


def test_ctrl_c_at_the_reason_prompt_stops_with_130(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    model = write_note_model("prompt-ctrl-c")
    asked: list[str] = []

    def ask(question: str, **options: Any) -> str:
        asked.append(question)
        if question.startswith("reason"):
            raise KeyboardInterrupt
        return "r"

    monkeypatch.setattr(Prompt, "ask", ask)
    result = runner.invoke(app, ["run", "Save", "--thread", "ctrl-c", "--new", "--model", model])
    assert result.exit_code == 130, result.output
    assert asked == [prompts.REMEMBER_CHOICE, "reason (optional)"]
    assert "Stopped. The thread is saved: mcp-planner resume ctrl-c" in result.stderr
    assert "prompt-ctrl-c" not in notes(workdir)


def test_ctrl_c_at_the_chat_prompt_stops_with_130(
    chdir_tmp: Path, mcp_config: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    model = install_scripted(ScriptedChatModel(script=[], name_="prompts-chat"))

    def ask(question: str, **options: Any) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(Prompt, "ask", ask)
    result = runner.invoke(app, ["chat", "--thread", "chat-c", "--model", model])
    assert result.exit_code == 130, result.output
    assert "Stopped. The thread is saved: mcp-planner resume chat-c" in result.stderr


def test_end_of_input_at_the_chat_prompt_ends_the_chat(
    chdir_tmp: Path, mcp_config: dict[str, Any]
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    model = install_scripted(ScriptedChatModel(script=[], name_="prompts-chat-eof"))
    result = runner.invoke(app, ["chat", "--model", model], input="")
    assert result.exit_code == 0, result.output
