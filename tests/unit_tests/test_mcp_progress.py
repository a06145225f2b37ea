"""Long calls: the server's progress notifications reach the registry's caller, the graph's
stream (a "progress" event and the plan card), and the CLI's live plan, on one capped line."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from rich.console import Console

from common.mcp import ExpertRegistry
from common.mcp.config import parse_mcp_config
from common.mcp.inprocess import register_inprocess_server
from strategies.cli.render import PlanBoard, progress_line
from strategies.with_planner.plan_card import card_id, progress_key
from strategies.with_planner.progress import MESSAGE_CHARS, Listener
from tests.doubles import calls, tool_call
from tests.unit_tests.helpers import Thread, done, plan, unique

LONG = "shelf " * 40
"""A message far longer than a line."""


def slow_server() -> str:
    """Register an in-process expert whose `load` reports its progress before answering."""
    mcp = MCPServer(unique("slow"))

    @mcp.tool()
    async def load(steps: int, ctx: Context) -> str:
        """Load the shelves one by one."""
        for i in range(1, steps + 1):
            await ctx.report_progress(i, steps, f"loading shelf {i}")
        await ctx.report_progress(steps, None, f"line one\nline two {LONG}")
        return f"loaded {steps} shelves"

    register_inprocess_server(mcp.name, mcp)
    return mcp.name


def slow_config(server: str) -> dict[str, Any]:
    """An `mcpServers` document with the slow expert only (its tool is read-only)."""
    entry = {"inprocess": server, "description": "Slow loads.", "reversible_tools": ["load"]}
    return {"mcpServers": {"slow": entry}}


async def test_registry_call_hands_every_update_to_the_callback_in_order() -> None:
    registry = ExpertRegistry(parse_mcp_config(slow_config(slow_server())))
    heard: list[tuple[float, float | None, str | None]] = []

    async def listen(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, total, message))

    result = await registry.call("slow", "load", {"steps": 3}, 10.0, True, progress=listen)

    assert result["status"] == "ok"
    assert "loaded 3 shelves" in result["content"]
    assert heard[:3] == [
        (1, 3, "loading shelf 1"),
        (2, 3, "loading shelf 2"),
        (3, 3, "loading shelf 3"),
    ]
    assert len(heard) == 4
    assert heard[3][1] is None
    # Without a callback the call is the same call.
    again = await registry.call("slow", "load", {"steps": 2}, 10.0, True)
    assert again["status"] == "ok"
    assert "loaded 2 shelves" in again["content"]


async def test_a_failing_listener_never_breaks_the_call() -> None:
    def broken(_chunk: Any) -> None:
        raise RuntimeError("stream gone")

    registry = ExpertRegistry(parse_mcp_config(slow_config(slow_server())))
    listener = Listener(broken, "t1", "slow", "load", "turn-1")
    result = await registry.call("slow", "load", {"steps": 2}, 10.0, True, progress=listener)
    assert result["status"] == "ok"


async def stream(thread: Thread, text: str) -> list[dict[str, Any]]:
    """The custom stream events of one run, subgraphs' included."""
    payload = {"messages": [{"role": "user", "content": text}]}
    return [
        chunk
        async for _ns, chunk in thread.graph.astream(
            payload, thread.config, context=thread.ctx, stream_mode="custom", subgraphs=True
        )
    ]


def check_progress(chunks: list[dict[str, Any]], task_id: str) -> None:
    """The run streamed the call's updates in order, with one capped line each, and the card."""
    events = [c for c in chunks if c.get("event") == "progress"]
    assert [(e["progress"], e["total"]) for e in events] == [(1, 3), (2, 3), (3, 3), (3, None)]
    assert all(e["task_id"] == task_id and e["expert"] == "slow" for e in events)
    assert all(e["tool"] == "load" for e in events)
    assert events[0]["message"] == "loading shelf 1"
    last = events[-1]["message"]
    assert "\n" not in last
    assert last.startswith("line one\\nline two")
    assert len(last) == MESSAGE_CHARS
    assert last.endswith("…")
    cards = [c for c in chunks if c.get("type") == "ui"]
    with_progress = [c for c in cards if any(k.startswith("progress:") for k in c["props"])]
    assert len(with_progress) == len(events)
    assert len({c["id"] for c in cards}) == 1
    assert with_progress[0]["id"].startswith(card_id(""))
    shown = with_progress[0]["props"][progress_key(task_id)]
    assert shown == {"tool": "load", "progress": 1, "total": 3, "message": "loading shelf 1"}
    # Whole cards, the plan included (a client's reducer replaces a card by its id).
    assert all(c["props"]["tasks"] and not c["metadata"]["merge"] for c in with_progress)
    # The card sent once the call ended carries no progress.
    assert not any(k.startswith("progress:") for k in cards[-1]["props"])


async def test_a_direct_step_streams_its_progress(scripted: Any) -> None:
    step: Any = {"id": "t1", "expert": "slow", "task": "Load", "tool": "load", "args": {"steps": 3}}
    ctx, _ = scripted(planner=[plan(step)], response=["Loaded."])
    ctx["mcp_config"] = slow_config(slow_server())
    check_progress(await stream(Thread(ctx), "Load the shelves."), "t1")


async def test_an_orchestrated_task_streams_its_progress(scripted: Any) -> None:
    ctx, _ = scripted(
        planner=[plan({"id": "t7", "expert": "slow", "task": "Load three shelves"})],
        orchestrate=[calls(tool_call("load", {"steps": 3})), "Loaded."],
        assess=[done()],
        response=["Loaded."],
    )
    ctx["mcp_config"] = slow_config(slow_server())
    check_progress(await stream(Thread(ctx), "Load the shelves."), "t7")


def board_text(board: PlanBoard) -> str:
    """The live plan as a wide terminal shows it."""
    console = Console(width=200, record=True, force_terminal=False)
    console.print(board.__rich__())
    return console.export_text()


def test_the_live_plan_shows_a_running_task_s_latest_progress() -> None:
    board = PlanBoard()
    board.apply(
        {
            "event": "plan",
            "plan": [{"id": "t1", "expert": "inventory", "task": "stock", "status": "ready"}],
        }
    )
    board.apply({"event": "task_start", "task_id": "t1", "expert": "inventory"})
    event = {"event": "progress", "task_id": "t1", "expert": "inventory", "tool": "get_stock"}
    board.apply({**event, "progress": 1, "total": 10, "message": "opening"})
    board.apply({**event, "progress": 3, "total": 10, "message": "loading shelves"})
    shown = board_text(board)
    assert "running get_stock 3/10 loading shelves" in shown
    assert "opening" not in shown
    board.apply({"event": "task_end", "task_id": "t1", "status": "completed", "error": None})
    assert "get_stock" not in board_text(board)


def test_a_progress_line_is_one_capped_line() -> None:
    event = {"event": "progress", "task_id": "t1", "tool": "load", "progress": 2, "total": None}
    assert progress_line({**event, "message": None}) == "load 2"
    assert progress_line({**event, "total": 4, "message": "half"}) == "load 2/4 half"
    shown = progress_line({**event, "message": f"first\nsecond\r\x1b[2J {LONG}"})
    assert "\n" not in shown
    assert "\r" not in shown
    assert "\x1b" not in shown
    assert shown.startswith("load 2 first\\nsecond\\r\\x1b[2J shelf")
    assert len(shown) == len("load 2 ") + 80
    assert shown.endswith("…")
