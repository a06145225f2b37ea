"""orchestrate: let the model work on the current task with only that expert's tools."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from common.mcp import ExpertUnavailable, registry_for
from common.models import model_errors
from common.safety.gate import Gate
from common.safety.questions import ASK_USER
from common.structured import BadOutput, tool_round, with_tools
from strategies.with_planner.bound_tools import Bound, bind_tools_for
from strategies.with_planner.context import Context
from strategies.with_planner.nodes.common import context_of, model_for, task_update, truncate
from strategies.with_planner.plans import TaskStatus
from strategies.with_planner.prompts import ORCHESTRATE_SYSTEM_PROMPT
from strategies.with_planner.state import DependencyOutput, TaskRun, TaskRunUpdate

if TYPE_CHECKING:
    from mcp.types import Tool

CANNOT_COMPLETE = "cannot_complete"
"""The control tool the orchestrator calls to give the task up, with the reason."""
CONTROL_TOOLS = frozenset({ASK_USER, CANNOT_COMPLETE})
"""Tools the graph answers itself, never sent to an expert."""
UNUSABLE_ANSWER = "Your last answer could not be used:"
"""How the feedback after an unusable orchestrator answer begins."""

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


def render_inputs(inputs: Mapping[str, DependencyOutput]) -> str:
    """Results of the tasks a task depends on, for its prompt."""
    if not inputs:
        return "(none)"
    return "\n".join(
        f"- {tid}: {truncate(str(out.get('result') or ''), 800)}" for tid, out in inputs.items()
    )


async def orchestrate(state: TaskRun, runtime: Runtime[Context]) -> TaskRunUpdate:
    """One orchestrate round on the task; an unreachable expert fails the task.

    An unusable answer counts as a round: the orchestrator is told why and tries again, and
    the task fails with the reason once its rounds are spent.
    """
    task = state["task"]
    ctx = context_of(runtime, state)
    registry = await registry_for(ctx.mcp_config)
    try:
        tools = await registry.tools(task["expert"])
    except ExpertUnavailable as exc:
        return task_update(state, runtime, status="failed", error=str(exc))
    bound = _bound(state, tools)
    model = with_tools(model_for(ctx, "orchestrate"), bound.specs)
    async with model_errors("orchestrate", ctx.model_for("orchestrate")):
        reply = await tool_round(model, bound.names.for_model(_conversation(state)))
    attempts = task["attempts"] + 1
    if isinstance(reply, BadOutput):
        return _bad_round(state, runtime, reply, attempts)
    # From here on the calls carry the tools' real names: the gate, approvals, the ledger.
    reply = bound.names.from_model(reply)
    # Only the task's status: call_tool decides, data leaving included (with the thread's results).
    gate = Gate(state["guard"]["verdicts"])
    tool_map = {t.name: t for t in tools}
    server = registry.server(task["expert"])
    waiting = any(
        gate.check(task["expert"], c["name"], c["args"], tool_map, server).needs_approval
        for c in reply.tool_calls
    )
    status: TaskStatus = "awaiting_approval" if waiting else "running"
    return task_update(state, runtime, [reply], status=status, attempts=attempts)


def _bound(state: TaskRun, tools: list[Tool]) -> Bound:
    """The expert's tools for this task (at most `MAX_TOOLS`, control tools included)."""
    called = {
        c["name"]
        for m in state.get("messages", [])
        if isinstance(m, AIMessage)
        for c in m.tool_calls
    }
    return bind_tools_for(tools, _CONTROL_SPECS, state["task"]["task"], called)


def _conversation(state: TaskRun) -> list[BaseMessage]:
    """The orchestrator's prompt, the user's request, and the task's exchange so far."""
    task = state["task"]
    prompt = ORCHESTRATE_SYSTEM_PROMPT.format(
        expert=task["expert"],
        plan=state["plan_view"],
        task_id=task["id"],
        task=task["task"],
        inputs=render_inputs(state["inputs"]),
    )
    return [SystemMessage(prompt), HumanMessage(state["request"]), *state.get("messages", [])]


def _bad_round(
    state: TaskRun, runtime: Runtime[Context], bad: BadOutput, attempts: int
) -> TaskRunUpdate:
    """A round whose answer was unusable: feedback for another round, or fail when spent."""
    if attempts >= state["max_attempts"]:
        error = f"the orchestrator gave no usable answer in {attempts} round(s): {bad.reason}"
        return task_update(state, runtime, status="failed", error=error, attempts=attempts)
    feedback = HumanMessage(f"{UNUSABLE_ANSWER} {bad.reason} Answer again.")
    return task_update(state, runtime, [feedback], status="running", attempts=attempts)
