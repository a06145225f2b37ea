"""Tool-call histories: the checker, the repair, and the conversation's trimming keep them valid."""

from __future__ import annotations

import itertools
import logging
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    trim_messages,
)
from langchain_core.messages.utils import count_tokens_approximately

from common.history import NO_ANSWER, history_problems, provider_history, repaired
from strategies.with_planner.conversation import compact, model_view

_ids = itertools.count()


def ai_calls(*ids: str) -> AIMessage:
    return AIMessage(
        "", tool_calls=[{"name": "get", "args": {}, "id": i} for i in ids], id=f"a{next(_ids)}"
    )


def answer(call_id: str) -> ToolMessage:
    return ToolMessage("ok", tool_call_id=call_id, name="get", id=f"t{next(_ids)}")


def test_a_valid_history_has_no_problems() -> None:
    history = [
        SystemMessage("s"),
        HumanMessage("q"),
        ai_calls("c1", "c2"),
        answer("c2"),
        answer("c1"),
        AIMessage("done"),
        HumanMessage("more"),
    ]
    assert history_problems(history) == []
    assert provider_history(history) == history


@pytest.mark.parametrize(
    ("history", "problem"),
    [
        ([HumanMessage("q"), answer("c1")], "follows no call"),
        ([HumanMessage("q"), ai_calls("c1")], "'c1' (get) is not answered"),
        ([ai_calls("c1", "c2"), answer("c1"), HumanMessage("x"), answer("c2")], "not answered"),
        ([ai_calls("c1"), answer("c1"), answer("c1")], "follows no call"),
        ([ai_calls("c1"), AIMessage("hm"), answer("c1")], "not answered"),
    ],
)
def test_what_a_provider_refuses_is_named(history: list[BaseMessage], problem: str) -> None:
    problems = history_problems(history)
    assert any(problem in p for p in problems), problems
    assert history_problems(repaired(history)) == []


def test_an_unparsable_call_needs_an_answer_too() -> None:
    broken = AIMessage(
        "", invalid_tool_calls=[{"name": "get", "args": "{", "id": "bad", "error": "json"}]
    )
    assert history_problems([HumanMessage("q"), broken]) != []
    assert history_problems([HumanMessage("q"), broken, answer("bad")]) == []


def test_the_repair_moves_a_stray_answer_up_and_answers_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    call = ai_calls("c1", "c2", "c3")
    first, second = answer("c1"), answer("c2")
    human = HumanMessage("the user's answer")
    with caplog.at_level(logging.WARNING, logger="common.history"):
        fixed = provider_history([call, first, human, second, answer("zz")])
    assert fixed[:3] == [call, first, second]
    filler = fixed[3]
    assert isinstance(filler, ToolMessage)
    assert (filler.tool_call_id, filler.status, filler.content) == ("c3", "error", NO_ANSWER)
    assert fixed[4:] == [human]
    assert "repaired a tool-call history" in caplog.text


# --- random histories -------------------------------------------------------------------------


@st.composite
def histories(draw: st.DrawFn, valid: bool = False) -> list[BaseMessage]:
    """Turns of requests, answers and tool rounds; unless `valid`, with answers lost or moved."""
    messages: list[BaseMessage] = []
    for turn in range(draw(st.integers(1, 6))):
        messages.append(HumanMessage(draw(st.text(max_size=60)) or "q", id=f"h{turn}"))
        for r in range(draw(st.integers(0, 3))):
            ids = [f"c{turn}-{r}-{k}" for k in range(draw(st.integers(1, 3)))]
            broken = draw(st.booleans()) and not valid
            messages.append(
                AIMessage(
                    "",
                    tool_calls=_calls(ids[1:] if broken else ids),
                    invalid_tool_calls=[_broken(ids[0])] if broken else [],
                    id=f"a{turn}-{r}",
                )
            )
            answers: list[BaseMessage] = [
                ToolMessage("x" * draw(st.integers(0, 200)), tool_call_id=i, id=f"t-{i}")
                for i in ids
            ]
            if not valid:
                answers = draw(st.permutations(answers))
                answers = answers[: draw(st.integers(0, len(answers)))]
                if draw(st.booleans()):
                    answers.insert(draw(st.integers(0, len(answers))), HumanMessage("aside"))
            messages += answers
        messages.append(AIMessage(draw(st.text(max_size=80)) or "a", id=f"r{turn}"))
    if not valid and draw(st.booleans()):
        spot = draw(st.integers(0, len(messages)))
        messages.insert(spot, ToolMessage("orphan", tool_call_id="nobody", id="orphan"))
    return messages


def _broken(call_id: str) -> Any:
    return {"name": "get", "args": "{", "id": call_id, "error": "unparsable"}


def _calls(ids: list[str]) -> list[Any]:
    return [{"name": "get", "args": {}, "id": i} for i in ids]


@settings(max_examples=200, deadline=None)
@given(histories())
def test_any_history_repairs_to_a_valid_one_and_stays_put(history: list[BaseMessage]) -> None:
    fixed = repaired(history)
    assert history_problems(fixed) == []
    assert repaired(fixed) == fixed
    # Nothing but tool answers is dropped or invented, and the rest keeps its order.
    rest = [m for m in history if not isinstance(m, ToolMessage)]
    assert [m for m in fixed if not isinstance(m, ToolMessage)] == rest


@settings(max_examples=200, deadline=None)
@given(histories(valid=True))
def test_a_valid_history_is_never_changed(history: list[BaseMessage]) -> None:
    assert history_problems(history) == []
    assert repaired(history) == history


@settings(max_examples=150, deadline=None)
@given(histories(), st.integers(0, 2000))
def test_what_the_conversation_shows_a_model_is_valid(
    history: list[BaseMessage], budget: int
) -> None:
    summary, recent = model_view(history, [], budget)
    assert history_problems([SystemMessage("p" + summary), *recent]) == []


@settings(max_examples=150, deadline=None)
@given(histories(valid=True), st.integers(0, 2000))
def test_compacting_never_splits_a_call_from_its_answers(
    history: list[BaseMessage], budget: int
) -> None:
    compacted = compact(history, [], budget)
    removed = {r.id for r in compacted.removals}
    kept = [m for m in history if m.id not in removed]
    assert history_problems(kept) == []
    _, recent = model_view(kept, compacted.summary, budget)
    assert history_problems(recent) == []


@settings(max_examples=150, deadline=None)
@given(histories(valid=True), st.integers(1, 2000))
def test_trimming_on_turn_boundaries_keeps_histories_whole(
    history: list[BaseMessage], budget: int
) -> None:
    # How a window over a tool-calling history must be cut: whole turns, from a request on.
    kept = trim_messages(
        history,
        max_tokens=budget,
        token_counter=count_tokens_approximately,
        strategy="last",
        start_on="human",
        end_on=("ai", "tool"),
        allow_partial=False,
    )
    assert history_problems(kept) == []
