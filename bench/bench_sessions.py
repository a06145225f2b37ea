"""Time one MCP tool call three ways: our pooled session, a raw SDK session, a session per call.

    python bench/bench_sessions.py [--calls 50] [--per-call-calls 10] [--json] [--no-check]

Each call is `get_stock(sku="WID-1")` on the inventory demo server over stdio.

- ours:             `ExpertRegistry.call` on the process-wide persistent session;
- raw:              the SDK's `mcp.Client.call_tool` on a client connected once (the floor);
- session per call: an `mcp.Client` connected, called and closed on every call, which starts
                    the server each time (what a LangChain MCP tool without a kept session does).

Ours and raw are opened and warmed up first, then called alternately (swapping which goes first
each round) so both see the same machine conditions. Exits 1 when a target is missed (ours
within 1.5x of raw, session per call at least 50x slower than ours, both by median), unless
--no-check.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from common.mcp import ExpertRegistry
from common.mcp.config import parse_mcp_config
from common.mcp.registry import shutdown_pool

SERVER_ARGS = ["-m", "common.demo_servers.inventory"]
TOOL = "get_stock"
TOOL_ARGS = {"sku": "WID-1"}
WARMUP = 5
MAX_OURS_OVER_RAW = 1.5
MIN_PER_CALL_OVER_OURS = 50.0

Call = Callable[[], Awaitable[Any]]


def _summary(samples: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in samples)
    return {
        "n": len(ms),
        "mean_ms": statistics.fmean(ms),
        "median_ms": statistics.median(ms),
        "min_ms": ms[0],
        "p90_ms": ms[min(len(ms) - 1, int(0.9 * len(ms)))],
        "max_ms": ms[-1],
    }


async def _timed(call: Call) -> float:
    start = time.perf_counter()
    await call()
    return time.perf_counter() - start


async def _ours_call() -> Call:
    raw = {"mcpServers": {"inventory": {"command": sys.executable, "args": SERVER_ARGS}}}
    registry = ExpertRegistry(parse_mcp_config(raw))

    async def call() -> None:
        outcome = await registry.call("inventory", TOOL, TOOL_ARGS, 30.0, retry_safe=True)
        if outcome["status"] != "ok" or "120" not in outcome["content"]:
            raise RuntimeError(f"unexpected outcome from ours: {outcome}")

    return call


def _raw_call(client: Client) -> Call:
    async def call() -> None:
        result = await client.call_tool(TOOL, TOOL_ARGS)
        if result.is_error:
            raise RuntimeError(f"unexpected result from raw: {result}")

    return call


async def _alternate(calls: dict[str, Call], n: int) -> dict[str, list[float]]:
    for call in calls.values():
        for _ in range(WARMUP):
            await call()
    samples: dict[str, list[float]] = {name: [] for name in calls}
    order = list(calls.items())
    for _ in range(n):
        for name, call in order:
            samples[name].append(await _timed(call))
        order.reverse()
    return samples


async def bench_persistent(n: int) -> dict[str, list[float]]:
    """Ours and raw, warmed up, then called alternately `n` times each."""
    params = StdioServerParameters(command=sys.executable, args=SERVER_ARGS)
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        async with Client(stdio_client(params, errlog)) as client:
            try:
                return await _alternate({"ours": await _ours_call(), "raw": _raw_call(client)}, n)
            finally:
                await shutdown_pool()


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Send fd 2 to /dev/null: the SDK hands each server our stderr for its logs."""
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(devnull)
        os.close(saved)


async def bench_session_per_call(n: int) -> list[float]:
    """A client connected and closed around every call: a new server and session each time."""
    params = StdioServerParameters(command=sys.executable, args=SERVER_ARGS)

    async def call() -> None:
        async with Client(params) as client:
            result = await client.call_tool(TOOL, TOOL_ARGS)
        if result.is_error:
            raise RuntimeError(f"unexpected result per call: {result}")

    with _quiet_stderr():
        await call()
        samples = [await _timed(call) for _ in range(n)]
    return samples


def _machine() -> dict[str, Any]:
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
    }


async def run(calls: int, per_call_calls: int) -> dict[str, Any]:
    persistent = await bench_persistent(calls)
    per_call = await bench_session_per_call(per_call_calls)
    results = {
        "ours": _summary(persistent["ours"]),
        "raw": _summary(persistent["raw"]),
        "session_per_call": _summary(per_call),
    }
    ours, raw, fresh = results["ours"], results["raw"], results["session_per_call"]
    ratios = {
        "ours_over_raw_median": ours["median_ms"] / raw["median_ms"],
        "ours_over_raw_mean": ours["mean_ms"] / raw["mean_ms"],
        "per_call_over_ours_median": fresh["median_ms"] / ours["median_ms"],
        "per_call_over_ours_mean": fresh["mean_ms"] / ours["mean_ms"],
    }
    targets = {
        f"ours within {MAX_OURS_OVER_RAW:g}x of raw (median)": ratios["ours_over_raw_median"]
        <= MAX_OURS_OVER_RAW,
        f"session per call at least {MIN_PER_CALL_OVER_OURS:g}x slower than ours (median)": ratios[
            "per_call_over_ours_median"
        ]
        >= MIN_PER_CALL_OVER_OURS,
    }
    return {
        "machine": _machine(),
        "tool": f"{TOOL}({json.dumps(TOOL_ARGS)}) on inventory over stdio",
        "results": results,
        "ratios": ratios,
        "targets": targets,
        "ok": all(targets.values()),
    }


def _print_report(report: dict[str, Any]) -> None:
    m = report["machine"]
    print(f"machine: {m['cpus']} cpus, Python {m['python']}, {m['platform']}")
    print(f"call:    {report['tool']}\n")
    print(f"{'way':<18}{'calls':>6}{'mean ms':>10}{'median ms':>11}{'min ms':>9}{'p90 ms':>9}")
    for name, r in report["results"].items():
        print(
            f"{name:<18}{r['n']:>6}{r['mean_ms']:>10.3f}{r['median_ms']:>11.3f}"
            f"{r['min_ms']:>9.3f}{r['p90_ms']:>9.3f}"
        )
    ratios = report["ratios"]
    print(
        f"\nours / raw:             {ratios['ours_over_raw_median']:.2f}x median, "
        f"{ratios['ours_over_raw_mean']:.2f}x mean"
    )
    print(
        f"session per call / ours: {ratios['per_call_over_ours_median']:.0f}x median, "
        f"{ratios['per_call_over_ours_mean']:.0f}x mean\n"
    )
    for target, met in report["targets"].items():
        print(f"[{'ok' if met else 'MISSED'}] {target}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=50, help="timed calls for ours and raw")
    parser.add_argument(
        "--per-call-calls", type=int, default=10, help="timed calls with a session per call"
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--no-check", action="store_true", help="do not fail on a missed target")
    args = parser.parse_args(argv)
    if args.calls < 1 or args.per_call_calls < 1:
        parser.error("--calls and --per-call-calls must be at least 1")
    report = asyncio.run(run(args.calls, args.per_call_calls))
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print_report(report)
    return 0 if args.no_check or report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
