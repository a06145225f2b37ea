"""orchestrate: let the model work on the current task with only that expert's tools."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from mcp.types import Tool

from common.mcp import ExpertUnavailable, registry_for
from common.safety.gate import Gate
from strategies.with_planner.context import Context
from strategies.with_planner.nodes.common import context_of, model_for, task_update, truncate
from strategies.with_planner.prompts import ORCHESTRATE_SYSTEM_PROMPT
from strategies.with_planner.state import TaskRun

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


def render_inputs(inputs: dict[str, dict[str, Any]]) -> str:
    """Results of the tasks a task depends on, for its prompt."""
    if not inputs:
        return "(none)"
    return "\n".join(
        f"- {tid}: {truncate(str(out.get('result') or ''), 800)}" for tid, out in inputs.items()
    )


async def orchestrate(state: TaskRun, runtime: Runtime[Context]) -> dict[str, Any]:
    """One orchestrate round on the task; an unreachable expert fails the task."""
    task = state["task"]
    ctx = context_of(runtime, state)
    registry = await registry_for(ctx.mcp_config)
    try:
        tools = await registry.tools(task["expert"])
    except ExpertUnavailable as exc:
        return task_update(state, runtime, status="failed", error=str(exc))
    specs = [tool_spec(t) for t in tools]
    specs += [c for c in _CONTROL_SPECS if c["function"]["name"] not in {t.name for t in tools}]
    prompt = ORCHESTRATE_SYSTEM_PROMPT.format(
        expert=task["expert"],
        plan=state["plan_view"],
        task_id=task["id"],
        task=task["task"],
        inputs=render_inputs(state["inputs"]),
    )
    model = model_for(ctx, "orchestrate").bind_tools(specs)
    conversation = [
        SystemMessage(prompt),
        HumanMessage(state["request"]),
        *state.get("messages", []),
    ]
    message = await model.ainvoke(conversation)
    gate = Gate(state["guard"]["verdicts"])
    tool_map = {t.name: t for t in tools}
    waiting = any(
        gate.check(
            task["expert"], c["name"], c["args"], tool_map, registry.server(task["expert"])
        ).needs_approval
        for c in getattr(message, "tool_calls", [])
    )
    return task_update(
        state,
        runtime,
        [message],
        status="awaiting_approval" if waiting else "running",
        attempts=task["attempts"] + 1,
    )
