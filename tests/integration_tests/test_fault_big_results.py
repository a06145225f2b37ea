"""A 5 MB read passed by `${t1.result}` into an approved write: every byte, bounded memory.

The expert is an in-process MCPServer server: `dump` returns 5 MB of distinct lines, `save`
(irreversible) records what it received. The model sees a trimmed view only.
"""

from __future__ import annotations

import gc
import pickle
import tracemalloc
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from mcp.server.mcpserver import MCPServer

from common.mcp.inprocess import register_inprocess_server
from strategies.with_planner.graph import build_graph
from strategies.with_planner.results import VIEW_CHARS
from tests.doubles import calls, tool_call
from tests.unit_tests.helpers import Thread, plan, unique

pytestmark = pytest.mark.long_file

BIG = "".join(f"line {n:07d}\n" for n in range(5_000_000 // 13))
"""About 5 MB, every line distinct, so a cut or a reordering anywhere shows."""

MB = 1024 * 1024


def big_server(received: list[str]) -> str:
    """Register an expert whose read returns `BIG` and whose write records its text."""
    mcp = MCPServer(unique("bigdata"))

    @mcp.tool()
    async def dump() -> str:
        """Read the whole export."""
        return BIG

    @mcp.tool()
    async def save(text: str) -> str:
        """Save a text as the new export (irreversible)."""
        received.append(text)
        return f"saved {len(text)} chars"

    register_inprocess_server(mcp.name, mcp)
    return mcp.name


def steps() -> Any:
    """Read the export, then write it back whole through a template."""
    read = {"id": "t1", "expert": "bigdata", "task": "Read the export", "tool": "dump", "args": {}}
    write = {
        "id": "t2",
        "expert": "bigdata",
        "task": "Save it",
        "tool": "save",
        "args": {"text": "${t1.result}"},
        "depends_on": ["t1"],
    }
    return plan(read, write)


async def run_turn(scripted: Any, store: InMemoryStore | None) -> tuple[Thread, list[str], Any]:
    """One approved turn over the big expert; the thread, what `save` got, the models."""
    received: list[str] = []
    server = big_server(received)
    ctx, models = scripted(planner=[steps()], response=["Saved the export."])
    ctx["mcp_config"] = {
        "mcpServers": {"bigdata": {"inprocess": server, "irreversible_tools": ["save"]}}
    }
    thread = Thread(ctx, graph=build_graph(InMemorySaver(), store))
    await thread.send("Copy the export")
    (request,) = await thread.interrupts()
    assert [a["name"] for a in request["action_requests"]] == ["save"]
    await thread.resume({"decisions": [{"type": "approve"}]})
    return thread, received, models


async def test_the_write_gets_all_5_mb_and_the_model_a_trimmed_view(scripted: Any) -> None:
    thread, received, models = await run_turn(scripted, InMemoryStore())

    assert received == [BIG], "the approved write got every byte, once"
    tasks = {t["id"]: t for t in (await thread.values())["previous_plan"]}
    assert tasks["t2"]["status"] == "completed"
    assert len(tasks["t1"]["result"]) < VIEW_CHARS + 40
    seen = " ".join(str(m.content) for m in models["response"].requests[0]["messages"])
    assert len(seen) < 100_000, "the answer's model saw a view, not 5 MB"
    assert BIG[-200:] not in seen


async def test_memory_and_state_stay_bounded(scripted: Any) -> None:
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    thread, received, _ = await run_turn(scripted, InMemoryStore())
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()

    values = await thread.values()
    state = len(pickle.dumps(values))
    print(f"5 MB result: process grew {grown / MB:.1f} MB, pickled state {state / MB:.1f} MB")
    assert received == [BIG]
    assert grown < 200 * MB
    assert state < 1 * MB, "the 5 MB lives in the store, not in the checkpointed state"


async def test_an_expert_read_result_is_stored_and_passed_on_whole(scripted: Any) -> None:
    """The same hand-off when the read is an expert's own tool call, judged by the assessor."""
    received: list[str] = []
    server = big_server(received)
    read = {"id": "t1", "expert": "bigdata", "task": "Read the export"}
    write = {
        "id": "t2",
        "expert": "bigdata",
        "task": "Save it",
        "tool": "save",
        "args": {"text": "${t1.result}"},
        "depends_on": ["t1"],
    }
    ctx, _ = scripted(
        planner=[plan(read, write)],
        orchestrate=[calls(tool_call("dump", {})), "Read the export."],
        assess=[{"completed": True, "reason": "read"}],
        response=["Saved the export."],
    )
    ctx["mcp_config"] = {
        "mcpServers": {"bigdata": {"inprocess": server, "irreversible_tools": ["save"]}}
    }
    thread = Thread(ctx, graph=build_graph(InMemorySaver(), InMemoryStore()))
    await thread.send("Copy the export")
    await thread.resume({"decisions": [{"type": "approve"}]})

    (text,) = received
    assert text.startswith(BIG), "the expert's whole read reached the write, uncut"
    values = await thread.values()
    assert len(pickle.dumps(values)) < 1 * MB, "the 5 MB lives in the store, not in state"
    t1 = next(t for t in values["previous_plan"] if t["id"] == "t1")
    assert t1["full"] is not None
    assert t1["full"]["key"] is not None, "t1's whole result is referenced by a store key"
