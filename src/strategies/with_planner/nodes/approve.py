"""request_approval and await_approval: ask a human about the calls tasks stopped at.

A task run that reaches a call needing approval stops before anything of its round runs
(`call_tool.pause`) and hands the call up (`State.awaiting`). Asking happens here, in the parent
graph, in two steps, so that every client shows the question in the conversation:
`request_approval` first adds an assistant message that says in words what would run and why it
needs approval (Agent Chat UI draws its approval card under the last AI message; Studio and the
CLI show it too), then `await_approval` interrupts in the run's interrupt format (`hitl`: one
interrupt for all the calls; `agent_inbox`: one call per interrupt) and gives each task its
decisions, by call key, before the scheduler sends it on. Nothing runs in either node: LangGraph
re-runs `await_approval` from its start on every answer. Once every answer is in, approvals
given with `remember` are kept in the store (an idempotent write, so a re-run may repeat it).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from common.mcp import ExpertUnavailable, registry_for
from common.safety.approval import Decision, PendingCall, ask_for_approval, record_of
from common.safety.inbox import InterruptFormat, ask_one_by_one
from strategies.with_planner.context import Context
from strategies.with_planner.nodes.common import context_of, describe_call, emit, truncate
from strategies.with_planner.plans import TaskState
from strategies.with_planner.remembered import keep_chosen, scope_for
from strategies.with_planner.state import (
    ApprovalRequestUpdate,
    ApprovalUpdate,
    Awaiting,
    PlannerUpdate,
    State,
)

HOW_TO_ANSWER: dict[str, str] = {
    "hitl": "Approve, edit or reject each one; nothing runs until you answer.",
    "agent_inbox": (
        "Accept, edit, respond (to decline and say why) or ignore each one below; nothing runs "
        "until you answer."
    ),
}
"""The last line of the question, by interrupt format."""


SHOWN = 500
"""Characters of a call the question shows; the approval request itself has every argument."""


def approval_message(awaiting: list[Awaiting], interrupt_format: InterruptFormat) -> str:
    """The question in words: each call that waits, on which expert, and why it needs approval."""
    count = len(awaiting)
    lines = [
        f"Before going on I need your approval for {count} action{'s' if count > 1 else ''} "
        "that cannot be undone:"
    ]
    for a in awaiting:
        call = a["call"]
        lines.append(
            f"- {call['expert']}: `{truncate(describe_call(call['name'], call['args']), SHOWN)}` "
            f"(task {a['task_id']}). Why approval: {call['reason']}."
        )
    how = HOW_TO_ANSWER.get(interrupt_format, HOW_TO_ANSWER["hitl"])
    # A paragraph of its own: in Markdown a line right after a list item continues the item.
    return "\n".join(lines) + f"\n\n{how}"


async def request_approval(state: State, runtime: Runtime[Context]) -> ApprovalRequestUpdate:
    """Say in the conversation what waits for approval and why, before asking."""
    ctx = context_of(runtime, state)
    awaiting = state.get("awaiting") or []
    emit(runtime, "approval_needed", calls=[a["call"] for a in awaiting])
    text = approval_message(awaiting, ctx.interrupt_format)
    return ApprovalRequestUpdate(messages=[AIMessage(text)])


async def await_approval(state: State, runtime: Runtime[Context]) -> ApprovalUpdate:
    """Interrupt until every waiting call has a valid decision; give each task its decisions."""
    ctx = context_of(runtime, state)
    awaiting = state.get("awaiting") or []
    # Asked under a key unique in the thread: parallel tasks' models may reuse call ids.
    calls = [PendingCall(**{**a["call"], "id": _asked_id(a)}) for a in awaiting]
    decisions: dict[str, Decision]
    if ctx.interrupt_format == "agent_inbox":
        decisions = ask_one_by_one(calls, await _schemas(ctx, awaiting))
    else:
        # Anything but exactly agent_inbox asks in the default format.
        decisions = ask_for_approval(calls)
    kept = await keep_chosen(scope_for(runtime.store, ctx.user_id), calls, decisions)
    if kept:
        emit(runtime, "approval_kept", remembered=kept)
    by_id = {t["id"]: t for t in state["plan"]}
    decided: dict[str, TaskState] = {}
    for a in awaiting:
        task = decided.get(a["task_id"]) or TaskState(**by_id[a["task_id"]])
        task["decisions"] = {
            **(task.get("decisions") or {}),
            a["key"]: record_of(decisions[_asked_id(a)]),
        }
        task["status"] = "pending"
        decided[a["task_id"]] = task
    return ApprovalUpdate(plan=decided, awaiting=None)


async def _schemas(ctx: Context, awaiting: list[Awaiting]) -> dict[str, dict[str, Any]]:
    """Each waiting call's input schema by call id, for typing edited text back (when known)."""
    registry = await registry_for(ctx.mcp_config)
    catalog = await registry.catalog(sorted({a["call"]["expert"] for a in awaiting}))
    schemas: dict[str, dict[str, Any]] = {}
    for a in awaiting:
        tools = catalog.get(a["call"]["expert"])
        if isinstance(tools, ExpertUnavailable) or tools is None:
            continue
        for tool in tools:
            if tool.name == a["call"]["name"]:
                schemas[_asked_id(a)] = dict(tool.inputSchema or {})
    return schemas


def _asked_id(a: Awaiting) -> str:
    """The id a waiting call is asked under: its task and call key."""
    return f"{a['task_id']}/{a['key']}"


NOT_RUN_HEADING = (
    "Not run: these were waiting for your approval when your new message arrived (a message "
    "does not answer an approval request; ask again to have them run):"
)
"""The answer's section for calls a new message left undecided."""


def not_run_lines(calls: list[PendingCall]) -> list[str]:
    """One line per call a new message left undecided."""
    return [f"{c['expert']}: {truncate(describe_call(c['name'], c['args']), SHOWN)}" for c in calls]


def set_aside(state: State) -> PlannerUpdate:
    """A new message while calls wait for approval: the old plan stops, its calls are not run.

    The tasks that stopped for approval are cancelled with the reason; the rest of the plan is
    kept as the previous plan (the planner may continue it), and the calls are kept for this
    turn's answer, which names them.
    """
    awaiting = state.get("awaiting") or []
    waiting = {a["task_id"] for a in awaiting}
    plan = [
        TaskState(**{**t, "status": "cancelled", "error": NOT_RUN_ERROR})
        if t["id"] in waiting
        else t
        for t in state.get("plan") or []
    ]
    return PlannerUpdate(
        awaiting=None,
        abandoned=[a["call"] for a in awaiting],
        previous_plan=plan,
        plan=[],
        wave=[],
        planner_attempts=0,
    )


NOT_RUN_ERROR = "not run: a new message arrived while its call waited for approval"
"""The error of a task whose call a new message left undecided."""
