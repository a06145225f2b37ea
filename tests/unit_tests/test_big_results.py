"""Big results: templates get every byte, the model a trimmed view, state no copy it can spare."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langgraph.store.memory import InMemoryStore

from strategies.with_planner.nodes.assess import task_fields
from strategies.with_planner.nodes.common import truncate
from strategies.with_planner.nodes.tool_messages import for_state, full_output
from strategies.with_planner.results import INLINE_CHARS, VIEW_CHARS, Results, result_fields
from strategies.with_planner.templates import TemplateError, resolve

BIG = "".join(f"{n:08d}" for n in range(INLINE_CHARS // 4))
"""Twice `INLINE_CHARS`, every position distinct, so a cut anywhere shows."""


def fill(value: Any, outputs: dict[str, dict[str, Any]]) -> Any:
    return resolve(value, outputs, ["t1"], "t2", date(2025, 1, 1))


def test_a_long_result_is_a_view_for_the_model_and_whole_for_templates() -> None:
    fields = result_fields(BIG, None)

    assert len(fields["result"]) < VIEW_CHARS + 40
    assert fields["full"] == {"text": BIG, "key": None, "chars": len(BIG)}
    assert fill("${t1.result}", {"t1": fields}) == BIG
    assert fill("head ${t1.result}", {"t1": fields}) == f"head {BIG}"


def test_a_short_result_needs_no_full_copy() -> None:
    assert result_fields("120 in stock", {"stock": 120}) == {
        "result": "120 in stock",
        "data": {"stock": 120},
        "full": None,
    }


def test_a_trimmed_result_without_its_whole_text_is_refused_not_passed_on() -> None:
    with pytest.raises(TemplateError, match="'t1' was trimmed"):
        fill("${t1.result}", {"t1": {"result": truncate(BIG), "data": None}})


def test_a_stored_result_that_was_not_read_back_is_refused() -> None:
    stored = {"result": truncate(BIG), "data": None, "full": {"text": None, "key": "k", "chars": 9}}

    with pytest.raises(TemplateError, match="kept in the store"):
        fill("${t1.result}", {"t1": stored})


async def test_a_large_result_goes_to_the_store_and_comes_back_whole() -> None:
    results = Results(InMemoryStore(), "thread-1")
    data = {"result": BIG}

    kept = await results.keep("t1", result_fields(BIG, data))

    assert kept["full"]["text"] is None
    assert kept["full"]["chars"] == len(BIG)
    assert kept["data"] is None
    assert len(repr(kept)) < 2 * VIEW_CHARS + 500, "nothing large is left in the task"
    loaded = await results.outputs({"t1": kept})
    assert fill("${t1.result}", loaded) == BIG
    assert fill("${t1.data.result}", loaded) == BIG


async def test_without_a_store_or_a_thread_the_result_stays_in_state() -> None:
    fields = result_fields(BIG, {"result": BIG})

    assert await Results(None, "thread-1").keep("t1", fields) == fields
    assert await Results(InMemoryStore(), None).keep("t1", fields) == fields


async def test_a_small_result_is_not_moved() -> None:
    fields = result_fields("x" * (VIEW_CHARS + 10), {"n": 1})

    assert await Results(InMemoryStore(), "thread-1").keep("t1", fields) == fields


def test_a_large_output_is_not_kept_twice_on_its_message() -> None:
    message = ToolMessage(
        content="trimmed view",
        tool_call_id="c1",
        status="success",
        artifact={"result": BIG},
        additional_kwargs={"full_output": BIG},
    )

    assert full_output(message) == BIG
    kept = for_state(message, direct=True)
    assert "full_output" not in kept.additional_kwargs
    assert kept.additional_kwargs["output_chars"] == len(BIG)
    assert isinstance(kept, ToolMessage)
    assert kept.artifact is None
    assert for_state(message, direct=False) is message, "an expert's call: keep_output's job"


def test_a_modest_output_stays_on_its_message() -> None:
    message = ToolMessage(
        content="view", tool_call_id="c1", additional_kwargs={"full_output": "x" * 5000}
    )

    assert for_state(message, direct=True) is message


def expert_output(text: str, artifact: Any = None) -> ToolMessage:
    """An expert's answered call as call_tool makes it: a view, with the whole text beside it."""
    return ToolMessage(
        content=truncate(text),
        tool_call_id="c1",
        status="success",
        artifact=artifact,
        additional_kwargs={"full_output": text} if len(text) > VIEW_CHARS else {},
    )


async def test_an_experts_large_output_leaves_the_message_and_comes_back_whole() -> None:
    results = Results(InMemoryStore(), "thread-1")

    kept = await results.keep_output("t1", expert_output(BIG, {"result": BIG}))

    assert "full_output" not in kept.additional_kwargs
    assert kept.artifact is None
    assert len(repr(kept)) < 2 * VIEW_CHARS + 500, "nothing large is left on the message"
    fields = await task_fields([kept], results)
    assert fill("${t1.result}", {"t1": fields}) == BIG
    assert fill("${t1.data}", {"t1": fields}) == BIG


async def test_an_experts_output_that_cannot_be_read_back_is_refused_by_templates() -> None:
    results = Results(InMemoryStore(), "thread-1")
    kept = await results.keep_output("t1", expert_output(BIG))

    fields = await task_fields([kept], Results(InMemoryStore(), "another-thread"))

    with pytest.raises(TemplateError, match="could not be read back"):
        fill("${t1.result}", {"t1": fields})


async def test_without_a_store_an_experts_output_stays_on_its_message() -> None:
    message = expert_output(BIG)

    assert await Results(None, "thread-1").keep_output("t1", message) is message
    assert for_state(message, direct=False) is message, "nothing is dropped: it is all there is"
    fields = await task_fields([message], Results(None, "thread-1"))
    assert fill("${t1.result}", {"t1": fields}) == BIG
