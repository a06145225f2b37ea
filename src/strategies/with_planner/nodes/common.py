"""Small helpers shared by the nodes."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.runtime import Runtime

from common.models import load_chat_model
from common.plans import TaskState
from strategies.with_planner.context import Context
from strategies.with_planner.state import State

RESULT_CHARS = 2000


def context_of(runtime: Runtime[Context]) -> Context:
    """The run's context, or the settings' defaults when the caller gave none."""
    return runtime.context if runtime.context is not None else Context()


def model_for(runtime: Runtime[Context], role: str) -> BaseChatModel:
    """The chat model configured for a node role."""
    return load_chat_model(context_of(runtime).model_for(role))


def emit(runtime: Runtime[Context], event: str, **data: Any) -> None:
    """Send a custom stream event (`stream_mode="custom"`)."""
    runtime.stream_writer({"event": event, **data})


def current(state: State) -> TaskState:
    """The task being worked on."""
    return state["plan"][state.get("current_task", 0)]


def with_task(state: State, **changes: Any) -> list[TaskState]:
    """A copy of the plan with the current task updated."""
    idx = state.get("current_task", 0)
    plan = list(state["plan"])
    plan[idx] = TaskState(**{**plan[idx], **changes})  # type: ignore[typeddict-item]
    return plan


def render_plan(plan: list[TaskState], detailed: bool = False) -> str:
    """The plan as numbered lines, with statuses and (when detailed) results and errors."""
    if not plan:
        return "(none)"
    lines = []
    for i, t in enumerate(plan):
        line = f"{i}. [{t['status']}] {t['id']} ({t['expert']}): {t['task']}"
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
    """Cut `text` to `limit` characters, saying so."""
    return text if len(text) <= limit else text[:limit] + f" … [{len(text) - limit} more chars]"


def describe_call(name: str, args: dict[str, Any]) -> str:
    """A compact `tool(args)` rendering for messages and summaries."""
    return f"{name}({json.dumps(args, ensure_ascii=False, sort_keys=True)})"
