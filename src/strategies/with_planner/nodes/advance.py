"""advance: the scheduler node. Run a round of ready tasks, then ask, replan once, or go on.

`make_advance` takes the compiled `run_task` subgraph and the `call_tool` node from `graph.py`,
so the node's closure holds the subgraph and LangGraph draws it (`get_graph(xray=True)`).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, Protocol

from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from strategies.with_planner import scheduler
from strategies.with_planner.context import Context
from strategies.with_planner.plan_card import Feed
from strategies.with_planner.plans import TaskState, plan_status, settle
from strategies.with_planner.state import AdvanceUpdate, State, Turn, current_turn
from strategies.with_planner.turn import context_of, now_iso


class Advance(Protocol):
    """The advance node, as `make_advance` builds it."""

    def __call__(self, state: State, runtime: Runtime[Context]) -> Awaitable[AdvanceUpdate]:
        """Run a round of tasks and settle the plan."""
        ...


def _replan_needed(state: State, plan: list[TaskState], ran: list[str]) -> list[str]:
    """Failures of the last round worth replanning around (once per turn), as feedback."""
    if current_turn(state).get("replanned"):
        return []
    failed = [t for t in plan if t["id"] in ran and t["status"] == "failed"]
    unfinished = [t for t in plan if t["status"] in ("pending", "skipped", "cancelled")]
    if not failed or not unfinished:
        return []
    return [f"Task {t['id']} ({t['expert']}) failed: {t['error']}" for t in failed]


def make_advance(
    task_graph: CompiledStateGraph[Any, Any, Any, Any], call_step: scheduler.CallStep
) -> Advance:
    """The advance node: orchestrated tasks run on `task_graph`, direct steps on `call_step`."""

    async def advance(state: State, runtime: Runtime[Context]) -> AdvanceUpdate:
        """Run every task that can run (each once its own dependencies completed), then settle.

        Calls tasks stopped at go to the human first (`routing.dispatch`); a failure with work
        left is sent back to the planner once per turn.
        """
        ctx = context_of(runtime, state)
        plan = settle(state["plan"], now_iso(ctx))
        notes = list(current_turn(state).get("notes") or [])
        if state.get("awaiting"):
            return AdvanceUpdate(
                plan=plan, turn=Turn(wave=[], notes=notes), plan_status=plan_status(plan)
            )
        # The subgraph is named here, in the closure, for LangGraph to find and draw it.
        feed = Feed(state, runtime)
        done = await scheduler.run_round(state, runtime, plan, task_graph.ainvoke, call_step, feed)
        plan = settle(done.plan, now_iso(ctx))
        feed.show(plan, done.awaiting)
        notes += done.notes
        turn = Turn(wave=done.ran, notes=notes)
        update = AdvanceUpdate(
            plan=plan,
            deferred=done.deferred,
            awaiting=done.awaiting,
            turn=turn,
            plan_status=plan_status(plan),
        )
        if feed.sent is not None:
            update["ui"] = [feed.sent]
        if done.awaiting:
            return update
        failures = _replan_needed(state, plan, done.ran)
        if failures:
            notes.append("Replanned after: " + "; ".join(failures))
            turn["replanned"], turn["planner_feedback"] = True, failures
        return update

    return advance
