"""CPU per run (issue 45): work the graph used to redo on every run, done once."""

from __future__ import annotations

from langgraph.pregel._call import get_runnable_for_task

from strategies.with_planner import scheduler


def test_the_round_task_is_wrapped_once_under_one_name() -> None:
    # LangGraph keeps the runnable of a task function it can find in its module; a closure
    # made per round was wrapped again (a runnable, a signature) for every task pushed.
    first = get_runnable_for_task(scheduler._AS_TASK.func)
    assert get_runnable_for_task(scheduler._AS_TASK.func) is first
    # The name a resumed round finds its tasks' results by, as before.
    assert first.name == "run_task"
