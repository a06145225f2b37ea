"""What `mcp-planner` prints: version, help with plain metavars and the exit codes, and tables
that stay whole through a pipe (full thread ids, long text cut with an ellipsis)."""

from __future__ import annotations

import asyncio
import json
import re
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from common.memory import RunRecord, save_run
from common.persistence import open_persistence
from strategies.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()
COMMANDS = ["run", "resume", "chat", "tools", "threads", "history", "graph"]


def test_version_comes_from_the_installed_package() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"mcp-planner {version('langgraph-mcp-planner')}"


def test_help_lists_the_exit_codes() -> None:
    text = " ".join(runner.invoke(app, ["--help"]).stdout.split())
    for code in ("0 done as asked", "1 something failed", "2 usage or configuration error"):
        assert code in text
    assert "3 waiting for approval" in text
    assert "130 stopped by Ctrl-C" in text


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_plain_metavars(command: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0, result.output
    assert "<str>" not in result.stdout
    assert "<bool>" not in result.stdout
    assert "<path>" not in result.stdout
    assert "<int>" not in result.stdout


def test_run_and_resume_help_name_what_to_give() -> None:
    run = runner.invoke(app, ["run", "--help"]).stdout
    assert "run [OPTIONS] REQUEST" in run
    for metavar in ("ID", "PATH", "MODE", "PROVIDER:MODEL"):
        assert metavar in run
    resume = runner.invoke(app, ["resume", "--help"]).stdout
    assert "resume [OPTIONS] ID" in resume
    for option in ("--approve", "--reject", "--message", "--decisions", "--answer", "JSON"):
        assert option in resume


LONG_ID = "a-thread-id-long-enough-to-be-cut-by-a-careless-table-0123456789"
LONG_QUESTION = "Count the widgets " * 20


async def _seed() -> None:
    from strategies.with_planner.graph import build_graph

    async with open_persistence() as (saver, store):
        graph = build_graph(checkpointer=saver, store=store)
        config: Any = {"configurable": {"thread_id": LONG_ID}}
        await graph.aupdate_state(
            config, {"messages": [{"role": "user", "content": LONG_QUESTION}]}
        )
        record = RunRecord(
            question=LONG_QUESTION,
            plan=[],
            tool_calls=[],
            answer="There are 120 widgets. " * 10,
            started_at=None,
            ended_at="2026-01-01T00:00:00",
            thread_id=LONG_ID,
        )
        await save_run(store, "default", record)


def _table_is_whole(text: str) -> None:
    rows = [line for line in text.splitlines() if line.startswith(("|", "+"))]
    assert rows, text
    assert len({len(row) for row in rows}) == 1, text
    assert "│" not in text
    assert "┃" not in text


def test_threads_and_history_through_a_pipe(chdir_tmp: Path) -> None:
    asyncio.run(_seed())
    threads = runner.invoke(app, ["threads"])
    assert threads.exit_code == 0, threads.output
    assert LONG_ID in threads.stdout
    assert "Count the widgets Count" in threads.stdout
    assert "…" in threads.stdout
    _table_is_whole(threads.stdout)

    history = runner.invoke(app, ["history", "widgets"])
    assert history.exit_code == 0, history.output
    assert LONG_ID in history.stdout
    assert "…" in history.stdout
    _table_is_whole(history.stdout)


def test_history_with_no_match_says_so(chdir_tmp: Path) -> None:
    asyncio.run(_seed())
    result = runner.invoke(app, ["history", "zebras giraffes"])
    assert result.exit_code == 0
    assert result.stdout.strip() == "No past runs match 'zebras giraffes'."
    as_json = runner.invoke(app, ["history", "zebras", "--json"])
    assert json.loads(as_json.stdout) == []


def test_reading_commands_create_nothing_in_an_empty_folder(chdir_tmp: Path) -> None:
    assert runner.invoke(app, ["threads"]).stdout.startswith("No threads here yet")
    assert runner.invoke(app, ["history"]).stdout.strip() == "No past runs yet."
    assert json.loads(runner.invoke(app, ["threads", "--json"]).stdout) == []
    assert not (chdir_tmp / ".mcp-planner").exists()


def test_the_run_help_example_works_keyless(chdir_tmp: Path) -> None:
    shown = " ".join(runner.invoke(app, ["run", "--help"]).stdout.split())
    found = re.search(r"works keyless.*?: mcp-planner run '(.+?)'", shown)
    assert found, shown
    (chdir_tmp / "mcp.json").write_text((ROOT / "mcp.json").read_text())
    result = runner.invoke(app, ["run", found.group(1), "--json"])
    outcome = json.loads(result.stdout)
    # The demo stops at the note for approval (no terminal), titled as asked.
    assert result.exit_code == 3, result.output
    assert [p["args"]["title"] for p in outcome["pending"]] == ["stock"]
    assert "need a language model: set MODEL" in shown
