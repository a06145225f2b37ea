"""Budgets, not the recursion limit, end every run the settings allow."""

from __future__ import annotations

from typing import Any

from common.settings import get_settings
from common.testing import calls, tool_call
from tests.unit_tests.helpers import Thread, not_done, plan, task


async def test_largest_plan_with_every_task_exhausting_its_budget_ends_normally(
    scripted: Any,
) -> None:
    """Every task loops (tool call, 'not done') until its budget is spent; the run must still end.

    Bug: the recursion limit is a fixed `recursion_limit` (200) while a run's length grows with
    `max_task_attempts` (context, up to 20 by the settings) times the plan length (up to
    `max_plan_tasks`, 12): with 6 attempts a 12-task plan needs about 12 * (3 * 6 + 1) + 5 = 233
    super-steps and the run dies with GraphRecursionError instead of answering.
    """
    settings = get_settings()
    tasks, attempts = settings.max_plan_tasks, 6
    ctx, models = scripted(
        planner=[plan(*(task(f"t{i}", "testkit", f"echo {i}") for i in range(tasks)))],
        orchestrate=[calls(tool_call("echo", {"text": "again"})) for _ in range(tasks * attempts)],
        assess=[not_done("never enough")] * (tasks * attempts),
        response=["Every task ran out of attempts."],
    )
    ctx["max_task_attempts"] = attempts
    thread = Thread(ctx)

    await thread.send("Do twelve things")

    assert (await thread.answer()).content == "Every task ran out of attempts."
    state = await thread.values()
    assert [t["status"] for t in state["previous_plan"]] == ["failed"] * tasks
    assert len(models["orchestrate"].requests) == tasks * attempts


async def test_largest_plan_with_default_budgets_ends_within_the_limit(scripted: Any) -> None:
    settings = get_settings()
    tasks, attempts = settings.max_plan_tasks, settings.max_task_attempts
    ctx, models = scripted(
        planner=[plan(*(task(f"t{i}", "testkit", f"echo {i}") for i in range(tasks)))],
        orchestrate=[calls(tool_call("echo", {"text": "again"})) for _ in range(tasks * attempts)],
        assess=[not_done("never enough")] * (tasks * attempts),
        response=["Every task ran out of attempts."],
    )
    thread = Thread(ctx)

    await thread.send("Do twelve things")

    assert (await thread.answer()).content == "Every task ran out of attempts."
    assert len(models["assess"].requests) == tasks * attempts
