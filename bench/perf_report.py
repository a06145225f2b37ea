"""Limits, the machine, and the report of `bench_perf.py`: what each figure is held against.

Kept apart from the measurements so each file stays readable; `bench_perf.py` imports these.
"""

from __future__ import annotations

import json
import os
import platform
import re
import sys
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

MAX_WARM_RATIO = 1.3
MAX_COLD_S = 2.0
MAX_CPU_MS = 35.0
MAX_P95_RATIO = 3.0
MAX_CPU_GROWTH = 0.10
MAX_TURN_BYTES = 50_000
MAX_BYTES_GROWTH = 0.10


def _stats_rows(text: str) -> str:
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls")), 0)
    # Paths from the repository or site-packages on, so the listing reads the same anywhere.
    rows = (re.sub(r"\S*/(src|site-packages)/", "", line) for line in lines[start:])
    return "\n".join(row for row in rows if row.strip())


LOOP_N = 1_000_000
"""Additions in the machine's pure-Python loop (`loop_ms`; the same loop as bench_http's)."""


def loop_ms(repeats: int = 5) -> float:
    """A pure-Python loop's CPU time on this machine: LOOP_N additions, best of `repeats`, in ms.

    How fast this machine runs Python code, so that readers can scale the figures to theirs
    (start-up and CPU per run are Python work); CPU time, so that other work on the machine
    changes it less than a wall time.
    """
    best = float("inf")
    for _ in range(repeats):
        begin = time.process_time()
        total = 0
        for i in range(LOOP_N):
            total += i
        best = min(best, time.process_time() - begin)
    return best * 1000


def machine() -> dict[str, Any]:
    """Cores, CPU model, a pure-Python loop's time, the load average, Python and libraries."""
    cpu_name = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = re.findall(r"^model name\s*:\s*(.+)$", cpuinfo.read_text(), re.MULTILINE)
        cpu_name = names[0] if names else cpu_name
    return {
        "cores": os.cpu_count(),
        "cpu": cpu_name,
        "loop_ms": round(loop_ms(), 1),
        "load_1min": round(os.getloadavg()[0], 2),
        "python": platform.python_version(),
        "langgraph": version("langgraph"),
        "langgraph_checkpoint_sqlite": version("langgraph-checkpoint-sqlite"),
        "mcp": version("mcp"),
    }


def misses(r: dict[str, Any]) -> list[str]:
    """The targets a result misses, one sentence each."""
    w, ld, lt = r["warm"], r["load"], r["long_thread"]
    checks = [
        (
            w["ratio"] <= MAX_WARM_RATIO,
            f"warm turn {w['ratio']:.2f}x the limit > {MAX_WARM_RATIO}x",
        ),
        (
            r["cold"]["approval_s"] <= MAX_COLD_S,
            f"cold run to the approval {r['cold']['approval_s']:.2f} s > 2.0 s",
        ),
        (ld["p95_ratio"] <= MAX_P95_RATIO, f"load p95 {ld['p95_ratio']:.2f}x single > 3x"),
        (
            not ld["errors"],
            f"load: {len(ld['errors'])} errors, first: {str(ld['errors'][:1])[:300]}",
        ),
        (
            not ld["wrong_data"],
            f"load: {len(ld['wrong_data'])} wrong data, first: {str(ld['wrong_data'][:1])[:300]}",
        ),
        (lt["cpu_growth"] <= MAX_CPU_GROWTH, f"CPU per turn grew {lt['cpu_growth']:+.0%}"),
        (lt["bytes_added_late"] <= MAX_TURN_BYTES, "over 50 KB of checkpoints per turn"),
        (lt["bytes_growth"] <= MAX_BYTES_GROWTH, f"bytes per turn grew {lt['bytes_growth']:+.0%}"),
    ]
    for kind in ("cpu_sqlite", "cpu_memory"):
        ms = r[kind]["cpu_ms_per_run"]
        checks.append((ms <= MAX_CPU_MS, f"{kind} {ms:.1f} ms per run > {MAX_CPU_MS} ms"))
    for part in ("warm", "cold", "cpu_sqlite", "cpu_memory", "long_thread"):
        errors = r[part]["errors"]
        first = str(errors[0])[:300] if errors else ""
        checks.append((not errors, f"{part}: {len(errors)} errors, first: {first}"))
    return [why for ok, why in checks if not ok]


Row = tuple[str, str, str]
"""One figure: what, the measured value, the target."""


def _rows(r: dict[str, Any]) -> list[Row]:
    """Every figure of a result, with its target."""
    w, c, ld, lt = r["warm"], r["cold"], r["load"], r["long_thread"]
    sq, mem, st = r["cpu_sqlite"], r["cpu_memory"], w["storage_per_run"]
    return [
        ("warm turn, median (s)", f"{w['median_s']:.3f}", f"limit {r['limit_s']:.3f}"),
        ("warm turn / physical limit", f"{w['ratio']:.2f}x", f"<= {MAX_WARM_RATIO}x"),
        ("cold run, spawn to answer (s)", f"{c['answer_s']:.3f}", "report"),
        ("cold run, spawn to the approval (s)", f"{c['approval_s']:.3f}", f"<= {MAX_COLD_S} s"),
        ("cold run without a tool cache, to answer (s)", f"{c['answer_s_no_cache']:.3f}", "report"),
        ("cold run, spawn to exit (s)", f"{c['exit_s']:.3f}", "report"),
        (
            f"CPU per run, SQLite, {r['options']['cpu_runs']} at once (ms)",
            f"{sq['cpu_ms_per_run']:.1f}",
            f"<= {MAX_CPU_MS:g}",
        ),
        (
            f"CPU per run, memory, {r['options']['cpu_runs']} at once (ms)",
            f"{mem['cpu_ms_per_run']:.1f}",
            f"<= {MAX_CPU_MS:g}",
        ),
        ("checkpoints / writes per run", f"{st['checkpoints']:g} / {st['writes']:g}", "report"),
        ("checkpoint bytes per run", f"{st['bytes']:,.0f}", "report"),
        (
            f"load, {ld['threads']} threads: p50 / p95 (s)",
            f"{ld['p50_s']:.3f} / {ld['p95_s']:.3f}",
            "",
        ),
        ("load p95 / single turn", f"{ld['p95_ratio']:.2f}x", f"<= {MAX_P95_RATIO:g}x"),
        ("load errors / wrong data", f"{len(ld['errors'])} / {len(ld['wrong_data'])}", "0 / 0"),
        (
            f"CPU per turn, turn {lt['early_turns']} vs {lt['late_turns']} (ms)",
            f"{lt['cpu_ms_early']:.1f} -> {lt['cpu_ms_late']:.1f}",
            "",
        ),
        ("CPU per turn growth", f"{lt['cpu_growth']:+.1%}", f"<= +{MAX_CPU_GROWTH:.0%}"),
        (
            "checkpoint bytes added per turn, early -> late",
            f"{lt['bytes_added_early']:,.0f} -> {lt['bytes_added_late']:,.0f}",
            f"<= {MAX_TURN_BYTES:,}, +{MAX_BYTES_GROWTH:.0%}",
        ),
        (
            f"checkpoint bytes in total, turn {r['options']['early_turn']} / {lt['turns']}",
            f"{lt['bytes_total_early']:,} / {lt['bytes_total_last']:,}",
            "report",
        ),
    ]


def table(r: dict[str, Any]) -> str:
    """The figures as one table, with the machine and scenario above it."""
    m, w, opts = r["machine"], r["warm"], r["options"]
    calls = ", ".join(
        f"{k.removesuffix('_model')} {v:g}" for k, v in w["model_calls_per_turn"].items()
    )
    rows = _rows(r)
    width = max(len(k) for k, _, _ in rows) + 2
    lines = [
        f"Machine: {m['cores']} cores, {m['cpu']}, Python {m['python']}, "
        f"langgraph {m['langgraph']}, mcp {m['mcp']}; a pure-Python loop of "
        f"{LOOP_N:,} additions {m['loop_ms']:.1f} ms (CPU); load average {m['load_1min']}.",
        f"Scenario: 3 direct lookups, then a dependent direct write; model "
        f"{opts['model_s'] * 1000:.0f} ms, tool {opts['tool_s'] * 1000:.0f} ms; "
        f"physical limit {r['limit_s']:.3f} s (2 models + 2 tools).",
        f"Model calls per warm turn: {calls}.",
        "",
        f"{'figure':{width}}{'measured':>24}  target",
    ]
    lines += [f"{k:{width}}{v:>24}  {t}" for k, v, t in rows]
    return "\n".join(lines)


def finish(result: dict[str, Any], text: str, as_json: bool, no_check: bool) -> int:
    """Print the figures (as JSON, or `text`) and any missed target; the exit code.

    1 when a target in `result["missed"]` was missed, unless `no_check`.
    """
    print(json.dumps(result, indent=2) if as_json else text)
    if result["missed"] and not no_check:
        print("Target missed: " + "; ".join(result["missed"]), file=sys.stderr)
        return 1
    return 0
