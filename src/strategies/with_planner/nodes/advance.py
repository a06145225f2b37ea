"""advance: the scheduler. Settle finished tasks, replan once after a failure, launch ready ones."""

from __future__ import annotations

from langgraph.runtime import Runtime

from strategies.with_planner.context import Context
from strategies.with_planner.nodes.common import context_of, emit, now_iso
from strategies.with_planner.plans import TaskState, plan_status, ready_tasks, settle
from strategies.with_planner.state import AdvanceUpdate, State


def _replan_needed(state: State, plan: list[TaskState]) -> list[str]:
    """Failures of the last wave worth replanning around (once per turn), as feedback."""
    if state.get("replanned"):
        return []
    wave = set(state.get("wave") or [])
    failed = [t for t in plan if t["id"] in wave and t["status"] == "failed"]
    unfinished = [t for t in plan if t["status"] in ("pending", "skipped", "cancelled")]
    if not failed or not unfinished:
        return []
    return [f"Task {t['id']} ({t['expert']}) failed: {t['error']}" for t in failed]


async def advance(state: State, runtime: Runtime[Context]) -> AdvanceUpdate:
    """Settle finished tasks, then launch every ready task (up to max_parallel) or finish."""
    ctx = context_of(runtime, state)
    now = now_iso(ctx)
    for t in state["plan"]:
        if t["id"] in (state.get("wave") or []):
            emit(runtime, "task_end", task_id=t["id"], status=t["status"], error=t["error"])
    plan = settle(state["plan"], now)
    notes = list(state.get("turn_notes") or [])
    if state.get("awaiting"):
        # Calls wait for a human: ask first (dispatch routes there), launch nothing yet.
        return AdvanceUpdate(plan=plan, wave=[], turn_notes=notes, plan_status=plan_status(plan))
    failures = _replan_needed(state, plan)
    if failures:
        notes.append("Replanned after: " + "; ".join(failures))
        return AdvanceUpdate(
            plan=plan,
            wave=[],
            replanned=True,
            planner_feedback=failures,
            turn_notes=notes,
            plan_status=plan_status(plan),
        )
    return _launch(state, runtime, plan, notes, now)


def _launch(
    state: State, runtime: Runtime[Context], plan: list[TaskState], notes: list[str], now: str
) -> AdvanceUpdate:
    """Start the next wave within the step budget, or cancel what is left when it ran out."""
    ctx = context_of(runtime, state)
    used = state.get("steps_spent", 0) + sum(t["attempts"] for t in plan)
    ready = ready_tasks(plan)
    # A task going on with the user's decisions finishes the round they decided.
    decided = {t["id"] for t in ready if t.get("decisions")}
    if len(ready) > len(decided) and used >= ctx.max_steps:
        notes.append(f"The step budget of {ctx.max_steps} per turn ran out.")
        plan = [
            _cancel(t, now, ctx.max_steps)
            if t["status"] == "pending" and t["id"] not in decided
            else t
            for t in plan
        ]
        ready = [t for t in ready if t["id"] in decided]
    wave = ready[: ctx.max_parallel]
    budget = min(ctx.task_attempts(), max(1, (ctx.max_steps - used) // max(len(wave), 1)))
    launched = {t["id"] for t in wave}
    plan = [_start(t, now) if t["id"] in launched else t for t in plan]
    for t in wave:
        emit(runtime, "task_start", task_id=t["id"], expert=t["expert"])
    return AdvanceUpdate(
        plan=plan,
        wave=[t["id"] for t in wave],
        attempt_budget=budget,
        turn_notes=notes,
        plan_status=plan_status(plan),
    )


def _start(t: TaskState, now: str) -> TaskState:
    return TaskState(**{**t, "status": "running", "started_at": t["started_at"] or now})


def _cancel(t: TaskState, now: str, budget: int) -> TaskState:
    error = f"cancelled: the step budget of {budget} per turn ran out"
    return TaskState(**{**t, "status": "cancelled", "error": error, "ended_at": now})
