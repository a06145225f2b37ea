"""The long-thread benchmark still runs: a short thread past a small budget, the turn-2 check."""

from __future__ import annotations

from tests.unit_tests.helpers import bench_script


async def test_a_thread_past_its_budget_answers_about_turn_2_at_a_flat_prompt_size() -> None:
    bench = bench_script("bench_long_thread")

    result = await bench.long_thread(turns=10, early=3, budget=300)

    assert result["errors"] == []
    assert result["turn2_ok"], result["turn2_answer"]
    tokens = result["tokens_per_turn"]
    assert max(tokens[-3:]) - min(tokens[-3:]) < 0.05 * tokens[-1]  # flat once compacted
