"""Whole-graph performance against the physical limit: warm, cold, CPU, load and long threads.

    python bench/bench_perf.py [--model-s 0.3] [--tool-s 0.2] [--quick] [--json] [--no-check]
    python bench/bench_perf.py --profile        # cProfile of the in-memory CPU part only

Scenario, "the 4-task stock plan": three independent lookups, then a dependent write. The
planner's plan is all direct steps (tool and args given), so no orchestrate or assess model call:

- t1, t2, t3: `get_stock(sku)` on `stock` (bench/servers.py), one SKU each;
- t4: `reorder(skus, note)` on `orders`, depending on all three, its args templates over their
  results (`${t1.data.sku}`, `${t1.data.units}`...).

Experts are stdio MCP servers (bench/servers.py run with this interpreter), started once and
kept, as in a service, so the process CPU measured here is the graph's and the MCP client's,
not the servers'. `orders` is configured `sandboxed: true`: the write is reversible and runs
without an approval interrupt. `get_stock` is annotated readOnlyHint=true on a server whose
annotations are NOT trusted (the default), so the guard still consults the analyser, which may
overrule an untrusted hint: the analysis is exercised whenever the code decides it is needed.

Models are `ScriptedChatModel`s sleeping `--model-s` (300 ms); they pick replies by content
(the request's SKUs, the results in the prompt), never by call order, because runs overlap.
Model calls per turn: planner, analysis (when the code asks), response. Physical limit of a
turn = 2 model latencies + 2 tool latencies (planner, lookups, write, response) = 1.0 s.

Figures, all from one run (medians; CPU is `time.process_time`):
- warm: one turn with servers already open, SQLite checkpointer and store; ratio to the limit;
- cold: a fresh `mcp-planner run REQUEST --config mcp.json` process (the CLI's own path: its
  imports, the stdio servers started before the graph is imported, SQLite, one turn) in a new
  folder, run twice: the first run fills the tool-list cache, the second is measured, from
  spawn to the answer on its stdout (and to its exit); the scripted models are installed by a
  few lines run before the CLI's `main`, after what `run` imports before the servers start;
  both runs may write byte-code (PYTHONDONTWRITEBYTECODE is dropped from their environment),
  so the measured one loads this project's modules compiled, as an installed copy does; a
  third run with `orders` not sandboxed is timed to the listing of its pending approval (the
  CLI has no terminal, lists it and exits 3): the issue's own measure of a cold start;
- CPU per run: 40 concurrent warm runs with latencies 0 (CPU is what is measured, so waiting
  adds nothing), with SQLite checkpointer + store and with InMemorySaver + InMemoryStore;
- checkpoints, writes, blobs and bytes per run (SQLite rows of the thread, all namespaces);
- load: 100 concurrent threads at the default latencies, p50/p95 against the warm single turn,
  errors, and that every thread's plan and answer carry its own SKUs;
- long thread: 30 turns of the same request in one thread (latencies 0): CPU per turn around
  turn 5 against around turn 30, checkpoint bytes added per turn and in total.

Targets (exit 1 when one is missed, unless --no-check): warm <= 1.3x the limit, cold to the
approval <= 2.0 s, CPU <= 35 ms per run, load p95 <= 3x single with 0 errors and 0 leaks, CPU
per turn at turn 30 <= +10% over turn 5, checkpoint bytes added per turn <= 50 KB and not
growing (+10%).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import uuid4

ROOT = Path(__file__).resolve().parents[1]
# The test doubles live in the repository's `tests` package, the servers beside this file.
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from langchain_core.messages import BaseMessage, HumanMessage  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.store.memory import InMemoryStore  # noqa: E402
from tests.doubles import ScriptedChatModel, install_scripted  # noqa: E402

from common.mcp.inprocess import register_inprocess_server  # noqa: E402
from common.mcp.registry import shutdown_pool  # noqa: E402
from common.persistence import sqlite_checkpointer, sqlite_store  # noqa: E402
from perf_report import _stats_rows, finish, machine, misses, table  # noqa: E402
from perf_scenario import SKU, answer_for, check_turn, plan_for, request_for, skus_for  # noqa: E402
from servers import build, stdio_entry  # noqa: E402
from strategies.with_planner.graph import build_graph  # noqa: E402

ROLES = ("planner", "irreversibility", "orchestrate", "assess", "response")
ANALYSER_ANSWER = "IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE"


def _last_request(messages: Sequence[BaseMessage]) -> str:
    found = [m for m in messages if isinstance(m, HumanMessage)]
    if not found:
        raise AssertionError("a model was asked without a user request")
    return str(found[-1].content)


def _planner(messages: list[BaseMessage], _meta: Any) -> dict[str, Any]:
    # The system prompt may recall past runs' SKUs: read the request alone.
    return plan_for(SKU.findall(_last_request(messages)))


def _response(messages: list[BaseMessage], _meta: Any) -> str:
    return answer_for(str(messages[0].content))


def _unexpected(role: str) -> Callable[[list[BaseMessage], Any], Any]:
    def reply(_messages: list[BaseMessage], _meta: Any) -> Any:
        raise AssertionError(f"the all-direct plan should not call the {role} model")

    return reply


REPLIES: dict[str, Callable[[list[BaseMessage], Any], Any] | str] = {
    "planner": _planner,
    "irreversibility": ANALYSER_ANSWER,
    "orchestrate": _unexpected("orchestrate"),
    "assess": _unexpected("assess"),
    "response": _response,
}


@dataclass
class Models:
    """One scripted model per role, at one latency; replies never run out."""

    model_s: float
    models: dict[str, ScriptedChatModel] = field(default_factory=dict)
    specs: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for role in ROLES:
            model = ScriptedChatModel(script=[], name_=role, delay_s=self.model_s)
            self.models[role] = model
            self.specs[f"{role}_model"] = install_scripted(model)
        self.reset()

    def reset(self) -> None:
        """Forget past requests and refill the scripts (replies depend on content, not order)."""
        for role, model in self.models.items():
            model.requests.clear()
            model.script[:] = [REPLIES[role]] * 100_000

    def calls(self) -> dict[str, int]:
        """Requests per role since the last reset."""
        return {role: len(m.requests) for role, m in self.models.items()}


def mcp_config(transport: str, tool_s: float) -> dict[str, Any]:
    """The two experts at a tool latency, as stdio subprocesses or in-process servers."""
    entries: dict[str, dict[str, Any]] = {}
    for name in ("stock", "orders"):
        if transport == "stdio":
            entry = stdio_entry(name, tool_s)
        else:
            registered = f"bench-{name}-{uuid4().hex[:8]}"
            register_inprocess_server(registered, build(name, tool_s, registered))
            entry = {"inprocess": registered}
        entries[name] = entry
    entries["stock"]["description"] = "Stock levels per SKU (read-only)."
    entries["orders"] |= {"description": "Purchase orders (sandboxed).", "sandboxed": True}
    return {"mcpServers": entries}


@dataclass
class Setup:
    """What one kind of run needs: models, experts and the run context."""

    model_s: float
    tool_s: float
    transport: str = "stdio"
    models: Models = field(init=False)
    context: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        self.models = Models(self.model_s)
        self.context = {
            "mcp_config": mcp_config(self.transport, self.tool_s),
            "model": "scripted:unused",
            **self.models.specs,
        }


@dataclass
class Turn:
    """One turn's outcome: time, problems found in its result, what the write received."""

    thread_id: str
    wall_s: float
    problems: list[str]
    written: dict[str, Any] | None


async def run_turn(graph: Any, setup: Setup, n: int, thread_id: str | None = None) -> Turn:
    """Run one turn of request `n` on a thread (a new one unless given) and check it."""
    skus = skus_for(n)
    thread = thread_id or uuid4().hex
    config = {"configurable": {"thread_id": thread}}
    payload = {"messages": [{"role": "user", "content": request_for(skus)}]}
    begin = time.perf_counter()
    values = await graph.ainvoke(payload, config, context=setup.context)
    wall = time.perf_counter() - begin
    problems, written = check_turn(values, skus)
    return Turn(thread, wall, problems, written)


async def guarded(turn: Awaitable[Turn]) -> Turn | str:
    """A turn, or its exception as text: under load one failure is a figure, not the end."""
    try:
        return await turn
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


@dataclass
class Backend:
    """A compiled graph on one persistence backend, and the SQLite file when there is one."""

    graph: Any
    db: Path | None


@asynccontextmanager
async def backend(kind: str, folder: Path) -> AsyncIterator[Backend]:
    """The graph with SQLite checkpointer + store in `folder`, or in-memory ones."""
    if kind == "memory":
        yield Backend(build_graph(InMemorySaver(), InMemoryStore()), None)
        return
    db = folder / f"checkpoints-{uuid4().hex[:8]}.sqlite"
    async with (
        sqlite_checkpointer(db) as saver,
        sqlite_store(folder / f"store-{uuid4().hex[:8]}.sqlite") as store,
    ):
        yield Backend(build_graph(saver, store), db)


def storage(db: Path, thread_id: str) -> dict[str, int]:
    """A thread's checkpoint, write and channel-value (blob) rows and bytes (every namespace)."""
    with sqlite3.connect(db) as conn:
        cps, cp_bytes = conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(LENGTH(checkpoint) + LENGTH(metadata)), 0) "
            "FROM checkpoints WHERE thread_id = ?",
            (thread_id,),
        ).fetchone()
        writes, w_bytes = conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(LENGTH(value)), 0) FROM writes WHERE thread_id = ?",
            (thread_id,),
        ).fetchone()
        blobs, b_bytes = _blob_storage(conn, thread_id)
    return {
        "checkpoints": cps,
        "writes": writes,
        "blobs": blobs,
        "bytes": cp_bytes + w_bytes + b_bytes,
    }


def _blob_storage(conn: sqlite3.Connection, thread_id: str) -> tuple[int, int]:
    """A thread's channel-value rows and bytes (0, 0 in a database without the blobs table)."""
    try:
        found = conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(LENGTH(blob)), 0) FROM checkpoint_blobs "
            "WHERE thread_id = ?",
            (thread_id,),
        ).fetchone()
    except sqlite3.OperationalError:  # written by the plain AsyncSqliteSaver
        return 0, 0
    return int(found[0]), int(found[1])


def failed(turns: Sequence[Turn | str]) -> list[str]:
    """Every error and problem of a set of turns."""
    return [t if isinstance(t, str) else "; ".join(t.problems) for t in turns if bad(t)]


def bad(turn: Turn | str) -> bool:
    """Whether a turn raised or finished wrong."""
    return isinstance(turn, str) or bool(turn.problems)


async def warm(setup: Setup, folder: Path, runs: int) -> dict[str, Any]:
    """Single turns one after another, servers open, SQLite; storage of each thread."""
    async with backend("sqlite", folder) as be:
        await run_turn(be.graph, setup, 0)  # untimed: sessions open, imports settle
        setup.models.reset()
        turns = [await run_turn(be.graph, setup, n + 1) for n in range(runs)]
        assert be.db is not None
        stored = [await asyncio.to_thread(storage, be.db, t.thread_id) for t in turns]
    calls = setup.models.calls()
    walls = [t.wall_s for t in turns]
    return {
        "wall_s": walls,
        "median_s": statistics.median(walls),
        "model_calls_per_turn": {k: v / runs for k, v in calls.items() if v},
        "storage_per_run": {k: statistics.median(s[k] for s in stored) for k in stored[0]},
        "errors": failed(turns),
    }


async def cpu(setup: Setup, folder: Path, kind: str, runs: int) -> dict[str, Any]:
    """Process CPU per run over `runs` concurrent turns on one backend."""
    async with backend(kind, folder) as be:
        await run_turn(be.graph, setup, 0)
        begin_cpu, begin = time.process_time(), time.perf_counter()
        turns = await asyncio.gather(*(guarded(run_turn(be.graph, setup, n)) for n in range(runs)))
        spent, wall = time.process_time() - begin_cpu, time.perf_counter() - begin
    return {"cpu_ms_per_run": spent * 1000 / runs, "wall_s": wall, "errors": failed(turns)}


async def load(setup: Setup, folder: Path, threads: int, single_s: float) -> dict[str, Any]:
    """`threads` concurrent turns on one process, each checked for its own data."""
    async with backend("sqlite", folder) as be:
        await run_turn(be.graph, setup, 0)
        begin = time.perf_counter()
        turns = await asyncio.gather(
            *(guarded(run_turn(be.graph, setup, 1000 + n)) for n in range(threads))
        )
        wall = time.perf_counter() - begin
    walls = sorted(t.wall_s for t in turns if isinstance(t, Turn))
    errors = [t for t in turns if isinstance(t, str)]
    leaks = [p for t in turns if isinstance(t, Turn) for p in t.problems]
    p50 = statistics.median(walls) if walls else float("nan")
    p95 = walls[max(0, round(0.95 * len(walls)) - 1)] if walls else float("nan")
    return {
        "threads": threads,
        "wall_s": wall,
        "p50_s": p50,
        "p95_s": p95,
        "single_s": single_s,
        "p50_ratio": p50 / single_s,
        "p95_ratio": p95 / single_s,
        "errors": errors,
        "wrong_data": leaks,
    }


def window(turn: int, last: int) -> list[int]:
    """Turn numbers averaged around `turn`: it and its neighbours, within 2..last."""
    return [n for n in (turn - 1, turn, turn + 1) if 2 <= n <= last]


async def long_thread(setup: Setup, folder: Path, turns: int, early: int) -> dict[str, Any]:
    """Turns of the same request on one thread: CPU per turn and checkpoint bytes over time."""
    cpu_ms: dict[int, float] = {}
    total: dict[int, int] = {0: 0}
    problems: list[str] = []
    async with backend("sqlite", folder) as be:
        thread = uuid4().hex
        assert be.db is not None
        for n in range(1, turns + 1):
            begin = time.process_time()
            turn = await run_turn(be.graph, setup, 7, thread)
            cpu_ms[n] = (time.process_time() - begin) * 1000
            problems += turn.problems
            total[n] = (await asyncio.to_thread(storage, be.db, thread))["bytes"]
    added = {n: total[n] - total[n - 1] for n in range(1, turns + 1)}
    early_w, late_w = window(early, turns), window(turns - 1, turns)
    cpu_early = statistics.mean(cpu_ms[n] for n in early_w)
    cpu_late = statistics.mean(cpu_ms[n] for n in late_w)
    bytes_early = statistics.mean(added[n] for n in early_w)
    bytes_late = statistics.mean(added[n] for n in late_w)
    return {
        "turns": turns,
        "early_turns": early_w,
        "late_turns": late_w,
        "cpu_ms_early": cpu_early,
        "cpu_ms_late": cpu_late,
        "cpu_growth": cpu_late / cpu_early - 1,
        "bytes_added_early": bytes_early,
        "bytes_added_late": bytes_late,
        "bytes_added_last_turn": added[turns],
        "bytes_growth": bytes_late / bytes_early - 1,
        "bytes_total_early": total[early],
        "bytes_total_last": total[turns],
        "cpu_ms_per_turn": [round(cpu_ms[n], 2) for n in range(1, turns + 1)],
        "bytes_added_per_turn": [added[n] for n in range(1, turns + 1)],
        "errors": problems,
    }


async def once(folder: Path, transport: str = "inprocess") -> tuple[Turn, dict[str, int]]:
    """One checked turn at zero latency on SQLite in `folder`, and its thread's storage."""
    setup = Setup(0.0, 0.0, transport)
    async with backend("sqlite", folder) as be:
        turn = await run_turn(be.graph, setup, 1)
        assert be.db is not None
        return turn, await asyncio.to_thread(storage, be.db, turn.thread_id)


COLD_CHILD = """
import os, sys
root, bench, model_s = sys.argv[1], sys.argv[2], float(sys.argv[3])
sys.path[:0] = [root, bench]
from strategies.cli import main
from strategies.cli import setup  # what `run` imports before it starts the servers
from tests.doubles import ScriptedChatModel, install_scripted

def reply(role):
    def answer(messages, meta):
        from bench_perf import REPLIES  # at the first model call: `run` has imported the graph
        found = REPLIES[role]
        return found(messages, meta) if callable(found) else found
    return answer

for role in ("planner", "irreversibility", "orchestrate", "assess", "response", "unused"):
    model = ScriptedChatModel(script=[reply(role)] * 1000, name_=role, delay_s=model_s)
    os.environ[role.upper() + "_MODEL"] = install_scripted(model, role)
sys.argv = ["mcp-planner", "run", *sys.argv[4:]]
main()
"""
"""A `mcp-planner run` process with the bench's scripted models (argv: root, bench, model_s,
then `run`'s arguments)."""


def cold(model_s: float, tool_s: float) -> dict[str, Any]:
    """`mcp-planner run` in fresh processes: without, then with the tool-list cache."""
    with tempfile.TemporaryDirectory() as folder:
        where = Path(folder)
        (where / "mcp.json").write_text(json.dumps(mcp_config("stdio", tool_s)))
        env = {**os.environ, "XDG_CACHE_HOME": str(where / "cache")}
        # As an installed copy runs: with its modules' bytecode (pip writes it at install; an
        # editable install writes it on first import, here the untimed first run), not
        # compiling every module of ours from source again in each process.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        first = _cold_run(model_s, where, env, 1)
        second = _cold_run(model_s, where, env, 2)
        # The issue's own measure: to the approval, the write held (not sandboxed); without a
        # terminal the CLI lists it and exits 3.
        held = mcp_config("stdio", tool_s)
        held["mcpServers"]["orders"].pop("sandboxed")
        (where / "held.json").write_text(json.dumps(held))
        third = _cold_run(model_s, where, env, 3, config="held.json")
    return {
        "answer_s": second["answer_s"],
        "exit_s": second["exit_s"],
        "approval_s": third["answer_s"],
        "answer_s_no_cache": first["answer_s"],
        "errors": first["errors"] + second["errors"] + third["errors"],
    }


def _cold_run(
    model_s: float, folder: Path, env: dict[str, str], n: int, config: str = "mcp.json"
) -> dict[str, Any]:
    """One `mcp-planner run` of request `n` in `folder`: time to its answer and to its exit.

    With a `config` whose write is held, the "answer" is the listing of the pending approval.
    """
    held = config != "mcp.json"
    skus = skus_for(n)
    command = [sys.executable, "-c", COLD_CHILD, str(ROOT), str(Path(__file__).parent)]
    command += [
        str(model_s),
        request_for(skus),
        "--config",
        config,
        "--model",
        "scripted:unused",
    ]
    order = "PO-" + "+".join(skus)
    begin = time.perf_counter()
    answered = None
    lines = []
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=folder, env=env
    ) as child:
        assert child.stdout is not None
        for line in child.stdout:
            lines.append(line)
            # The answer ("Reordered ...: order PO-..."), not the write's result line.
            done = "Waiting on thread" in line if held else "Reordered" in line and order in line
            if answered is None and done:
                answered = time.perf_counter() - begin
        _, err = child.communicate(timeout=60)
        exited = time.perf_counter() - begin
    errors = (
        []
        if child.returncode == (3 if held else 0)
        else [f"exit {child.returncode}: {err[-2000:]}"]
    )
    if answered is None:
        errors.append(f"no answer naming {order}: {''.join(lines)[-2000:]} {err[-2000:]}")
    return {
        "answer_s": answered if answered is not None else exited,
        "exit_s": exited,
        "errors": errors,
    }


@dataclass
class Options:
    """How much of each figure to measure."""

    model_s: float
    tool_s: float
    warm_runs: int
    cpu_runs: int
    threads: int
    turns: int
    early_turn: int


async def measure(opts: Options, folder: Path) -> dict[str, Any]:
    """Every in-process figure, in one event loop (one pool of MCP sessions)."""
    timed = Setup(opts.model_s, opts.tool_s)
    fast = Setup(0.0, 0.0)
    try:
        result = {"warm": await warm(timed, folder, opts.warm_runs)}
        result["cpu_sqlite"] = await cpu(fast, folder, "sqlite", opts.cpu_runs)
        result["cpu_memory"] = await cpu(fast, folder, "memory", opts.cpu_runs)
        single = result["warm"]["median_s"]
        result["load"] = await load(timed, folder, opts.threads, single)
        result["long_thread"] = await long_thread(fast, folder, opts.turns, opts.early_turn)
    finally:
        await shutdown_pool()
    return result


async def profile(runs: int, top: int) -> str:
    """cProfile of `runs` concurrent in-memory turns: top entries of our code and langgraph's."""
    setup = Setup(0.0, 0.0)
    profiler = cProfile.Profile()
    try:
        async with backend("memory", ROOT) as be:
            await run_turn(be.graph, setup, 0)
            profiler.enable()
            await asyncio.gather(*(run_turn(be.graph, setup, n) for n in range(runs)))
            profiler.disable()
    finally:
        await shutdown_pool()
    parts = []
    for label, pattern in (
        ("ours (src/)", r"/src/(common|strategies)/"),
        ("langgraph", "/langgraph/"),
    ):
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out).sort_stats("cumulative")
        stats.print_stats(pattern, top)
        parts.append(f"== {label}, top {top} by cumulative time ==\n" + _stats_rows(out.getvalue()))
    return "\n".join(parts)


OPTIONS_FULL = {"warm_runs": 5, "cpu_runs": 40, "threads": 100, "turns": 30, "early_turn": 5}
OPTIONS_QUICK = {"warm_runs": 2, "cpu_runs": 8, "threads": 10, "turns": 8, "early_turn": 3}


def arguments() -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model-s", type=float, default=0.3, help="seconds per model call")
    parser.add_argument("--tool-s", type=float, default=0.2, help="seconds per tool call")
    parser.add_argument("--quick", action="store_true", help="a fast smoke run, fewer of each")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--no-check", action="store_true", help="exit 0 even if a target is missed")
    parser.add_argument("--profile", action="store_true", help="only profile the CPU part")
    return parser.parse_args()


def run_all(args: argparse.Namespace) -> dict[str, Any]:
    """Every figure, the machine and the options, with the targets checked."""
    opts = Options(args.model_s, args.tool_s, **(OPTIONS_QUICK if args.quick else OPTIONS_FULL))
    result: dict[str, Any] = {"machine": machine(), "options": vars(opts)}
    result["limit_s"] = 2 * opts.model_s + 2 * opts.tool_s
    result["cold"] = cold(opts.model_s, opts.tool_s)
    with tempfile.TemporaryDirectory() as folder:
        result |= asyncio.run(measure(opts, Path(folder)))
    result["warm"]["ratio"] = result["warm"]["median_s"] / result["limit_s"]
    result["missed"] = misses(result)
    return result


def main() -> int:
    """Measure, print, and exit 1 when a checked target is missed."""
    args = arguments()
    if args.profile:
        print(asyncio.run(profile(OPTIONS_FULL["cpu_runs"], 10)))
        return 0
    result = run_all(args)
    return finish(result, table(result), args.json, args.no_check)


if __name__ == "__main__":
    sys.exit(main())
