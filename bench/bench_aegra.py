"""Throughput and p95 of with_planner on one Aegra instance against two, measured in one run.

    python bench/bench_aegra.py [--threads 50] [--tool-s 0.2] [--json] [--no-check]

Needs `make aegra` (Python >= 3.12), the local PostgreSQL and Redis. One cluster (a fresh
database, its own Redis prefix; dropped after) is used for both measurements, so both see the
same data and machine:

1. one instance (one worker, `N_JOBS_PER_WORKER` runs at a time): `--threads` threads each get
   one background run, all created at once; every run is then joined;
2. a second instance joins (same database and queue): the same number of new threads, runs
   created alternately on the two instances.

Each run is a two-task plan by the keyless `offline:rules` model (no model latency): two
`slow_read` calls of `--tool-s` seconds each on `tests/servers/slow_write.py`, so a run costs
graph work (planning, checkpoints in PostgreSQL, the queue) plus two tool calls. Each instance
starts its own MCP server processes; both are warmed up (one untimed run each) before timing.

Reported: runs per second (threads / wall time from the first create to the last join), p50 and
p95 of a run's latency (its create to its join), and the two-instance / one-instance throughput
ratio, and the CPU seconds an instance's own process spends per run (its MCP servers not
counted). Target (issue 12): at least 1.6x the throughput with p95 no worse. Exits 1 when missed,
unless --no-check.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# The Aegra test harness lives in the repository's `tests` package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from langgraph_sdk import get_client
from tests.integration_tests.aegra import ROOT, AegraCluster, Instance, aegra_cluster

TARGET_RATIO = 1.6
"""Two instances must give at least this much of one instance's throughput."""


def mcp_config(tool_s: float) -> dict[str, Any]:
    """One expert whose `slow_read` stands for a tool's latency."""
    return {
        "mcpServers": {
            "slowkit": {
                "command": sys.executable,
                "args": [str(ROOT / "tests" / "servers" / "slow_write.py")],
                "env": {"SLOW_READ_S": str(tool_s)},
                "description": "Slow reads.",
            }
        }
    }


REQUEST = 'slow read key="a", then slow read key="b"'
"""A request the offline planner turns into two `slow_read` calls."""


_CLIENTS: dict[str, Any] = {}


def client_for(url: str) -> Any:
    """One SDK client (one connection pool) per instance, reused by every run.

    A new client per run opens new connections each time and costs the client about twice
    the CPU; services keep one.
    """
    if url not in _CLIENTS:
        _CLIENTS[url] = get_client(url=url)
    return _CLIENTS[url]


async def one_run(url: str, ctx: dict[str, Any], text: str) -> float:
    """Create a thread and a background run on `url`, join it; its latency in seconds.

    A run whose tasks did not both complete is an error: the benchmark would time nothing.
    """
    client = client_for(url)
    started = time.perf_counter()
    thread = await client.threads.create()
    run = await client.runs.create(
        thread["thread_id"],
        "with_planner",
        input={"messages": [{"role": "user", "content": text}]},
        context=ctx,
    )
    await client.runs.join(thread["thread_id"], run["run_id"])
    final = await client.runs.get(thread["thread_id"], run["run_id"])
    if final["status"] != "success":
        raise RuntimeError(f"run {run['run_id']} on {url} ended {final['status']}")
    state = await client.threads.get_state(thread["thread_id"])
    statuses = [t["status"] for t in state["values"]["previous_plan"]]
    if statuses != ["completed", "completed"]:
        raise RuntimeError(f"run {run['run_id']} on {url}: tasks ended {statuses}")
    return time.perf_counter() - started


def cpu_s(instance: Instance) -> float:
    """CPU seconds (user + system) the instance's own process has used so far.

    Its MCP servers are separate processes and not counted: this is the graph's and the
    server's share, what bounds an instance's throughput.
    """
    assert instance.proc is not None
    fields = Path(f"/proc/{instance.proc.pid}/stat").read_text().rpartition(")")[2].split()
    # utime and stime are fields 14 and 15 of stat(5); `fields` starts at field 3.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(instances: list[Instance], threads: int, ctx: dict[str, Any], text: str) -> Any:
    """Throughput, latency and instance CPU of `threads` runs spread over `instances`."""
    cpu_before = sum(cpu_s(i) for i in instances)
    started = time.perf_counter()
    latencies = await asyncio.gather(
        *(one_run(instances[i % len(instances)].url, ctx, text) for i in range(threads))
    )
    wall = time.perf_counter() - started
    cpu = sum(cpu_s(i) for i in instances) - cpu_before
    ordered = sorted(latencies)
    return {
        "instances": len(instances),
        "threads": threads,
        "wall_s": round(wall, 2),
        "runs_per_s": round(threads / wall, 2),
        "p50_s": round(statistics.median(ordered), 2),
        "p95_s": round(ordered[max(0, int(0.95 * len(ordered)) - 1)], 2),
        "cpu_s_per_run": round(cpu / threads, 3),
    }


async def bench(threads: int, tool_s: float) -> dict[str, Any]:
    """Both measurements on one cluster, one instance first."""
    ctx = {"mcp_config": mcp_config(tool_s), "model": "offline:rules"}
    text = REQUEST
    with tempfile.TemporaryDirectory() as logs:
        cluster: AegraCluster
        async with aegra_cluster(Path(logs)) as cluster:
            first = await cluster.add()
            await one_run(first.url, ctx, text)
            one = await measure([first], threads, ctx, text)
            second = await cluster.add()
            await one_run(second.url, ctx, text)
            two = await measure([first, second], threads, ctx, text)
    return {
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "one": one,
        "two": two,
        "throughput_ratio": round(two["runs_per_s"] / one["runs_per_s"], 2),
        "p95_ratio": round(two["p95_s"] / one["p95_s"], 2),
    }


def report(r: dict[str, Any]) -> str:
    """The result as a table."""
    rows = [
        "| instances | threads | wall s | runs/s | p50 s | p95 s | instance CPU-s per run |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for m in (r["one"], r["two"]):
        rows.append(
            f"| {m['instances']} | {m['threads']} | {m['wall_s']} | {m['runs_per_s']} | "
            f"{m['p50_s']} | {m['p95_s']} | {m['cpu_s_per_run']} |"
        )
    rows.append("")
    rows.append(
        f"two / one: throughput {r['throughput_ratio']}x (target >= {TARGET_RATIO}x), "
        f"p95 {r['p95_ratio']}x (target <= 1.0x)"
    )
    return "\n".join(rows)


def main() -> None:
    """Run the benchmark and print (or check) the result."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=50)
    parser.add_argument("--tool-s", type=float, default=0.2)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-check", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(bench(args.threads, args.tool_s))
    print(json.dumps(result, indent=2) if args.json else report(result))
    met = result["throughput_ratio"] >= TARGET_RATIO and result["p95_ratio"] <= 1.0
    if not met and not args.no_check:
        sys.exit(1)


if __name__ == "__main__":
    main()
