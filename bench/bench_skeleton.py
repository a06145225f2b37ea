"""The libraries' own floor for a run of the stock plan's shape: LangGraph, ChatOpenAI, MCP.

    python bench/bench_skeleton.py [--quick] [--json] [--backends sqlite,postgres] [--pg URL]

What issue 45's figure ("CPU per run at most 2x what ChatOpenAI alone spends on the run's 3
model calls") leaves to everything but the model client. The same run as bench_http.py's, built
from the libraries alone, with no code of this project on its path:

- a LangGraph `StateGraph` of the graph's steps: the turn's start, the plan, the analysis, the
  three lookups (pushed with `Send`), the approval (`interrupt`, resumed with a `Command`), the
  write (pushed), the answer: 8 supersteps and 4 pushed tasks (the project's graph: 9 and 5);
- the three model calls with LangChain's stock `ChatOpenAI` (two with `with_structured_output(
  <the planner's schema>, method="json_schema", include_raw=True)`), to bench/model_server.py
  in its own process, as bench_http.py's floor makes them;
- the four tool calls with the MCP SDK's `Client`, one per stdio server (bench/servers.py),
  opened once and kept;
- LangGraph's stock checkpointers: `AsyncSqliteSaver` and `AsyncPostgresSaver`, the durability
  mode LangGraph defaults to (`async`); and, to part the cost, its `InMemorySaver` (`memory`),
  and that with the tools answered in this process instead of over MCP (`memory-no-mcp`); and
  this project's SQLite checkpointer (`sqlite-ours`), the one code of ours it can run on.

Figures, in one run: the floor (bench_http's: ChatOpenAI alone, the run's 3 calls), then the
skeleton's CPU per run on each backend, measured as bench_http measures the graph's (40 runs at
once at latency 0, median of 5 batches), and each over the floor. Nothing is checked: it is the
yardstick the graph's figure is read against (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import operator
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, TypedDict
from uuid import uuid4

BENCH = Path(__file__).resolve().parent
sys.path[:0] = [str(BENCH.parent), str(BENCH)]

from langchain_core.messages import AnyMessage, HumanMessage, SystemMessage  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.graph.message import add_messages  # noqa: E402
from langgraph.types import Command, Send, interrupt  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402

from bench_http import (  # noqa: E402
    client_cost,
    model_server,
    pg_unreachable,
    postgres_database,
    stock_model,
)
from common.strict_schema import response_format  # noqa: E402
from perf_report import machine  # noqa: E402
from perf_scenario import SKU, order_of, request_for, skus_for  # noqa: E402
from servers import stdio_entry  # noqa: E402
from strategies.with_planner.plans import PlannerResult  # noqa: E402


class Run(TypedDict, total=False):
    """The skeleton's state: the conversation, the looked-up records, the order placed."""

    messages: Annotated[list[AnyMessage], add_messages]
    skus: list[str]
    records: Annotated[list[str], operator.add]
    order: str


class Skeleton:
    """The models and MCP clients the skeleton's nodes use; `graph(saver)` builds it."""

    def __init__(self, clients: dict[str, Client], mcp: bool = True) -> None:
        self.clients = clients
        self.mcp = mcp
        """False: the tools answer in this process, no MCP call (what the SDK's calls cost)."""
        self.model = stock_model(0.0)
        self.structured = self.model.with_structured_output(
            response_format(PlannerResult), method="json_schema", include_raw=True
        )

    async def start(self, state: Run) -> Run:
        """The turn's start: nothing but a step, as the graph's turn start is one."""
        return {}

    async def plan(self, state: Run) -> Run:
        """The planner: a structured call; the SKUs of its plan."""
        asked = [SystemMessage("You plan how to answer."), *state["messages"]]
        answer = await self.structured.ainvoke(asked)
        return {"skus": list(dict.fromkeys(SKU.findall(answer["raw"].content)))}

    async def analyse(self, state: Run) -> Run:
        """The safety analysis: a structured call."""
        await self.structured.ainvoke(
            [SystemMessage("You are a safety analyser."), *state["messages"]]
        )
        return {}

    def lookups(self, state: Run) -> list[Send]:
        """The three lookups, pushed."""
        return [Send("lookup", {"skus": [sku]}) for sku in state["skus"]]

    async def lookup(self, state: Run) -> Run:
        """One `get_stock` call through the MCP SDK."""
        sku = state["skus"][0]
        if not self.mcp:
            return {"records": [json.dumps({"sku": sku, "units": 1}, indent=2)]}
        result = await self.clients["stock"].call_tool("get_stock", {"sku": sku})
        return {"records": [result.content[0].text]}

    async def ask(self, state: Run) -> Run:
        """The approval: an interrupt, resumed by the caller."""
        interrupt({"action_requests": [{"name": "reorder", "args": {"skus": state["skus"]}}]})
        return {}

    def write(self, state: Run) -> list[Send]:
        """The approved write, pushed."""
        return [Send("reorder", {"skus": state["skus"]})]

    async def reorder(self, state: Run) -> Run:
        """The `reorder` call through the MCP SDK."""
        args = {"skus": state["skus"], "note": "skeleton"}
        if not self.mcp:
            return {"order": order_of(state["skus"])}
        result = await self.clients["orders"].call_tool("reorder", args)
        return {"order": result.content[0].text}

    async def answer(self, state: Run) -> Run:
        """The answer writer: a plain call."""
        asked = [SystemMessage(f"You write the final answer. {state['order']}"), *state["messages"]]
        return {"messages": [await self.model.ainvoke(asked)]}

    def graph(self, saver: Any) -> Any:
        """The skeleton compiled on `saver`."""
        builder = StateGraph(Run)
        for name in ("start", "plan", "analyse", "lookup", "ask", "reorder", "answer"):
            builder.add_node(name, getattr(self, name))
        builder.add_edge(START, "start")
        builder.add_edge("start", "plan")
        builder.add_edge("plan", "analyse")
        builder.add_conditional_edges("analyse", self.lookups, ["lookup"])
        builder.add_edge("lookup", "ask")
        builder.add_conditional_edges("ask", self.write, ["reorder"])
        builder.add_edge("reorder", "answer")
        builder.add_edge("answer", END)
        return builder.compile(checkpointer=saver)


async def run_once(graph: Any, n: int) -> bool:
    """Request `n` on a new thread, to the approval and on to the answer: whether it ordered."""
    skus = skus_for(n)
    config = {"configurable": {"thread_id": uuid4().hex}}
    first = await graph.ainvoke({"messages": [HumanMessage(request_for(skus))]}, config)
    values = await graph.ainvoke(Command(resume={"decisions": [{"type": "approve"}]}), config)
    return "__interrupt__" in first and order_of(skus) in str(values["messages"][-1].content)


@asynccontextmanager
async def saver_for(backend: str, folder: Path, admin_url: str) -> AsyncIterator[Any]:
    """LangGraph's stock checkpointer on `backend`, its tables made (`memory`: in memory)."""
    if backend.startswith("memory"):
        from langgraph.checkpoint.memory import InMemorySaver

        yield InMemorySaver()
        return
    if backend == "sqlite-ours":
        from common.persistence import sqlite_checkpointer

        async with sqlite_checkpointer(folder / "ours.sqlite") as saver:
            yield saver
        return
    if backend == "sqlite":
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        async with AsyncSqliteSaver.from_conn_string(str(folder / "skeleton.sqlite")) as saver:
            yield saver
        return
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    async with (
        postgres_database(admin_url) as uri,
        AsyncPostgresSaver.from_conn_string(uri) as saver,
    ):
        await saver.setup()
        yield saver


async def cpu(graph: Any, runs: int, batches: int) -> dict[str, Any]:
    """CPU per run over `runs` concurrent runs: the median of `batches`; runs that failed."""
    await asyncio.gather(*(run_once(graph, n) for n in (1, 2)))
    per_run, failed = [], 0
    for batch in range(batches):
        first = 100 + batch * runs
        begin = time.process_time()
        done = await asyncio.gather(*(run_once(graph, n) for n in range(first, first + runs)))
        per_run.append((time.process_time() - begin) * 1000 / runs)
        failed += done.count(False)
    return {"cpu_ms_per_run": statistics.median(per_run), "batches_ms": per_run, "failed": failed}


async def measure(opts: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """The floor, then the skeleton on each backend, in one event loop."""
    result: dict[str, Any] = {"skeleton": {}, "skipped": {}}
    result["client"] = await client_cost(opts.runs, opts.batches)
    async with AsyncExitStack() as stack:
        clients = {}
        for name in ("stock", "orders"):
            entry = stdio_entry(name, 0.0, folder / "orders.log")
            params = StdioServerParameters(command=entry["command"], args=entry["args"])
            clients[name] = await stack.enter_async_context(Client(params))
        for backend in opts.backends:
            skeleton = Skeleton(clients, mcp=backend != "memory-no-mcp")
            why = await pg_unreachable(opts.pg) if backend == "postgres" else None
            if why:
                result["skipped"][backend] = why
                continue
            async with saver_for(backend, folder, opts.pg) as saver:
                found = await cpu(skeleton.graph(saver), opts.runs, opts.batches)
            found["over_client"] = found["cpu_ms_per_run"] / result["client"]["per_run_ms"]
            result["skeleton"][backend] = found
    return result


def table(r: dict[str, Any]) -> str:
    """The figures, each over the floor."""
    m, floor = r["machine"], r["client"]["per_run_ms"]
    lines = [
        f"Machine: {m['cores']} cores, {m['cpu']}, Python {m['python']}, langgraph "
        f"{m['langgraph']}; a pure-Python loop of 10^6 additions: {m['loop_ms']:.1f} ms.",
        f"floor: ChatOpenAI alone, the run's 3 calls: {floor:.1f} ms per run",
    ]
    for backend, s in r["skeleton"].items():
        batches = " ".join(f"{ms:.0f}" for ms in s["batches_ms"])
        lines.append(
            f"skeleton, {backend}: {s['cpu_ms_per_run']:.1f} ms per run = "
            f"{s['over_client']:.2f}x the floor (batches {batches}; failed runs {s['failed']})"
        )
    lines += [f"skeleton, {b}: NOT MEASURED ({why[:100]})" for b, why in r["skipped"].items()]
    return "\n".join(lines)


def main() -> int:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a fast smoke run")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--backends",
        default="sqlite,postgres,memory,memory-no-mcp,sqlite-ours",
        help="sqlite, postgres; memory (LangGraph's in-memory saver), memory-no-mcp (and the "
        "tools answered in this process): what persistence and the MCP calls cost; sqlite-ours: "
        "this project's SQLite checkpointer (common.persistence), the graph's own",
    )
    parser.add_argument(
        "--pg",
        default=os.environ.get("BENCH_PG_URL", "postgresql://postgres@127.0.0.1:5432/postgres"),
        help="PostgreSQL server to make (and drop) the skeleton's own database on",
    )
    opts = parser.parse_args()
    opts.backends = [b for b in opts.backends.split(",") if b]
    opts.runs, opts.batches = (8, 1) if opts.quick else (40, 5)
    with model_server() as base_url, tempfile.TemporaryDirectory() as folder:
        os.environ["OPENAI_BASE_URL"] = base_url
        result: dict[str, Any] = {"machine": machine()}
        result |= asyncio.run(measure(opts, Path(folder)))
    print(json.dumps(result, indent=2) if opts.json else table(result))
    failed = sum(s["failed"] for s in result["skeleton"].values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
