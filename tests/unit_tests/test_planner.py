"""Planner node and its edges: clarification, direct answer, retries with feedback, failure."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from common.settings import get_settings
from tests.unit_tests.helpers import Thread, done, plan, system_prompt, task


async def test_clarification_asks_the_user_and_ends_the_run(scripted: Any) -> None:
    question = "Which warehouse do you mean, north or south?"
    ctx, models = scripted(planner=[{"clarification": question}])
    thread = Thread(ctx)

    nodes = await thread.send("Check the stock in the warehouse.")

    assert nodes == ["planner"]
    answer = await thread.answer()
    assert answer.content == question
    assert "orchestrate" not in models
    assert len(models["planner"].requests) == 1
    assert await thread.interrupts() == []


async def test_empty_plan_is_answered_directly_by_generate_response(scripted: Any) -> None:
    ctx, models = scripted(planner=[plan()], response=["Hello! I plan work over experts."])
    thread = Thread(ctx)

    nodes = await thread.send("Hi, who are you?")

    assert nodes == ["planner", "generate_response"]
    assert (await thread.answer()).content == "Hello! I plan work over experts."
    response_request = models["response"].requests[0]
    assert "(none)" in system_prompt(response_request)
    assert response_request["messages"][-1].content == "Hi, who are you?"


async def test_planner_prompt_lists_experts_with_descriptions_and_tools(scripted: Any) -> None:
    ctx, models = scripted(planner=[plan()], response=["ok"])
    await Thread(ctx).send("hello")

    prompt = system_prompt(models["planner"].requests[0])
    assert "- inventory: Product stock and prices (read-only)." in prompt
    assert "tools: list_products, get_stock, search_products" in prompt
    assert "- notes: Team notes" in prompt
    assert "write_note" in prompt
    assert "Current date and time:" in prompt


async def test_unknown_expert_is_sent_back_with_the_error(scripted: Any) -> None:
    ctx, models = scripted(
        planner=[
            plan(task("t1", "weather", "Get the forecast")),
            plan(task("t1", "testkit", "Echo 'sunny'")),
        ],
        orchestrate=["sunny"],
        assess=[done()],
        response=["It is sunny."],
    )
    thread = Thread(ctx)

    nodes = await thread.send("What's the weather?")

    assert nodes[:3] == ["planner", "planner", "irreversibility_check"]
    first, second = (system_prompt(r) for r in models["planner"].requests)
    error = "Task 't1' names unknown expert 'weather'; known: inventory, notes, testkit."
    assert error not in first
    assert error in second
    assert (await thread.answer()).content == "It is sunny."
    state = await thread.values()
    assert [t["status"] for t in state["previous_plan"]] == ["completed"]
    assert state["planner_feedback"] == []


async def test_planner_gives_up_after_max_retries_and_nothing_runs(scripted: Any) -> None:
    retries = get_settings().max_planner_retries
    assert retries == 2
    bad = plan(task("t1", "weather", "forecast"), task("t1", "calendar", "book"))
    ctx, models = scripted(planner=[bad] * (retries + 1))
    thread = Thread(ctx)

    nodes = await thread.send("Weather, then book a slot.")

    assert nodes == ["planner"] * (retries + 1)
    assert len(models["planner"].requests) == retries + 1
    answer = await thread.answer()
    text = str(answer.content)
    assert f"after {retries + 1} attempts" in text
    assert "unknown expert 'weather'" in text
    assert "unknown expert 'calendar'" in text
    assert "Task id 't1' is used more than once" in text
    state = await thread.values()
    assert state["plan"] == []
    assert "orchestrate" not in models
    assert not any(isinstance(m, AIMessage) and m.tool_calls for m in state["messages"])


async def test_malformed_planner_output_is_retried(scripted: Any) -> None:
    ctx, models = scripted(
        planner=[{"plan": "not a list"}, plan()],
        response=["Direct answer."],
    )
    thread = Thread(ctx)

    assert await thread.send("hi") == ["planner", "planner", "generate_response"]
    assert "did not match PlannerResult" in system_prompt(models["planner"].requests[1])


async def test_next_task_out_of_range_is_rejected(scripted: Any) -> None:
    ctx, models = scripted(
        planner=[plan(task("t1", "testkit"), next_task=3), plan()],
        response=["ok"],
    )
    await Thread(ctx).send("hi")
    assert "next_task is 3 but the plan has 1 task(s)" in system_prompt(
        models["planner"].requests[1]
    )


async def test_a_too_long_plan_is_rejected(scripted: Any) -> None:
    limit = get_settings().max_plan_tasks
    long_plan = plan(*(task(f"t{i}", "testkit") for i in range(limit + 1)))
    ctx, models = scripted(planner=[long_plan, plan()], response=["ok"])
    await Thread(ctx).send("do many things")
    assert f"The plan has {limit + 1} tasks; at most {limit}." in system_prompt(
        models["planner"].requests[1]
    )


async def test_clarification_with_a_plan_runs_the_plan(scripted: Any) -> None:
    ctx, models = scripted(
        planner=[plan(task("t1", "testkit", "echo"), clarification="Which one?")],
        orchestrate=["echoed"],
        assess=[done()],
        response=["Done."],
    )
    thread = Thread(ctx)
    nodes = await thread.send("echo something")
    assert nodes[0:2] == ["planner", "irreversibility_check"]
    assert (await thread.answer()).content == "Done."
    assert len(models["orchestrate"].requests) == 1
