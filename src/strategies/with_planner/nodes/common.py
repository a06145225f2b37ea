"""Small helpers shared by the nodes."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AnyMessage
from langgraph.runtime import Runtime

from common.models import load_chat_model
from strategies.with_planner.context import Context
from strategies.with_planner.nodes.tool_messages import for_state
from strategies.with_planner.plans import TERMINAL, TaskState, call_records
from strategies.with_planner.results import VIEW_CHARS, trim
from strategies.with_planner.state import TaskRun, TaskRunUpdate

RESULT_CHARS = VIEW_CHARS

HELD_BACK = "held back for the user's approval (plan_only)"
"""The error of a direct step whose call plan_only held back: the user's choice, not a failure."""


def context_of(runtime: Runtime[Context], state: Mapping[str, Any]) -> Context:
    """The settings of the current turn: fixed by the planner when the turn began.

    A resume (or a later step) that passes another context, or none, cannot change them, so
    the approval of calls already pending cannot be weakened. Before the turn has settings
    (the planner's first step), the caller's context, or the settings' defaults.
    """
    fixed = state.get("run_context")
    given = Context(**fixed) if fixed else runtime.context
    return (given if given is not None else Context()).filled()


def model_for(ctx: Context, role: str) -> BaseChatModel:
    """The chat model configured for a node role."""
    return load_chat_model(ctx.model_for(role))


def now_iso(ctx: Context) -> str:
    """The run's current time, ISO 8601."""
    return ctx.current_time().isoformat(timespec="seconds")


def emit(runtime: Runtime[Context], event: str, **data: Any) -> None:
    """Send a custom stream event (`stream_mode="custom"`)."""
    runtime.stream_writer({"event": event, **data})


def task_update(
    state: TaskRun,
    runtime: Runtime[Context],
    new_messages: Sequence[AnyMessage] = (),
    **changes: Any,
) -> TaskRunUpdate:
    """Update a task run's task and its transcript, stamping `ended_at` at a final status.

    Returns the node update: `messages` (when new ones came), `task`, and `plan` (the task
    by id, which the parent merges when the run ends). A large tool output is not kept on
    its message in state: the task's result keeps it once (see `results`). An ended task
    keeps a record of its calls, not its exchange (`plans.ended`): the plan is checkpointed
    at every step of the turn, and the exchange stays in the task run's own state.
    """
    direct = bool(state["task"]["tool"])
    new_messages = [for_state(m, direct) for m in new_messages]
    task = TaskState(**{**state["task"], **changes})  # type: ignore[typeddict-item]
    exchange = [*state.get("messages", []), *new_messages]
    task["messages"] = exchange
    if task["status"] in TERMINAL:
        task["ended_at"] = task["ended_at"] or now_iso(context_of(runtime, state))
        task["messages"], task["calls"] = [], call_records(exchange)
    update = TaskRunUpdate(task=task, plan={task["id"]: task})
    if new_messages:
        update["messages"] = list(new_messages)
    return update


def render_plan(plan: list[TaskState], detailed: bool = False) -> str:
    """The plan as lines with dependencies and statuses (and, when detailed, results)."""
    if not plan:
        return "(none)"
    lines = []
    for t in plan:
        deps = f" after {', '.join(t['depends_on'])}" if t["depends_on"] else ""
        step = f" [direct: {describe_call(t['tool'], t['args'] or {})}]" if t["tool"] else ""
        optional = "" if t["critical"] else " (optional)"
        line = f"- {t['id']} [{t['status']}] ({t['expert']}{deps}){optional}: {t['task']}{step}"
        if detailed:
            if t["result"]:
                line += f"\n   result: {t['result']}"
            if t["error"]:
                line += f"\n   error: {t['error']}"
            if t["declined"]:
                line += f"\n   declined by the user: {'; '.join(t['declined'])}"
        lines.append(line)
    return "\n".join(lines)


def truncate(text: str, limit: int = RESULT_CHARS) -> str:
    """Cut `text` to `limit` characters, saying so (templates refuse a value cut this way)."""
    return trim(text, limit)


def describe_call(name: str, args: dict[str, Any]) -> str:
    """A compact `tool(args)` rendering for messages and summaries."""
    return f"{name}({json.dumps(args, ensure_ascii=False, sort_keys=True)})"


def unwrap(structured: Any) -> Any:
    """A tool's structured content, without FastMCP's `{"result": ...}` wrapper."""
    if isinstance(structured, dict) and set(structured) == {"result"}:
        return structured["result"]
    return structured
