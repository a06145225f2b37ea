"""Nodes invoked directly with a handmade state and runtime."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langgraph.runtime import Runtime

from common.plans import TaskState
from strategies.with_planner.context import Context
from strategies.with_planner.nodes import advance, assess_task, irreversibility_check
from strategies.with_planner.state import State
from tests.unit_tests.helpers import not_done


def task_state(expert: str, attempts: int = 1, tid: str = "t1") -> TaskState:
    return TaskState(
        id=tid,
        expert=expert,
        task="do it",
        status="running",
        attempts=attempts,
        result=None,
        error=None,
        declined=[],
    )


def runtime(ctx: dict[str, Any], events: list[dict[str, Any]] | None = None) -> Runtime[Context]:
    sink = events if events is not None else []
    return Runtime(context=Context(**ctx), stream_writer=sink.append)


async def test_guard_flags_only_irreversible_tools_of_the_plans_experts(scripted: Any) -> None:
    ctx, _ = scripted()
    events: list[dict[str, Any]] = []
    state = State(
        messages=[HumanMessage("hi")],
        plan=[task_state("notes"), task_state("inventory", tid="t2"), task_state("testkit")],
    )

    update = await irreversibility_check(state, runtime(ctx, events))

    irreversible = update["guard"]["irreversible"]
    assert sorted(irreversible["notes"]) == ["delete_note", "write_note"]
    assert "inventory" not in irreversible
    assert sorted(irreversible["testkit"]) == ["crash", "delete_everything", "send_message"]
    sources = {(v["server"], v["tool"]): v["source"] for v in update["guard"]["verdicts"]}
    assert sources[("testkit", "send_message")] == "heuristic"
    assert sources[("testkit", "crash")] == "default"
    assert sources[("inventory", "get_stock")] == "annotation"
    assert update["guard"]["unavailable"] == {}
    assert [e["event"] for e in events] == ["guard"]


async def test_assess_gives_another_round_while_budget_remains(scripted: Any) -> None:
    ctx, _ = scripted(assess=[not_done("half done")])
    ctx["max_task_attempts"] = 2
    state = State(messages=[HumanMessage("hi"), AIMessage("partial")], plan=[task_state("testkit")])

    update = await assess_task(state, runtime(ctx))

    assert update == {"task_completed": False}


async def test_assess_fails_the_task_when_budget_is_spent_keeping_partial_results(
    scripted: Any,
) -> None:
    ctx, _ = scripted(assess=[not_done("only half the data")])
    ctx["max_task_attempts"] = 2
    exchange: list[AnyMessage] = [
        AIMessage("", tool_calls=[{"name": "echo", "args": {}, "id": "c1"}]),
        ToolMessage("first half", tool_call_id="c1"),
        ToolMessage("broken", tool_call_id="c2", status="error"),
    ]
    state = State(
        messages=[HumanMessage("hi"), *exchange],
        plan=[task_state("testkit", attempts=2)],
        task_message_start=1,
    )

    update = await assess_task(state, runtime(ctx))

    (failed,) = update["plan"]
    assert failed["status"] == "failed"
    assert failed["error"] == "not completed after 2 attempt(s): only half the data"
    assert failed["result"] == "first half"
    assert update["task_completed"] is False


async def test_advance_moves_to_the_next_task_and_marks_where_it_starts(scripted: Any) -> None:
    ctx, _ = scripted()
    events: list[dict[str, Any]] = []
    state = State(
        messages=[HumanMessage("hi"), AIMessage("a"), AIMessage("b")],
        plan=[task_state("testkit"), task_state("testkit", tid="t2")],
        current_task=0,
        task_completed=True,
    )

    update = await advance(state, runtime(ctx, events))

    assert update == {"current_task": 1, "task_completed": False, "task_message_start": 3}
    assert events == [{"event": "task_end", "task_id": "t1", "status": "running", "error": None}]
