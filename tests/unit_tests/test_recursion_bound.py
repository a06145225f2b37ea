"""Budgets, not the recursion limit, end every run the settings allow.

LangGraph counts super-steps per graph: the main loop and each run of the task subgraph have
their own count, each checked against the same `recursion_limit`. The longest runs are:

- main graph: the planner's turn-start step (it checkpoints the turn's settings), (retries + 1)
  planner calls, irreversibility_check, one `advance` round that runs
  every task it can (each as soon as its own dependencies completed), and once per turn after
  a failure with work left a replan (planner calls, the check again, another round), then
  generate_response.
- task subgraph: orchestrate → call_tool → assess_task per attempt, up to the attempt cap.
"""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.errors import GraphRecursionError

from common.settings import MAX_TASK_ATTEMPTS_CAP, get_settings
from tests.doubles import calls, tool_call
from tests.unit_tests.helpers import Thread, done, not_done, plan, task

INVALID = plan(task("t1", "weather", "forecast"))
"""A plan the planner is sent back for (unknown expert)."""


def main_graph_steps(retries: int, tasks: int) -> int:
    """Super-steps of the longest main-graph run (see the module docstring)."""
    planning = 1 + retries + 1 + 1
    replan = retries + 1 + 1
    return planning + 1 + replan + 1 + 1


def task_graph_steps(attempts: int) -> int:
    """Super-steps of the longest run of one task: three nodes per attempt."""
    return 3 * attempts


def optional(tid: str, what: str) -> dict[str, Any]:
    """A task whose failure only skips its dependents (so every task gets to run)."""
    return {**task(tid, "testkit", what), "critical": False}


def echo_rounds(count: int) -> list[Any]:
    return [calls(tool_call("echo", {"text": "again"})) for _ in range(count)]


async def test_longest_main_loop_fits_the_recursion_limit(scripted: Any) -> None:
    """Every planner call retried, and a replan after the first round.

    The planner is sent back `retries` times, plans `max_plan_tasks` tasks; the first fails and
    the others, which depend on it, are skipped; the replan is sent back `retries` times, then
    replaces them with `max_plan_tasks` new tasks that each complete.
    """
    settings = get_settings()
    retries, tasks = settings.max_planner_retries, settings.max_plan_tasks
    first = plan(
        optional("t0", "echo 0"),
        *({**optional(f"t{i}", f"echo {i}"), "depends_on": ["t0"]} for i in range(1, tasks)),
    )
    second = plan(*(task(f"n{i}", "testkit", f"echo n{i}") for i in range(tasks)))
    steps = main_graph_steps(retries, tasks)
    assert settings.recursion_limit > steps

    async def run(limit: int) -> list[str]:
        ctx, _ = scripted(
            planner=[*[INVALID] * retries, first, *[INVALID] * retries, second],
            orchestrate=echo_rounds(tasks + 1),
            assess=[not_done("never enough"), *[done()] * tasks],
            response=["t0 failed, the rest is done."],
        )
        ctx.update(max_task_attempts=1, max_parallel=1)
        thread = Thread(ctx, recursion_limit=limit)
        nodes = await thread.send("Do twelve things")
        state = await thread.values()
        assert [t["status"] for t in state["previous_plan"]] == ["completed"] * tasks
        assert (await thread.answer()).content == "t0 failed, the rest is done."
        return nodes

    nodes = await run(steps + 1)

    assert nodes.count("planner") == 2 * (retries + 1)
    assert nodes.count("orchestrate") == tasks + 1
    # The bound is exact: this run is the longest, one step less and it would not end.
    with pytest.raises(GraphRecursionError):
        await run(steps)


async def test_longest_task_run_fits_the_recursion_limit(scripted: Any) -> None:
    """One task with the largest attempt budget, never done, uses every attempt."""
    settings = get_settings()
    attempts = MAX_TASK_ATTEMPTS_CAP
    steps = task_graph_steps(attempts)
    assert settings.recursion_limit > steps

    async def run(limit: int) -> list[str]:
        ctx, models = scripted(
            planner=[plan(task("t1", "testkit", "echo until done"))],
            orchestrate=echo_rounds(attempts),
            assess=[not_done("never enough")] * attempts,
            response=["t1 ran out of attempts."],
        )
        ctx["max_task_attempts"] = attempts
        thread = Thread(ctx, recursion_limit=limit)
        nodes = await thread.send("Echo until done")
        (failed,) = (await thread.values())["previous_plan"]
        assert failed["status"] == "failed"
        assert failed["attempts"] == attempts
        assert len(models["assess"].requests) == attempts
        return nodes

    nodes = await run(steps + 1)

    assert nodes.count("orchestrate") == attempts
    with pytest.raises(GraphRecursionError):
        await run(steps)


async def test_largest_plan_with_every_task_exhausting_its_budget_ends_normally(
    scripted: Any,
) -> None:
    """Every task loops (tool call, 'not done') until its budget is spent; the run must still end.

    Bug (fixed): the recursion limit was a fixed 200 while a run's length grows with the
    attempt budget times the plan length; with 6 attempts a 12-task plan died with
    GraphRecursionError instead of answering. Tasks run one at a time here, with a step budget
    large enough for all of them.
    """
    settings = get_settings()
    tasks, attempts = settings.max_plan_tasks, 6
    ctx, models = scripted(
        planner=[plan(*(optional(f"t{i}", f"echo {i}") for i in range(tasks)))],
        orchestrate=echo_rounds(tasks * attempts),
        assess=[not_done("never enough")] * (tasks * attempts),
        response=["Every task ran out of attempts."],
    )
    ctx.update(max_task_attempts=attempts, max_parallel=1, max_steps=tasks * attempts)
    thread = Thread(ctx)

    nodes = await thread.send("Do twelve things")

    answer = str((await thread.answer()).content)
    assert answer.startswith("Every task ran out of attempts.")
    assert "- t0 (testkit: echo 0) failed" in answer
    state = await thread.values()
    assert [t["status"] for t in state["previous_plan"]] == ["failed"] * tasks
    assert len(models["orchestrate"].requests) == tasks * attempts
    # Every task ran in the one round: nothing was left to replan around.
    assert nodes.count("planner") == 1


async def test_largest_plan_with_default_budgets_ends_within_the_limit(scripted: Any) -> None:
    settings = get_settings()
    tasks, attempts = settings.max_plan_tasks, settings.max_task_attempts
    ctx, models = scripted(
        planner=[
            plan(*(optional(f"t{i}", f"echo {i}") for i in range(tasks))),
            plan(decision="continue"),
        ],
        orchestrate=echo_rounds(tasks * attempts),
        assess=[not_done("never enough")] * (tasks * attempts),
        response=["Every task ran out of attempts."],
    )
    thread = Thread(ctx)

    await thread.send("Do twelve things")

    answer = str((await thread.answer()).content)
    assert answer.startswith("Every task ran out of attempts.")
    assert "- t0 (testkit: echo 0) failed" in answer
    # The default step budget (40 per turn) covers 12 tasks of 3 attempts each.
    assert len(models["assess"].requests) == tasks * attempts
    state = await thread.values()
    assert [t["status"] for t in state["previous_plan"]] == ["failed"] * tasks


async def test_the_step_budget_holds_across_a_replan(scripted: Any) -> None:
    ctx, models = scripted(
        planner=[
            plan(optional("t1", "echo one"), task("t2", "testkit", "echo two")),
            plan(task("n1", "testkit", "echo instead")),
        ],
        orchestrate=echo_rounds(8),
        assess=[not_done("never enough")] * 8,
        response=["The step budget ran out."],
    )
    ctx.update(max_task_attempts=4, max_steps=4, max_parallel=1)
    thread = Thread(ctx)

    nodes = await thread.send("Echo one, then two")

    assert nodes.count("planner") == 2
    # t1 used the whole budget of 4 steps: nothing may run after the replan.
    assert len(models["orchestrate"].requests) == 4
    (replacement,) = (await thread.values())["previous_plan"]
    assert replacement["status"] == "cancelled"
