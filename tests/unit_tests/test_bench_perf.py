"""The whole-graph benchmark still runs its scenario: one turn in-process, zero latency."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from langchain_core.messages import AIMessage

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    # bench/ is a folder of scripts, not a package: load the script as its own module.
    spec = importlib.util.spec_from_file_location("bench_perf", ROOT / "bench" / "bench_perf.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


async def test_the_write_receives_the_three_lookups_and_checkpoints_are_counted(
    tmp_path: Path,
) -> None:
    bench = _bench()
    turn, stored = await bench.once(tmp_path)
    skus = bench.skus_for(1)
    assert turn.problems == []
    assert turn.written["skus"] == skus
    # The scenario's helpers live beside the script (loaded through its sys.path).
    scenario = importlib.import_module("perf_scenario")
    assert turn.written["note"] == scenario.note_for(skus)
    assert all(f"{sku} has " in turn.written["note"] for sku in skus)
    assert stored["checkpoints"] > 0
    assert stored["writes"] > 0
    assert stored["bytes"] > 0


def test_a_turn_with_another_requests_data_is_reported() -> None:
    bench = _bench()
    mine, other = bench.skus_for(1), bench.skus_for(2)
    plan: list[dict[str, Any]] = [
        {"id": f"t{n}", "status": "completed", "error": None, "data": None} for n in range(1, 4)
    ]
    plan.append(
        {
            "id": "t4",
            "status": "completed",
            "error": None,
            "data": {
                "skus": other,
                "note": importlib.import_module("perf_scenario").note_for(other),
            },
        }
    )
    answer = AIMessage("Reordered: order PO-" + "+".join(other))
    problems, _ = bench.check_turn({"previous_plan": plan, "messages": [answer]}, mine)
    assert len(problems) == 3  # the write's data, the missing order, the foreign SKUs
