"""The long-thread benchmark still runs: a short thread past a small budget, the turn-2 check."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    # bench/ is a folder of scripts importing each other by name: put it on the path first.
    sys.path[:0] = [str(ROOT / "bench")]
    path = ROOT / "bench" / "bench_long_thread.py"
    spec = importlib.util.spec_from_file_location("bench_long_thread", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


async def test_a_thread_past_its_budget_answers_about_turn_2_at_a_flat_prompt_size() -> None:
    bench = _bench()

    result = await bench.long_thread(turns=10, early=3, budget=300)

    assert result["errors"] == []
    assert result["turn2_ok"], result["turn2_answer"]
    tokens = result["tokens_per_turn"]
    assert max(tokens[-3:]) - min(tokens[-3:]) < 0.05 * tokens[-1]  # flat once compacted
