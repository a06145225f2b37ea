"""CPU per run under each of LangGraph's durability modes, on bench_http's scenario (issue 45).

    python bench/bench_durability.py [--rounds 5] [--runs 40]

bench_http's CPU figure (the stock plan, 40 concurrent warm runs at latency 0, ChatOpenAI over
HTTP to the scripted model server, SQLite as documented for embedding), with `durability=` given
to each `ainvoke` of a run: "async" (LangGraph's default, what the graph runs with), "sync"
and "exit". The modes alternate batch by batch in one process, `--rounds` times, so each sees
the same machine and a thread count that grows alike; the median per mode is printed.
docs/reliability.md ("Durability mode") says why "async" is kept whatever these say.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent)]

import bench_http  # noqa: E402

MODES = ("async", "sync", "exit")
"""LangGraph's durability modes."""


class Durable:
    """A graph whose every `ainvoke` runs with one durability mode."""

    def __init__(self, graph: Any, mode: str) -> None:
        self.graph, self.mode = graph, mode

    async def ainvoke(self, *args: Any, **kwargs: Any) -> Any:
        """The graph's `ainvoke`, with `durability=` this mode."""
        return await self.graph.ainvoke(*args, durability=self.mode, **kwargs)


async def measure(folder: Path, rounds: int, runs: int) -> dict[str, list[float]]:
    """CPU ms per run of each mode's batches, the modes alternating each round."""
    per_run: dict[str, list[float]] = {mode: [] for mode in MODES}
    async with bench_http.bench(folder, 0.0, 0.0) as b:
        graph = b.graph
        await b.turns(b.fast, range(1, 3))
        first = 100
        for _ in range(rounds):
            for mode in MODES:
                b.graph = Durable(graph, mode)
                begin = time.process_time()
                turns = await b.turns(b.fast, range(first, first + runs))
                per_run[mode].append((time.process_time() - begin) * 1000 / runs)
                first += runs
                problems = bench_http.errors_of(turns)
                if problems:
                    raise SystemExit(f"{mode}: {problems[0]}")
    return per_run


def main() -> int:
    """Measure and print the median per mode, with its batches."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="batches per mode")
    parser.add_argument("--runs", type=int, default=40, help="concurrent runs per batch")
    args = parser.parse_args()
    with bench_http.model_server() as base_url, tempfile.TemporaryDirectory() as folder:
        os.environ["OPENAI_BASE_URL"] = base_url
        os.environ["OPENAI_API_KEY"] = "not-needed"  # a local server: send no real key
        per_run = asyncio.run(measure(Path(folder), args.rounds, args.runs))
    for mode, batches in per_run.items():
        shown = " ".join(f"{ms:.0f}" for ms in batches)
        print(f"{mode:6} {statistics.median(batches):6.1f} ms CPU per run  (batches: {shown})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
