"""Planner node and its edges: clarification, direct answer, retries with feedback, failure."""

from __future__ import annotations

from typing import Any, cast

import pytest
from langchain_core.messages import AIMessage
from mcp.types import Tool

from common.mcp import ExpertRegistry
from common.mcp.config import ServerConfig
from common.settings import get_settings
from strategies.with_planner.nodes.planner import Catalog, describe_experts
from tests.doubles import calls, tool_call
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


async def test_a_question_over_several_lines_is_one_problem_line_and_the_whole_message(
    scripted: Any,
) -> None:
    # A small real model once asked its question as ")\n{\n ..."; `run --json` callers read
    # one problem per line.
    question = 'Which warehouse?\n{\n  "north": 1,\n\t"south": 2\n}'
    ctx, _ = scripted(planner=[{"clarification": question}])
    thread = Thread(ctx)

    await thread.send("Check the stock in the warehouse.")

    assert (await thread.answer()).content == question
    report = (await thread.values())["report"]
    assert report["problems"] == [
        'Waiting for your answer: Which warehouse? { "north": 1, "south": 2 }'
    ]


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
    # Each tool with its arguments and the first line of its description.
    assert (
        "  tools: list_products(): List every product with its SKU, name, price and stock.; "
        "get_stock(sku): Get the stock level and aisle of one product by SKU.; "
        "search_products(query): Search products whose name contains the query"
    ) in prompt
    assert "- notes: Team notes" in prompt
    # Seen missing once in a full CI-like run and never alone: say what the notes line was.
    notes = next(line for line in prompt.splitlines() if line.startswith("- notes:"))
    following = prompt.split(notes, 1)[1].splitlines()[:2]
    assert "write_note(title, body): Write a note, replacing any note" in prompt, (notes, following)
    assert "send_message(to, text): Send a message to someone." in prompt
    assert "Current date and time:" in prompt


def test_expert_description_lists_first_description_lines_and_unreachable_experts() -> None:
    class Registry:
        def server(self, name: str) -> Any:
            return ServerConfig(command="x", description=f"The {name} expert.")

    multi_line = Tool(
        name="report",
        description="Build a report.\n\nLong details the planner does not need.",
        inputSchema={"type": "object", "properties": {"month": {}, "format": {}}},
    )
    bare = Tool(name="ping", inputSchema={"type": "object"})
    catalog: Catalog = {"reports": [multi_line, bare], "mail": None}

    text = describe_experts(
        cast(ExpertRegistry, Registry()), catalog, {"mail": "connection refused"}
    )

    assert text == (
        "- reports: The reports expert.\n"
        "  tools: report(month, format): Build a report.; ping()\n"
        "- mail: The mail expert. [currently unavailable: connection refused]"
    )


async def test_unknown_expert_is_sent_back_with_the_error(scripted: Any) -> None:
    ctx, models = scripted(
        planner=[
            plan(task("t1", "weather", "Get the forecast")),
            plan(task("t1", "testkit", "Echo 'sunny'")),
        ],
        orchestrate=[calls(tool_call("echo", {"text": "sunny"}))],
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
    assert state["turn"]["planner_feedback"] == []


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
    assert f"The plan has {limit + 1} tasks; at most {limit} are allowed." in system_prompt(
        models["planner"].requests[1]
    )


async def test_clarification_with_a_plan_runs_the_plan(scripted: Any) -> None:
    ctx, models = scripted(
        planner=[plan(task("t1", "testkit", "echo"), clarification="Which one?")],
        orchestrate=[calls(tool_call("echo", {"text": "something"}))],
        assess=[done()],
        response=["Done."],
    )
    thread = Thread(ctx)
    nodes = await thread.send("echo something")
    assert nodes[0:2] == ["planner", "irreversibility_check"]
    assert (await thread.answer()).content == "Done."
    assert len(models["orchestrate"].requests) == 1


def kit_task(tid: str, **fields: Any) -> dict[str, Any]:
    """A testkit task with extra fields (depends_on, args...)."""
    return {**task(tid, "testkit"), **fields}


def step(tid: str, tool: str, args: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A direct step on testkit as the planner would return it."""
    return {**task(tid, "testkit", f"run {tool}"), "tool": tool, "args": args, **extra}


@pytest.mark.parametrize(
    ("bad_plan", "problem"),
    [
        (
            plan(task("t1", "testkit"), kit_task("t2", depends_on=["t9"])),
            "Task 't2' depends on unknown task 't9'.",
        ),
        (
            plan(
                kit_task("t1", depends_on=["t2"]),
                kit_task("t2", depends_on=["t1"]),
            ),
            "The dependencies form a cycle: t1 -> t2 -> t1.",
        ),
        (
            plan(step("t1", "nope", {})),
            "Task 't1': expert 'testkit' has no tool 'nope' (echo, slow, fail,",
        ),
        (plan(step("t1", "echo", {})), "Task 't1' (echo): missing required argument 'text'"),
        (plan(step("t1", "echo", {"text": 5})), "Task 't1' (echo): text: 5 is not of type"),
        (
            plan(step("t1", "echo", {"text": "a"}), step("t2", "echo", {"text": "${t1.result}"})),
            "Task 't2' uses the result of 't1' in its args but does not depend on it",
        ),
        (
            plan(kit_task("t1", args={"text": "a"})),
            "Task 't1' has args but no tool; give both for a direct step.",
        ),
    ],
    ids=[
        "unknown-dependency",
        "cycle",
        "unknown-tool",
        "missing-arg",
        "wrong-type",
        "template",
        "args-without-tool",
    ],
)
async def test_an_invalid_plan_is_sent_back_and_nothing_runs(
    scripted: Any, bad_plan: dict[str, Any], problem: str
) -> None:
    ctx, models = scripted(planner=[bad_plan, plan()], response=["ok"])

    nodes = await Thread(ctx).send("do it")

    assert nodes == ["planner", "planner", "generate_response"]
    assert problem not in system_prompt(models["planner"].requests[0])
    assert problem in system_prompt(models["planner"].requests[1])


async def test_a_valid_direct_step_runs_without_orchestrate_or_assess(scripted: Any) -> None:
    ctx, _ = scripted(
        planner=[
            plan(
                step("t1", "echo", {"text": "a"}),
                step("t2", "echo", {"text": "${t1.result}!"}, depends_on=["t1"]),
            )
        ],
        response=["a!"],
    )
    thread = Thread(ctx)

    nodes = await thread.send("echo a twice")

    # A direct step runs call_tool alone (no subgraph). No orchestrate or assess model is
    # configured: calling one would fail the run.
    assert len(await thread.tool_messages()) == 2
    assert "orchestrate" not in nodes
    assert "assess_task" not in nodes
    state = await thread.values()
    assert [(t["status"], t["result"]) for t in state["previous_plan"]] == [
        ("completed", "a"),
        ("completed", "a!"),
    ]


async def test_args_json_that_is_not_an_object_is_sent_back_to_the_planner(scripted: Any) -> None:
    broken = {**task("t1", "testkit"), "tool": "echo", "args_json": '"hi"'}
    ctx, models = scripted(planner=[plan(broken), plan()], response=["Direct answer."])
    thread = Thread(ctx)

    assert await thread.send("echo hi") == ["planner", "planner", "generate_response"]
    feedback = system_prompt(models["planner"].requests[1])
    assert "Task 't1': args_json is a JSON str; give the tool's arguments as one JSON object" in (
        feedback
    )
