"""Attempt budget: an unfinished task fails after max_task_attempts rounds; the run always ends."""

from __future__ import annotations

from typing import Any

from common.testing import calls, tool_call
from tests.unit_tests.helpers import Thread, done, not_done, plan, system_prompt, task


async def test_task_fails_after_its_budget_and_the_plan_moves_on(scripted: Any) -> None:
    ctx, models = scripted(
        planner=[plan(task("t1", "testkit", "find the answer"), task("t2", "testkit", "echo ok"))],
        orchestrate=["Still looking.", "Still looking, sorry.", "ok"],
        assess=[not_done("no answer was found"), not_done("no answer was found"), done()],
        response=["t1 failed, t2 done."],
    )
    ctx["max_task_attempts"] = 2
    thread = Thread(ctx, recursion_limit=25)

    nodes = await thread.send("Find the answer, then say ok.")

    assert nodes == [
        "planner",
        "irreversibility_check",
        "orchestrate",
        "assess_task",
        "orchestrate",
        "assess_task",
        "advance",
        "orchestrate",
        "assess_task",
        "advance",
        "generate_response",
    ]
    state = await thread.values()
    first, second = state["previous_plan"]
    assert first["status"] == "failed"
    assert first["attempts"] == 2
    assert first["error"] == "not completed after 2 attempt(s): no answer was found"
    assert second["status"] == "completed"
    assert (await thread.answer()).content == "t1 failed, t2 done."
    response_prompt = system_prompt(models["response"].requests[0])
    assert "[failed] t1" in response_prompt
    assert "error: not completed after 2 attempt(s): no answer was found" in response_prompt


async def test_endless_tool_calls_are_cut_off_by_the_budget(scripted: Any) -> None:
    attempts = 3
    ctx, models = scripted(
        planner=[plan(task("t1", "testkit", "keep echoing"))],
        orchestrate=[calls(tool_call("echo", {"text": f"round {i}"})) for i in range(20)],
        assess=[not_done("never enough")] * 20,
        response=["Gave up."],
    )
    ctx["max_task_attempts"] = attempts
    thread = Thread(ctx, recursion_limit=30)

    await thread.send("Echo forever")

    assert len(models["orchestrate"].requests) == attempts
    assert len(models["assess"].requests) == attempts
    state = await thread.values()
    assert state["previous_plan"][0]["status"] == "failed"
    assert "round 2" in str(state["previous_plan"][0]["result"])
    assert (await thread.answer()).content == "Gave up."


async def test_assess_judges_only_the_current_tasks_exchange(scripted: Any) -> None:
    ctx, models = scripted(
        planner=[plan(task("t1", "testkit", "say A"), task("t2", "testkit", "say B"))],
        orchestrate=["answer-A", "answer-B"],
        assess=[done(), done()],
        response=["A and B"],
    )
    await Thread(ctx).send("Say A then B")

    second = models["assess"].requests[1]
    contents = [str(m.content) for m in second["messages"][1:]]
    assert contents == ["answer-B"]
    assert "Task: say B" in system_prompt(second)
