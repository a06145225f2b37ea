"""advance: the scheduler node. Run a round of ready tasks, then ask, replan once, or go on."""

from __future__ import annotations

from typing import cast

from langgraph.runtime import Runtime

# The module, not its names: the scheduler imports call_tool from this package.
from strategies.with_planner import scheduler
from strategies.with_planner.context import Context
from strategies.with_planner.nodes.common import context_of, now_iso
from strategies.with_planner.plans import TaskState, plan_status, settle
from strategies.with_planner.state import AdvanceUpdate, State, TaskInput, TaskOutput
from strategies.with_planner.task_graph import task_graph


def _replan_needed(state: State, plan: list[TaskState], ran: list[str]) -> list[str]:
    """Failures of the last round worth replanning around (once per turn), as feedback."""
    if state.get("replanned"):
        return []
    failed = [t for t in plan if t["id"] in ran and t["status"] == "failed"]
    unfinished = [t for t in plan if t["status"] in ("pending", "skipped", "cancelled")]
    if not failed or not unfinished:
        return []
    return [f"Task {t['id']} ({t['expert']}) failed: {t['error']}" for t in failed]


async def _run_task(given: TaskInput) -> TaskOutput:
    """One orchestrated task, to its end, on the per-task subgraph."""
    return cast(TaskOutput, await task_graph().ainvoke(given))


async def advance(state: State, runtime: Runtime[Context]) -> AdvanceUpdate:
    """Run every task that can run (each once its own dependencies completed), then settle.

    Calls tasks stopped at go to the human first (`routing.dispatch`); a failure with work
    left is sent back to the planner once per turn.
    """
    ctx = context_of(runtime, state)
    plan = settle(state["plan"], now_iso(ctx))
    notes = list(state.get("turn_notes") or [])
    if state.get("awaiting"):
        return AdvanceUpdate(plan=plan, wave=[], turn_notes=notes, plan_status=plan_status(plan))
    done = await scheduler.run_round(state, runtime, plan, _run_task)
    plan = settle(done.plan, now_iso(ctx))
    notes += done.notes
    update = AdvanceUpdate(
        plan=plan,
        wave=done.ran,
        deferred=done.deferred,
        awaiting=done.awaiting,
        turn_notes=notes,
        plan_status=plan_status(plan),
    )
    if done.awaiting:
        return update
    failures = _replan_needed(state, plan, done.ran)
    if failures:
        notes.append("Replanned after: " + "; ".join(failures))
        update["replanned"], update["planner_feedback"] = True, failures
    return update
