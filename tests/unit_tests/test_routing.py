"""Routing functions on handmade states: every conditional edge and its condition."""

from __future__ import annotations

from typing import Any, cast

import pytest
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage

from strategies.with_planner import routing
from strategies.with_planner.plans import Task, TaskState, new_task_state
from strategies.with_planner.scheduler import task_input
from strategies.with_planner.state import GuardVerdict, State, TaskRun

GUARD = GuardVerdict(irreversible={}, verdicts=[], unavailable={}, analysis="skipped", notes=[])


def task_state(status: str = "running", tid: str = "t1", **fields: Any) -> TaskState:
    made = new_task_state(Task(id=tid, expert="testkit", task=f"do {tid}", **fields))
    made["status"] = status  # type: ignore[typeddict-item]
    return made


def state(*tasks: TaskState, **extra: Any) -> State:
    made: dict[str, Any] = {"messages": [HumanMessage("hi")], "plan": list(tasks), "guard": GUARD}
    return cast(State, {**made, **extra})


def run(task: TaskState, *messages: AnyMessage, **extra: Any) -> TaskRun:
    """A task run's state: the task and its own exchange (never the main conversation)."""
    made: dict[str, Any] = {
        "task": task,
        "request": "hi",
        "plan_view": "",
        "inputs": {},
        "order": [task["id"]],
        "guard": GUARD,
        "max_attempts": 3,
        "messages": list(messages),
    }
    return cast(TaskRun, {**made, **extra})


WITH_CALLS = AIMessage("", tool_calls=[{"name": "echo", "args": {}, "id": "c"}])
REPLY = ToolMessage("ok", tool_call_id="c")


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


def test_task_start_sends_a_direct_step_straight_to_the_gate() -> None:
    direct = task_state("running", tool="echo", args={"text": "x"})
    assert routing.task_start(run(direct)) == "call_tool"
    assert routing.task_start(run(task_state())) == "orchestrate"


def test_after_orchestrate() -> None:
    assert routing.after_orchestrate(run(task_state(), WITH_CALLS)) == "call_tool"
    waiting = task_state("awaiting_approval")
    assert routing.after_orchestrate(run(waiting, WITH_CALLS)) == "call_tool"
    assert routing.after_orchestrate(run(task_state(), AIMessage("done"))) == "assess_task"
    # An unreachable expert fails the task in orchestrate: the run ends, nothing is called.
    assert routing.after_orchestrate(run(task_state("failed"), WITH_CALLS)) == "__end__"


def test_after_call_tool() -> None:
    assert routing.after_call_tool(run(task_state(), WITH_CALLS, REPLY)) == "assess_task"
    assert routing.after_call_tool(run(task_state("failed"), WITH_CALLS, REPLY)) == "__end__"
    # A direct step is over after its one call: no orchestrator, no assessor.
    direct = task_state("completed", tool="echo", args={})
    assert routing.after_call_tool(run(direct, WITH_CALLS, REPLY)) == "__end__"
    assert routing.after_call_tool(run(task_state("skipped"), WITH_CALLS, REPLY)) == "__end__"
    # The user answered an ask_user question: back to the orchestrator with the answer.
    answered = run(task_state(), WITH_CALLS, REPLY, HumanMessage("the big one"))
    assert routing.after_call_tool(answered) == "orchestrate"


def test_after_assess() -> None:
    unfinished = run(task_state(), AIMessage("half"), task_completed=False)
    assert routing.after_assess(unfinished) == "orchestrate"
    completed = run(task_state("completed"), AIMessage("all"), task_completed=True)
    assert routing.after_assess(completed) == "__end__"
    failed = run(task_state("failed"), AIMessage("half"), task_completed=False)
    assert routing.after_assess(failed) == "__end__"


def test_a_task_run_gets_its_task_its_dependencies_results_and_its_budget() -> None:
    done = task_state("completed", "t1")
    done["result"], done["data"] = "alpha", {"n": 1}
    second = task_state("running", "t2", depends_on=["t1"])
    third = task_state("running", "t3")
    later = task_state("pending", "t4", depends_on=["t2"])
    main = state(
        done,
        second,
        third,
        later,
        messages=[HumanMessage("first"), AIMessage("ok"), HumanMessage("echo twice")],
    )

    first, other = (task_input(main, tid, 2) for tid in ("t2", "t3"))

    assert [first["task"]["id"], other["task"]["id"]] == ["t2", "t3"]
    assert first["inputs"] == {"t1": {"expert": "testkit", "result": "alpha", "data": {"n": 1}}}
    assert other["inputs"] == {}
    assert first["request"] == "echo twice"
    assert first["order"] == ["t1", "t2", "t3", "t4"]
    assert first["max_attempts"] == 2
    assert first["guard"] == GUARD
    assert "- t2 [running] (testkit after t1): do t2" in first["plan_view"]
    # Nothing of the main conversation goes into a task run.
    assert "messages" not in first


def test_dispatch_runs_another_round_while_tasks_are_ready() -> None:
    finished = task_state("completed", "t1")
    ready = task_state("pending", "t2", depends_on=["t1"])
    assert routing.dispatch(state(finished, ready, turn={"wave": []})) == "advance"
    awaiting = state(finished, ready, awaiting=[{"task_id": "t1"}])
    assert routing.dispatch(awaiting) == "request_approval"


def test_dispatch_without_a_wave_answers_or_replans_once() -> None:
    finished = (task_state("completed", "t1"), task_state("failed", "t2"))
    assert routing.dispatch(state(*finished, turn={"wave": []})) == "generate_response"
    assert routing.dispatch(state(turn={"wave": []})) == "generate_response"
    feedback = ["Task t2 (testkit) failed: no booking tool"]
    replan = state(*finished, turn={"wave": [], "planner_feedback": feedback, "replanned": True})
    assert routing.dispatch(replan) == "planner"
    # Feedback left from the planner's own retries is no reason to replan.
    left = state(*finished, turn={"wave": [], "planner_feedback": feedback})
    assert routing.dispatch(left) == "generate_response"
