"""planner: turn the conversation into a validated dependency plan over the experts."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeAlias, cast

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.config import get_config
from langgraph.runtime import Runtime

from common.guardrails.config import GuardrailConfig
from common.guardrails.request import check_request
from common.guardrails.secrets import mask_secrets
from common.mcp import ExpertUnavailable, registry_for
from common.mcp.schema import preload_validator
from common.messages import last_human, last_request
from common.model_text import entities_in, sent_texts, unescaped
from common.models import model_errors
from common.safety.approval import PendingCall
from common.safety.parts import preload_lexicon
from common.served import caller
from common.settings import get_settings
from common.structured import BadOutput, structured_call
from strategies.with_planner.answerers import release_refusal
from strategies.with_planner.audited import record_release
from strategies.with_planner.context import Context, kept_settings, turn_context
from strategies.with_planner.conversation import compact, keep_history, model_view
from strategies.with_planner.dates import describe_periods
from strategies.with_planner.deferred import release_held_calls
from strategies.with_planner.nodes.approve import NOT_RUN_HEADING, not_run_lines, set_aside
from strategies.with_planner.nodes.common import (
    context_of,
    emit,
    model_for,
    render_plan,
)
from strategies.with_planner.nodes.guard import prefetch_analysis
from strategies.with_planner.perception import describe_catalog
from strategies.with_planner.plan_failure import echoes, failure, in_words
from strategies.with_planner.plans import (
    PlannerResult,
    Task,
    TaskState,
    new_task_state,
    planned,
    planned_tasks,
    validate_plan,
)
from strategies.with_planner.prompts import (
    CONSERVATIVE_HINT,
    PLANNER_FEEDBACK,
    PLANNER_SYSTEM_PROMPT,
    REPLAN_FEEDBACK,
)
from strategies.with_planner.recalled import recall
from strategies.with_planner.state import (
    PlannerUpdate,
    State,
    Turn,
    TurnReport,
    current_turn,
    turn_report,
)
from strategies.with_planner.turn import new_turn

if TYPE_CHECKING:
    from mcp.types import Tool

    from common.mcp import ExpertRegistry

Catalog: TypeAlias = "dict[str, Sequence[Tool] | None]"


async def expert_catalog(registry: ExpertRegistry) -> tuple[Catalog, dict[str, str]]:
    """Every expert's tools (None when unreachable), and why the unreachable ones are."""
    catalog: Catalog = {}
    errors: dict[str, str] = {}
    # Cached lists are fine for planning (servers keep starting); verdicts and calls use live ones.
    for name, tools in (await registry.catalog(registry.experts, cached_ok=True)).items():
        if isinstance(tools, ExpertUnavailable):
            catalog[name], errors[name] = None, str(tools)
        else:
            catalog[name] = tools
    return catalog, errors


def describe_experts(
    registry: ExpertRegistry,
    catalog: Catalog,
    errors: dict[str, str],
    request: str = "",
    whole: Sequence[str] = (),
) -> str:
    """The experts and their tools (or why they are unreachable), within the tool budget."""
    descriptions = {name: registry.server(name).description or "" for name in catalog}
    return describe_catalog(
        descriptions,
        catalog,
        errors,
        request=request,
        budget=get_settings().planner_tool_budget,
        whole=whole,
    )


def input_guard(state: State, cfg: GuardrailConfig) -> PlannerUpdate | None:
    """Refuse a request the guardrails reject, and mask secrets before any model sees them.

    A refusal is an answer in the thread; the user's message stays. A masked message replaces
    the original (same id), so the secret is not stored in the checkpoint either.
    """
    last = last_human(state["messages"])
    if last is None:
        return None
    refusal = check_request(str(last.content), cfg)
    if refusal is not None:
        return PlannerUpdate(
            messages=[AIMessage(refusal.message)],
            planner_outcome="clarify",
            report=not_done(f"Refused: {refusal.message}"),
        )
    if cfg.mask_secrets and isinstance(last.content, str):
        masked, kinds = mask_secrets(last.content)
        if kinds:
            # Replace the message (same id), then plan on the masked text in the next step.
            replaced = HumanMessage(masked, id=last.id)
            return PlannerUpdate(
                messages=[replaced], planner_outcome="retry", turn=Turn(planner_attempts=0)
            )
    return None


def _focus(state: State) -> list[str]:
    """Experts the rejected plans of this planning round named (none on a first attempt)."""
    turn = current_turn(state)
    return (turn.get("planner_focus") or []) if turn.get("planner_attempts") else []


def _ranking_query(state: State) -> str:
    """What the tools are ranked for: the request, and the previous plan's tasks for follow-ups."""
    previous = state.get("previous_plan") or []
    steps = [f"{t['expert']} {t['task']} {t['tool'] or ''}" for t in previous]
    return " ".join([_last_request(state), *steps])


def _last_request(state: State) -> str:
    """The text of the request this turn is about."""
    return last_request(state["messages"])


def start_turn(state: State, runtime: Runtime[Context]) -> PlannerUpdate:
    """Fix this turn's settings and reset the turn-scoped fields.

    Every later step of the turn (also after a resume that sends another context, or none)
    reads these settings, so a resume can neither drop nor weaken them. Served with auth, the
    first turn of a thread also records whose thread it is (`Caller.owner_to_stamp`).
    """
    given = runtime.context if runtime.context is not None else Context()
    # Re-validated here: a Context instance may have been changed after it was built.
    # A model the settings chose that cannot load refuses the turn here; one the caller named
    # fails where it is used; only defaults may fall back.
    ctx, notice = turn_context(kept_settings(given), check_chosen=False)
    if notice:
        emit(runtime, "notice", text=notice)
    update = PlannerUpdate(
        turn=new_turn(kept_settings(ctx), _request_id(state), [notice] if notice else [])
    )
    if not state.get("owner") and (owner := caller.of(runtime.context).owner_to_stamp):
        # Once written it stays: only its owner begins a thread's turns.
        update["owner"] = owner
    return update


async def planner(state: State, runtime: Runtime[Context]) -> PlannerUpdate:
    """Ask the planner model for a PlannerResult and validate it against the live experts.

    A new message on a thread whose calls still wait for approval first sets that plan aside
    (`set_aside`): its calls are not run, and this turn's answer names them.
    """
    aside: PlannerUpdate = {}
    if state.get("awaiting"):
        # The new message begins a turn (below), whatever the old turn's planning round was.
        aside = set_aside(state)
        state = cast(State, {**state, **aside})
    elif state.get("plan") or current_turn(state).get("planner_attempts") or _turn_started(state):
        return _said(await _compacted_plan(state, runtime), state)
    # The turn's settings are checkpointed before any model is asked, so a retry after an
    # unreachable model (`resume`, or invoking with None) runs on the same settings.
    update = start_turn(state, runtime)
    update.update(aside)
    update["planner_outcome"] = "retry"
    return update


async def _compacted_plan(state: State, runtime: Runtime[Context]) -> PlannerUpdate:
    """A planning step on the conversation as the budget leaves it.

    Turns that no longer fit the budget beside the summary are summarised and removed from the
    messages in the same write as the step's own messages (the plan's line, or the answer), so
    the thread's messages change once, not twice, per planned turn; the removed turns are kept
    whole for people in the store.
    """
    ctx = context_of(runtime, state)
    summary = state.get("summary") or []
    compacted = compact(state["messages"], summary, ctx.conversation_token_budget)
    if not compacted.removals:
        return await _plan(state, runtime)
    gone = {r.id for r in compacted.removals}
    kept = [m for m in state["messages"] if m.id not in gone]
    update = await _plan(
        cast(State, {**state, "messages": kept, "summary": compacted.summary}), runtime
    )
    thread_id = get_config().get("configurable", {}).get("thread_id")
    await keep_history(
        runtime.store, caller.of(runtime.context).records_owner, thread_id, compacted
    )
    update["messages"] = [*compacted.removals, *update.get("messages", [])]
    update["summary"] = compacted.summary
    return update


def _turn_started(state: State) -> bool:
    """Whether the last human message's turn already has its settings fixed."""
    turn = current_turn(state)
    return bool(turn.get("run_context")) and turn.get("turn_of") == _request_id(state)


def _request_id(state: State) -> str:
    """Id of the last human message ("" when it has none)."""
    last = last_human(state["messages"])
    return (last.id or "") if last is not None else ""


def _said(update: PlannerUpdate, state: State) -> PlannerUpdate:
    """An update that ends the turn here names the calls a new message left undecided."""
    abandoned = update.get("abandoned", state.get("abandoned")) or []
    ends_turn = update.get("planner_outcome") in ("clarify", "failed")
    if not (abandoned and ends_turn and update.get("messages")):
        return update
    *before, last = update["messages"]
    lines = "\n".join(f"- {line}" for line in not_run_lines(abandoned))
    text = f"{last.text}\n\n{NOT_RUN_HEADING}\n{lines}"
    said = PlannerUpdate(**update)
    said["messages"] = [*before, AIMessage(text, id=last.id)]
    said["abandoned"] = []
    if "report" in update:
        report = update["report"]
        said["report"] = turn_report(False, [*report["problems"], *not_run_lines(abandoned)])
    return said


async def _plan(state: State, runtime: Runtime[Context]) -> PlannerUpdate:
    """One planning step: guard a new request, release approved calls, or ask the model."""
    ctx = context_of(runtime, state)
    turn = current_turn(state)
    if not state.get("plan") and not turn.get("planner_attempts"):
        guarded = input_guard(state, ctx.guardrail_config())
        if guarded is not None:
            return guarded
    deferred = state.get("deferred") or []
    if deferred and not state.get("plan"):
        answer = await _deferred_answer(state, runtime, deferred)
        if answer is not None:
            return answer
    registry = await registry_for(ctx.mcp_config)
    catalog, errors = await expert_catalog(registry)
    experts = describe_experts(registry, catalog, errors, _ranking_query(state), _focus(state))
    prompt = await _prompt(state, runtime, experts)
    attempts = turn.get("planner_attempts", 0) + 1
    summary, recent = model_view(
        state["messages"], state.get("summary") or [], ctx.conversation_token_budget
    )
    messages = [SystemMessage(prompt + summary), *recent]
    # The analysis needs the request and the tools, not the plan: it runs meanwhile, once a turn.
    analysing = None
    if turn.get("analysis") is None:
        reachable = {name: list(tools) for name, tools in catalog.items() if tools is not None}
        analysing = asyncio.ensure_future(prefetch_analysis(state, runtime, registry, reachable))
    preload_validator()  # the answer's direct steps are checked against their tools' schemas
    preload_lexicon()  # the guard reads every tool's name right after the plan
    try:
        async with model_errors("planner", ctx.model_for("planner")):
            result = await structured_call(model_for(ctx, "planner"), PlannerResult, messages)
    except BaseException:
        if analysing is not None:
            analysing.cancel()
        raise
    update = (
        _retry_or_fail(state, runtime, attempts, [result.reason], said=result.said)
        if isinstance(result, BadOutput)
        else _use_answer(state, runtime, result, catalog, errors, attempts)
    )
    if analysing is not None:
        if update.get("planner_outcome") in ("planned", "retry"):
            update.setdefault("turn", Turn())["analysis"] = await analysing
        else:
            # The turn ends without running a tool: its answer does not wait for the analyser.
            analysing.cancel()
    return update


async def _prompt(state: State, runtime: Runtime[Context], experts: str) -> str:
    """The planner's system prompt: experts, time, dates, previous plan, memory, feedback."""
    ctx = context_of(runtime, state)
    now = ctx.current_time()
    request = _last_request(state)
    return PLANNER_SYSTEM_PROMPT.format(
        experts=experts,
        now=now.strftime("%A %Y-%m-%d %H:%M %Z"),
        dates=describe_periods(request, now) or "(none)",
        previous_plan=render_plan(state.get("previous_plan") or [], detailed=True),
        memory=await recall(state, runtime, caller.of(ctx).turn_user, request),
        strategy=CONSERVATIVE_HINT if ctx.strategy == "conservative" else "",
        feedback=_feedback(state, state.get("plan") or []),
    )


def _use_answer(
    state: State,
    runtime: Runtime[Context],
    result: PlannerResult,
    catalog: Catalog,
    errors: dict[str, str],
    attempts: int,
) -> PlannerUpdate:
    """Act on a well-formed answer: ask back, continue, or validate and start the plan."""
    current = state.get("plan") or []
    echoed, words = echoes(result, _last_request(state))
    if echoed:
        return _retry_or_fail(state, runtime, attempts, echoed, said=words)
    if result.clarification and not result.plan:
        return _clarify(unescaped(result.clarification, _kept(state)))
    if current and result.decision == "continue":
        return PlannerUpdate(
            planner_outcome="planned", turn=Turn(planner_attempts=0, planner_feedback=[])
        )
    kept = [t for t in current if t["status"] == "completed"]
    tasks, problems = planned_tasks(result)
    if not problems:
        combined = [planned(t) for t in kept] + tasks
        next_task = 0 if current else result.next_task
        problems = validate_plan(combined, next_task, catalog, get_settings().max_plan_tasks)
    if problems:
        return _retry_or_fail(state, runtime, attempts, problems, [t["expert"] for t in tasks])
    plan = kept + _start_plan(tasks, result, state.get("previous_plan") or [], bool(current))
    emit(runtime, "plan", plan=plan, decision=result.decision, replan=bool(current))
    uncovered = [unescaped(part, _kept(state)) for part in result.not_covered]
    return _planned(state, plan, errors, uncovered)


def _kept(state: State) -> frozenset[str]:
    """Character references the conversation holds: the planner's words keep those as written."""
    return entities_in(sent_texts(state["messages"]))


def _clarify(question: str) -> PlannerUpdate:
    """The turn ends with the planner's question to the user."""
    return PlannerUpdate(
        messages=[AIMessage(question)],
        planner_outcome="clarify",
        turn=Turn(planner_attempts=0, planner_feedback=[]),
        report=not_done(f"Waiting for your answer: {question}"),
    )


def _planned(
    state: State, plan: list[TaskState], errors: dict[str, str], not_covered: list[str]
) -> PlannerUpdate:
    """A valid plan replaces the old one; a replan still counts the dropped tasks' steps."""
    current = state.get("plan") or []
    dropped = sum(t["attempts"] for t in current if t["status"] != "completed")
    turn = current_turn(state)
    return PlannerUpdate(
        plan=plan,
        plan_status="ready",
        planner_outcome="planned" if plan else "empty",
        deferred=None,
        turn=Turn(
            steps_spent=turn.get("steps_spent", 0) + dropped if current else 0,
            planner_attempts=0,
            planner_feedback=[],
            wave=[],
            unavailable=errors,
            uncovered=[*(turn.get("uncovered") or []), *not_covered],
        ),
    )


def not_done(*problems: str) -> TurnReport:
    """The report of a turn that ended before doing what was asked."""
    return turn_report(False, problems)


def _feedback(state: State, current: list[TaskState]) -> str:
    problems = "\n".join(f"- {p}" for p in current_turn(state).get("planner_feedback") or [])
    if current:
        return REPLAN_FEEDBACK.format(plan=render_plan(current, detailed=True), problems=problems)
    return PLANNER_FEEDBACK.format(problems=problems) if problems else ""


def _start_plan(
    tasks: list[Task], result: PlannerResult, previous: list[TaskState], replan: bool
) -> list[TaskState]:
    plan = [new_task_state(t) for t in tasks]
    if result.decision == "continue" and not replan:
        done = {t["id"]: t for t in previous if t["status"] == "completed"}
        plan = [done.get(t["id"], t) if i < result.next_task else t for i, t in enumerate(plan)]
    return plan


async def _deferred_answer(
    state: State, runtime: Runtime[Context], deferred: list[PendingCall]
) -> PlannerUpdate | None:
    """Release approved held-back calls as direct steps; None when the message is no answer.

    An answer, used or not, goes to the audit trail.
    """
    message = _last_request(state)
    released = release_held_calls(message, deferred, get_settings().max_plan_tasks)
    if released is None:
        return None
    who = caller.of(runtime.context)
    if not isinstance(released, str):
        registry = await registry_for(context_of(runtime, state).mcp_config)
        released = release_refusal(registry, deferred, who) or released
    user = who.turn_user
    await record_release(runtime.store, user, deferred, released, message)
    if isinstance(released, str):
        return {
            "messages": [AIMessage(released)],
            "planner_outcome": "clarify",
            "report": not_done(released),
        }
    return {
        "plan": released,
        "plan_status": "ready",
        "planner_outcome": "planned",
        "deferred": None,
        "turn": Turn(planner_attempts=0, planner_feedback=[], wave=[]),
    }


def _retry_or_fail(
    state: State,
    runtime: Runtime[Context],
    attempts: int,
    problems: list[str],
    named: Sequence[str] = (),
    said: str | None = None,
) -> PlannerUpdate:
    """Ask again with the problems (showing the experts it named whole), or give up.

    `said` is the model's words when it sent no plan (None: a plan with `problems`). Giving
    up, the person reads what it sent and that a larger model may be needed, in words
    (`plan_failure`); the model was given the problems as they are.
    """
    if attempts <= get_settings().max_planner_retries:
        return PlannerUpdate(
            planner_outcome="retry",
            turn=Turn(
                planner_attempts=attempts,
                planner_feedback=problems,
                planner_focus=list(dict.fromkeys([*_focus(state), *named])),
            ),
        )
    if state.get("plan"):
        # No usable replacement: the running plan goes on as it was.
        note = "A replacement plan after the failure was invalid: " + in_words("; ".join(problems))
        notes = [*(current_turn(state).get("notes") or []), note]
        return PlannerUpdate(
            planner_outcome="planned",
            turn=Turn(planner_attempts=0, planner_feedback=[], notes=notes),
        )
    ctx = context_of(runtime, state)
    setting = f"{'PLANNER_MODEL' if ctx.planner_model else 'MODEL'}={ctx.model_for('planner')}"
    text, report = failure(attempts, problems, said, setting, _kept(state), _last_request(state))
    return PlannerUpdate(
        messages=[AIMessage(text)],
        planner_outcome="failed",
        turn=Turn(planner_attempts=0, planner_feedback=[]),
        plan=[],
        report=not_done(report),
    )
