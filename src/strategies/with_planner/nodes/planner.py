"""planner: turn the conversation into a validated plan over the configured experts."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from pydantic import ValidationError

from common.mcp import ExpertRegistry, ExpertUnavailable, registry_for
from common.plans import PlannerResult, TaskState, new_task_state, validate_plan
from common.safety import PendingCall
from common.safety.approval import ApprovalFormatError, approval_from_message
from common.settings import get_settings
from strategies.with_planner.context import Context
from strategies.with_planner.nodes.common import context_of, emit, model_for, render_plan
from strategies.with_planner.prompts import PLANNER_FEEDBACK, PLANNER_SYSTEM_PROMPT
from strategies.with_planner.state import State


async def describe_experts(registry: ExpertRegistry) -> str:
    """One paragraph per expert: its description and tool names (or why it is unreachable)."""
    catalog = await registry.catalog(registry.experts)
    lines = []
    for name, tools in catalog.items():
        desc = registry.server(name).description or "(no description)"
        if isinstance(tools, ExpertUnavailable):
            lines.append(f"- {name}: {desc} [currently unavailable: {tools}]")
        else:
            lines.append(f"- {name}: {desc}\n  tools: {', '.join(t.name for t in tools)}")
    return "\n".join(lines) or "(no experts configured)"


def _start_plan(result: PlannerResult, previous: list[TaskState]) -> list[TaskState]:
    plan = [new_task_state(t) for t in result.plan]
    if result.decision == "continue":
        done = {t["id"]: t for t in previous if t["status"] == "completed"}
        plan = [done.get(t["id"], t) if i < result.next_task else t for i, t in enumerate(plan)]
    return plan


async def planner(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ask the planner model for a PlannerResult and validate it against the experts."""
    deferred = state.get("deferred") or []
    if deferred:
        answer = _deferred_answer(state, deferred)
        if answer is not None:
            return answer
    ctx = context_of(runtime)
    registry = await registry_for(ctx.mcp_config)
    attempts = state.get("planner_attempts", 0) + 1
    feedback = state.get("planner_feedback") or []
    prompt = PLANNER_SYSTEM_PROMPT.format(
        experts=await describe_experts(registry),
        now=datetime.now().astimezone().strftime("%A %Y-%m-%d %H:%M %Z"),
        previous_plan=render_plan(state.get("previous_plan") or [], detailed=True),
        feedback=PLANNER_FEEDBACK.format(problems="\n".join(f"- {p}" for p in feedback))
        if feedback
        else "",
    )
    model = model_for(runtime, "planner").with_structured_output(PlannerResult)
    try:
        raw = await model.ainvoke([SystemMessage(prompt), *state["messages"]])
        result = PlannerResult.model_validate(raw)
    except (OutputParserException, ValidationError) as exc:
        return _retry_or_fail(attempts, [f"The answer did not match PlannerResult: {exc}"])
    if result.clarification and not result.plan:
        return {
            "messages": [AIMessage(result.clarification)],
            "planner_outcome": "clarify",
            "planner_attempts": 0,
            "planner_feedback": [],
        }
    problems = validate_plan(result, registry.experts)
    if len(result.plan) > get_settings().max_plan_tasks:
        problems.append(
            f"The plan has {len(result.plan)} tasks; at most {get_settings().max_plan_tasks}."
        )
    if problems:
        return _retry_or_fail(attempts, problems)
    plan = _start_plan(result, state.get("previous_plan") or [])
    emit(runtime, "plan", plan=plan, decision=result.decision)
    return {
        "plan": plan,
        "current_task": result.next_task if result.plan else 0,
        "task_completed": False,
        "task_message_start": len(state["messages"]),
        "planner_outcome": "planned" if plan else "empty",
        "planner_attempts": 0,
        "planner_feedback": [],
        "deferred": [],
    }


def _deferred_answer(state: State, deferred: list[PendingCall]) -> dict[str, Any] | None:
    """Run the held-back calls when the user's message approves them; None to plan normally."""
    humans = [m for m in state["messages"] if isinstance(m, HumanMessage)]
    text = str(humans[-1].content) if humans else ""
    try:
        decisions = approval_from_message(text, len(deferred))
    except ApprovalFormatError as exc:
        return {
            "messages": [AIMessage(f"I did not run the proposed actions: {exc}")],
            "planner_outcome": "clarify",
        }
    if decisions is None:
        return None
    calls = [{"name": d["name"], "args": d["args"], "id": f"{d['id']}-approved"} for d in deferred]
    return {
        "messages": [AIMessage(f"Running the {len(calls)} approved action(s).", tool_calls=calls)],
        "deferred_decisions": [d.model_dump() for d in decisions],
        "planner_outcome": "run_deferred",
        "plan": [],
    }


def _retry_or_fail(attempts: int, problems: list[str]) -> dict[str, Any]:
    if attempts <= get_settings().max_planner_retries:
        return {
            "planner_outcome": "retry",
            "planner_attempts": attempts,
            "planner_feedback": problems,
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
    }
