"""call_tool: the single gate every tool call passes, then its execution on the expert."""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolCall, ToolMessage
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from common.mcp import ExpertRegistry, ExpertUnavailable, registry_for
from common.safety import (
    ApprovalFormatError,
    Decision,
    PendingCall,
    build_approval_request,
    classify_tool,
    parse_decisions,
)
from common.safety.approval import EditDecision, RejectDecision
from strategies.with_planner.context import Context
from strategies.with_planner.nodes.common import context_of, current, describe_call, with_task
from strategies.with_planner.nodes.orchestrate import ASK_USER, CANNOT_COMPLETE
from strategies.with_planner.state import State

logger = logging.getLogger(__name__)

EDIT_NOTICE = "Note: the user edited this call before it ran; it ran as {call}.\n"


async def _pending_calls(
    state: State, registry: ExpertRegistry, calls: list[ToolCall]
) -> list[PendingCall]:
    """The calls of this step that need a human, with the reason for each."""
    expert = current(state)["expert"]
    verdicts = {v["tool"]: v for v in state["guard"]["verdicts"] if v["server"] == expert}
    try:
        tools = {t.name: t for t in await registry.tools(expert)}
    except ExpertUnavailable:
        tools = {}
    pending: list[PendingCall] = []
    for call in calls:
        verdict = verdicts.get(call["name"])
        if verdict is None and call["name"] in tools:
            # A tool that appeared after the guard ran is classified now, never let through.
            verdict = classify_tool(expert, tools[call["name"]], registry.server(expert))
        if verdict is not None and verdict["irreversible"]:
            pending.append(
                PendingCall(
                    id=call["id"] or "",
                    expert=expert,
                    name=call["name"],
                    args=call["args"],
                    reason=f"{verdict['reason']} (source: {verdict['source']})",
                )
            )
    return pending


def _ask_for_approval(pending: list[PendingCall]) -> dict[str, Decision]:
    """Interrupt until the human sends one valid decision per pending call."""
    error: str | None = None
    while True:
        value = interrupt(build_approval_request(pending, error))
        try:
            decisions = parse_decisions(value, len(pending))
        except ApprovalFormatError as exc:
            error = f"Your last answer was not used, nothing ran: {exc}"
            continue
        return {p["id"]: d for p, d in zip(pending, decisions, strict=True)}


def _ask_user(question: str, task_id: str) -> str:
    answer = interrupt({"type": "ask_user", "question": question, "task_id": task_id})
    return answer if isinstance(answer, str) else str(answer)


def _tool_message(call: ToolCall, content: str, error: bool = False, **extra: Any) -> ToolMessage:
    return ToolMessage(
        content=content,
        tool_call_id=call["id"] or "",
        name=call["name"],
        status="error" if error else "success",
        **extra,
    )


async def call_tool(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Answer every tool call of the last AI message, asking approval first where needed.

    All interrupts happen before the first tool runs: LangGraph re-runs this node from the
    start on resume, so nothing with a side effect may precede an `interrupt()`.
    """
    ctx = context_of(runtime)
    registry = await registry_for(ctx.mcp_config)
    task = current(state)
    last = state["messages"][-1]
    assert isinstance(last, AIMessage), "call_tool follows an AI message with tool calls"
    calls = list(last.tool_calls)
    pending = await _pending_calls(state, registry, calls)
    decisions = _ask_for_approval(pending) if pending and ctx.approval_mode == "interrupt" else {}
    answers = {
        c["id"]: _ask_user(str(c["args"].get("question", "")), task["id"])
        for c in calls
        if c["name"] == ASK_USER
    }
    gated = {p["id"]: p for p in pending}
    messages: list[Any] = []
    declined, deferred, failure = list(task["declined"]), list(state.get("deferred") or []), None
    for call in calls:
        name, cid = call["name"], call["id"]
        if name == ASK_USER:
            messages.append(_tool_message(call, "Asked the user; their answer follows."))
            messages.append(HumanMessage(answers[cid]))
        elif name == CANNOT_COMPLETE:
            failure = str(call["args"].get("reason") or "the expert could not do the task")
            messages.append(_tool_message(call, "Noted: the task is marked as failed."))
        elif cid in gated and ctx.approval_mode == "plan_only":
            deferred.append(gated[cid])
            messages.append(
                _tool_message(
                    call,
                    f"Not run: {name!r} is irreversible and approval_mode is plan_only; it is "
                    "recorded as a proposed action for the user to approve.",
                    error=True,
                )
            )
        elif isinstance(decision := decisions.get(cid or ""), RejectDecision):
            declined.append(describe_call(name, call["args"]))
            why = f" Their reason: {decision.message}" if decision.message else ""
            messages.append(
                _tool_message(call, f"The user declined to run {name!r}.{why}", error=True)
            )
        else:
            messages.append(await _execute(ctx, registry, task["expert"], call, decision, gated))
    changes: dict[str, Any] = {"declined": declined}
    if answers:
        # Asking the user is not an attempt at the task: refund the round.
        changes["attempts"] = max(task["attempts"] - 1, 0)
    if failure is not None:
        changes.update(status="failed", error=failure)
    return {"messages": messages, "plan": with_task(state, **changes), "deferred": deferred}


async def _execute(
    ctx: Context,
    registry: ExpertRegistry,
    expert: str,
    call: ToolCall,
    decision: Decision | None,
    gated: dict[str, PendingCall],
) -> ToolMessage:
    name, args, prefix = call["name"], call["args"], ""
    if isinstance(decision, EditDecision):
        name, args = decision.edited_action.name, decision.edited_action.args
        prefix = EDIT_NOTICE.format(call=describe_call(name, args))
    if ctx.approval_mode == "auto" and call["id"] in gated:
        logger.info("auto mode: running irreversible %s on %s", describe_call(name, args), expert)
    reversible = call["id"] not in gated and decision is None
    outcome = await registry.call(expert, name, args, ctx.tool_timeout_s, retry_safe=reversible)
    if outcome.is_error:
        return _tool_message(call, f"{prefix}Error ({outcome.status}): {outcome.content}", True)
    return _tool_message(call, prefix + outcome.content, artifact=outcome.structured)
