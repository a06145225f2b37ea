"""planner: turn the conversation into a validated dependency plan over the experts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from mcp.types import Tool
from pydantic import ValidationError

from common.embeddings import configured_embeddings
from common.guardrails import GuardrailConfig, check_request, mask_secrets
from common.mcp import ExpertRegistry, ExpertUnavailable, registry_for
from common.memory import describe_runs, search_runs
from common.safety.approval import ApprovalFormatError, PendingCall, approval_from_message
from common.settings import get_settings
from strategies.with_planner.context import (
    Context,
    explicit_models,
    make_context,
    resolve_models,
)
from strategies.with_planner.dates import describe_periods
from strategies.with_planner.nodes.common import context_of, emit, model_for, render_plan
from strategies.with_planner.plans import (
    PlannerResult,
    Task,
    TaskState,
    new_task_state,
    validate_plan,
)
from strategies.with_planner.prompts import (
    CONSERVATIVE_HINT,
    PLANNER_FEEDBACK,
    PLANNER_SYSTEM_PROMPT,
    REPLAN_FEEDBACK,
)
from strategies.with_planner.state import State, TurnReport

Catalog = dict[str, Sequence[Tool] | None]


async def expert_catalog(registry: ExpertRegistry) -> tuple[Catalog, dict[str, str]]:
    """Every expert's live tools (None when unreachable), and why the unreachable ones are."""
    catalog: Catalog = {}
    errors: dict[str, str] = {}
    for name, tools in (await registry.catalog(registry.experts)).items():
        if isinstance(tools, ExpertUnavailable):
            catalog[name], errors[name] = None, str(tools)
        else:
            catalog[name] = tools
    return catalog, errors


def describe_experts(registry: ExpertRegistry, catalog: Catalog, errors: dict[str, str]) -> str:
    """One paragraph per expert: its description and tools (or why it is unreachable)."""
    lines = []
    for name, tools in catalog.items():
        desc = registry.server(name).description or "(no description)"
        if tools is None:
            lines.append(f"- {name}: {desc} [currently unavailable: {errors[name]}]")
            continue
        listed = "; ".join(
            f"{t.name}({', '.join((t.inputSchema or {}).get('properties', {}))})"
            + (f": {t.description.splitlines()[0]}" if t.description else "")
            for t in tools
        )
        lines.append(f"- {name}: {desc}\n  tools: {listed}")
    return "\n".join(lines) or "(no experts configured)"


def input_guard(state: State, cfg: GuardrailConfig) -> dict[str, Any] | None:
    """Refuse a request the guardrails reject, and mask secrets before any model sees them.

    A refusal is an answer in the thread; the user's message stays. A masked message replaces
    the original (same id), so the secret is not stored in the checkpoint either.
    """
    humans = [m for m in state["messages"] if isinstance(m, HumanMessage)]
    if not humans:
        return None
    last = humans[-1]
    refusal = check_request(str(last.content), cfg)
    if refusal is not None:
        return {
            "messages": [AIMessage(refusal.message)],
            "planner_outcome": "clarify",
            "report": not_done(f"Refused: {refusal.message}"),
        }
    if cfg.mask_secrets and isinstance(last.content, str):
        masked, kinds = mask_secrets(last.content)
        if kinds:
            # Replace the message (same id), then plan on the masked text in the next step.
            replaced = HumanMessage(masked, id=last.id)
            return {"messages": [replaced], "planner_outcome": "retry", "planner_attempts": 0}
    return None


def _last_request(state: State) -> str:
    humans = [m for m in state["messages"] if isinstance(m, HumanMessage)]
    return str(humans[-1].content) if humans else ""


def start_turn(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Fix this turn's settings: the caller's context, validated, with the keyless fallback.

    Every later step of the turn (also after a resume that sends another context, or none)
    reads these, so a resume can neither drop nor weaken them. Turn-scoped fields are reset.
    """
    given = runtime.context if runtime.context is not None else Context()
    # Re-validated here: a Context instance may have been changed after it was built.
    ctx = make_context(asdict(given))
    notice = None
    if not explicit_models(ctx):
        # Models the caller named fail where they are used; the defaults may fall back.
        ctx, notice = resolve_models(ctx, explicit=False)
    if notice:
        emit(runtime, "notice", text=notice)
    return {
        "run_context": asdict(ctx),
        "turn_notes": [notice] if notice else [],
        "uncovered": [],
        "unavailable": {},
        "replanned": False,
        "steps_spent": 0,
    }


async def planner(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ask the planner model for a PlannerResult and validate it against the live experts."""
    if state.get("plan") or state.get("planner_attempts"):
        return await _plan(state, runtime)
    turn = start_turn(state, runtime)
    update = await _plan({**state, **turn}, runtime)  # type: ignore[typeddict-item]
    return {**turn, **update}


async def _plan(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    ctx = context_of(runtime, state)
    if not state.get("plan") and not state.get("planner_attempts"):
        guarded = input_guard(state, ctx.guardrail_config())
        if guarded is not None:
            return guarded
    deferred = state.get("deferred") or []
    if deferred and not state.get("plan"):
        answer = _deferred_answer(state, deferred)
        if answer is not None:
            return answer
    registry = await registry_for(ctx.mcp_config)
    catalog, errors = await expert_catalog(registry)
    now = ctx.current_time()
    current = state.get("plan") or []
    prompt = PLANNER_SYSTEM_PROMPT.format(
        experts=describe_experts(registry, catalog, errors),
        now=now.strftime("%A %Y-%m-%d %H:%M %Z"),
        dates=describe_periods(_last_request(state), now) or "(none)",
        previous_plan=render_plan(state.get("previous_plan") or [], detailed=True),
        memory=await _memory(runtime, ctx.user_id, _last_request(state)),
        strategy=CONSERVATIVE_HINT if ctx.strategy == "conservative" else "",
        feedback=_feedback(state, current),
    )
    attempts = state.get("planner_attempts", 0) + 1
    model = model_for(ctx, "planner").with_structured_output(PlannerResult)
    try:
        raw = await model.ainvoke([SystemMessage(prompt), *state["messages"]])
        result = PlannerResult.model_validate(raw)
    except (OutputParserException, ValidationError) as exc:
        problems = [f"The answer did not match PlannerResult: {exc}"]
        return _retry_or_fail(attempts, problems, bool(current), state.get("turn_notes") or [])
    if result.clarification and not result.plan:
        return {
            "messages": [AIMessage(result.clarification)],
            "planner_outcome": "clarify",
            "planner_attempts": 0,
            "planner_feedback": [],
            "report": not_done(f"Waiting for your answer: {result.clarification}"),
        }
    if current and result.decision == "continue":
        return {"planner_outcome": "planned", "planner_attempts": 0, "planner_feedback": []}
    kept = [t for t in current if t["status"] == "completed"]
    combined = PlannerResult(
        plan=[_as_task(t) for t in kept] + result.plan,
        next_task=0 if current else result.next_task,
    )
    problems = validate_plan(combined, catalog, get_settings().max_plan_tasks)
    if problems:
        return _retry_or_fail(attempts, problems, bool(current), state.get("turn_notes") or [])
    plan = kept + _start_plan(result, state.get("previous_plan") or [], bool(current))
    emit(runtime, "plan", plan=plan, decision=result.decision, replan=bool(current))
    dropped = sum(t["attempts"] for t in current if t["status"] != "completed")
    return {
        "steps_spent": state.get("steps_spent", 0) + dropped if current else 0,
        "plan": plan,
        "plan_status": "ready",
        "planner_outcome": "planned" if plan else "empty",
        "planner_attempts": 0,
        "planner_feedback": [],
        "deferred": None,
        "wave": [],
        "unavailable": errors,
        "uncovered": [*(state.get("uncovered") or []), *result.not_covered],
    }


def not_done(*problems: str) -> TurnReport:
    """The report of a turn that ended before doing what was asked."""
    return TurnReport(ok=False, problems=list(problems))


async def _memory(runtime: Runtime[Context], user: str, request: str) -> str:
    if runtime.store is None:
        return "(no store configured)"
    embeddings = await configured_embeddings(get_settings().embedding_model)
    return describe_runs(await search_runs(runtime.store, user, request, embeddings=embeddings))


def _feedback(state: State, current: list[TaskState]) -> str:
    problems = "\n".join(f"- {p}" for p in state.get("planner_feedback") or [])
    if current:
        return REPLAN_FEEDBACK.format(plan=render_plan(current, detailed=True), problems=problems)
    return PLANNER_FEEDBACK.format(problems=problems) if problems else ""


def _as_task(t: TaskState) -> Task:
    return Task(
        id=t["id"],
        expert=t["expert"],
        task=t["task"],
        depends_on=t["depends_on"],
        critical=t["critical"],
        tool=t["tool"],
        args=t["args"],
    )


def _start_plan(result: PlannerResult, previous: list[TaskState], replan: bool) -> list[TaskState]:
    plan = [new_task_state(t) for t in result.plan]
    if result.decision == "continue" and not replan:
        done = {t["id"]: t for t in previous if t["status"] == "completed"}
        plan = [done.get(t["id"], t) if i < result.next_task else t for i, t in enumerate(plan)]
    return plan


def _deferred_answer(state: State, deferred: list[PendingCall]) -> dict[str, Any] | None:
    """Turn approved held-back calls into direct steps; None when the message is no answer."""
    try:
        decisions = approval_from_message(_last_request(state), len(deferred))
    except ApprovalFormatError as exc:
        text = f"I did not run the proposed actions: {exc}"
        return {
            "messages": [AIMessage(text)],
            "planner_outcome": "clarify",
            "report": not_done(text),
        }
    if decisions is None:
        return None
    if len(deferred) > get_settings().max_plan_tasks:
        text = (
            f"There are {len(deferred)} held-back actions, more than one plan may hold "
            f"({get_settings().max_plan_tasks}); approve them in smaller groups with "
            '{"decisions": [...]} or raise MAX_PLAN_TASKS.'
        )
        return {
            "messages": [AIMessage(text)],
            "planner_outcome": "clarify",
            "report": not_done(text),
        }
    plan: list[TaskState] = []
    for i, (call, decision) in enumerate(zip(deferred, decisions, strict=True), start=1):
        step = Task(
            id=f"approved-{i}",
            expert=call["expert"],
            task=f"Run the approved call {call['name']}",
            tool=call["name"],
            args=call["args"],
            critical=False,
        )
        task = new_task_state(step)
        task["approval"] = decision.model_dump()
        plan.append(task)
    return {
        "plan": plan,
        "plan_status": "ready",
        "planner_outcome": "planned",
        "planner_attempts": 0,
        "planner_feedback": [],
        "deferred": None,
        "wave": [],
    }


def _retry_or_fail(
    attempts: int, problems: list[str], replanning: bool, notes: list[str]
) -> dict[str, Any]:
    if attempts <= get_settings().max_planner_retries:
        return {
            "planner_outcome": "retry",
            "planner_attempts": attempts,
            "planner_feedback": problems,
        }
    if replanning:
        # No usable replacement: the running plan goes on as it was.
        note = "A replacement plan after the failure was invalid: " + "; ".join(problems)
        return {
            "planner_outcome": "planned",
            "planner_attempts": 0,
            "planner_feedback": [],
            "turn_notes": [*notes, note],
        }
    text = (
        f"I could not make a usable plan after {attempts} attempts:\n"
        + "\n".join(f"- {p}" for p in problems)
        + "\nPlease rephrase the request, or check the configured experts."
    )
    return {
        "messages": [AIMessage(text)],
        "planner_outcome": "failed",
        "planner_attempts": 0,
        "planner_feedback": [],
        "plan": [],
        "report": not_done(f"No usable plan after {attempts} attempts: " + "; ".join(problems)),
    }
