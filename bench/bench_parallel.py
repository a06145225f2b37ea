"""Time a dependency plan run in parallel against the same plan run one task at a time.

    python bench/bench_parallel.py [--runs 3] [--model-s 0.3] [--tool-s 0.2] [--json] [--no-check]

Scenario (issue 4): three independent lookups on one expert, then a write on another expert
that depends on all three. Every model call is a `ScriptedChatModel` sleeping `--model-s`
(300 ms), every tool an in-process MCPServer tool sleeping `--tool-s` (200 ms).

- t1, t2, t3: orchestrated tasks on `records` (orchestrate -> lookup -> assess_task: two model
  calls and one tool call each);
- t4: a direct step `save_report` on `reports` whose args are templates over t1..t3's results
  (`${t1.data.items.*.id}`...): one tool call, no model call. `reports` is configured
  `sandboxed: true`, so the write is reversible and runs without an approval interrupt;
- around the plan: the planner, the irreversibility analysis (`lookup` is reversible only by
  its name, so the analyser is asked) and the final response: one model call each.

The same plan runs with `max_parallel=4` (parallel) and `max_parallel=1` (one task at a time),
alternately, after one untimed warm-up of each. Medians are reported.

Bounds, from the configured latencies:
- critical path (whole turn): planner + analysis + the longest dependency chain of the plan
  (here lookup = model + tool + model, then write = tool) + response;
- sequential (whole turn): planner + analysis + the sum over all tasks + response;
- plan phase: the same two without planner, analysis and response, measured from the first
  `task_start` to the last `task_end` progress event.

Targets: the parallel turn within 1.2x of the critical-path bound, and the plan run at least
2.5x faster than one task at a time. Over the whole turn 2.5x is out of reach: the planner,
analysis and response are the same 0.9 s in both runs, which caps the whole-turn ratio at
sequential bound / critical-path bound (1.84x with the default latencies); so the 2.5x target
is checked on the plan phase (ceiling 2.6x), and the whole-turn ratio is reported next to its
ceiling. Exits 1 when a checked target is missed, unless --no-check.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import uuid4

# The test doubles live in the repository's `tests` package, not in the installed code.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from mcp.server.mcpserver import MCPServer
from tests.doubles import ScriptedChatModel, calls, install_scripted, tool_call

from common.mcp.inprocess import register_inprocess_server
from common.mcp.registry import shutdown_pool
from strategies.with_planner.graph import build_graph

MAX_OVER_BOUND = 1.2
MIN_SPEEDUP = 2.5
REQUEST = "Look up the north, south and east records, then save one report listing them all."
KEYS = {"t1": "north", "t2": "south", "t3": "east"}
ROLES = ("planner", "irreversibility", "orchestrate", "assess", "response")

PLAN: dict[str, Any] = {
    "plan": [
        *(
            {"id": tid, "expert": "records", "task": f"Look up the {key} records."}
            for tid, key in KEYS.items()
        ),
        {
            "id": "t4",
            "expert": "reports",
            "task": "Save a report listing every record found.",
            "depends_on": list(KEYS),
            "tool": "save_report",
            "args": {
                "title": "Records of ${t1.data.key}, ${t2.data.key} and ${t3.data.key}",
                "north": "${t1.data.items.*.id}",
                "south": "${t2.data.items.*.id}",
                "east": "${t3.data.items.*.id}",
            },
        },
    ]
}


@dataclass
class Latency:
    model_s: float
    tool_s: float

    def task(self, task: dict[str, Any]) -> float:
        """One task's own latency: a direct step is one tool call, else model, tool, model."""
        return self.tool_s if task.get("tool") else 2 * self.model_s + self.tool_s


@dataclass
class Servers:
    """The two in-process experts, registered under fresh names, and what they ran."""

    tool_s: float
    records: str = ""
    reports: str = ""
    saved: list[dict[str, Any]] = field(default_factory=list)

    def register(self) -> None:
        records = MCPServer(f"bench-records-{uuid4().hex[:8]}", log_level="WARNING")
        reports = MCPServer(f"bench-reports-{uuid4().hex[:8]}", log_level="WARNING")
        tool_s, saved = self.tool_s, self.saved

        @records.tool()
        async def lookup(key: str) -> dict[str, Any]:
            """Look up the records filed under a key."""
            await asyncio.sleep(tool_s)
            return {"key": key, "items": [{"id": f"{key}-{n}"} for n in range(3)]}

        @reports.tool()
        async def save_report(
            title: str, north: list[str], south: list[str], east: list[str]
        ) -> str:
            """Save a report listing record ids."""
            await asyncio.sleep(tool_s)
            saved.append({"title": title, "north": north, "south": south, "east": east})
            return f"saved {title!r}"

        register_inprocess_server(records.name, records)
        register_inprocess_server(reports.name, reports)
        self.records, self.reports = records.name, reports.name

    def mcp_config(self) -> dict[str, Any]:
        return {
            "mcpServers": {
                "records": {"inprocess": self.records, "description": "Record lookups."},
                "reports": {
                    "inprocess": self.reports,
                    "description": "Reports, written in a sandboxed workspace.",
                    "sandboxed": True,
                },
            }
        }


def _orchestrate(messages: list[BaseMessage], _meta: Any) -> AIMessage:
    # Parallel tasks share the model: answer by the task named in the prompt, not by order.
    found = re.search(r"Your task \((\w+)\)", str(messages[0].content))
    if found is None:
        raise AssertionError("orchestrate prompt without a task id")
    if any(isinstance(m, ToolMessage) for m in messages):
        return AIMessage(f"{found.group(1)}: records found")
    return calls(tool_call("lookup", {"key": KEYS[found.group(1)]}))


def _models(model_s: float) -> dict[str, ScriptedChatModel]:
    n = 20  # more replies than a run needs, per role
    scripts: dict[str, list[Any]] = {
        "planner": [PLAN] * n,
        "irreversibility": ["IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE"] * n,
        "orchestrate": [_orchestrate] * n,
        "assess": [{"completed": True, "reason": "the lookup returned the records"}] * n,
        "response": ["Saved one report with the north, south and east records."] * n,
    }
    return {
        role: ScriptedChatModel(script=scripts[role], name_=role, delay_s=model_s) for role in ROLES
    }


@dataclass
class RunResult:
    wall_s: float
    phase_s: float
    model_calls: dict[str, int]
    analysis: str
    statuses: list[str]
    peak_parallel: int


async def run_once(servers: Servers, model_s: float, max_parallel: int) -> RunResult:
    models = _models(model_s)
    ctx: dict[str, Any] = {
        "mcp_config": servers.mcp_config(),
        "model": "scripted:unused",
        "max_parallel": max_parallel,
    }
    for role, model in models.items():
        ctx[f"{role}_model"] = install_scripted(model)
    graph = build_graph(InMemorySaver())
    config = {"configurable": {"thread_id": uuid4().hex}}
    payload = {"messages": [{"role": "user", "content": REQUEST}]}
    starts: list[float] = []
    ends: list[float] = []
    running = peak = 0
    begin = time.perf_counter()
    async for event in graph.astream(payload, config, context=ctx, stream_mode="custom"):
        now = time.perf_counter()
        if event.get("event") == "task_start":
            starts.append(now)
            running += 1
            peak = max(peak, running)
        elif event.get("event") == "task_end":
            ends.append(now)
            running -= 1
    wall = time.perf_counter() - begin
    state = (await graph.aget_state(config)).values
    tasks = state["previous_plan"]
    return RunResult(
        wall_s=wall,
        phase_s=max(ends) - min(starts),
        model_calls={role: len(m.requests) for role, m in models.items()},
        analysis=state["guard"]["analysis"],
        statuses=[t["status"] for t in tasks],
        peak_parallel=peak,
    )


def bounds(lat: Latency, analysis_ran: bool) -> dict[str, float]:
    tasks = {t["id"]: t for t in PLAN["plan"]}
    finish: dict[str, float] = {}

    def done_at(tid: str) -> float:
        if tid not in finish:
            deps = tasks[tid].get("depends_on", [])
            finish[tid] = max((done_at(d) for d in deps), default=0.0) + lat.task(tasks[tid])
        return finish[tid]

    chain = max(done_at(tid) for tid in tasks)
    total = sum(lat.task(t) for t in tasks.values())
    around = lat.model_s * (2 + (1 if analysis_ran else 0))  # planner, analysis, response
    return {
        "critical_path_s": around + chain,
        "sequential_s": around + total,
        "phase_critical_path_s": chain,
        "phase_sequential_s": total,
        "whole_turn_ceiling": (around + total) / (around + chain),
        "phase_ceiling": total / chain,
    }


async def bench(runs: int, lat: Latency) -> dict[str, Any]:
    servers = Servers(lat.tool_s)
    servers.register()
    try:
        await run_once(servers, lat.model_s, 4)  # warm-up: sessions open, imports settle
        await run_once(servers, lat.model_s, 1)
        parallel: list[RunResult] = []
        sequential: list[RunResult] = []
        for i in range(runs):
            order = [(4, parallel), (1, sequential)]
            for width, sink in order if i % 2 == 0 else order[::-1]:
                sink.append(await run_once(servers, lat.model_s, width))
    finally:
        await shutdown_pool()
    for result in parallel + sequential:
        if result.statuses != ["completed"] * 4:
            raise RuntimeError(f"a run did not complete every task: {result.statuses}")
    if not servers.saved or servers.saved[-1]["north"] != ["north-0", "north-1", "north-2"]:
        raise RuntimeError(f"the write did not get the lookups' results: {servers.saved[-1:]}")
    b = bounds(lat, parallel[0].analysis == "ok")
    p_wall = statistics.median(r.wall_s for r in parallel)
    s_wall = statistics.median(r.wall_s for r in sequential)
    p_phase = statistics.median(r.phase_s for r in parallel)
    s_phase = statistics.median(r.phase_s for r in sequential)
    return {
        "runs": runs,
        "model_s": lat.model_s,
        "tool_s": lat.tool_s,
        "analysis": parallel[0].analysis,
        "model_calls": parallel[0].model_calls,
        "model_calls_total": sum(parallel[0].model_calls.values()),
        "model_calls_sequential_total": sum(sequential[0].model_calls.values()),
        "peak_parallel": max(r.peak_parallel for r in parallel),
        "parallel_wall_s": [r.wall_s for r in parallel],
        "sequential_wall_s": [r.wall_s for r in sequential],
        "parallel_wall_median_s": p_wall,
        "sequential_wall_median_s": s_wall,
        "parallel_phase_median_s": p_phase,
        "sequential_phase_median_s": s_phase,
        **b,
        "wall_over_bound": p_wall / b["critical_path_s"],
        "speedup_whole_turn": s_wall / p_wall,
        "speedup_plan_phase": s_phase / p_phase,
    }


def report(r: dict[str, Any]) -> str:
    calls_by_role = ", ".join(f"{k} {v}" for k, v in r["model_calls"].items())
    return "\n".join(
        [
            f"Scenario: 3 orchestrated lookups in parallel, then a direct write; model "
            f"{r['model_s'] * 1000:.0f} ms/call, tool {r['tool_s'] * 1000:.0f} ms/call, "
            f"median of {r['runs']} runs each.",
            f"Model calls per turn: {r['model_calls_total']} ({calls_by_role}); "
            f"sequential run: {r['model_calls_sequential_total']}. Guard analysis: "
            f"{r['analysis']}. Peak tasks at once: {r['peak_parallel']}.",
            "",
            f"{'':28}{'parallel':>10}{'sequential':>12}{'ratio':>8}",
            f"{'whole turn, measured (s)':28}{r['parallel_wall_median_s']:>10.3f}"
            f"{r['sequential_wall_median_s']:>12.3f}{r['speedup_whole_turn']:>7.2f}x",
            f"{'whole turn, bound (s)':28}{r['critical_path_s']:>10.3f}"
            f"{r['sequential_s']:>12.3f}{r['whole_turn_ceiling']:>7.2f}x",
            f"{'plan phase, measured (s)':28}{r['parallel_phase_median_s']:>10.3f}"
            f"{r['sequential_phase_median_s']:>12.3f}{r['speedup_plan_phase']:>7.2f}x",
            f"{'plan phase, bound (s)':28}{r['phase_critical_path_s']:>10.3f}"
            f"{r['phase_sequential_s']:>12.3f}{r['phase_ceiling']:>7.2f}x",
            "",
            f"Parallel turn / critical-path bound: {r['wall_over_bound']:.3f}x "
            f"(target at most {MAX_OVER_BOUND}x).",
            f"Plan phase speedup over one task at a time: {r['speedup_plan_phase']:.2f}x "
            f"(target at least {MIN_SPEEDUP}x; ceiling {r['phase_ceiling']:.2f}x).",
            f"Whole-turn speedup: {r['speedup_whole_turn']:.2f}x (ceiling "
            f"{r['whole_turn_ceiling']:.2f}x)"
            + (
                f": {MIN_SPEEDUP}x over the whole turn is not attainable with these latencies, "
                "the planner, analysis and response run in both."
                if r["whole_turn_ceiling"] < MIN_SPEEDUP
                else "."
            ),
        ]
    )


def misses(r: dict[str, Any]) -> list[str]:
    missed = []
    if r["wall_over_bound"] > MAX_OVER_BOUND:
        missed.append(f"parallel turn is {r['wall_over_bound']:.2f}x the bound")
    if r["speedup_plan_phase"] < MIN_SPEEDUP:
        missed.append(f"plan phase speedup {r['speedup_plan_phase']:.2f}x < {MIN_SPEEDUP}x")
    return missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each mode")
    parser.add_argument("--model-s", type=float, default=0.3, help="seconds per model call")
    parser.add_argument("--tool-s", type=float, default=0.2, help="seconds per tool call")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--no-check", action="store_true", help="exit 0 even if a target is missed")
    args = parser.parse_args()
    result = asyncio.run(bench(args.runs, Latency(args.model_s, args.tool_s)))
    result["python"] = platform.python_version()
    missed = misses(result)
    result["targets_met"] = not missed
    print(json.dumps(result, indent=2) if args.json else report(result))
    if missed and not args.no_check:
        print("Target missed: " + "; ".join(missed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
