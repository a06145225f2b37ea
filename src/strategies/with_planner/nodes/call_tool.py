"""call_tool: the single gate every tool call passes, then its durable execution."""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolCall, ToolMessage
from langgraph.config import get_config
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from common.guardrails import GuardrailConfig, denied_urls, mask_secrets, trim_tool_output
from common.mcp import ExpertRegistry, ExpertUnavailable, registry_for
from common.safety.approval import (
    ApprovalFormatError,
    Decision,
    EditDecision,
    PendingCall,
    RejectDecision,
    build_approval_request,
    parse_decisions,
)
from common.safety.execution import CallLedger, CallRecord, LedgerEntry, replay, run_once
from common.safety.gate import Gate, GateDecision
from common.safety.policy import action_for
from strategies.with_planner.context import Context
from strategies.with_planner.nodes.common import (
    HELD_BACK,
    context_of,
    describe_call,
    emit,
    task_update,
    truncate,
    unwrap,
)
from strategies.with_planner.nodes.orchestrate import ASK_USER, CANNOT_COMPLETE
from strategies.with_planner.plans import TaskState, check_args
from strategies.with_planner.state import TaskRun
from strategies.with_planner.templates import TemplateError, resolve

logger = logging.getLogger(__name__)

EDIT_NOTICE = "Note: the user edited this call to {call}.\n"


async def check_call(
    gate: Gate, registry: ExpertRegistry, expert: str, name: str, args: dict[str, Any]
) -> GateDecision:
    """The gate's decision for one call of `expert` (its live tool list is consulted)."""
    try:
        tools = {t.name: t for t in await registry.tools(expert)}
    except ExpertUnavailable:
        tools = {}
    return gate.check(expert, name, args, tools, registry.server(expert))


def ask_for_approval(pending: list[PendingCall]) -> dict[str, Decision]:
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


def ledger_for(runtime: Runtime[Context]) -> CallLedger | None:
    """The thread's call ledger; None without a thread (nothing to resume, nothing to guard)."""
    thread_id = get_config().get("configurable", {}).get("thread_id")
    return CallLedger(runtime.store, str(thread_id)) if thread_id is not None else None


async def recorded_calls(
    ledger: CallLedger | None, message: AIMessage, calls: list[ToolCall]
) -> dict[str, LedgerEntry]:
    """Calls of this message the ledger already knows: a re-run must not ask or send again."""
    if ledger is None:
        return {}
    found: dict[str, LedgerEntry] = {}
    for call in calls:
        entry = await ledger.lookup(call_key(message, call))
        if entry is not None:
            found[call["id"] or ""] = entry
    return found


def call_key(message: AIMessage, call: ToolCall) -> str:
    """Ledger key of a call: the message id keeps provider-reused call ids apart."""
    return f"{message.id}:{call['id']}"


async def _pending(
    gate: Gate, registry: ExpertRegistry, expert: str, calls: list[ToolCall]
) -> list[PendingCall]:
    pending: list[PendingCall] = []
    for call in calls:
        if call["name"] in (ASK_USER, CANNOT_COMPLETE):
            continue
        decision = await check_call(gate, registry, expert, call["name"], call["args"])
        if decision.needs_approval:
            pending.append(
                PendingCall(
                    id=call["id"] or "",
                    expert=expert,
                    name=call["name"],
                    args=call["args"],
                    reason=f"{decision.reason} (source: {decision.source})",
                )
            )
    return pending


def _direct_message(state: TaskRun, runtime: Runtime[Context]) -> AIMessage | str:
    """The direct step as a tool call with its templates resolved, or the template error."""
    task = state["task"]
    args = task["args"] or {}
    if task["approval"] is None:
        today = context_of(runtime, state).current_time().date()
        try:
            args = resolve(args, state["inputs"], state["order"], task["id"], today)
        except TemplateError as exc:
            return str(exc)
    # Stable across a resume of this task run (same namespace), new for every other run.
    run = str(get_config().get("configurable", {}).get("checkpoint_ns", "")).split("|")[0]
    call_id = f"direct-{task['id']}-{run or task['started_at']}"
    return AIMessage(
        content="",
        id=call_id,
        tool_calls=[{"name": task["tool"] or "", "args": args, "id": call_id, "type": "tool_call"}],
    )


async def call_tool(state: TaskRun, runtime: Runtime[Context]) -> dict[str, Any]:
    """Answer every tool call of the last AI message (or the direct step), gate first.

    All interrupts happen before the first tool runs, and gated calls go through the ledger:
    LangGraph re-runs this node from its start on resume, and nothing may run twice.
    """
    ctx = context_of(runtime, state)
    registry = await registry_for(ctx.mcp_config)
    task = state["task"]
    direct = bool(task["tool"]) and not state.get("messages")
    if direct:
        made = _direct_message(state, runtime)
        if isinstance(made, str):
            return task_update(state, runtime, status="failed", error=made, attempts=1)
        last: AIMessage = made
    else:
        found = state["messages"][-1]
        assert isinstance(found, AIMessage), "call_tool follows an AI message with tool calls"
        last = found
    calls = list(last.tool_calls)
    extra: list[ToolCall] = []
    if ctx.strategy == "conservative" and len(calls) > 1:
        calls, extra = calls[:1], calls[1:]
    gate = Gate(state["guard"]["verdicts"])
    ledger = ledger_for(runtime)
    recorded = await recorded_calls(ledger, last, calls)
    fresh = [c for c in calls if (c["id"] or "") not in recorded]
    pending = await _pending(gate, registry, task["expert"], fresh)
    decisions = _decide(ctx.approval_mode, task, pending)
    answers = {
        c["id"]: _ask_user(str(c["args"].get("question", "")), task["id"])
        for c in fresh
        if c["name"] == ASK_USER
    }
    gated = {p["id"]: p for p in pending}
    messages: list[Any] = [last] if direct else []
    declined, deferred, failure = list(task["declined"]), [], None
    for call in calls:
        name, cid = call["name"], call["id"] or ""
        if cid in recorded:
            messages.append(_record_message(call, replay(recorded[cid], task["expert"], name)))
        elif name == ASK_USER:
            messages.append(_tool_message(call, "Asked the user; their answer follows."))
            messages.append(HumanMessage(answers[cid]))
        elif name == CANNOT_COMPLETE:
            failure = str(call["args"].get("reason") or "the expert could not do the task")
            messages.append(_tool_message(call, "Noted: the task is marked as failed."))
        else:
            decision = decisions.get(cid)
            action = action_for(ctx.approval_mode, cid in gated, decision)
            if action == "run":
                key = call_key(last, call)
                messages.append(
                    await _execute(
                        ctx,
                        registry,
                        gate,
                        ledger,
                        key,
                        task["expert"],
                        call,
                        decision,
                        cid in gated,
                    )
                )
            elif isinstance(decision, RejectDecision):
                declined.append(describe_call(name, call["args"]))
                messages.append(_declined(call, decision))
            else:
                # "defer", or "ask" with no answer (never expected): held, never sent.
                deferred.append(gated[cid])
                messages.append(_held_back(call, ctx.approval_mode))
    messages += [_not_run_conservative(c) for c in extra]
    for m in messages:
        if isinstance(m, ToolMessage):
            emit(
                runtime,
                "tool_result",
                task_id=task["id"],
                tool=m.name,
                status=m.status,
                content=truncate(str(m.content), 500),
            )
    changes = _changes(task, direct, messages, declined, failure, bool(answers), bool(deferred))
    return {"deferred": deferred, **task_update(state, runtime, messages, **changes)}


def _decide(mode: object, task: TaskState, pending: list[PendingCall]) -> dict[str, Decision]:
    """The human's decisions on the gated calls: given earlier ("go ahead"), or asked now."""
    if not pending:
        return {}
    if task["approval"] is not None:
        # The user approved this exact held-back call when they said "go ahead".
        decision = parse_decisions({"decisions": [task["approval"]]}, 1)[0]
        return {p["id"]: decision for p in pending}
    return ask_for_approval(pending) if action_for(mode, True) == "ask" else {}


def _changes(
    task: TaskState,
    direct: bool,
    messages: list[Any],
    declined: list[str],
    failure: str | None,
    asked: bool,
    held: bool,
) -> dict[str, Any]:
    changes: dict[str, Any] = {"declined": declined, "status": "running"}
    if direct:
        outcome = messages[-1]
        ok = isinstance(outcome, ToolMessage) and outcome.status == "success"
        changes.update(attempts=task["attempts"] + 1)
        if ok:
            changes.update(status="completed", result=truncate(str(outcome.content)))
            changes["data"] = unwrap(outcome.artifact)
        elif held:
            changes.update(status="skipped", error=HELD_BACK)
        else:
            changes.update(status="failed", error=str(outcome.content))
    elif asked:
        # Asking the user is not an attempt at the task: refund the round.
        changes["attempts"] = max(task["attempts"] - 1, 0)
    if failure is not None:
        changes.update(status="failed", error=failure)
    return changes


def _not_run_conservative(call: ToolCall) -> ToolMessage:
    return _tool_message(
        call,
        "Not run: the conservative strategy runs one tool call per turn; call it again next turn.",
        error=True,
    )


def _held_back(call: ToolCall, mode: object) -> ToolMessage:
    return _tool_message(
        call,
        f"Not run: {call['name']!r} is irreversible and approval_mode is {mode!r}; it is "
        "recorded as a proposed action for the user to approve.",
        error=True,
    )


def _declined(call: ToolCall, decision: RejectDecision) -> ToolMessage:
    why = f" Their reason: {decision.message}" if decision.message else ""
    return _tool_message(call, f"The user declined to run {call['name']!r}.{why}", error=True)


async def _refuse_before_call(
    ctx: Context, registry: ExpertRegistry, expert: str, name: str, args: dict[str, Any]
) -> str | None:
    """Why a call must not be sent at all: a denied URL in its arguments, or bad arguments."""
    urls = denied_urls(args, ctx.guardrail_config())
    if urls:
        return (
            f"Not run: the arguments reach a denied address ({', '.join(urls)}); private, "
            "loopback, link-local and metadata addresses are refused (GUARDRAILS allowed_hosts)."
        )
    try:
        tools = {t.name: t for t in await registry.tools(expert)}
    except ExpertUnavailable:
        return None
    if name in tools and (problems := check_args(tools[name], args)):
        return (
            f"Not run: the arguments do not match {name!r}'s input schema: {'; '.join(problems)}."
        )
    return None


def _record_message(
    call: ToolCall, record: CallRecord, prefix: str = "", limit: int | None = None
) -> ToolMessage:
    if record["status"] != "ok":
        return _tool_message(call, f"{prefix}Error ({record['status']}): {record['content']}", True)
    text = record["content"]
    shown = trim_tool_output(text, GuardrailConfig(max_tool_output_chars=limit)) if limit else text
    # The model gets the trimmed text; the full output stays with the message for the result.
    extra = {"full_output": text} if shown != text else {}
    return _tool_message(
        call, prefix + shown, artifact=record["structured"], additional_kwargs=extra
    )


async def _execute(
    ctx: Context,
    registry: ExpertRegistry,
    gate: Gate,
    ledger: CallLedger | None,
    key: str,
    expert: str,
    call: ToolCall,
    decision: Decision | None,
    gated: bool,
) -> ToolMessage:
    name, args, prefix = call["name"], call["args"], ""
    if isinstance(decision, EditDecision):
        name, args = decision.edited_action.name, decision.edited_action.args
        recheck = await check_call(gate, registry, expert, name, args)
        # The reviewer authored this exact call, so it runs; the gate's view is recorded.
        prefix = EDIT_NOTICE.format(call=describe_call(name, args))
        logger.info("edited call %s on %s: %s", name, expert, recheck)
        gated = gated or recheck.needs_approval
    refused = await _refuse_before_call(ctx, registry, expert, name, args)
    if refused is not None:
        return _tool_message(call, prefix + refused, True)
    if gated and decision is None:
        logger.info("auto mode: running irreversible %s on %s", describe_call(name, args), expert)
    record = await run_once(ledger, key, registry, expert, name, args, ctx.tool_timeout_s, gated)
    cfg = ctx.guardrail_config()
    if cfg.mask_secrets:
        # A secret a tool returns must not reach the model either.
        record = CallRecord(**{**record, "content": mask_secrets(record["content"])[0]})
    return _record_message(call, record, prefix, cfg.max_tool_output_chars)
