"""The guard's deterministic layers: time to classify one tool list, median of runs.

    PYTHONPATH=src:. python bench/bench_guard.py [--runs 21] [--src [LABEL=]OTHER/src] [--json OUT]

Classifies every tool list of the labelled catalog (tests/data/tool_catalog.json) and of both
blind sets (guard_blind_set.json, guard_blind_set_prefixed.json) with `classify_tools`, plain
server config (hints not trusted, nothing sandboxed, no model), as a new process meets them: every
cache of `common.safety` (readings, the lexicon's lookups) is cleared before each list; the
lexicon's module is loaded once beforehand, outside the timing. Prints, per set, the median over
runs of the time per list (ms) and of the whole set, and the slowest list.

With `--src` it times other source trees too, each in its own process, runs interleaved round by
round on the same machine (a checkout of the guard before a change, beside this one: `git archive
COMMIT src | tar -x -C DIR`): side by side figures. `--json` records them with the date, the
machine, this checkout's commit and the 1-minute load before and after (bench/results/guard.json
holds issue 44's). Counts of misses are not its business (tests/data/catalog_report.py).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SETS = {
    "catalog": DATA / "tool_catalog.json",
    "unseen-styles": DATA / "guard_blind_set.json",
    "prefixed": DATA / "guard_blind_set_prefixed.json",
}
"""The tool lists timed, by set."""


def _lists() -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Every set's tool lists, by server."""
    sets = {name: json.loads(path.read_text())["servers"] for name, path in SETS.items()}
    return {
        name: {s: entry["tools"] for s, entry in servers.items()} for name, servers in sets.items()
    }


def _clear_caches() -> None:
    """Empty every lru_cache of the guard's modules, as in a process that has read no tool yet."""
    for name, module in list(sys.modules.items()):
        if not name.startswith("common.safety"):
            continue
        for value in vars(module).values():
            clear = getattr(value, "cache_clear", None)
            if callable(clear):
                clear()


def one_round() -> dict[str, list[float]]:
    """Seconds to classify each list of each set once, caches cleared before each list."""
    from mcp.types import Tool

    from common.mcp.config import ServerConfig
    from common.safety.classify import classify_tools
    from common.safety.parts import can_be_noun

    can_be_noun("warm")  # the lexicon's module loads once per process, not per list
    plain = ServerConfig(command="srv")
    out: dict[str, list[float]] = {}
    for set_name, lists in _lists().items():
        out[set_name] = []
        for server, raw in lists.items():
            tools = [Tool.model_validate(t) for t in raw]
            _clear_caches()
            start = time.perf_counter()
            classify_tools(server, tools, plain)
            out[set_name].append(time.perf_counter() - start)
    return out


def _child(src: str) -> dict[str, list[float]]:
    """One round in a new process importing the guard from `src`."""
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{ROOT}"}
    command = [sys.executable, __file__, "--one-round"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    result: dict[str, list[float]] = json.loads(done.stdout)
    return result


def _summary(rounds: list[dict[str, list[float]]]) -> dict[str, dict[str, float]]:
    """Per set: median ms per list, median ms for the whole set, median ms of the slowest list."""
    out = {}
    for set_name in rounds[0]:
        per_list = [statistics.median(r[set_name]) * 1000 for r in rounds]
        whole = [sum(r[set_name]) * 1000 for r in rounds]
        slowest = [max(r[set_name]) * 1000 for r in rounds]
        out[set_name] = {
            "lists": len(rounds[0][set_name]),
            "median_ms_per_list": round(statistics.median(per_list), 2),
            "median_ms_whole_set": round(statistics.median(whole), 1),
            "median_ms_slowest_list": round(statistics.median(slowest), 2),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    """Time each source tree round by round and print the medians side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=21, help="rounds per source tree")
    parser.add_argument(
        "--src", action="append", default=[], help="another source tree to time, LABEL=PATH"
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--one-round", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args(argv)
    if opts.one_round:
        print(json.dumps(one_round()))
        return 0
    load = os.getloadavg()[0]
    trees = {"this checkout": str(ROOT / "src")}
    trees |= {
        src.partition("=")[0] if "=" in src else src: src.rpartition("=")[2] for src in opts.src
    }
    rounds: dict[str, list[dict[str, list[float]]]] = {label: [] for label in trees}
    for _ in range(opts.runs):
        for label, tree in trees.items():
            rounds[label].append(_child(tree))
    figures = {tree: _summary(r) for tree, r in rounds.items()}
    for tree, by_set in figures.items():
        print(tree)
        for set_name, fig in by_set.items():
            per_list, whole = fig["median_ms_per_list"], fig["median_ms_whole_set"]
            print(
                f"  {set_name:<14} {fig['lists']:>3} lists  {per_list:>7.2f} ms/list"
                f"  {whole:>8.1f} ms/set  slowest {fig['median_ms_slowest_list']:.2f} ms"
            )
    if opts.json:
        head = ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"]
        record = {
            "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
            "commit": subprocess.run(head, capture_output=True, text=True).stdout.strip(),
            "machine": f"{platform.machine()} {platform.python_version()}",
            "cpus": os.cpu_count(),
            "load_before_after": [load, os.getloadavg()[0]],
            "runs": opts.runs,
            "figures": figures,
        }
        opts.json.write_text(json.dumps(record, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
