"""The turn's settings, clock and progress events: what the nodes and the scheduler share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime

from strategies.with_planner.context import Context


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
