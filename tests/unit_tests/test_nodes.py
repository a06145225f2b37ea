"""Nodes invoked directly with a handmade state and runtime.

Main-graph nodes (irreversibility_check, advance) get a `State`; the task subgraph's nodes
(assess_task) get a `TaskRun` holding only that task and its own exchange.
"""

from __future__ import annotations

from typing import Any, cast

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.runtime import Runtime

from strategies.with_planner.context import Context
from strategies.with_planner.graph import build_task_graph
from strategies.with_planner.nodes import (
    assess_task,
    call_tool,
    irreversibility_check,
    make_advance,
)
from strategies.with_planner.plans import Task, TaskState, new_task_state
from strategies.with_planner.scheduler import candidates
from strategies.with_planner.state import GuardVerdict, State, TaskRun, Turn
from tests.unit_tests.helpers import done, not_done

NOW = "2025-03-14T09:30:00+00:00"
GUARD = GuardVerdict(irreversible={}, verdicts=[], unavailable={}, analysis="skipped", notes=[])


def task_state(
    expert: str = "testkit",
    attempts: int = 1,
    tid: str = "t1",
    status: str = "running",
    **fields: Any,
) -> TaskState:
    made = new_task_state(Task(id=tid, expert=expert, task=f"do {tid}", **fields))
    made["status"] = status  # type: ignore[typeddict-item]
    made["attempts"] = attempts
    return made


def task_run(
    task: TaskState, messages: list[AnyMessage], max_attempts: int, request: str = "hi"
) -> TaskRun:
    return cast(
        TaskRun,
        {
            "task": task,
            "request": request,
            "plan_view": "- t1 [running] (testkit): do t1",
            "inputs": {},
            "order": [task["id"]],
            "guard": GUARD,
            "max_attempts": max_attempts,
            "messages": messages,
        },
    )


def runtime(ctx: dict[str, Any], events: list[dict[str, Any]] | None = None) -> Runtime[Context]:
    sink = events if events is not None else []
    return Runtime(context=Context(**{"now": NOW, **ctx}), stream_writer=sink.append)


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
    ctx, models = scripted(assess=[not_done("half done")])
    echo = {"name": "echo", "args": {"text": "half"}, "id": "c1"}
    exchange: list[AnyMessage] = [
        AIMessage("", tool_calls=[echo]),
        ToolMessage("half", tool_call_id="c1"),
        AIMessage("partial"),
    ]

    update = await assess_task(task_run(task_state(), exchange, max_attempts=2), runtime(ctx))

    assert update == {"task_completed": False}
    # The assessor judges the task's own exchange, nothing of the main conversation.
    (request,) = models["assess"].requests
    assert isinstance(request["messages"][0], SystemMessage)
    assert "Task: do t1" in str(request["messages"][0].content)
    assert request["messages"][1:] == exchange


async def test_assess_fails_the_task_when_budget_is_spent_keeping_partial_results(
    scripted: Any,
) -> None:
    ctx, models = scripted(assess=[not_done("only half the data")])
    # The run's own budget (set by advance for the wave) decides, not the context's default.
    ctx["max_task_attempts"] = 5
    echo = [{"name": "echo", "args": {}, "id": cid} for cid in ("c1", "c2")]
    exchange: list[AnyMessage] = [
        AIMessage("", tool_calls=echo),
        ToolMessage("first half", tool_call_id="c1"),
        ToolMessage("broken", tool_call_id="c2", status="error"),
    ]
    run = task_run(task_state(attempts=2), exchange, max_attempts=2)

    update = await assess_task(run, runtime(ctx))

    failed = update["task"]
    assert update["plan"] == {"t1": failed}
    assert failed["status"] == "failed"
    assert failed["error"] == "not completed after 2 attempt(s): only half the data"
    assert failed["result"] == "first half"
    assert failed["ended_at"] == NOW
    # An ended task keeps a record of its calls, not its whole exchange.
    assert failed["messages"] == []
    assert [(c["id"], c["status"], c["output"]) for c in failed.get("calls") or []] == [
        ("c1", "success", "first half"),
        ("c2", "error", "broken"),
    ]
    assert update["task_completed"] is False
    assert "messages" not in update
    assert models["assess"].requests[0]["messages"][1:] == exchange


async def test_words_no_tool_backs_are_not_completed_and_the_orchestrator_is_told(
    scripted: Any,
) -> None:
    ctx, models = scripted(assess=[done("the assistant answered")])
    exchange: list[AnyMessage] = [AIMessage("There are no notes.")]

    update = await assess_task(task_run(task_state(), exchange, max_attempts=3), runtime(ctx))

    assert update["task_completed"] is False
    assert update["task"]["status"] == "running"
    (told,) = update["messages"]
    assert isinstance(told, HumanMessage)
    assert told.content == (
        "Expert 'testkit' called none of its tools, so nothing backs its answer (it may have no "
        "tool for this task). Call the tool that does the task; if none of these tools can, "
        "call `cannot_complete` saying so."
    )
    assert models["assess"].requests == []


async def test_words_no_tool_backs_fail_the_task_once_the_budget_is_spent(scripted: Any) -> None:
    ctx, models = scripted(assess=[done("the assistant answered")])
    exchange: list[AnyMessage] = [AIMessage("There are no notes.")]
    run = task_run(task_state(attempts=3), exchange, max_attempts=3)

    update = await assess_task(run, runtime(ctx))

    failed = update["task"]
    assert failed["status"] == "failed"
    assert failed["error"] == (
        "not completed after 3 attempt(s): expert 'testkit' called none of its tools, so "
        "nothing backs its answer (it may have no tool for this task)"
    )
    # Words nothing backs are no result: the answer must not repeat them as the expert's.
    assert failed["result"] is None
    assert models["assess"].requests == []


async def test_words_from_dependency_results_are_judged_by_the_assessor(scripted: Any) -> None:
    ctx, models = scripted(assess=[done()])
    run = task_run(task_state(), [AIMessage("WID-1 is the cheapest.")], max_attempts=3)
    run["inputs"] = {"t0": {"result": "WID-1: 2.50; GAD-7: 9.90", "data": None}}

    update = await assess_task(run, runtime(ctx))

    assert update["task"]["status"] == "completed"
    assert update["task"]["result"] == "WID-1 is the cheapest."
    assert len(models["assess"].requests) == 1


async def test_assess_completes_the_task_with_its_result_and_data(scripted: Any) -> None:
    ctx, _ = scripted(assess=[done()])
    exchange: list[AnyMessage] = [
        AIMessage("", tool_calls=[{"name": "get_stock", "args": {}, "id": "c1"}]),
        ToolMessage("120 in stock", tool_call_id="c1", artifact={"result": {"stock": 120}}),
        AIMessage("There are 120."),
    ]

    update = await assess_task(task_run(task_state(), exchange, max_attempts=3), runtime(ctx))

    completed = update["plan"]["t1"]
    assert completed["status"] == "completed"
    assert completed["result"] == "120 in stock\nThere are 120."
    assert completed["data"] == {"stock": 120}
    assert completed["ended_at"] == NOW
    assert completed["messages"] == []
    assert [c["name"] for c in completed.get("calls") or []] == ["get_stock"]
    assert update["task_completed"] is True


def test_a_round_may_run_pending_tasks_whose_dependencies_completed_or_may_complete() -> None:
    done_ = task_state(tid="t1", status="completed")
    failed = task_state(tid="t2", status="failed")
    ready = task_state(tid="t3", status="pending", attempts=0, depends_on=["t1"])
    chained = task_state(tid="t4", status="pending", attempts=0, depends_on=["t3"])
    blocked = task_state(tid="t5", status="pending", attempts=0, depends_on=["t2"])
    after_blocked = task_state(tid="t6", status="pending", attempts=0, depends_on=["t5", "t3"])

    plan = [done_, failed, ready, chained, blocked, after_blocked]

    assert candidates(plan) == ["t3", "t4"]


async def test_advance_ends_the_plan_when_nothing_is_left(scripted: Any) -> None:
    ctx, _ = scripted()
    events: list[dict[str, Any]] = []
    failed = task_state(tid="t1", status="failed", critical=False)
    failed["error"] = "boom"
    finished = task_state(tid="t2", status="completed")
    state = State(
        messages=[HumanMessage("hi")], plan=[failed, finished], turn=Turn(wave=["t1", "t2"])
    )

    advance = make_advance(build_task_graph(), call_tool)
    update = await advance(state, runtime(ctx, events))

    # A failure with nothing left to run is no reason to replan: the turn goes on to answer.
    assert update["turn"]["wave"] == []
    assert "replanned" not in update["turn"]
    assert update["plan_status"] == "completed"
    assert events == [], "nothing started or ended in this round"
