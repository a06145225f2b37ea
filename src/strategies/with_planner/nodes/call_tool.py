"""call_tool: answer every tool call of a task's round, in four steps.

1. decide: the gate's verdict on each call not already in the ledger (`common.safety.gate`),
   with the thread's results by expert (`seen`), so a call carrying another expert's data out
   is held too.
   A gated call the policy says to ask about, with no decision yet, stops the round before
   anything runs: the task hands its calls to the graph (`awaiting`), which says in the
   conversation what it wants to do, asks (`nodes.approve`), and then sends the task back here
   with the decisions (`TaskState.decisions`, by call key). A released held call
   (`strategies.with_planner.deferred`) brings the user's decision with it too. A held call the
   user chose not to be asked about again (`strategies.with_planner.remembered`) gets an approve
   decision here; a rug pull (its definition changed since) is asked about, saying so. An
   edit whose arguments are held for a reason of their own is asked about again
   (`strategies.with_planner.edits`).
2. ask: the expert's `ask_user` questions stop the round too, before anything runs, and are
   handed up the same way (`awaiting`): the graph states each question in the conversation and
   asks it in the run's interrupt format; the answers come back by call key
   (`TaskState.answers`), so this node never interrupts.
3. execute: the approval policy (`common.safety.policy.action_for`) says run, refuse or defer for
   each call; a call that runs goes through the execution policy
   (`common.safety.execution.execute_call`: checks, ledger, masking, trimming), never twice.
   While a call runs, the server's progress notifications are streamed as they come
   (`strategies.with_planner.progress`).
4. report: one ToolMessage per call, a stream event each, the expert's answers added to the
   thread's record of results (`seen`), with what its open-world calls sent and where (so a
   value sent in parts is added up), and the task's update.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolCall, ToolMessage
from langgraph.config import get_config
from langgraph.runtime import Runtime
from langgraph.types import StreamWriter

from common.mcp import ToolOutcome, registry_for
from common.mcp.asking import Asking, may_continue
from common.safety.approval import (
    Decision,
    EditDecision,
    PendingCall,
    RejectDecision,
)
from common.safety.execution import (
    CallLedger,
    CallSpec,
    Executed,
    TaskStarted,
    after_call,
    execute_call,
    replay,
)
from common.safety.gate import Gate, check_call, sent_to
from common.safety.leaving import outgoing
from common.safety.policy import action_for
from common.safety.questions import ASK_USER, CLOSED_QUESTION
from common.safety.server_questions import question_text
from common.served import caller
from strategies.with_planner.answerers import needs_a_person
from strategies.with_planner.context import Context
from strategies.with_planner.deferred import given_decisions, is_released
from strategies.with_planner.definitions import (
    changed_meanwhile,
    current_definition,
    definitions_seen,
    seen_with,
    voided,
)
from strategies.with_planner.edits import edits_asked_again
from strategies.with_planner.nodes.common import (
    conservative_split,
    context_of,
    describe_call,
    emit,
    pending_call,
    task_update,
    truncate,
)
from strategies.with_planner.nodes.orchestrate import CANNOT_COMPLETE
from strategies.with_planner.nodes.task_status import task_changes
from strategies.with_planner.nodes.tool_messages import (
    EDIT_NOTICE,
    declined,
    held_back,
    not_parsed,
    not_run_conservative,
    result_message,
    tool_message,
)
from strategies.with_planner.plans import TaskState
from strategies.with_planner.progress import Listener
from strategies.with_planner.remembered import (
    TrustScope,
    look_up,
    remembered_decision,
    scope_for,
)
from strategies.with_planner.results import results_for
from strategies.with_planner.seen import seen_for, sources_for
from strategies.with_planner.server_inputs import TOO_MANY_ROUNDS, answered_data, inputs_for
from strategies.with_planner.state import Awaiting, TaskRun, TaskRunUpdate
from strategies.with_planner.templates import TemplateError, resolve

if TYPE_CHECKING:
    from common.mcp import ExpertRegistry

logger = logging.getLogger(__name__)

QUESTION_REASON = "a question for you"
"""The reason a question waits, as its pending call says it."""


@dataclass(frozen=True)
class Round:
    """One call_tool step: the AI message whose calls are answered, and what answering needs."""

    ctx: Context
    """The turn's settings."""
    registry: ExpertRegistry
    """The experts' sessions."""
    ledger: CallLedger | None
    """The thread's call ledger (None without a thread)."""
    gate: Gate
    """This turn's verdicts."""
    task: TaskState
    """The task the calls serve."""
    message: AIMessage
    """The message with the tool calls (made up for a direct step)."""
    direct: bool
    """Whether this is a direct step (one call the plan named, no orchestrator)."""
    new_message: bool
    """Whether `message` was made this round (a direct step's first run): the report adds it."""
    calls: list[ToolCall]
    """The calls answered this round."""
    extra: list[ToolCall]
    """Calls beyond the conservative strategy's one per turn: answered as not run."""
    trust: TrustScope | None
    """Whose remembered approvals apply, and their store (None without a store)."""
    writer: StreamWriter
    """The node's custom stream: calls' progress goes there while they run."""
    card_turn: str | None
    """The turn whose plan card shows the task (None: no card to show progress on)."""


@dataclass(frozen=True)
class Asked:
    """What the round knows before any tool runs: the ledger, the gate and the human."""

    recorded: dict[str, ToolOutcome]
    """Outcomes the ledger already holds, by call id: replayed, never sent again."""
    gated: dict[str, PendingCall]
    """Calls that need approval, by call id."""
    decisions: dict[str, Decision]
    """The human's decisions, by call id."""
    answers: dict[str, str]
    """The user's answers to `ask_user` calls, by call id."""
    cleared: frozenset[str] = frozenset()
    """Gated calls a remembered approval cleared, by call id: they run without a question."""
    unlisted: dict[str, str] = field(default_factory=dict)
    """Calls never sent nor asked about, by call id: why (their expert could not be listed)."""
    must_ask: frozenset[str] = frozenset()
    """Gated calls whose rule names approvers or a second person: asked in every mode."""


@dataclass
class Answered:
    """The round's answers and what they change in the task."""

    messages: list[AnyMessage] = field(default_factory=list)
    """One ToolMessage per call."""
    after: list[AnyMessage] = field(default_factory=list)
    """The user's answers to questions: after every tool message, never inside the block."""
    declined: list[str] = field(default_factory=list)
    """Calls the user rejected, described."""
    deferred: list[PendingCall] = field(default_factory=list)
    """Calls held back for approval later (plan_only)."""
    failure: str | None = None
    """Why the expert gave up (`cannot_complete`), if it did."""
    seen: list[tuple[str, ToolMessage]] = field(default_factory=list)
    """The expert's answers (call key, message), for the thread's record of its results."""
    sent: list[tuple[str, str, str]] = field(default_factory=list)
    """What open-world calls sent (destination, call key, text), for the thread's record."""
    asking: list[tuple[ToolCall, Asking]] = field(default_factory=list)
    """Calls that stopped at their server's questions: the round pauses to ask them."""


async def call_tool(state: TaskRun, runtime: Runtime[Context]) -> TaskRunUpdate:
    """Answer every tool call of the last AI message (or the direct step), gate first."""
    begun = await begin(state, runtime)
    if isinstance(begun, str):
        return task_update(state, runtime, status="failed", error=begun, attempts=1)
    known = await decide(begun)
    for held in (known.gated[cid] for cid in known.cleared):
        emit(runtime, "approval_remembered", expert=held["expert"], tool=held["name"])
    if waiting := undecided(begun, known) + unanswered(begun, known):
        return pause(state, runtime, begun, waiting)
    asked = ask(begun, known)
    answered = Answered(declined=list(begun.task["declined"]))
    for call in begun.calls:
        await answer(begun, asked, call, answered)
    if answered.asking:
        return pause_for_server(state, runtime, begun, answered.asking)
    return await report(state, runtime, begun, answered, asked_user=bool(asked.answers))


async def begin(state: TaskRun, runtime: Runtime[Context]) -> Round | str:
    """The round to answer, or why a direct step cannot be made (a template error)."""
    ctx = context_of(runtime, state)
    registry = await registry_for(ctx.mcp_config)
    task = state["task"]
    direct = bool(task["tool"])
    previous = last_ai_message(state) if state.get("messages") else None
    new_message = direct and previous is None
    # A direct step going on after a decision makes the same call again from the templates
    # (its transcript keeps only a view of a large argument).
    same_id = previous.id if previous else None
    message = await direct_message(state, runtime, same_id) if direct else last_ai_message(state)
    if isinstance(message, str):
        return message
    calls, extra = conservative_split(ctx, list(message.tool_calls))
    gate = Gate(state["guard"]["verdicts"], await sources_for(state, runtime))
    ledger = ledger_for(runtime, state)
    trust = scope_for(runtime.store, caller.of(ctx).turn_user)
    return Round(
        ctx,
        registry,
        ledger,
        gate,
        task,
        message,
        direct,
        new_message,
        calls,
        extra,
        trust,
        runtime.stream_writer,
        state.get("card_turn"),
    )


async def decide(r: Round) -> Asked:
    """The ledger's, the gate's and remembered approvals' view of each call; nobody is asked yet.

    A held call a remembered approval clears gets an approve decision: it still runs as a gated
    call (through the ledger, at most once). An answer given for a tool definition that has
    changed since is not used: the call is asked about again (`definitions.voided`).
    """
    recorded = await recorded_calls(r)
    gated: dict[str, PendingCall] = {}
    cleared: dict[str, Decision] = {}
    unlisted: dict[str, str] = {}
    must_ask: set[str] = set()
    for call in r.calls:
        cid, expert = call["id"] or "", r.task["expert"]
        if cid in recorded or call["name"] in (ASK_USER, CANNOT_COMPLETE):
            continue
        verdict = await check_call(r.gate, r.registry, expert, call["name"], call["args"])
        if verdict.source == "unavailable":
            unlisted[cid] = verdict.reason
        elif verdict.needs_approval:
            if needs_a_person(r.registry, expert, call["name"]):
                must_ask.add(cid)
            # `auto` asks nobody: no definition to show, so none to fetch.
            asks = action_for(r.ctx.approval_mode, True) != "run" or cid in must_ask
            tool = await current_definition(r.registry, expert, call["name"]) if asks else None
            pending = seen_with(pending_call(call, expert, verdict.reason, verdict.source), tool)
            config = r.registry.server(expert)
            looked = await look_up(r.trust, config, r.ctx.approval_mode, verdict, pending, tool)
            gated[cid] = looked.call
            if looked.cleared:
                cleared[cid] = remembered_decision()
    keys = {call["id"] or "": call_key(r.message, call) for call in r.calls}
    decisions = {**cleared, **given_decisions(r.task, keys)}
    unrun = [c for c in r.calls if (c["id"] or "") not in recorded]
    seen = definitions_seen(r.task, keys)
    changed = await voided(r.registry, r.task["expert"], unrun, decisions, seen, gated)
    gated |= changed
    decisions = {cid: d for cid, d in decisions.items() if cid not in changed}
    if action_for(r.ctx.approval_mode, True) != "run" or must_ask:
        expert = r.task["expert"]
        again = await edits_asked_again(r.gate, r.registry, expert, unrun, decisions, gated)
        gated |= again
        decisions = {cid: d for cid, d in decisions.items() if cid not in again}
    return Asked(recorded, gated, decisions, {}, frozenset(cleared), unlisted, frozenset(must_ask))


def undecided(r: Round, known: Asked) -> list[PendingCall]:
    """Gated calls with no decision yet that the approval policy (or their rule) asks about."""
    asks = action_for(r.ctx.approval_mode, True) == "ask"
    return [
        p
        for cid, p in known.gated.items()
        if cid not in known.decisions and (asks or cid in known.must_ask)
    ]


def unanswered(r: Round, known: Asked) -> list[PendingCall]:
    """The expert's questions to the user with no answer yet, as calls the graph asks about."""
    given = r.task.get("answers") or {}
    return [
        PendingCall(
            id=call["id"] or "",
            expert=r.task["expert"],
            name=ASK_USER,
            args={"question": str(call["args"].get("question", ""))},
            reason=QUESTION_REASON,
        )
        for call in r.calls
        if call["name"] == ASK_USER
        and (call["id"] or "") not in known.recorded
        and call_key(r.message, call) not in given
    ]


def pause(
    state: TaskRun, runtime: Runtime[Context], r: Round, waiting: list[PendingCall]
) -> TaskRunUpdate:
    """Stop the round before any call runs: the graph asks about `waiting`, then it goes on."""
    update = task_update(
        state, runtime, [r.message] if r.new_message else [], status="awaiting_approval"
    )
    keys = {call["id"] or "": call_key(r.message, call) for call in r.calls}
    update["awaiting"] = [
        Awaiting(task_id=r.task["id"], key=keys[p["id"]], call=p) for p in waiting
    ]
    return update


def pause_for_server(
    state: TaskRun, runtime: Runtime[Context], r: Round, asking: list[tuple[ToolCall, Asking]]
) -> TaskRunUpdate:
    """Stop the round at the servers' questions: the graph asks them, then the calls go on.

    Each question waits under `<call key>#<question key>`; the calls' state (`asking`) stays
    with the task, and earlier answers are dropped (a later round may reuse their keys). What
    the round's other calls did is not kept: irreversible ones replay from the ledger, the
    others are sent again when it goes on.
    """
    by_key = {call_key(r.message, call): (call, a) for call, a in asking}
    update = task_update(
        state,
        runtime,
        [r.message] if r.new_message else [],
        status="awaiting_approval",
        asking={key: a for key, (_, a) in by_key.items()},
        answers={},
    )
    update["awaiting"] = [
        Awaiting(
            task_id=r.task["id"],
            key=f"{key}#{q['key']}",
            call=PendingCall(
                id=f"{call['id'] or ''}#{q['key']}",
                expert=r.task["expert"],
                name=ASK_USER,
                args={"question": question_text(q), "server_question": q},
                reason=QUESTION_REASON,
            ),
        )
        for key, (call, a) in by_key.items()
        for q in a["questions"]
    ]
    return update


def ask(r: Round, known: Asked) -> Asked:
    """The user's answers to the expert's questions, which the graph asked before this round."""
    given = r.task.get("answers") or {}
    answers = {
        cid: given.get(call_key(r.message, call), CLOSED_QUESTION)
        for call in r.calls
        if call["name"] == ASK_USER and (cid := call["id"] or "") not in known.recorded
    }
    return Asked(
        known.recorded,
        known.gated,
        known.decisions,
        answers,
        known.cleared,
        known.unlisted,
        known.must_ask,
    )


async def answer(r: Round, asked: Asked, call: ToolCall, answered: Answered) -> None:
    """Answer one call: replay, the user's answer, a failure noted, a run, a refusal or a hold."""
    cid, name = call["id"] or "", call["name"]
    if cid in asked.recorded:
        result = after_call(asked.recorded[cid], r.ctx.guardrail_config())
        replayed = result_message(call, result)
        answered.messages.append(replayed)
        answered.seen.append((call_key(r.message, call), replayed))
    elif name == ASK_USER:
        answered.messages.append(tool_message(call, "Asked the user; their answer follows."))
        answered.after.append(HumanMessage(asked.answers[cid]))
    elif name == CANNOT_COMPLETE:
        answered.failure = str(call["args"].get("reason") or "the expert could not do the task")
        answered.messages.append(tool_message(call, "Noted: the task is marked as failed."))
    else:
        await act(r, asked, call, answered)


async def act(r: Round, asked: Asked, call: ToolCall, answered: Answered) -> None:
    """Do what the approval policy says with an expert's call: run, refuse or hold it."""
    cid = call["id"] or ""
    if cid in asked.unlisted:
        answered.messages.append(tool_message(call, f"Not run: {asked.unlisted[cid]}.", error=True))
        return
    decision = asked.decisions.get(cid)
    gated = cid in asked.gated or is_released(r.task)
    action = action_for(r.ctx.approval_mode, cid in asked.gated, decision)
    if action == "run" and decision is not None and not isinstance(decision, RejectDecision):
        changed = await changed_meanwhile(r.registry, r.task["expert"], asked.gated.get(cid))
        if changed is not None:
            answered.messages.append(tool_message(call, changed, error=True))
            return
    if action == "run":
        answered.messages.append(await run(r, call, decision, gated, answered))
    elif isinstance(decision, RejectDecision):
        answered.declined.append(describe_call(call["name"], call["args"]))
        answered.messages.append(declined(call, decision))
    else:
        # "defer", or "ask" with no answer (never expected): held, never sent.
        answered.deferred.append(asked.gated[cid])
        answered.messages.append(held_back(call, asked.gated[cid]["reason"], r.ctx.approval_mode))


async def run(
    r: Round, call: ToolCall, decision: Decision | None, gated: bool, answered: Answered
) -> ToolMessage:
    """Send the call (or the reviewer's edit of it) through the execution policy."""
    expert, name, args, prefix = r.task["expert"], call["name"], call["args"], ""
    if isinstance(decision, EditDecision):
        # An edit changes the arguments, never the tool (`check_edits` refused any other).
        args = decision.edited_action.args
        recheck = await check_call(r.gate, r.registry, expert, name, args)
        # The reviewer authored this exact call, so it runs; the gate's view is recorded.
        prefix = EDIT_NOTICE.format(call=describe_call(name, args))
        logger.info("edited call %s on %s: %s", name, expert, recheck)
        gated = gated or recheck.needs_approval
    if gated and decision is None:
        logger.info("auto mode: running gated %s on %s", describe_call(name, args), expert)
    spec = CallSpec(
        key=call_key(r.message, call),
        expert=expert,
        name=name,
        args=args,
        gated=gated,
        timeout_s=r.ctx.tool_timeout_s,
        guardrails=r.ctx.guardrail_config(),
        progress=Listener(r.writer, r.task["id"], expert, name, r.card_turn),
        inputs=inputs_for(r.task, call_key(r.message, call)),
    )
    result = await execute_call(spec, r.registry, r.ledger)
    if isinstance(result, Executed) and (asking := result.outcome.get("asking")) is not None:
        if may_continue(asking):
            answered.asking.append((call, asking))
            return tool_message(call, result.outcome["content"])
        return tool_message(call, TOO_MANY_ROUNDS.format(n=asking["round"]), error=True)
    if spec.inputs is not None and (given := answered_data(spec.inputs)):
        answered.seen.append((f"{spec.key}#answer", tool_message(call, given)))
    message = result_message(call, result, prefix)
    if isinstance(result, Executed):
        answered.seen.append((spec.key, message))
        if (to := await sent_to(r.registry, expert, name, args)) is not None:
            answered.sent.append((to, spec.key, outgoing(args)))
    return message


async def report(
    state: TaskRun, runtime: Runtime[Context], r: Round, answered: Answered, asked_user: bool
) -> TaskRunUpdate:
    """The task's update: the round's messages, one stream event per result, the new status.

    A large result goes to the store (`results`), so the checkpointed plan keeps a view and a key;
    what the expert answered goes to the thread's record (`seen`), for later calls' gate.
    """
    results = results_for(runtime, state)
    if (record := seen_for(runtime, state)) is not None:
        for key, seen in answered.seen:
            await record.add(r.task["expert"], key, seen)
        for to, key, text in answered.sent:
            await record.add_sent(to, key, text)
    messages: list[AnyMessage] = [r.message] if r.new_message else []
    for m in answered.messages:
        if isinstance(m, ToolMessage) and not r.direct:
            m = await results.keep_output(r.task["id"], m)
        messages.append(m)
    messages += [not_run_conservative(c) for c in r.extra]
    # Every call the message makes is answered before anything else (see `common.history`).
    messages += [not_parsed(c) for c in r.message.invalid_tool_calls if c["id"]]
    messages += answered.after
    for m in messages:
        if isinstance(m, ToolMessage):
            emit(
                runtime,
                "tool_result",
                task_id=r.task["id"],
                tool=m.name,
                status=m.status,
                content=truncate(str(m.content), 500),
            )
    changes = task_changes(
        r.task,
        r.direct,
        messages,
        answered.declined,
        answered.failure,
        asked_user,
        bool(answered.deferred),
    )
    changes["decisions"] = {}
    changes["answers"] = {}
    changes["asking"] = {}
    changes = await results.keep(r.task["id"], changes)
    update = task_update(state, runtime, messages, **changes)
    update["deferred"] = answered.deferred
    return update


def last_ai_message(state: TaskRun) -> AIMessage:
    """The orchestrator's message whose tool calls this round answers."""
    found = state["messages"][-1]
    assert isinstance(found, AIMessage), "call_tool follows an AI message with tool calls"
    return found


async def direct_message(
    state: TaskRun, runtime: Runtime[Context], call_id: str | None = None
) -> AIMessage | str:
    """The direct step as a tool call with its templates resolved, or the template error.

    Templates read the dependencies' whole results (from the store when kept there). A
    released held call runs with the exact arguments the user approved: no templates.
    `call_id` names the call when the step goes on after a decision on it.
    """
    task = state["task"]
    args = task["args"] or {}
    if not is_released(task):
        today = context_of(runtime, state).current_time().date()
        outputs = await results_for(runtime, state).outputs(state["inputs"])
        try:
            args = resolve(args, outputs, state["order"], task["id"], today)
        except TemplateError as exc:
            return str(exc)
    # Stable across a resume of this task run (same namespace), new for every other run.
    run_ns = str(get_config().get("configurable", {}).get("checkpoint_ns", "")).split("|")[0]
    call_id = call_id or f"direct-{task['id']}-{run_ns or task['started_at']}"
    return AIMessage(
        content="",
        id=call_id,
        tool_calls=[{"name": task["tool"] or "", "args": args, "id": call_id, "type": "tool_call"}],
    )


def ledger_for(runtime: Runtime[Context], state: TaskRun) -> CallLedger | None:
    """The thread's call ledger (its owner's); None without a thread (nothing to resume)."""
    thread_id = get_config().get("configurable", {}).get("thread_id")
    if thread_id is None:
        return None
    return CallLedger(runtime.store, str(thread_id), caller.of(runtime.context).records_owner)


def call_key(message: AIMessage, call: ToolCall) -> str:
    """Ledger key of a call: the message id keeps provider-reused call ids apart."""
    return f"{message.id}:{call['id']}"


async def recorded_calls(r: Round) -> dict[str, ToolOutcome]:
    """Outcomes the ledger holds for this round's calls: a re-run must not ask or send again."""
    if r.ledger is None:
        return {}
    found: dict[str, ToolOutcome] = {}
    for call in r.calls:
        entry = await r.ledger.lookup(call_key(r.message, call))
        # A call stopped at its server's questions goes on (through `run`), with its answers;
        # one that became a task is polled there.
        going_on = isinstance(entry, TaskStarted) or (
            isinstance(entry, dict) and entry["status"] == "needs_input"
        )
        if entry is not None and not going_on:
            found[call["id"] or ""] = replay(entry, r.task["expert"], call["name"])
    return found
