"""The SQLite checkpointer keeps each channel value once per version, and states round-trip."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import Command, interrupt

from common.persistence import sqlite_checkpointer
from common.persistence_sqlite import BlobSqliteSaver


class Chat(TypedDict, total=False):
    """A small conversation state: messages, a counter, a note and a dict set once."""

    messages: Annotated[list[AnyMessage], add_messages]
    count: int
    note: str
    data: dict[str, str]


def reply(state: Chat) -> dict[str, Any]:
    """Echo the last human message, with an id derived from it (runs compare equal)."""
    last = state["messages"][-1]
    return {"messages": [AIMessage(f"echo {last.content}", id=f"a-{last.id}")]}


def tally(state: Chat) -> dict[str, Any]:
    """Count the turn: the only channels this step changes are small."""
    count = state.get("count", 0) + 1
    return {"count": count, "note": f"turn {count}"}


def ask(state: Chat) -> dict[str, Any]:
    """Wait for a person's answer, then keep it as the note."""
    return {"note": interrupt("approve?")}


def chat_graph(saver: BaseCheckpointSaver[Any], *, asking: bool = False) -> Any:
    """reply → tally (→ ask when `asking`), compiled on `saver`."""
    builder = StateGraph(Chat)
    builder.add_node("reply", reply)
    builder.add_node("tally", tally)
    builder.add_edge(START, "reply")
    builder.add_edge("reply", "tally")
    if asking:
        builder.add_node("ask", ask)
        builder.add_edge("tally", "ask")
        builder.add_edge("ask", END)
    else:
        builder.add_edge("tally", END)
    return builder.compile(checkpointer=saver)


def turn(n: int, **extra: Any) -> dict[str, Any]:
    """Turn n's input: one human message with a stable id."""
    return {"messages": [HumanMessage(f"request {n}", id=f"h{n}")], **extra}


def config(thread: str) -> dict[str, Any]:
    """The run config of a thread."""
    return {"configurable": {"thread_id": thread}}


@asynccontextmanager
async def plain_saver(path: Path) -> AsyncIterator[AsyncSqliteSaver]:
    """LangGraph's own AsyncSqliteSaver on `path`: every value inline in each row."""
    async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
        await saver.setup()
        yield saver


async def run_turns(graph: Any, thread: str, turns: int) -> None:
    """`turns` turns on one thread; the first also sets `data`."""
    for n in range(1, turns + 1):
        extra = {"data": {"first": "x" * 200}} if n == 1 else {}
        await graph.ainvoke(turn(n, **extra), config(thread))


async def history(graph: Any, thread: str) -> list[tuple[Any, ...]]:
    """Every checkpoint of a thread as (values, next, step, source), newest first."""
    return [
        (s.values, s.next, s.metadata["step"], s.metadata["source"])
        async for s in graph.aget_state_history(config(thread))
    ]


def rows(path: Path, sql: str, *params: Any) -> list[Any]:
    """The rows of one query on the checkpoint database."""
    with sqlite3.connect(path) as conn:
        return conn.execute(sql, params).fetchall()


def stored_bytes(path: Path) -> int:
    """Bytes of every checkpoint row, write and blob in the database."""
    sizes = [
        "SELECT COALESCE(SUM(LENGTH(checkpoint) + LENGTH(metadata)), 0) FROM checkpoints",
        "SELECT COALESCE(SUM(LENGTH(value)), 0) FROM writes",
    ]
    total = sum(rows(path, sql)[0][0] for sql in sizes)
    tables = {r[0] for r in rows(path, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "checkpoint_blobs" in tables:
        total += rows(path, "SELECT COALESCE(SUM(LENGTH(blob)), 0) FROM checkpoint_blobs")[0][0]
    return int(total)


async def test_values_and_history_match_the_plain_saver(tmp_path: Path) -> None:
    """Three turns: every checkpoint of the history reads back as the plain saver's does."""
    async with plain_saver(tmp_path / "plain.sqlite") as plain:
        expected = chat_graph(plain)
        await run_turns(expected, "t", 3)
        want = await history(expected, "t")
    async with sqlite_checkpointer(tmp_path / "blobs.sqlite") as saver:
        assert isinstance(saver, BlobSqliteSaver)
        graph = chat_graph(saver)
        await run_turns(graph, "t", 3)
        assert await history(graph, "t") == want
        state = await graph.aget_state(config("t"))
    assert [m.id for m in state.values["messages"]] == ["h1", "a-h1", "h2", "a-h2", "h3", "a-h3"]
    assert state.values["count"] == 3
    assert state.values["data"] == {"first": "x" * 200}
    assert rows(tmp_path / "blobs.sqlite", "SELECT COUNT(*) FROM checkpoint_blobs")[0][0] > 0


async def test_the_sync_methods_read_the_blobs_from_another_thread(tmp_path: Path) -> None:
    """get_tuple and list (run on the saver's loop from a worker thread) fill the values too."""
    async with sqlite_checkpointer(tmp_path / "c.sqlite") as saver:
        await run_turns(chat_graph(saver), "t", 2)
        latest = await asyncio.to_thread(saver.get_tuple, config("t"))
        listed = await asyncio.to_thread(lambda: list(saver.list(config("t"), limit=2)))
    assert latest is not None
    assert len(latest.checkpoint["channel_values"]["messages"]) == 4
    assert listed[0].checkpoint["channel_values"] == latest.checkpoint["channel_values"]


async def test_an_interrupt_is_resumed_with_command_after_reopening(tmp_path: Path) -> None:
    """The pending question survives the connection; Command(resume=...) finishes the run."""
    path = tmp_path / "c.sqlite"
    async with sqlite_checkpointer(path) as saver:
        await chat_graph(saver, asking=True).ainvoke(turn(1), config("t"))
    async with sqlite_checkpointer(path) as saver:
        graph = chat_graph(saver, asking=True)
        waiting = await graph.aget_state(config("t"))
        assert waiting.next == ("ask",)
        assert [i.value for i in waiting.interrupts] == ["approve?"]
        assert len(waiting.values["messages"]) == 2
        done = await graph.ainvoke(Command(resume="yes"), config("t"))
    assert done["note"] == "yes"
    assert done["count"] == 1


async def test_a_thread_saved_uncompressed_resumes_and_goes_on_compressed(tmp_path: Path) -> None:
    """A question asked before compression is answered after it; the values read back whole."""
    path = tmp_path / "c.sqlite"
    big = {"record": "stock of SKU-1 " * 200}
    async with sqlite_checkpointer(path) as saver:
        saver.serde = JsonPlusSerializer()  # what the saver wrote before issue 45
        graph = chat_graph(saver, asking=True)
        await graph.ainvoke(turn(1, data=big), config("t"))
        before = await history(graph, "t")
    async with sqlite_checkpointer(path) as saver:
        graph = chat_graph(saver, asking=True)
        assert await history(graph, "t") == before
        assert (await graph.ainvoke(Command(resume="yes"), config("t")))["note"] == "yes"
        await graph.ainvoke(turn(2, messages=[HumanMessage("x " * 500, id="h2")]), config("t"))
    async with sqlite_checkpointer(path) as saver:
        graph = chat_graph(saver, asking=True)
        done = await graph.ainvoke(Command(resume="again"), config("t"))
        after = await history(graph, "t")
    types = {
        r[0] for r in rows(path, "SELECT type FROM writes UNION SELECT type FROM checkpoint_blobs")
    }
    assert {"msgpack", "msgpack+zlib"} <= types  # both kinds in one thread
    assert after[-len(before) :] == before
    assert done["note"] == "again"
    assert done["data"] == big
    assert [m.content for m in done["messages"]][-2:] == ["x " * 500, f"echo {'x ' * 500}"]


class Outer(TypedDict, total=False):
    """A parent state sharing `messages` with its subgraph."""

    messages: Annotated[list[AnyMessage], add_messages]
    note: str


async def test_a_subgraph_namespace_round_trips(tmp_path: Path) -> None:
    """A subgraph interrupted mid-run: its own checkpoint (another namespace) reads back whole."""
    path = tmp_path / "c.sqlite"
    inner = StateGraph(Chat)
    inner.add_node("reply", reply)
    inner.add_node("ask", ask)
    inner.add_edge(START, "reply")
    inner.add_edge("reply", "ask")
    outer = StateGraph(Outer)
    outer.add_node("sub", inner.compile())
    outer.add_edge(START, "sub")
    async with sqlite_checkpointer(path) as saver:
        graph = outer.compile(checkpointer=saver)
        await graph.ainvoke(turn(1), config("t"))
        state = await graph.aget_state(config("t"), subgraphs=True)
        sub = state.tasks[0].state
        assert sub.values["messages"][-1].content == "echo request 1"
        assert sub.next == ("ask",)
        done = await graph.ainvoke(Command(resume="ok"), config("t"))
    assert done["note"] == "ok"
    assert len(done["messages"]) == 2
    namespaces = rows(path, "SELECT DISTINCT checkpoint_ns FROM checkpoint_blobs")
    assert any(ns for (ns,) in namespaces)


async def test_time_travel_shows_and_forks_an_old_checkpoint(tmp_path: Path) -> None:
    """An old checkpoint reads back with its own messages; a run from it forks there."""
    async with sqlite_checkpointer(tmp_path / "c.sqlite") as saver:
        graph = chat_graph(saver)
        await run_turns(graph, "t", 3)
        snapshots = [s async for s in graph.aget_state_history(config("t"))]
        after_first = next(s for s in reversed(snapshots) if s.values.get("count") == 1)
        old = await graph.aget_state(after_first.config)
        assert [m.id for m in old.values["messages"]] == ["h1", "a-h1"]
        forked = await graph.ainvoke(turn(9), after_first.config)
        latest = await graph.aget_state(config("t"))
    assert [m.id for m in forked["messages"]] == ["h1", "a-h1", "h9", "a-h9"]
    assert forked["count"] == 2
    assert latest.values["messages"] == forked["messages"]


async def test_a_database_of_the_plain_saver_is_read_and_continued(tmp_path: Path) -> None:
    """Rows with inline values load as before; the thread goes on, and reopens whole after."""
    path = tmp_path / "c.sqlite"
    async with plain_saver(path) as plain:
        graph = chat_graph(plain)
        await run_turns(graph, "t", 2)
        want = await history(graph, "t")
    async with sqlite_checkpointer(path) as saver:
        graph = chat_graph(saver)
        assert await history(graph, "t") == want
        await graph.ainvoke(turn(3), config("t"))
    async with sqlite_checkpointer(path) as saver:
        graph = chat_graph(saver)
        state = await graph.aget_state(config("t"))
        continued = await history(graph, "t")
    assert continued[-len(want) :] == want
    assert len(continued) > len(want)
    # `data` was set by the plain saver and not changed since: carried into a blob.
    assert state.values["data"] == {"first": "x" * 200}
    assert [m.id for m in state.values["messages"]][-2:] == ["h3", "a-h3"]
    assert state.values["count"] == 3


async def test_a_small_step_does_not_write_the_conversation_again(tmp_path: Path) -> None:
    """On a long conversation, the step changing only the counter writes far less than it."""
    long = [HumanMessage("words " * 100, id=f"old{i}") for i in range(60)]

    async def tally_step_bytes(path: Path, saver: BaseCheckpointSaver[Any]) -> tuple[int, int]:
        graph = chat_graph(saver)
        await graph.ainvoke({"messages": long}, config("t"))
        graph.interrupt_before_nodes = ["tally"]
        await graph.ainvoke(turn(1), config("t"))
        before = stored_bytes(path)
        graph.interrupt_before_nodes = []
        await graph.ainvoke(None, config("t"))
        state = await graph.aget_state(config("t"))
        assert state.values["count"] == 2
        return stored_bytes(path) - before, len(
            saver.serde.dumps_typed(state.values["messages"])[1]
        )

    async with sqlite_checkpointer(tmp_path / "blobs.sqlite") as saver:
        saver.serde = JsonPlusSerializer()  # the layout is measured here, not the compression
        added, conversation = await tally_step_bytes(tmp_path / "blobs.sqlite", saver)
    async with plain_saver(tmp_path / "plain.sqlite") as plain:
        plain_added, _ = await tally_step_bytes(tmp_path / "plain.sqlite", plain)
    assert conversation > 30_000
    assert added < conversation / 10
    assert plain_added > conversation  # what the plain saver writes for the same step


async def test_delete_thread_removes_its_blobs_only(tmp_path: Path) -> None:
    """Deleting a thread (async, or sync from a worker thread) leaves no row of it behind."""
    path = tmp_path / "c.sqlite"
    async with sqlite_checkpointer(path) as saver:
        graph = chat_graph(saver)
        for thread in ("a", "b", "c"):
            await run_turns(graph, thread, 2)
        await saver.adelete_thread("a")
        await asyncio.to_thread(saver.delete_thread, "b")
        assert await graph.aget_state(config("c")) is not None
    for table in ("checkpoints", "writes", "checkpoint_blobs"):
        threads = rows(path, f"SELECT DISTINCT thread_id FROM {table}")
        assert threads == [("c",)], table


async def test_maintenance_the_saver_cannot_do_is_refused_by_name(tmp_path: Path) -> None:
    """Prune, copy and delete-for-runs would have to know the blobs: refused, not half done."""
    async with sqlite_checkpointer(tmp_path / "c.sqlite") as saver:
        with pytest.raises(NotImplementedError, match="Pruning"):
            await saver.aprune(["t"])
        with pytest.raises(NotImplementedError, match="Copying"):
            await saver.acopy_thread("t", "u")
        with pytest.raises(NotImplementedError, match="Deleting runs"):
            await saver.adelete_for_runs(["r"])


@settings(max_examples=300, deadline=None)
@given(
    old=st.integers(min_value=0, max_value=10**20 - 1),
    new=st.integers(min_value=0, max_value=10**9),
)
def test_a_new_version_sorts_after_every_version_of_the_plain_format(old: int, new: int) -> None:
    """Versions are compared as strings: the short format never sorts before an old one, so a
    thread of the plain saver continues in order, and it keeps numeric order among itself."""
    saver = BlobSqliteSaver.__new__(BlobSqliteSaver)
    plain = f"{old:032}.{0.5:016}"
    after_plain = saver.get_next_version(plain, None)
    assert after_plain > plain
    assert int(after_plain.split(".")[0]) == old + 1
    current = saver.get_next_version(None, None) if new == 0 else f"{new:012}.000000000000"
    following = saver.get_next_version(current, None)
    assert following > current
    assert len(following) == 25
