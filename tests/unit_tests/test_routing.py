"""Routing functions on handmade states: every conditional edge and its condition."""

from __future__ import annotations

from typing import Any, cast

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from common.plans import TaskState
from strategies.with_planner import routing
from strategies.with_planner.state import State


def task_state(status: str = "running", tid: str = "t1") -> TaskState:
    return TaskState(
        id=tid,
        expert="testkit",
        task="x",
        status=status,  # type: ignore[typeddict-item]
        attempts=1,
        result=None,
        error=None,
        declined=[],
    )


def state(*tasks: TaskState, current: int = 0, last: Any = None, **extra: Any) -> State:
    messages = [HumanMessage("hi")] + ([last] if last is not None else [])
    made: dict[str, Any] = {"messages": messages, "plan": list(tasks), "current_task": current}
    return cast(State, {**made, **extra})


@pytest.mark.parametrize(
    ("outcome", "target"),
    [
        ("retry", "planner"),
        ("planned", "irreversibility_check"),
        ("empty", "generate_response"),
        ("clarify", "__end__"),
        ("failed", "__end__"),
    ],
)
def test_after_planner(outcome: str, target: str) -> None:
    assert routing.after_planner(state(planner_outcome=outcome)) == target


def test_after_orchestrate() -> None:
    with_calls = AIMessage("", tool_calls=[{"name": "echo", "args": {}, "id": "c"}])
    assert routing.after_orchestrate(state(task_state(), last=with_calls)) == "call_tool"
    assert routing.after_orchestrate(state(task_state(), last=AIMessage("done"))) == "assess_task"
    failed = task_state("failed")
    assert routing.after_orchestrate(state(failed, last=with_calls)) == "advance"


def test_after_call_tool() -> None:
    reply = ToolMessage("ok", tool_call_id="c")
    assert routing.after_call_tool(state(task_state(), last=reply)) == "assess_task"
    assert routing.after_call_tool(state(task_state("failed"), last=reply)) == "advance"


def test_after_assess() -> None:
    assert routing.after_assess(state(task_state(), task_completed=False)) == "orchestrate"
    assert routing.after_assess(state(task_state("completed"), task_completed=True)) == "advance"
    assert routing.after_assess(state(task_state("failed"), task_completed=False)) == "advance"


def test_after_advance_uses_the_current_task_index() -> None:
    two = (task_state("completed", "t1"), task_state("pending", "t2"))
    assert routing.after_advance(state(*two, current=1)) == "orchestrate"
    assert routing.after_advance(state(*two, current=2)) == "generate_response"
    assert routing.after_advance(state(current=0)) == "generate_response"
