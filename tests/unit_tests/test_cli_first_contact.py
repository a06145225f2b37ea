"""First contact, tried as a new user would: a mistyped thread id, and `tools` with nothing
to list, each end in one sentence with the documented exit code, never an empty success."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from strategies.cli.app import app

runner = CliRunner()
DEMO = {
    "mcpServers": {
        "inventory": {
            "command": sys.executable,
            "args": ["-m", "common.demo_servers.inventory"],
            "description": "Product stock and prices (read-only).",
        }
    }
}
STOCK = 'How many units of "WID-1" are in stock'


def one_line(result: Any) -> str:
    """The single stderr line of a refused command (no traceback, nothing else)."""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return str(lines[0])


def test_run_on_an_unknown_thread_is_refused_before_anything_is_created(
    chdir_tmp: Path,
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(DEMO))

    result = runner.invoke(app, ["run", STOCK, "--thread", "nope", "--model", "offline:rules"])

    assert result.exit_code == 2
    assert one_line(result) == (
        "No thread 'nope' here (mcp-planner threads lists them); add --new to start a new "
        "thread under that id."
    )
    assert not (chdir_tmp / ".mcp-planner").exists()


def test_a_mistyped_id_beside_saved_threads_is_refused_and_new_starts_one(
    chdir_tmp: Path,
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(DEMO))
    first = ["run", STOCK, "--thread", "stock-1", "--new", "--model", "offline:rules"]
    assert runner.invoke(app, first).exit_code == 0

    typo = runner.invoke(app, ["run", STOCK, "--thread", "stokc-1", "--model", "offline:rules"])
    again = runner.invoke(app, ["run", STOCK, "--thread", "stock-1", "--model", "offline:rules"])
    renew = runner.invoke(app, first)
    bare = runner.invoke(app, ["run", STOCK, "--new", "--model", "offline:rules"])
    listed = runner.invoke(app, ["threads", "--json"])

    assert typo.exit_code == 2
    assert "No thread 'stokc-1' here" in one_line(typo)
    assert again.exit_code == 0, again.stderr
    assert renew.exit_code == 2
    assert one_line(renew) == (
        "Thread 'stock-1' already exists: leave out --new to continue it, or choose another id."
    )
    assert bare.exit_code == 2
    assert one_line(bare) == "--new starts a thread under the id you give: add --thread ID."
    assert [t["thread_id"] for t in json.loads(listed.stdout)] == ["stock-1"]


def test_tools_with_no_server_says_so_and_exits_2(chdir_tmp: Path) -> None:
    (chdir_tmp / "mcp.json").write_text('{"mcpServers": {}}')

    result = runner.invoke(app, ["tools"])

    assert result.exit_code == 2
    assert one_line(result) == (
        'No expert to list: mcp.json configures no MCP server; add one under "mcpServers", '
        "or pass --config PATH."
    )
    assert result.stdout == ""


def test_tools_when_every_server_fails_gives_each_reason_and_what_to_do(
    chdir_tmp: Path,
) -> None:
    crash = "import sys; sys.stderr.write('kaput'); sys.exit(3)"
    config = {
        "mcpServers": {
            "broken": {"command": sys.executable, "args": ["-c", crash]},
            "missing": {"command": "no-such-mcp-server-command"},
        }
    }
    (chdir_tmp / "other.json").write_text(json.dumps(config))

    result = runner.invoke(app, ["tools", "--config", "other.json"])

    assert result.exit_code == 1
    line = one_line(result)
    assert line.startswith("No expert could be listed: Expert 'broken' is unavailable: ")
    assert "kaput" in line
    assert (
        "Expert 'missing' is unavailable: its command 'no-such-mcp-server-command' was not "
        "found; install it, or correct the command of server 'missing' in the MCP config file"
    ) in line
    assert line.endswith("; fix them in other.json, or pass --config PATH.")
    assert result.stdout == ""


def test_threads_reads_each_status_from_the_checkpoint_as_the_graph_does(
    chdir_tmp: Path,
) -> None:
    """`threads` no longer builds the graph: its statuses must still be the graph's own."""
    import asyncio

    import httpx

    from common.persistence import open_persistence
    from strategies.cli.records import list_threads, status_of
    from strategies.with_planner.graph import build_graph
    from tests.doubles import ScriptedChatModel, install_scripted

    notes = {
        "command": sys.executable,
        "args": ["-m", "common.demo_servers.notes"],
        "env": {"NOTES_FILE": str(chdir_tmp / "notes.json")},
        "description": "Team notes: list, read, write, delete.",
    }
    config = {"mcpServers": {**DEMO["mcpServers"], "notes": notes}}
    (chdir_tmp / "mcp.json").write_text(json.dumps(config))
    offline = ["--model", "offline:rules"]
    down = install_scripted(ScriptedChatModel(script=[httpx.ConnectError("refused")]))
    runs = {
        "t-done": (STOCK, offline, 0),
        "t-wait": (f'{STOCK}, then write a note titled "stock"', offline, 3),
        "t-stopped": (STOCK, ["--model", down], 1),
    }
    for thread, (request, model, code) in runs.items():
        done = runner.invoke(app, ["run", request, "--thread", thread, "--new", *model])
        assert done.exit_code == code, done.output

    async def both() -> tuple[dict[str, str], dict[str, str]]:
        listed = {r["thread_id"]: r["status"] for r in await list_threads()}
        graphs: dict[str, str] = {}
        async with open_persistence() as (saver, store):
            graph = build_graph(checkpointer=saver, store=store)
            for thread in runs:
                state = await graph.aget_state({"configurable": {"thread_id": thread}})
                waits = [i.value for i in state.interrupts]
                graphs[thread] = status_of(bool(state.next), waits)
        return listed, graphs

    listed, graphs = asyncio.run(both())
    assert listed == graphs
    assert listed == {
        "t-done": "done",
        "t-wait": "waiting for approval",
        "t-stopped": "stopped mid-run",
    }
