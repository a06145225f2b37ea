"""A long conversation: 30 turns on one SQLite thread, what each turn costs as the thread grows.

    python bench/bench_long_thread.py [--turns 30] [--early 5] [--realistic]
                                      [--saver compressed|uncompressed|stock] [--json] [--no-check]

Scenario: bench_perf's 4-task stock plan (three direct lookups, a dependent direct write), one
request per turn on the same thread, each turn with its own SKUs (same shape and size, so a
turn's content can be recognised later). Latencies are 0: CPU is what is measured. Models are
scripted (planner, analysis, response); after the last turn one more message asks which SKUs
the second request was about, and the answer model replies with the SKUs it can find in what
it was sent (the summary of older turns, or the turns themselves).

Figures (medians over five turns: 3-7 and 26-30 by default):
- prompt tokens per turn: every model request of the turn, counted with LangChain's
  `count_tokens_approximately` on the messages the scripted models received;
- CPU per turn (`time.process_time`), early (around turn 5) and late (around turn 30);
- checkpoint bytes added per turn (checkpoints + writes + channel-value blobs of the thread, every
  namespace) and in all;
- the turn-2 check: the answer to the question names turn 2's SKUs.

`--realistic`: the turns of issue 45, with tool results quoted in the answer: each lookup returns
a whole stock record (~2 KB of JSON: the item, eight warehouses, the latest movements;
`servers.stock_record`) and the answer quotes the three records as its prompt showed them.

`--saver` picks the SQLite checkpointer: `compressed` (the project's, `sqlite_checkpointer`),
`uncompressed` (the same with LangGraph's serializer: the saver before issue 45) or `stock`
(LangGraph's `AsyncSqliteSaver`), so before and after come from one machine and one command.

`--budget N` sets the run's `conversation_token_budget` (default: the setting, 800 tokens; the
bench's turns are small, ~45 tokens each, so the thread outgrows 800 at turn 19). The memory of
past runs (per user, in the store) grows by one run a turn whatever the thread;
`--user-per-turn` runs each turn under its own user so that only the thread's own cost is left.

Targets (exit 1 when one is missed, unless --no-check): prompt tokens per turn late <= 1.5x
early, CPU per turn late <= 1.10x early, checkpoint bytes added per turn late <= 50 KB, the
turn-2 check passes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import uuid4

from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.messages.utils import count_tokens_approximately
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from bench_perf import SKU, Backend, Setup, backend, run_turn, storage
from common.mcp.inprocess import register_inprocess_server
from common.mcp.registry import shutdown_pool
from common.persistence import sqlite_checkpointer, sqlite_store
from perf_report import finish, machine
from perf_scenario import answer_with, plan_for, skus_for
from servers import stock_server
from strategies.with_planner.graph import build_graph

FIRST_REQUEST = 100
"""Turn n asks about request FIRST_REQUEST + n (SKU-0101-*, SKU-0102-*, ...)."""

QUESTION = "Which SKUs did my second request of this conversation ask to reorder?"
"""The last message: answerable only from turn 2's content (kept verbatim or summarised)."""


def _request(messages: list[BaseMessage]) -> str:
    found = [m for m in messages if isinstance(m, HumanMessage)]
    return str(found[-1].content) if found else ""


def _planner(messages: list[BaseMessage], _meta: Any) -> dict[str, Any]:
    # The question needs no expert: an empty plan, answered from the conversation.
    request = _request(messages)
    return answer_with([]) if request == QUESTION else plan_for(SKU.findall(request))


RESULT = re.compile(r"^   result: (.*?)(?=^- t\d|\Z)", re.MULTILINE | re.DOTALL)
"""A task's result in the answer writer's prompt (`render_plan`), up to the next task."""


def _answer_of(messages: list[BaseMessage], _meta: Any) -> str:
    """The scripted answer: the order of this turn, or the second request's SKUs if seen."""
    if _request(messages) == QUESTION:
        wanted = skus_for(FIRST_REQUEST + 2)
        seen = " ".join(str(m.content) for m in messages)
        found = [s for s in wanted if s in seen]
        return "Your second request: " + ", ".join(found) if found else "I do not know."
    order = re.search(r"PO-[\w+-]+", str(messages[0].content))
    return f"Reordered: order {order.group(0)}." if order else "No order was placed."


def _quoting(messages: list[BaseMessage], meta: Any) -> str:
    """The realistic answer: the order, then every lookup's record quoted in words."""
    answer = _answer_of(messages, meta)
    if _request(messages) == QUESTION:
        return answer
    found = [r.strip() for r in RESULT.findall(str(messages[0].content))]
    records = [json.loads(r) for r in found if r.startswith("{") and '"warehouses"' in r]
    return "\n\n".join([answer, "What the stock system says:", *map(_in_words, records)])


def _in_words(record: dict[str, Any]) -> str:
    """A stock record as an answer quotes it: every warehouse and movement, one line each."""
    supplier = record["supplier"]
    lines = [
        f"{record['sku']} ({record['name']}): {record['units']} units in stock. "
        f"{record['description']} Supplier {supplier['name']}, lead time "
        f"{supplier['lead_time_days']} days, minimum order {supplier['min_order']}."
    ]
    lines += [
        f"- {w['warehouse']} {w['city']}: {w['units']} units, bin {w['bin']}, "
        f"counted {w['last_counted']}"
        for w in record["warehouses"]
    ]
    lines += [
        f"- {m['date']}: {m['kind']} of {m['quantity']} ({m['reference']})"
        for m in record["movements"]
    ]
    return "\n".join(lines)


def _detailed(setup: Setup) -> None:
    """The stock expert of `setup` answers with whole stock records (`servers.stock_record`)."""
    name = f"bench-stock-detailed-{uuid4().hex[:8]}"
    register_inprocess_server(name, stock_server(0.0, name, detailed=True))
    setup.context["mcp_config"]["mcpServers"]["stock"]["inprocess"] = name


def _tokens(setup: Setup) -> int:
    """Tokens of every model request since the last reset."""
    return sum(
        count_tokens_approximately(r["messages"])
        for m in setup.models.models.values()
        for r in m.requests
    )


@dataclass
class _Turns:
    """What each turn of the thread measured, by turn number."""

    cpu_ms: dict[int, float] = field(default_factory=dict)
    """CPU of the turn, milliseconds."""
    tokens: dict[int, int] = field(default_factory=dict)
    """Prompt tokens of every model request of the turn."""
    total: dict[int, int] = field(default_factory=lambda: {0: 0})
    """The thread's stored bytes after the turn."""
    problems: list[str] = field(default_factory=list)
    """What went wrong, a line each."""


SAVERS = ("compressed", "uncompressed", "stock")
"""The SQLite checkpointers `--saver` picks: the project's (values once per version, zlib),
the same without compression (the saver before issue 45), LangGraph's `AsyncSqliteSaver`."""


@asynccontextmanager
async def sqlite_backend(folder: Path, saver: str = "compressed") -> AsyncIterator[Backend]:
    """The graph on SQLite checkpoints and store in `folder`, with the `saver` of `SAVERS`."""
    if saver == "compressed":
        async with backend("sqlite", folder) as be:
            yield be
        return
    db = folder / "checkpoints.sqlite"
    async with sqlite_store(folder / "store.sqlite") as store, AsyncExitStack() as stack:
        if saver == "stock":
            plain = await stack.enter_async_context(AsyncSqliteSaver.from_conn_string(str(db)))
        else:
            plain = await stack.enter_async_context(sqlite_checkpointer(db))
            plain.serde = JsonPlusSerializer()
        yield Backend(build_graph(plain, store), db)


def scripted_setup(budget: int | None, realistic: bool) -> Setup:
    """The experts (in process, latency 0) and scripted models, for realistic turns or not."""
    setup = Setup(0.0, 0.0, "inprocess")
    if budget is not None:
        setup.context["conversation_token_budget"] = budget
    if realistic:
        _detailed(setup)
    answer = _quoting if realistic else _answer_of
    replies: dict[str, Any] = {"planner": _planner, "response": answer}
    for role, reply in replies.items():
        setup.models.models[role].script[:] = [reply] * 100_000
    return setup


async def long_thread(
    turns: int,
    early: int,
    budget: int | None,
    user_per_turn: bool = False,
    realistic: bool = False,
    saver: str = "compressed",
) -> dict[str, Any]:
    """`turns` turns on one SQLite thread, then the turn-2 question; figures per turn."""
    setup = scripted_setup(budget, realistic)
    m = _Turns()
    with tempfile.TemporaryDirectory() as folder:
        async with sqlite_backend(Path(folder), saver) as be:
            assert be.db is not None
            thread = uuid4().hex
            for n in range(1, turns + 1):
                await _measured_turn(be, setup, thread, n, m, user_per_turn)
            config = {"configurable": {"thread_id": thread}}
            asked = {"messages": [{"role": "user", "content": QUESTION}]}
            values = await be.graph.ainvoke(asked, config, context=setup.context)
    answer = str(values["messages"][-1].content)
    report = _report(m, turns, early, answer)
    scenario = {"realistic": realistic, "saver": saver}
    return {"budget": budget, "user_per_turn": user_per_turn, **scenario, **report}


async def _measured_turn(
    be: Backend, setup: Setup, thread: str, n: int, m: _Turns, user_per_turn: bool
) -> None:
    """Run turn `n` of the thread and record its CPU, prompt tokens, problems and bytes."""
    assert be.db is not None
    for model in setup.models.models.values():
        model.requests.clear()
    if user_per_turn:
        # The memory of past runs is per user: this keeps it from growing, so what
        # is left is the thread's own cost.
        setup.context["user_id"] = f"user-{n}"
    begin = time.process_time()
    turn = await run_turn(be.graph, setup, FIRST_REQUEST + n, thread)
    m.cpu_ms[n] = (time.process_time() - begin) * 1000
    m.tokens[n] = _tokens(setup)
    m.problems += [f"turn {n}: {p}" for p in turn.problems]
    m.total[n] = (await asyncio.to_thread(storage, be.db, thread))["bytes"]


def _report(m: _Turns, turns: int, early: int, answer: str) -> dict[str, Any]:
    """The figures of a thread's turns: early and late medians, and each turn's."""
    added = {n: m.total[n] - m.total[n - 1] for n in range(1, turns + 1)}
    early_w, late_w = window(early, turns), window(turns - 2, turns)

    def mean(figures: dict[int, float] | dict[int, int], which: list[int]) -> float:
        # Medians: one turn's CPU can double when a garbage collection lands in it.
        return statistics.median(figures[n] for n in which)

    return {
        "turns": turns,
        "early_turns": early_w,
        "late_turns": late_w,
        "tokens_early": mean(m.tokens, early_w),
        "tokens_late": mean(m.tokens, late_w),
        "cpu_ms_early": mean(m.cpu_ms, early_w),
        "cpu_ms_late": mean(m.cpu_ms, late_w),
        "bytes_added_early": mean(added, early_w),
        "bytes_added_late": mean(added, late_w),
        "bytes_total": m.total[turns],
        "turn2_answer": answer,
        "turn2_ok": all(s in answer for s in skus_for(FIRST_REQUEST + 2)),
        "tokens_per_turn": [m.tokens[n] for n in range(1, turns + 1)],
        "cpu_ms_per_turn": [round(m.cpu_ms[n], 1) for n in range(1, turns + 1)],
        "bytes_added_per_turn": [added[n] for n in range(1, turns + 1)],
        "errors": m.problems,
    }


def window(turn: int, last: int) -> list[int]:
    """Turn numbers around `turn` (two on each side), within 2..last."""
    return [n for n in range(turn - 2, turn + 3) if 2 <= n <= last]


def misses(r: dict[str, Any]) -> list[str]:
    """The targets this run missed."""
    found = []
    if r["tokens_late"] > 1.5 * r["tokens_early"]:
        found.append(f"prompt tokens late/early {r['tokens_late'] / r['tokens_early']:.2f}x > 1.5x")
    if r["cpu_ms_late"] > 1.10 * r["cpu_ms_early"]:
        found.append(f"CPU late/early {r['cpu_ms_late'] / r['cpu_ms_early']:.2f}x > 1.10x")
    if r["bytes_added_late"] > 50_000:
        found.append(f"checkpoint bytes per turn {r['bytes_added_late']:.0f} > 50 KB")
    if not r["turn2_ok"]:
        found.append(f"turn-2 question answered {r['turn2_answer']!r}")
    return found + r["errors"]


def report(r: dict[str, Any]) -> str:
    """The figures as a small table, each beside its goal."""
    e, la = r["early_turns"], r["late_turns"]
    rows = [
        ("prompt tokens per turn", r["tokens_early"], r["tokens_late"], "late <= 1.5x early"),
        ("CPU ms per turn", r["cpu_ms_early"], r["cpu_ms_late"], "late <= 1.10x early"),
        (
            "checkpoint bytes added per turn",
            r["bytes_added_early"],
            r["bytes_added_late"],
            "late <= 50,000",
        ),
    ]
    scenario = "realistic turns (stock records quoted)" if r["realistic"] else "small results"
    lines = [f"{scenario}, {r['saver']} SQLite saver"]
    lines.append(
        f"{'figure':34} {'turns ' + str(e):>14} {'turns ' + str(la):>14} {'ratio':>7}  goal"
    )
    for name, early, late, goal in rows:
        lines.append(f"{name:34} {early:14.1f} {late:14.1f} {late / early:7.2f}  {goal}")
    lines.append(f"checkpoint bytes in all: {r['bytes_total']}")
    lines.append(f"turn-2 question: {'ok' if r['turn2_ok'] else 'MISSED'}: {r['turn2_answer']!r}")
    return "\n".join(lines)


def main() -> int:
    """Measure, print, and exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--early", type=int, default=5)
    parser.add_argument(
        "--budget", type=int, default=None, help="conversation_token_budget (default: setting)"
    )
    parser.add_argument(
        "--user-per-turn",
        action="store_true",
        help="each turn under its own user_id: the memory of past runs does not grow",
    )
    parser.add_argument(
        "--realistic",
        action="store_true",
        help="whole stock records (~2 KB each) from the lookups, quoted in each answer",
    )
    parser.add_argument(
        "--saver",
        choices=SAVERS,
        default="compressed",
        help="the SQLite checkpointer (uncompressed and stock: the figures before issue 45)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--no-check", action="store_true", help="exit 0 even if a target is missed")
    args = parser.parse_args()

    async def measured() -> dict[str, Any]:
        try:
            return await long_thread(
                args.turns,
                args.early,
                args.budget,
                args.user_per_turn,
                args.realistic,
                args.saver,
            )
        finally:
            await shutdown_pool()

    result = asyncio.run(measured()) | {"machine": machine()}
    result["missed"] = misses(result)
    return finish(result, report(result), args.json, args.no_check)


if __name__ == "__main__":
    sys.exit(main())
