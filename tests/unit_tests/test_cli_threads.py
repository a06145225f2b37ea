"""The CLI's thread commands: threads, resume and history, on the SQLite files of a project."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from common.mcp.registry import shutdown_pool
from common.persistence import open_persistence
from strategies.cli import prompts
from strategies.cli.app import app
from strategies.with_planner.graph import build_graph
from tests.doubles import ScriptedChatModel, calls, install_scripted, tool_call

runner = CliRunner()


@pytest.fixture(autouse=True)
def _terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests answer prompts, as a person at a terminal would."""
    monkeypatch.setattr(prompts, "stdin_is_terminal", lambda: True)


def _model(title: str) -> str:
    script: list[Any] = [
        {"plan": [{"id": "t1", "expert": "notes", "task": f"Write note {title}"}]},
        "IRREVERSIBLE: YES\nBLOCKED_TOOLS: write_note",
        calls(tool_call("write_note", {"title": title, "body": "from a resumed thread"})),
        {"completed": True, "reason": "written"},
        f"Saved {title}.",
    ]
    return install_scripted(ScriptedChatModel(script=script, name_="cli-threads"))


async def _start(thread: str, ctx: dict[str, Any]) -> None:
    async with open_persistence() as (saver, store):
        graph = build_graph(checkpointer=saver, store=store)
        request = {"messages": [{"role": "user", "content": "Save a note please"}]}
        try:
            await graph.ainvoke(request, {"configurable": {"thread_id": thread}}, context=ctx)
        finally:
            await shutdown_pool()


def test_threads_lists_a_waiting_thread_and_resume_answers_its_approval(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    model = _model("resumed-from-cli")
    asyncio.run(_start("th-1", {"mcp_config": mcp_config, "model": model}))

    listed = runner.invoke(app, ["threads", "--json"])
    assert listed.exit_code == 0, listed.output
    (row,) = json.loads(listed.output)
    assert row["thread_id"] == "th-1"
    assert row["last_question"] == "Save a note please"
    assert row["status"] == "waiting for approval"

    resumed = runner.invoke(
        app, ["resume", "th-1", "--model", model, "--config", "mcp.json"], input="a\n"
    )
    assert resumed.exit_code == 0, resumed.output
    assert "Approve write_note?" in resumed.output
    assert "Saved resumed-from-cli." in resumed.output
    notes = json.loads((workdir / "notes.json").read_text())
    assert notes["resumed-from-cli"] == "from a resumed thread"

    after = json.loads(runner.invoke(app, ["threads", "--json"]).output)
    assert after[0]["status"] == "done"

    history = runner.invoke(app, ["history", "note", "--json"])
    assert history.exit_code == 0, history.output
    (run,) = json.loads(history.output)
    assert run["question"] == "Save a note please"
    assert run["answer"] == "Saved resumed-from-cli."
    assert run["tool_calls"][0]["tool"] == "write_note"


def test_ctrl_c_leaves_the_thread_resumable_and_says_how(
    chdir_tmp: Path, mcp_config: dict[str, Any], monkeypatch: Any
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    model = _model("interrupted-by-ctrl-c")
    real_answer = prompts.ask_in_terminal

    def ctrl_c_at_the_prompt(value: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(prompts, "ask_in_terminal", ctrl_c_at_the_prompt)
    stopped = runner.invoke(
        app,
        [
            "run",
            "Save a note please",
            "--thread",
            "th-c",
            "--new",
            "--model",
            model,
            "--config",
            "mcp.json",
        ],
    )
    assert stopped.exit_code == 130
    assert "mcp-planner resume th-c" in stopped.output
    listed = json.loads(runner.invoke(app, ["threads", "--json"]).output)
    assert listed[0]["status"] == "waiting for approval"

    monkeypatch.setattr(prompts, "ask_in_terminal", real_answer)
    resumed = runner.invoke(
        app, ["resume", "th-c", "--model", model, "--config", "mcp.json"], input="a\n"
    )
    assert resumed.exit_code == 0, resumed.output
    assert "Saved interrupted-by-ctrl-c." in resumed.output


def test_threads_json_names_the_thread_as_run_json_does(
    chdir_tmp: Path, mcp_config: dict[str, Any]
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    ran = json.loads(runner.invoke(app, ["run", "How many units of WID-1?", "--json"]).stdout)
    (row,) = json.loads(runner.invoke(app, ["threads", "--json"]).stdout)
    assert row["thread_id"] == ran["thread_id"]
    assert "thread" not in row
