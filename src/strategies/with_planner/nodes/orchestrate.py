"""orchestrate: let the model work on the current task with only that expert's tools."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import SystemMessage
from langgraph.runtime import Runtime
from mcp.types import Tool

from common.mcp import ExpertUnavailable, registry_for
from strategies.with_planner.context import Context
from strategies.with_planner.nodes.common import (
    context_of,
    current,
    emit,
    model_for,
    render_plan,
    with_task,
)
from strategies.with_planner.prompts import ORCHESTRATE_SYSTEM_PROMPT
from strategies.with_planner.state import State

ASK_USER = "ask_user"
CANNOT_COMPLETE = "cannot_complete"
CONTROL_TOOLS = frozenset({ASK_USER, CANNOT_COMPLETE})

_CONTROL_SPECS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": ASK_USER,
            "description": "Ask the user for information the task needs and only they have.",
            "parameters": {
                "type": "object",
                "properties": {"question": {"type": "string", "description": "The question."}},
                "required": ["question"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": CANNOT_COMPLETE,
            "description": "Say the task cannot be done with the available tools, and why.",
            "parameters": {
                "type": "object",
                "properties": {"reason": {"type": "string", "description": "Why not."}},
                "required": ["reason"],
            },
        },
    },
]


def tool_spec(tool: Tool) -> dict[str, Any]:
    """An MCP tool as an OpenAI-style function spec, for `bind_tools` (we execute it ourselves)."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description or "",
            "parameters": tool.inputSchema or {"type": "object", "properties": {}},
        },
    }


async def orchestrate(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """One orchestrate round on the current task; an unreachable expert fails the task."""
    task = current(state)
    registry = await registry_for(context_of(runtime).mcp_config)
    if task["status"] == "pending":
        emit(runtime, "task_start", task_id=task["id"], expert=task["expert"])
    try:
        tools = await registry.tools(task["expert"])
    except ExpertUnavailable as exc:
        return {"plan": with_task(state, status="failed", error=str(exc))}
    specs = [tool_spec(t) for t in tools]
    specs += [c for c in _CONTROL_SPECS if c["function"]["name"] not in {t.name for t in tools}]
    prompt = ORCHESTRATE_SYSTEM_PROMPT.format(
        expert=task["expert"],
        plan=render_plan(state["plan"]),
        task_id=task["id"],
        task=task["task"],
    )
    model = model_for(runtime, "orchestrate").bind_tools(specs)
    message = await model.ainvoke([SystemMessage(prompt), *state["messages"]])
    return {
        "messages": [message],
        "plan": with_task(state, status="running", attempts=task["attempts"] + 1),
    }
