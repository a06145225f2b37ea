"""request_approval and await_approval: ask a human about the calls tasks stopped at.

An expert's question to the user (`ask_user`) stops its task the same way and is asked here
too, after the message that states it (`common.safety.questions`: a `respond` decision in the
hitl format, Respond in Agent Inbox's), before any approval of the same stop.

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
Every question asked and every answer given is appended to the audit trail
(`strategies.with_planner.audited`), once however often the node re-runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage
from langgraph.errors import GraphInterrupt
from langgraph.runtime import Runtime

from common.mcp import ExpertUnavailable, registry_for
from common.safety.approval import Decision, PendingCall, Vet, ask_for_approval, record_of
from common.safety.inbox import InterruptFormat, ask_one_by_one
from common.safety.questions import ASK_USER, PendingQuestion, ask_questions
from common.safety.quoting import code_span, markdown_text
from common.served import caller
from common.served.approvers import Asked, Question, who_may_answer
from strategies.with_planner.answerers import (
    answered_now,
    asked_now,
    question_for,
    requester_only,
    server_question_for,
    vet_for,
)
from strategies.with_planner.audited import (
    Refusals,
    record_answers,
    record_asked,
    record_refused,
    trail_for,
)
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

if TYPE_CHECKING:
    from common.mcp import ExpertRegistry

HOW_TO_ANSWER: dict[str, str] = {
    "hitl": "Approve, edit or reject each one; nothing runs until you answer.",
    "agent_inbox": (
        "Accept, edit, respond (to decline and say why) or ignore each one below; nothing runs "
        "until you answer."
    ),
}
"""The last line of the question, by interrupt format."""

HOW_TO_ANSWER_QUESTION: dict[str, str] = {
    "hitl": "Answer with a respond decision (or reject it to decline); the task waits for you.",
    "agent_inbox": "Answer with Respond below; the task waits for you.",
}
"""The last line of a question to the user, by interrupt format."""


def is_question(a: Awaiting) -> bool:
    """Whether a waiting call is an expert's question to the user, not a call to approve."""
    return a["call"]["name"] == ASK_USER


SHOWN = 500
"""Characters of a call the question shows; the approval request itself has every argument."""


def request_message(
    awaiting: list[Awaiting], interrupt_format: InterruptFormat, who: dict[str, str] | None = None
) -> str:
    """What waits, in words: the experts' questions first, then the calls to approve."""
    questions = [a for a in awaiting if is_question(a)]
    calls = [a for a in awaiting if not is_question(a)]
    parts = [question_message(questions, interrupt_format)] if questions else []
    parts += [approval_message(calls, interrupt_format, who)] if calls else []
    return "\n\n".join(parts)


def question_message(questions: list[Awaiting], interrupt_format: InterruptFormat) -> str:
    """The experts' questions in words, each with the task that waits for its answer."""
    lines = [f"I need your answer{'s' if len(questions) > 1 else ''} before going on:"]
    for a in questions:
        question = str(a["call"]["args"].get("question", ""))
        # Quoted: the question is the model's text and must not write lines of its own.
        lines.append(
            f"- {markdown_text(question)} (asked by {markdown_text(a['call']['expert'])}, "
            f"task {markdown_text(a['task_id'])})"
        )
    how = HOW_TO_ANSWER_QUESTION.get(interrupt_format, HOW_TO_ANSWER_QUESTION["hitl"])
    return "\n".join(lines) + f"\n\n{how}"


def approval_message(
    awaiting: list[Awaiting], interrupt_format: InterruptFormat, who: dict[str, str] | None = None
) -> str:
    """The question in words: each call that waits, on which expert, and why it needs approval.

    `who` (by asked id) says who may answer each one, until when.
    """
    count = len(awaiting)
    lines = [
        f"Before going on I need your approval for {count} action{'s' if count > 1 else ''} "
        "that cannot be undone:"
    ]
    for a in awaiting:
        call = a["call"]
        # Quoted so that nothing in an argument can end the quoting and write lines of its own.
        shown = code_span(truncate(describe_call(call["name"], call["args"]), SHOWN))
        lines.append(
            f"- {markdown_text(call['expert'])}: {shown} (task {markdown_text(a['task_id'])}). "
            f"Why approval: {markdown_text(call['reason'])}."
            + (f" {markdown_text(who[_asked_id(a)])}" if who and _asked_id(a) in who else "")
        )
    how = HOW_TO_ANSWER.get(interrupt_format, HOW_TO_ANSWER["hitl"])
    # A paragraph of its own: in Markdown a line right after a list item continues the item.
    return "\n".join(lines) + f"\n\n{how}"


async def request_approval(state: State, runtime: Runtime[Context]) -> ApprovalRequestUpdate:
    """Say in the conversation what waits for approval (or an answer) and why, before asking."""
    ctx = context_of(runtime, state)
    awaiting = state.get("awaiting") or []
    if calls := [a["call"] for a in awaiting if not is_question(a)]:
        emit(runtime, "approval_needed", calls=calls)
    if questions := [a["call"]["args"] for a in awaiting if is_question(a)]:
        emit(runtime, "question_asked", questions=questions)
    # Asked for the thread's owner, also when an approver's resume reaches a later question.
    asked = asked_now(caller.of(ctx).turn_user)
    who = {k: who_may_answer(q) for k, q in (await _questions(ctx, awaiting, asked)).items()}
    text = request_message(awaiting, ctx.interrupt_format, who)
    return ApprovalRequestUpdate(messages=[AIMessage(text)], asked=asked)


def _ignored(why: str, value: Any) -> None:
    """A refused answer to a question needs no record beyond the one `ask_until_valid` makes."""


async def _asking_rules(
    ctx: Context, awaiting: list[Awaiting], asked: Asked | None
) -> list[Question]:
    """Who may answer the stop's questions (an answer must satisfy every one of them).

    An expert's question (`ask_user`): its requester; a server's: its requester or a role the
    server names.
    """
    questions = [a for a in awaiting if is_question(a)]
    servers = {a["call"]["expert"] for a in questions if _from_server(a)}
    rules = [requester_only(asked)] if any(not _from_server(a) for a in questions) else []
    if servers:
        registry: ExpertRegistry = await registry_for(ctx.mcp_config)
        rules += [server_question_for(registry, expert, asked) for expert in sorted(servers)]
    return rules


def _from_server(a: Awaiting) -> bool:
    """Whether a waiting question is an MCP server's (elicitation), not an expert's `ask_user`."""
    return "server_question" in a["call"]["args"]


async def _questions(
    ctx: Context, awaiting: list[Awaiting], asked: Asked | None
) -> dict[str, Question]:
    """Each waiting call's question (who may answer it, until when), by asked id."""
    calls = [a for a in awaiting if not is_question(a)]
    if not calls:
        return {}
    registry: ExpertRegistry = await registry_for(ctx.mcp_config)
    return {
        _asked_id(a): question_for(registry, a["call"]["expert"], a["call"]["name"], asked)
        for a in calls
    }


async def await_approval(state: State, runtime: Runtime[Context]) -> ApprovalUpdate:
    """Interrupt until every question has an answer and every call a valid decision.

    Each question asked and each answer given (refused ones included) goes to the audit trail.
    """
    ctx = context_of(runtime, state)
    awaiting = state.get("awaiting") or []
    # The thread's trail and remembered approvals are its owner's, whoever's run re-runs this
    # node (an approver's resume); the answers name who gave them.
    owner = caller.of(ctx).turn_user
    trail = trail_for(runtime.store, owner)
    await record_asked(trail, awaiting)
    waiting = [a for a in awaiting if not is_question(a)]
    questions = await _questions(ctx, awaiting, state.get("asked"))
    # Asked under a key unique in the thread: parallel tasks' models may reuse call ids.
    calls = [
        PendingCall(
            **{
                **a["call"],
                "id": _asked_id(a),
                "answerers": who_may_answer(questions[_asked_id(a)]),
            }
        )
        for a in waiting
    ]
    refusals = Refusals()
    ids = [c["id"] for c in calls]
    vets = (
        vet_for(await _asking_rules(ctx, awaiting, state.get("asked")), caller.of(ctx), _ignored),
        vet_for(list(questions.values()), caller.of(ctx), lambda why, v: refusals.add(ids, why, v)),
    )
    try:
        answers, decisions = await _ask(ctx, awaiting, waiting, calls, refusals, vets)
    except GraphInterrupt:
        # Asked again (or further): what was refused so far is recorded before the wait.
        await record_refused(trail, awaiting, refusals, _asked_id)
        raise
    await record_refused(trail, awaiting, refusals, _asked_id)
    answered = answered_now(caller.of(ctx))
    await record_answers(trail, answered["by"], awaiting, decisions, answers, _asked_id)
    kept = await keep_chosen(scope_for(runtime.store, owner), calls, decisions)
    if kept:
        emit(runtime, "approval_kept", remembered=kept)
    plan = _handed_back(state, awaiting, decisions, answers)
    return ApprovalUpdate(plan=plan, awaiting=None, answered=answered)


async def _ask(
    ctx: Context,
    awaiting: list[Awaiting],
    waiting: list[Awaiting],
    calls: list[PendingCall],
    refusals: Refusals,
    vets: tuple[Vet, Vet],
) -> tuple[dict[str, str], dict[str, Decision]]:
    """The answers to the questions and the decisions on the calls, asked in the run's format.

    `vets` check who answers: the experts' questions, then the calls.
    """
    answers = ask_questions(
        [_pending_question(a) for a in awaiting if is_question(a)],
        ctx.interrupt_format,
        refusals.add,
        vets[0],
    )
    vet = vets[1]
    decisions: dict[str, Decision] = {}
    if calls and ctx.interrupt_format == "agent_inbox":
        decisions = ask_one_by_one(calls, await _schemas(ctx, waiting), refusals.add, vet)
    elif calls:
        # Anything but exactly agent_inbox asks in the default format.
        decisions = ask_for_approval(calls, refusals.add, vet)
    return answers, decisions


def _handed_back(
    state: State, awaiting: list[Awaiting], decisions: dict[str, Decision], answers: dict[str, str]
) -> dict[str, TaskState]:
    """Each task that waited, with its decisions and answers by call key, ready to go on."""
    by_id = {t["id"]: t for t in state["plan"]}
    decided: dict[str, TaskState] = {}
    for a in awaiting:
        task = decided.get(a["task_id"]) or TaskState(**by_id[a["task_id"]])
        if is_question(a):
            task["answers"] = {**(task.get("answers") or {}), a["key"]: answers[_asked_id(a)]}
        else:
            task["decisions"] = {
                **(task.get("decisions") or {}),
                a["key"]: record_of(decisions[_asked_id(a)], a["call"].get("definition")),
            }
        task["status"] = "pending"
        decided[a["task_id"]] = task
    return decided


def _pending_question(a: Awaiting) -> PendingQuestion:
    """A waiting question as it is asked, under its unique id."""
    asked = PendingQuestion(
        id=_asked_id(a),
        expert=a["call"]["expert"],
        task_id=a["task_id"],
        question=str(a["call"]["args"].get("question", "")),
    )
    if (form := a["call"]["args"].get("server_question")) is not None:
        asked["form"] = form
    return asked


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
                schemas[_asked_id(a)] = dict(tool.input_schema or {})
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
    return [f"{c['expert']}: {truncate(_shown(c), SHOWN)}" for c in calls]


def _shown(call: PendingCall) -> str:
    """A call as a not-run line shows it; a question, as the question left unanswered."""
    if call["name"] == ASK_USER:
        return f"your answer to the question {str(call['args'].get('question', ''))!r}"
    return describe_call(call["name"], call["args"])


def set_aside(state: State) -> PlannerUpdate:
    """A new message while calls wait for approval: the old plan stops, its calls are not run.

    The tasks that stopped for approval are cancelled with the reason; the rest of the plan is
    kept as the previous plan (the planner may continue it), and the calls are kept for this
    turn's answer, which names them. The old turn's fields are left alone: the planner begins
    the new message's turn, whole, right after.
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
    )


NOT_RUN_ERROR = "not run: a new message arrived while its call waited for approval"
"""The error of a task whose call a new message left undecided."""
