"""Attempt budget: an unfinished task fails after max_task_attempts rounds; the run always ends."""

from __future__ import annotations

from typing import Any

from tests.doubles import calls, tool_call
from tests.unit_tests.helpers import Thread, done, not_done, plan, system_prompt, task

MAIN_NODES = {"planner", "irreversibility_check", "advance", "generate_response"}


def per_prompt(replies: dict[str, list[Any]]) -> list[Any]:
    """Replies chosen by a text of the request's system prompt (tasks run in parallel)."""
    queues = {key: list(items) for key, items in replies.items()}

    def reply(messages: list[Any], meta: dict[str, Any]) -> Any:
        (key,) = [k for k in queues if k in str(messages[0].content)]
        return queues[key].pop(0)

    return [reply] * sum(len(q) for q in queues.values())


async def test_task_fails_after_its_budget_and_the_plan_moves_on(scripted: Any) -> None:
    ctx, models = scripted(
        planner=[plan(task("t1", "testkit", "find the answer"), task("t2", "testkit", "echo ok"))],
        orchestrate=per_prompt(
            {
                "Your task (t1):": [
                    calls(tool_call("echo", {"text": "Still looking."})),
                    calls(tool_call("echo", {"text": "Still looking, sorry."})),
                ],
                "Your task (t2):": [calls(tool_call("echo", {"text": "ok"}))],
            }
        ),
        assess=per_prompt(
            {
                "Task: find the answer\n": [not_done("no answer was found")] * 2,
                "Task: echo ok\n": [done()],
            }
        ),
        response=["t1 failed, t2 done."],
    )
    ctx["max_task_attempts"] = 2
    thread = Thread(ctx, recursion_limit=25)

    nodes = await thread.send("Find the answer, then say ok.")

    # t1 and t2 run side by side in one round: t1 uses both rounds, t2 finishes in one.
    main = [n for n in nodes if n in MAIN_NODES]
    assert main == ["planner", "irreversibility_check", "advance", "generate_response"]
    assert sorted(n for n in nodes if n not in MAIN_NODES) == sorted(
        ["orchestrate", "call_tool", "assess_task"] * 3
    )
    assert len(models["planner"].requests) == 1
    state = await thread.values()
    first, second = state["previous_plan"]
    assert first["status"] == "failed"
    assert first["attempts"] == 2
    assert first["error"] == "not completed after 2 attempt(s): no answer was found"
    assert second["status"] == "completed"
    answer = str((await thread.answer()).content)
    assert answer.startswith("t1 failed, t2 done.")
    # The failure is listed by the graph itself, whatever the model wrote.
    assert "Not done:\n- t1 (testkit: find the answer) failed" in answer
    response_prompt = system_prompt(models["response"].requests[0])
    assert "- t1 [failed] (testkit): find the answer" in response_prompt
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
    answer = str((await thread.answer()).content)
    assert answer.startswith("Gave up.")
    assert "- t1 (testkit: keep echoing) failed" in answer


async def test_assess_judges_only_the_current_tasks_exchange(scripted: Any) -> None:
    ctx, models = scripted(
        planner=[plan(task("t1", "testkit", "say A"), task("t2", "testkit", "say B"))],
        orchestrate=per_prompt(
            {
                "Your task (t1):": [calls(tool_call("echo", {"text": "answer-A"}))],
                "Your task (t2):": [calls(tool_call("echo", {"text": "answer-B"}))],
            }
        ),
        assess=[done(), done()],
        response=["A and B"],
    )
    await Thread(ctx).send("Say A then B")

    # The two tasks run in parallel; each assessment sees its own exchange and nothing else.
    requests = models["assess"].requests
    assert len(requests) == 2
    for letter in ("A", "B"):
        (request,) = [r for r in requests if f"Task: say {letter}\n" in system_prompt(r)]
        contents = [str(m.content) for m in request["messages"][1:]]
        assert contents == ["", f"answer-{letter}"]
