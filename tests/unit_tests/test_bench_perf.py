"""The whole-graph benchmark still runs its scenario: one turn in-process, zero latency."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage

from tests.unit_tests.helpers import bench_script


async def test_the_write_receives_the_three_lookups_and_checkpoints_are_counted(
    tmp_path: Path,
) -> None:
    bench = bench_script("bench_perf")
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
    bench = bench_script("bench_perf")
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
