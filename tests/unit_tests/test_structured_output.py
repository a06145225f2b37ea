"""Bad model output is a value: the planner retries, orchestrate and assess count a failed round."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableLambda
from pydantic import BaseModel

from common.structured import BadOutput, structured_call, tool_round
from tests.doubles import ScriptedChatModel, calls, tool_call
from tests.unit_tests.helpers import Thread, done, plan, task


def stock_call() -> AIMessage:
    """The orchestrator's call that does the stock task (a new message each round)."""
    return calls(tool_call("get_stock", {"sku": "WID-1"}))


class Verdict(BaseModel):
    """A small schema for the helper's own tests."""

    ok: bool
    """Whether it worked."""


async def test_a_valid_answer_is_validated_into_the_schema() -> None:
    model = ScriptedChatModel(script=[{"ok": True}])
    assert await structured_call(model, Verdict, [HumanMessage("?")]) == Verdict(ok=True)


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (OutputParserException("not JSON"), "did not match Verdict"),
        ({"ok": "perhaps"}, "did not match Verdict"),
    ],
)
async def test_malformed_or_empty_answers_are_bad_output(reply: Any, reason: str) -> None:
    model = ScriptedChatModel(script=[reply])
    result = await structured_call(model, Verdict, [HumanMessage("?")])
    assert isinstance(result, BadOutput)
    assert reason in result.reason


class _Silent(ScriptedChatModel):
    """A model whose structured answer is None, as tool-calling parsers give without a call."""

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Any:
        """Always answer None."""
        return RunnableLambda(lambda _value: None)


async def test_an_empty_structured_answer_is_bad_output() -> None:
    result = await structured_call(_Silent(script=[]), Verdict, [HumanMessage("?")])
    assert result == BadOutput("The answer was empty; expected Verdict.")


async def test_connection_errors_are_not_bad_output() -> None:
    model = ScriptedChatModel(script=[ConnectionError("provider down")])
    with pytest.raises(ConnectionError):
        await structured_call(model, Verdict, [HumanMessage("?")])
    with pytest.raises(ConnectionError):
        await tool_round(
            ScriptedChatModel(script=[ConnectionError("provider down")]), [HumanMessage("?")]
        )


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (OutputParserException("garbled"), "could not be parsed"),
        ("", "empty"),
        (
            AIMessage(
                content="",
                invalid_tool_calls=[
                    {"name": "get_stock", "args": "{sku:", "id": "c1", "error": "bad JSON"}
                ],
            ),
            "get_stock: bad JSON",
        ),
    ],
)
async def test_unusable_tool_rounds_are_bad_output(reply: Any, reason: str) -> None:
    result = await tool_round(ScriptedChatModel(script=[reply]), [HumanMessage("?")])
    assert isinstance(result, BadOutput)
    assert reason in result.reason


async def test_a_usable_tool_round_is_the_message() -> None:
    message = calls(tool_call("get_stock", {"sku": "WID-1"}))
    assert await tool_round(ScriptedChatModel(script=[message]), [HumanMessage("?")]) == message


async def test_an_unusable_orchestrator_answer_costs_a_round_and_it_tries_again(
    scripted: Any,
) -> None:
    ctx, models = scripted(
        planner=[plan(task("t1", "inventory", "stock of WID-1"))],
        orchestrate=[OutputParserException("garbled tool call"), stock_call()],
        assess=[done()],
        response=["120 in stock."],
    )
    nodes = await Thread(ctx).send("Stock of WID-1?")

    assert nodes.count("orchestrate") == 2
    retry = models["orchestrate"].requests[1]["messages"]
    assert isinstance(retry[-1], HumanMessage)
    assert "garbled tool call" in str(retry[-1].content)
    assert "completed" in str(models["response"].requests[0]["messages"][0].content)


async def test_an_orchestrator_that_never_answers_usably_fails_its_task(scripted: Any) -> None:
    ctx, _models = scripted(
        planner=[plan(task("t1", "inventory", "stock of WID-1"))],
        orchestrate=[""] * 2,
        response=["Sorry."],
    )
    ctx["max_task_attempts"] = 2
    thread = Thread(ctx)
    await thread.send("Stock of WID-1?")

    (t1,) = (await thread.values())["previous_plan"]
    assert t1["status"] == "failed"
    assert t1["attempts"] == 2
    assert "no usable answer in 2 round(s)" in t1["error"]
    assert (await thread.values())["report"]["ok"] is False


async def test_an_unusable_assessment_counts_as_not_completed_with_the_reason(
    scripted: Any,
) -> None:
    ctx, _models = scripted(
        planner=[plan(task("t1", "inventory", "stock of WID-1"))],
        orchestrate=[stock_call()],
        assess=[OutputParserException("assessor rambled")],
        response=["Could not confirm."],
    )
    ctx["max_task_attempts"] = 1
    thread = Thread(ctx)
    await thread.send("Stock of WID-1?")

    (t1,) = (await thread.values())["previous_plan"]
    assert t1["status"] == "failed"
    assert "the assessment was unusable" in t1["error"]
    assert "assessor rambled" in t1["error"]


async def test_an_unusable_assessment_gives_the_task_another_round(scripted: Any) -> None:
    ctx, _models = scripted(
        planner=[plan(task("t1", "inventory", "stock of WID-1"))],
        orchestrate=[stock_call(), stock_call()],
        assess=[{"completed": "maybe"}, done()],
        response=["120."],
    )
    thread = Thread(ctx)
    await thread.send("Stock of WID-1?")

    (t1,) = (await thread.values())["previous_plan"]
    assert t1["status"] == "completed"
    assert t1["attempts"] == 2
