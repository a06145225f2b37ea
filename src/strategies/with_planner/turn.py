"""A new turn, the turn's settings, clock and progress events, shared by the nodes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime

from common.served import caller
from strategies.with_planner.context import Context
from strategies.with_planner.state import Turn, current_turn


def new_turn(run_context: dict[str, Any], turn_of: str, notes: list[str]) -> Turn:
    """A turn as it begins: its settings fixed, every other field at its start value.

    The one list of what a turn starts with. The planner writes it whole when a turn begins
    (`merge_turn` replaces the last turn with it), so nothing of one turn's notes, failures,
    replans or planning attempts leaks into the next.
    """
    return Turn(
        run_context=run_context,
        turn_of=turn_of,
        notes=notes,
        replanned=False,
        steps_spent=0,
        planner_attempts=0,
        planner_feedback=[],
        planner_focus=[],
        wave=[],
        uncovered=[],
        unavailable={},
        analysis=None,
    )


def starts_turn(update: object) -> bool:
    """Whether a planner update only fixed a new turn's settings, before any planning.

    Progress displays skip it: to a person the turn has one planner step, not two.
    """
    if not isinstance(update, Mapping) or "plan" in update:
        return False
    turn = update.get("turn")
    return update.get("planner_outcome") == "retry" and bool(
        isinstance(turn, Mapping) and turn.get("run_context")
    )


def context_of(runtime: Runtime[Context], state: Mapping[str, Any]) -> Context:
    """The settings of the current turn: fixed by the planner when the turn began.

    A resume (or a later step) that passes another context, or none, cannot change them, so
    the approval of calls already pending cannot be weakened. Before the turn has settings
    (the planner's first step), the caller's context, or the settings' defaults. A task run
    has them as `run_context` (`TaskInput`), not in a turn.
    """
    fixed = current_turn(state).get("run_context") or state.get("run_context")
    given = Context(**fixed) if fixed else runtime.context
    ctx = (given if given is not None else Context()).filled()
    # The turn's settings are fixed, but the caller is this run's (an approver's resume). Set
    # on the fresh copy, not `replace`d: that would re-check settings the gate must see as they are.
    ctx.caller = caller.of(runtime.context)
    return ctx


def now_iso(ctx: Context) -> str:
    """The run's current time, ISO 8601."""
    return ctx.current_time().isoformat(timespec="seconds")


def emit(runtime: Runtime[Context], event: str, **data: Any) -> None:
    """Send a custom stream event (`stream_mode="custom"`)."""
    runtime.stream_writer({"event": event, **data})
