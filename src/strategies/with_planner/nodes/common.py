"""Small helpers shared by the nodes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AnyMessage, ToolCall
from langgraph.runtime import Runtime

from common.models import load_chat_model
from common.safety.approval import PendingCall
from strategies.with_planner.context import Context
from strategies.with_planner.nodes.tool_messages import for_state

# The plan rendering and the turn helpers live beside what they read; nodes take them from here.
from strategies.with_planner.plans import TERMINAL, TaskState, call_records
from strategies.with_planner.plans import describe_call as describe_call
from strategies.with_planner.plans import render_plan as render_plan
from strategies.with_planner.results import VIEW_CHARS, trim
from strategies.with_planner.state import TaskRun, TaskRunUpdate
from strategies.with_planner.turn import context_of as context_of
from strategies.with_planner.turn import emit as emit
from strategies.with_planner.turn import now_iso as now_iso

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

RESULT_CHARS = VIEW_CHARS

HELD_BACK = "held back for the user's approval (plan_only)"
"""The error of a direct step whose call plan_only held back: the user's choice, not a failure."""


def model_for(ctx: Context, role: str) -> BaseChatModel:
    """The chat model configured for a node role."""
    return load_chat_model(ctx.model_for(role))


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


def truncate(text: str, limit: int = RESULT_CHARS) -> str:
    """Cut `text` to `limit` characters, saying so (templates refuse a value cut this way)."""
    return trim(text, limit)


def unwrap(structured: Any) -> Any:
    """A tool's structured content, without the SDK server's `{"result": ...}` wrapper."""
    if isinstance(structured, dict) and set(structured) == {"result"}:
        return structured["result"]
    return structured


def conservative_split(
    ctx: Context, calls: list[ToolCall]
) -> tuple[list[ToolCall], list[ToolCall]]:
    """The calls to answer now, and those the conservative strategy leaves for later turns."""
    if ctx.strategy == "conservative" and len(calls) > 1:
        return calls[:1], calls[1:]
    return calls, []


def pending_call(call: ToolCall, expert: str, reason: str, source: str) -> PendingCall:
    """A gated call as the reviewer sees it."""
    return PendingCall(
        id=call["id"] or "",
        expert=expert,
        name=call["name"],
        args=call["args"],
        reason=f"{reason} (source: {source})",
    )
