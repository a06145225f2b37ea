"""generate_response: answer honestly (what was not done included), remember the run."""

from __future__ import annotations

import re

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langgraph.config import get_config
from langgraph.runtime import Runtime

from common.embeddings import configured_embeddings
from common.guardrails.banned import mask_banned
from common.guardrails.config import GuardrailConfig
from common.guardrails.numbers import numeric_problems
from common.guardrails.output import summarise_blobs
from common.memory import RunRecord, ToolCallRecord, save_run
from common.messages import last_request
from common.model_text import entities_in, repeats_instructions, sent_texts, unescaped
from common.models import model_errors
from common.safety.approval import PendingCall
from common.served import caller
from common.settings import get_settings
from common.structured import BadOutput, text_answer
from strategies.with_planner.audited import record_held, trail_for
from strategies.with_planner.context import Context
from strategies.with_planner.conversation import model_view
from strategies.with_planner.nodes.approve import NOT_RUN_HEADING, not_run_lines
from strategies.with_planner.nodes.common import (
    HELD_BACK,
    context_of,
    describe_call,
    model_for,
    now_iso,
    render_plan,
    truncate,
)
from strategies.with_planner.offline import ANNOUNCEMENT
from strategies.with_planner.plan_failure import LARGER_MODEL
from strategies.with_planner.plans import (
    CallRecord,
    TaskState,
    call_records,
    ended,
    plan_status,
    remembered,
)
from strategies.with_planner.prompts import RESPONSE_INSTRUCTIONS, RESPONSE_SYSTEM_PROMPT
from strategies.with_planner.recalled import turn_sources
from strategies.with_planner.state import ResponseUpdate, State, current_turn, turn_report

UNKNOWN_OUTCOME = "Error (interrupted)"
"""How the answer to a call whose effect is unknown begins (cut off by a crash or a timeout)."""

UNKNOWN_HEADING = "Outcome unknown (these may have happened; they were not sent again):"
"""The answer's section for calls that may or may not have taken effect."""

RECITED = (
    "The answer model repeated its instructions instead of answering, so the results are "
    "listed as they came; " + LARGER_MODEL
)
"""The note under the results when the written answer only recited the writer's prompt."""


def turn_problems(state: State, plan: list[TaskState]) -> list[str]:
    """Everything this turn did not do, one line each, decided from state (not by the model).

    Declined and plan_only held-back calls are the user's decisions, not problems. A task that
    ended on a call of unknown outcome is listed by `unknown_outcomes`, not as "not done".
    """
    turn = current_turn(state)
    # An unavailable expert with a task of its own is said once, by that task's line.
    tasked = {t["expert"] for t in plan}
    unavailable = (turn.get("unavailable") or {}).items()
    problems = [f"{why.rstrip('.')}." for name, why in unavailable if name not in tasked]
    problems += [f"Not done, no expert's tools fit: {part}" for part in turn.get("uncovered") or []]
    declined = user_declined(plan)
    for t in plan:
        if t["status"] in ("failed", "skipped", "cancelled") and t["id"] not in declined:
            if UNKNOWN_OUTCOME in (t["error"] or ""):
                continue
            why = f": {t['error'] or blocked_by(t, plan)}" if t["error"] or t["depends_on"] else ""
            problems.append(f"{t['id']} ({t['expert']}: {t['task']}) {t['status']}{why}")
    return problems


def blocked_by(task: TaskState, plan: list[TaskState]) -> str:
    """Why a task without an error did not run: the unfinished tasks it waited for."""
    status = {t["id"]: t["status"] for t in plan}
    waited = [f"{d} {status[d]}" for d in task["depends_on"] if status.get(d) != "completed"]
    return f"it depends on {', '.join(waited)}" if waited else "it did not run"


def unknown_outcomes(plan: list[TaskState]) -> list[str]:
    """Calls that may or may not have happened, one line each, with how to check.

    Such a call is never resent: only the user can tell whether it took effect.
    """
    return [
        f"{t['id']} ({t['expert']}: {t['task']}): {describe_call(c['name'], c['args'])} may "
        f"have happened. Check {t['expert']!r} (list or read what it changes) before asking "
        "for it again."
        for t in plan
        for c in calls_of(t)
        if UNKNOWN_OUTCOME in c["output"]
    ]


def calls_of(task: TaskState) -> list[CallRecord]:
    """The calls a task made (recorded when it ended; read from its exchange in older threads)."""
    return ended(task).get("calls") or call_records(task["messages"])


def declined_calls(plan: list[TaskState]) -> list[str]:
    """The calls the user declined this turn, one line each (their decision, not a problem)."""
    return [f"{t['id']} ({t['expert']}): {call}" for t in plan for call in t["declined"]]


def completed(plan: list[TaskState]) -> list[str]:
    """What the finished tasks returned, one short line each, for an answer the model left empty."""
    return [
        f"{t['id']} ({t['expert']}: {t['task']}): {truncate(t['result'] or 'done', 200)}"
        for t in plan
        if t["status"] == "completed"
    ]


def user_declined(plan: list[TaskState]) -> set[str]:
    """Unfinished tasks that stopped only because the user declined a call (theirs or upstream)."""
    by_id = {t["id"]: t for t in plan}
    unfinished = {t["id"] for t in plan if t["status"] in ("failed", "skipped", "cancelled")}
    declined = {
        tid for tid in unfinished if by_id[tid]["declined"] or by_id[tid]["error"] == HELD_BACK
    }
    changed = True
    while changed:
        failed_critical = {tid for tid in unfinished if by_id[tid]["critical"]} - {
            t["id"] for t in plan if t["status"] != "failed"
        }
        changed = False
        for tid in unfinished - declined:
            t = by_id[tid]
            blockers = {d for d in t["depends_on"] if d in unfinished}
            if (t["status"] == "skipped" and blockers and blockers <= declined) or (
                t["status"] == "cancelled" and failed_critical and failed_critical <= declined
            ):
                declined.add(tid)
                changed = True
    return declined


def honest_answer(
    text: str,
    problems: list[str],
    notes: list[str],
    held: list[PendingCall] | None = None,
    unknown: list[str] | None = None,
    plan: list[TaskState] | None = None,
    not_run: list[str] | None = None,
) -> str:
    """The model's answer with every problem, unknown outcome, held call and notice appended.

    An empty (or blank) answer is replaced by the same summary from state, which then also says
    what was done and what the user declined: the answer is never empty.
    """
    parts = [text.strip()] if text.strip() else []
    if not parts and plan:
        parts += _section("Done:", completed(plan))
        parts += _section("Declined by you:", declined_calls(plan))
    parts += _section("Not done:", problems)
    parts += _section(UNKNOWN_HEADING, unknown or [])
    parts += _section(NOT_RUN_HEADING, not_run or [])
    if held:
        calls = "\n".join(
            f"- {c['expert']}: {describe_call(c['name'], c['args'])}, held: {c['reason']}"
            for c in held
        )
        parts.append(
            f'Held back for your approval (plan_only):\n{calls}\nReply "go ahead" to run '
            'exactly these, or send {"decisions": [...]} with one decision per call.'
        )
    if not parts:
        parts.append("Done." if plan else "Nothing was run this turn.")
    parts += [f"({n})" for n in notes]
    return "\n\n".join(parts)


def _section(heading: str, lines: list[str]) -> list[str]:
    """A titled list of lines, or nothing when there are none."""
    return [heading + "\n" + "\n".join(f"- {line}" for line in lines)] if lines else []


async def generate_response(state: State, runtime: Runtime[Context]) -> ResponseUpdate:
    """Write the answer from the plan's results, then clear the plan for the next turn."""
    ctx = context_of(runtime, state)
    plan = state.get("plan") or []
    summary, recent = model_view(
        state["messages"], state.get("summary") or [], ctx.conversation_token_budget
    )
    asked = [SystemMessage(_response_prompt(state, plan) + summary), *recent]
    async with model_errors("response", ctx.model_for("response")):
        reply = await text_answer(model_for(ctx, "response"), asked)
    request = last_request(state["messages"])
    answer, recited = unrecited(model_words(reply, asked), request, ctx)
    answer = guard_answer(answer, plan, request, ctx.guardrail_config())
    problems = turn_problems(state, plan)
    unknown = unknown_outcomes(plan)
    notices = [n for n in current_turn(state).get("notes") or [] if n == ANNOUNCEMENT] + recited
    held = state.get("deferred") or []
    if held:
        # plan_only asks in the answer: the held calls it lists go to the audit trail.
        await record_held(trail_for(runtime.store, caller.of(ctx).turn_user), held)
    not_run = not_run_lines(state.get("abandoned") or [])
    text = honest_answer(str(answer.text), problems, notices, held, unknown, plan, not_run)
    answer = AIMessage(text, id=answer.id)
    if runtime.store is not None and plan:
        record = run_record(state, plan, str(answer.content), now_iso(ctx))
        record["sources"] = await turn_sources(state, runtime, record)
        embeddings = await configured_embeddings(get_settings().embedding_model)
        await save_run(runtime.store, caller.of(ctx).turn_user, record, embeddings)
    # The turn is left as it is: its record stays until the next turn replaces it whole.
    return ResponseUpdate(
        report=turn_report(not (problems or unknown or not_run), problems + unknown + not_run),
        messages=[answer],
        previous_plan=[remembered(t) for t in plan],
        plan=[],
        plan_status=plan_status(plan),
        abandoned=[],
    )


def model_words(reply: AIMessage | BadOutput, asked: list[BaseMessage]) -> AIMessage:
    """The answer model's text as it sent it, unescaped once (`common.model_text`).

    An unusable answer is empty: the deterministic part alone says what was and was not done.
    """
    if isinstance(reply, BadOutput):
        return AIMessage("")
    return AIMessage(unescaped(reply.text, entities_in(sent_texts(asked))), id=reply.id)


def unrecited(answer: AIMessage, request: str, ctx: Context) -> tuple[AIMessage, list[str]]:
    """The written answer, or, when it mostly recites the writer's prompt, none and a note.

    An answer that recites its instructions (a small model copying its system prompt) is not
    shown as the product's: like an unusable one, it leaves the results as they came, and the
    note names the model to replace (`common.model_text.repeats_instructions`).
    """
    if not repeats_instructions(str(answer.text), RESPONSE_INSTRUCTIONS, request):
        return answer, []
    setting = f"{'RESPONSE_MODEL' if ctx.response_model else 'MODEL'}={ctx.model_for('response')}"
    return AIMessage("", id=answer.id), [RECITED.format(setting=setting)]


def _response_prompt(state: State, plan: list[TaskState]) -> str:
    """The answer model's instructions: the plan with results, the turn's notes, held calls."""
    deferred = state.get("deferred") or []
    return RESPONSE_SYSTEM_PROMPT.format(
        plan=render_plan(plan, detailed=True),
        notes="\n".join(f"- {n}" for n in current_turn(state).get("notes") or []) or "(none)",
        deferred="\n".join(
            f"- {d['expert']}: {describe_call(d['name'], d['args'])}" for d in deferred
        )
        or "(none)",
    )


def guard_answer(
    answer: BaseMessage, plan: list[TaskState], request: str, cfg: GuardrailConfig
) -> AIMessage:
    """The answer with blobs summarised, banned words masked and unsupported numbers noted."""
    text = str(answer.text)
    if cfg.summarise_blobs:
        text = summarise_blobs(text, cfg)
    text = mask_banned(text, cfg)
    if cfg.check_numbers:
        outputs = [c["output"] for t in plan for c in calls_of(t)]
        outputs += [text for t in plan for text in _result_texts(t)]
        computed = any(
            re.search(
                r"\b(compute|calculate|total|sum|average|how many)\b", t["task"], re.IGNORECASE
            )
            for t in plan
        )
        problems = numeric_problems(text, outputs, computed, given=[request]) if plan else []
        if problems:
            text += "\n\n(Check: " + "; ".join(problems) + ")"
    return AIMessage(content=text, id=answer.id)


def _result_texts(task: TaskState) -> list[str]:
    """What a task's result says: its view, and its whole text when that is kept in state.

    The answer model reads only the views; numbers it quotes come from them or from calls.
    """
    full = task.get("full")
    return [text for text in (task["result"], full["text"] if full else None) if text]


def run_record(state: State, plan: list[TaskState], answer: str, now: str) -> RunRecord:
    """What is remembered of this turn."""
    calls = [
        ToolCallRecord(expert=t["expert"], tool=c["name"], args=c["args"], result=c["output"][:300])
        for t in plan
        for c in calls_of(t)
    ]
    started = [t["started_at"] for t in plan if t["started_at"]]
    return RunRecord(
        question=last_request(state["messages"]),
        plan=[
            {"id": t["id"], "expert": t["expert"], "task": t["task"], "status": t["status"]}
            | ({"tool": t["tool"], "args": t["args"]} if t["tool"] else {})
            for t in plan
        ],
        tool_calls=calls,
        answer=answer,
        started_at=min(started) if started else None,
        ended_at=now,
        thread_id=get_config().get("configurable", {}).get("thread_id"),
    )
