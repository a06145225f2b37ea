"""A long thread on compressed checkpoints keeps every turn's tool results, readable and forkable.

The realistic turns of bench/bench_long_thread.py (each lookup a whole stock record, quoted in
the answer) on the project's SQLite checkpointer: after a dozen turns, turn 2 has left the
thread's messages, but its checkpoints still hold its plan with every record whole, Studio's
time travel reads every step and forks from the end of turn 2, and the compacted turn is in the
store. The serializer itself: values read back as written, compressed or not.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from common.compressed_serde import LEVEL, MIN_BYTES, SUFFIX, CompressedSerializer, window_bits
from common.mcp.registry import shutdown_pool
from strategies.with_planner.conversation import read_history
from tests.unit_tests.helpers import bench_script

TURNS = 12
"""Turns of the thread: turn 2 leaves the messages long before the last one."""


def _skus_of(values: dict[str, Any]) -> set[str]:
    """The SKUs the finished plan of a state looked up."""
    return {t["args"]["sku"] for t in values.get("previous_plan") or [] if t["tool"] == "get_stock"}


def _compressed_rows(path: Path) -> int:
    """Writes and blobs of the database stored compressed."""
    with sqlite3.connect(path) as conn:
        return sum(
            conn.execute(
                f"SELECT COUNT(*) FROM {table} WHERE type LIKE ?", (f"%+{SUFFIX}",)
            ).fetchone()[0]
            for table in ("writes", "checkpoint_blobs")
        )


async def _long_thread(tmp_path: Path, bench: Any, fork_skus: list[str]) -> dict[str, Any]:
    """`TURNS` realistic turns on one thread, then a run from the end of turn 2: what was read."""
    setup = bench.scripted_setup(None, realistic=True)
    config = {"configurable": {"thread_id": "t"}}
    second = set(bench.skus_for(bench.FIRST_REQUEST + 2))
    request = bench_script("perf_scenario").request_for(fork_skus)
    try:
        async with bench.sqlite_backend(tmp_path) as be:
            for n in range(1, TURNS + 1):
                turn = await bench.run_turn(be.graph, setup, bench.FIRST_REQUEST + n, "t")
                assert turn.problems == []
            latest = await be.graph.aget_state(config)
            snapshots = [s async for s in be.graph.aget_state_history(config)]
            kept = await read_history(be.graph.store, "default", "t")
            turn2 = next(s for s in reversed(snapshots) if _skus_of(s.values) == second)
            fork = await be.graph.ainvoke(
                {"messages": [{"role": "user", "content": request}]},
                turn2.config,
                context=setup.context,
            )
    finally:
        await shutdown_pool()
    return {
        "db": be.db,
        "latest": latest.values,
        "snapshots": snapshots,
        "kept": kept,
        "turn2": turn2.values,
        "fork": fork,
    }


async def test_turn_2s_tool_results_stay_readable_and_forkable_after_many_turns(
    tmp_path: Path,
) -> None:
    bench = bench_script("bench_long_thread")
    scenario = bench_script("perf_scenario")
    second, forked = bench.skus_for(bench.FIRST_REQUEST + 2), bench.skus_for(7)
    found = await _long_thread(tmp_path, bench, forked)
    assert _compressed_rows(found["db"]) > 0
    # Turn 2 has left the thread's messages: the models see a summary line of it.
    assert not any(second[0] in str(m.content) for m in found["latest"]["messages"])
    # Every step of the thread reads back, and turn 2's ends with its records whole.
    assert len(found["snapshots"]) >= 6 * TURNS
    record = bench_script("servers").stock_record(second[0])
    looked_up = next(t for t in found["turn2"]["previous_plan"] if t["args"]["sku"] == second[0])
    assert json.loads(looked_up["result"]) == record
    assert looked_up["data"] == record
    answer = str(found["turn2"]["messages"][-1].content)
    quoted = f"bin {record['warehouses'][-1]['bin']}"
    assert f"{second[0]} (" in answer
    assert quoted in answer
    # The owner's history of compacted turns has turn 2 whole, its answer quoting the records.
    stored = next(v for v in found["kept"] if v["turn"] == 2)
    assert any(quoted in str(m["data"]["content"]) for m in stored["messages"])
    # Time travel: a run from the end of turn 2 forks there, with turn 2 as the last turn.
    problems, _ = scenario.check_turn(found["fork"], forked)
    assert problems == []
    asked = [m.content for m in found["fork"]["messages"] if isinstance(m, HumanMessage)]
    assert scenario.request_for(second) in asked
    assert scenario.request_for(bench.skus_for(bench.FIRST_REQUEST + 3)) not in asked


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=2000), st.integers(min_value=0, max_value=40))
def test_every_value_reads_back_as_written_compressed_or_not(text: str, copies: int) -> None:
    serde = CompressedSerializer()
    value = [HumanMessage(text, id="h"), AIMessage(text * copies, id="a"), {"n": copies}]
    type_, data = serde.dumps_typed(value)
    assert serde.loads_typed((type_, data)) == value
    plain_type, plain = JsonPlusSerializer().dumps_typed(value)
    if len(plain) < MIN_BYTES:
        assert (type_, data) == (plain_type, plain)
    # A value written before compression (no suffix) reads as it did.
    assert serde.loads_typed((plain_type, plain)) == value


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300), st.integers(min_value=1, max_value=200))
def test_a_value_is_compressed_as_small_as_zlibs_default_window_makes_it(
    chunk: bytes, copies: int
) -> None:
    # The fitted window only saves time: the stored deflate stream is the default window's
    # (only the two-byte header names the window), and zlib's default reader takes it.
    data = (chunk + bytes(range(copies % 256))) * copies
    fitted = zlib.compress(data, LEVEL, window_bits(len(data)))
    default = zlib.compress(data, LEVEL)
    assert fitted[2:] == default[2:]
    assert zlib.decompress(fitted) == data
