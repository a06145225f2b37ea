"""Several turns on one thread: the planner sees the last plan and continues or replaces it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from tests.doubles import calls, tool_call
from tests.unit_tests.helpers import Thread, done, exchange, plan, system_prompt, task

FIRST_PLAN = plan(
    task("t1", "testkit", "echo alpha"),
    task("t2", "testkit", "book a table"),
)


def by_task(replies: dict[str, list[Any]]) -> list[Callable[..., Any]]:
    """Orchestrate script items that answer by task id, whatever order parallel tasks run in."""

    def reply(messages: list[Any], _meta: Any) -> Any:
        found = re.search(r"Your task \((\w+)\)", str(messages[0].content))
        assert found, "not an orchestrate prompt"
        return replies[found.group(1)].pop(0)

    return [reply] * sum(len(r) for r in replies.values())


def first_turn_scripts() -> dict[str, list[Any]]:
    """t1 and t2 run in parallel: t1 completes with 'alpha'; t2 gives up with cannot_complete."""
    return {
        "planner": [FIRST_PLAN],
        "orchestrate": by_task(
            {
                "t1": [calls(tool_call("echo", {"text": "alpha"}))],
                "t2": [calls(tool_call("cannot_complete", {"reason": "no booking tool"}))],
            }
        ),
        "assess": [done()],
        "response": ["alpha; booking failed."],
    }


async def test_the_plan_is_cleared_after_each_turn_and_the_turn_kept(scripted: Any) -> None:
    ctx, _ = scripted(**first_turn_scripts())
    thread = Thread(ctx)

    nodes = await thread.send("Echo alpha and book a table")

    # Both tasks ran side by side in one round of the scheduler.
    assert nodes.count("advance") == 1
    assert nodes.count("orchestrate") == 2
    state = await thread.values()
    assert state["plan"] == []
    # The answered turn stays as it ended, until the next turn replaces it whole.
    turn = state["turn"]
    assert sorted(turn["wave"]) == ["t1", "t2"]
    assert (turn["replanned"], turn["notes"], turn["planner_feedback"]) == (False, [], [])
    assert state["plan_status"] == "failed"
    statuses = [(t["id"], t["status"]) for t in state["previous_plan"]]
    assert statuses == [("t1", "completed"), ("t2", "failed")]
    assert state["previous_plan"][0]["result"] == "alpha"
    assert state["previous_plan"][1]["error"] == "no booking tool"
    # The conversation holds only the user's request, the plan's line (the plan card hangs
    # under it) and the answer; each task's exchange stays with its task.
    assert [type(m) for m in state["messages"]] == [HumanMessage, AIMessage, AIMessage]
    assert state["messages"][1].content == "Plan: t1 (testkit), t2 (testkit)."
    t1, t2 = state["previous_plan"]
    assert [m.content for m in exchange(t1) if isinstance(m, ToolMessage)] == ["alpha"]
    assert [m.name for m in exchange(t2) if isinstance(m, ToolMessage)] == ["cannot_complete"]


async def test_second_turn_planner_sees_the_previous_plan(scripted: Any) -> None:
    scripts = first_turn_scripts()
    scripts["planner"].append(plan())
    scripts["response"].append("Nothing else to do.")
    ctx, models = scripted(**scripts)
    thread = Thread(ctx)
    await thread.send("Echo alpha and book a table")

    await thread.send("Thanks!")

    first, second = (system_prompt(r) for r in models["planner"].requests)
    assert "- t1 [completed] (testkit): echo alpha" not in first
    assert "- t1 [completed] (testkit): echo alpha\n   result: alpha" in second
    assert "- t2 [failed] (testkit): book a table\n   error: no booking tool" in second
    # The planner sees the conversation, never a task's tool calls nor the plan's line for people.
    conversation = models["planner"].requests[1]["messages"][1:]
    assert [m.content for m in conversation] == [
        "Echo alpha and book a table",
        "alpha; booking failed.\n\nNot done:\n- t2 (testkit: book a table) failed: no booking tool",
        "Thanks!",
    ]
    assert (await thread.answer()).content == "Nothing else to do."


async def test_continue_keeps_completed_tasks_and_starts_at_next_task(scripted: Any) -> None:
    scripts = first_turn_scripts()
    scripts["planner"].append(
        plan(
            task("t1", "testkit", "echo alpha"),
            task("t2", "testkit", "echo beta instead of booking"),
            decision="continue",
            next_task=1,
        )
    )
    scripts["orchestrate"].append(calls(tool_call("echo", {"text": "beta"})))
    scripts["assess"].append(done())
    scripts["response"].append("alpha and beta.")
    ctx, models = scripted(**scripts)
    thread = Thread(ctx)
    await thread.send("Echo alpha and book a table")

    nodes = await thread.send("Echo beta instead of booking.")

    assert nodes.count("orchestrate") == 1
    assert len(models["orchestrate"].requests) == 3
    third = system_prompt(models["orchestrate"].requests[2])
    assert "Your task (t2): echo beta instead of booking" in third
    assert "- t1 [completed] (testkit): echo alpha" in third
    state = await thread.values()
    kept, redone = state["previous_plan"]
    assert kept["status"] == "completed"
    assert kept["result"] == "alpha"
    assert kept["attempts"] == 1
    assert redone["status"] == "completed"
    assert redone["result"] == "beta"
    assert state["plan"] == []


async def test_replace_starts_a_fresh_plan(scripted: Any) -> None:
    scripts = first_turn_scripts()
    scripts["planner"].append(plan(task("t1", "testkit", "echo gamma"), decision="replace"))
    scripts["orchestrate"].append(calls(tool_call("echo", {"text": "gamma"})))
    scripts["assess"].append(done())
    scripts["response"].append("gamma.")
    ctx, models = scripted(**scripts)
    thread = Thread(ctx)
    await thread.send("Echo alpha and book a table")

    nodes = await thread.send("Forget that; echo gamma.")

    assert nodes.count("orchestrate") == 1
    third = system_prompt(models["orchestrate"].requests[2])
    assert "Whole plan:\n- t1 [running] (testkit): echo gamma\n\n" in third
    assert "book a table" not in third
    state = await thread.values()
    (fresh,) = state["previous_plan"]
    assert fresh["task"] == "echo gamma"
    assert fresh["result"] == "gamma"
    assert fresh["attempts"] == 1
    assert (await thread.answer()).content == "gamma."


async def test_clarification_on_a_later_turn_keeps_the_previous_plan(scripted: Any) -> None:
    scripts = first_turn_scripts()
    scripts["planner"] += [{"clarification": "Which table?"}, plan()]
    scripts["response"].append("ok")
    ctx, models = scripted(**scripts)
    thread = Thread(ctx)
    await thread.send("Echo alpha and book a table")

    assert await thread.send("Book it again") == ["planner"]
    assert (await thread.answer()).content == "Which table?"
    await thread.send("The big one")

    assert "- t2 [failed] (testkit): book a table" in system_prompt(models["planner"].requests[2])
