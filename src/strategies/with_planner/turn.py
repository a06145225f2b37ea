"""The turn's settings, turn-scoped fields, clock and progress events, shared by the nodes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime

from strategies.with_planner.context import Context
from strategies.with_planner.state import TurnStart


def reset_turn(update: TurnStart, *, answered: bool = False) -> None:
    """Set every turn-scoped field of a node's update to its start value, as a whole.

    The one list of what belongs to a turn, used when a turn begins (so nothing of one turn's
    notes, failures, replans or planning attempts leaks into the next) and when it is
    answered (`answered`: what callers read about the turn, `unavailable`, `uncovered`,
    `analysis` and `planner_focus`, stays until the next turn begins).
    """
    update["turn_notes"] = []
    update["replanned"] = False
    update["steps_spent"] = 0
    update["planner_attempts"] = 0
    update["planner_feedback"] = []
    update["wave"] = []
    if not answered:
        update["planner_focus"] = []
        update["uncovered"] = []
        update["unavailable"] = {}
        update["analysis"] = None


def context_of(runtime: Runtime[Context], state: Mapping[str, Any]) -> Context:
    """The settings of the current turn: fixed by the planner when the turn began.

    A resume (or a later step) that passes another context, or none, cannot change them, so
    the approval of calls already pending cannot be weakened. Before the turn has settings
    (the planner's first step), the caller's context, or the settings' defaults.
    """
    fixed = state.get("run_context")
    given = Context(**fixed) if fixed else runtime.context
    return (given if given is not None else Context()).filled()


def now_iso(ctx: Context) -> str:
    """The run's current time, ISO 8601."""
    return ctx.current_time().isoformat(timespec="seconds")


def emit(runtime: Runtime[Context], event: str, **data: Any) -> None:
    """Send a custom stream event (`stream_mode="custom"`)."""
    runtime.stream_writer({"event": event, **data})
