"""assess_task: judge a task from its own exchange, within its attempt budget.

A task is done by its expert: one that made no tool call (nor asked the user, `ask_user`) and
was given no dependency results has nothing but the orchestrator's own words behind it, so it is
not completed whatever the assessor would say (a model that re-routes "List the notes" to
the product catalogue gets an answer in words, never a call). The assessor is not asked then;
the orchestrator is told why and gets another round, in which it can call a tool or give up
with `cannot_complete`.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from common.mcp.tool_names import names_in
from common.models import model_errors
from common.structured import BadOutput, structured_call
from strategies.with_planner.context import Context
from strategies.with_planner.nodes.common import (
    context_of,
    model_for,
    task_update,
    unwrap,
)
from strategies.with_planner.prompts import ASSESS_SYSTEM_PROMPT
from strategies.with_planner.results import FullResult, Results, result_fields, results_for
from strategies.with_planner.state import TaskRun, TaskRunUpdate


class Assessment(BaseModel):
    """The assessor's verdict on one task."""

    completed: bool = Field(description="Whether the task is done.")
    """Whether the task is done."""
    reason: str = Field(description="One sentence saying why.")
    """One sentence saying why."""


async def task_fields(messages: list[AnyMessage], results: Results) -> dict[str, Any]:
    """What the task produced, as result fields: the tool outputs and the last words, whole.

    The data is the structured content of the last successful tool call (for templates). An
    output that was stored and cannot be read back leaves only the view: templates refuse it.
    """
    parts: list[str] = []
    data: Any = None
    whole = True
    for m in messages:
        if isinstance(m, ToolMessage) and m.status != "error" and m.content:
            text, artifact = await results.output_of(m)
            whole = whole and text is not None
            parts.append(str(m.content) if text is None else text)
            data = unwrap(artifact) if artifact is not None else data
    notes = [m for m in messages if isinstance(m, AIMessage) and not m.tool_calls and m.content]
    if notes:
        parts.append(str(notes[-1].content))
    fields = result_fields("\n".join(parts), data)
    if not whole:
        fields["full"] = FullResult(text=None, key=None, chars=len(fields["result"]))
    return fields


async def assess_task(state: TaskRun, runtime: Runtime[Context]) -> TaskRunUpdate:
    """Mark the task completed, give it another round, or fail it when the budget is spent.

    An unusable verdict counts as "not completed", with the reason recorded; so does an
    answer nothing backs (`unbacked`), without asking the assessor.
    """
    exchange = state.get("messages", [])
    why_not = unbacked(state, exchange)
    if why_not is not None:
        return _not_backed(state, runtime, why_not)
    verdict = await _assess(state, runtime, exchange)
    results = results_for(runtime, state)
    fields = await task_fields(exchange, results)
    if verdict.completed:
        fields = await results.keep(state["task"]["id"], fields)
        update = task_update(state, runtime, status="completed", **fields)
        update["task_completed"] = True
        return update
    if state["task"]["attempts"] < state["max_attempts"]:
        return TaskRunUpdate(task_completed=False)
    return _spent(state, runtime, verdict.reason, fields["result"] or None)


def _not_backed(state: TaskRun, runtime: Runtime[Context], why_not: str) -> TaskRunUpdate:
    """Another round, told why its words were not enough; or the task fails, with no result.

    The words are not kept as the task's result: nothing backs them, and the answer would
    repeat them as if the expert had found them.
    """
    if state["task"]["attempts"] >= state["max_attempts"]:
        return _spent(state, runtime, why_not, None)
    feedback = HumanMessage(f"{why_not[0].upper()}{why_not[1:]}. {UNBACKED_ADVICE}")
    update = task_update(state, runtime, [feedback])
    update["task_completed"] = False
    return update


def _spent(
    state: TaskRun, runtime: Runtime[Context], reason: str, result: str | None
) -> TaskRunUpdate:
    """The task fails: its rounds are spent and it is still not done."""
    error = f"not completed after {state['task']['attempts']} attempt(s): {reason}"
    update = task_update(state, runtime, status="failed", error=error, result=result)
    update["task_completed"] = False
    return update


UNBACKED_ADVICE = (
    "Call the tool that does the task; if none of these tools can, call `cannot_complete` "
    "saying so."
)
"""What the orchestrator is told after an answer no tool backs."""


def unbacked(state: TaskRun, exchange: list[AnyMessage]) -> str | None:
    """Why the task's answer cannot count as done, or None when something may back it.

    Backing is a call answered in the task's exchange (by the expert's tool, or by the user:
    an answer, a decline or a hold, which the assessor judges with the answer in view) or a
    dependency's result the task worked from.
    """
    task = state["task"]
    called = any(isinstance(m, ToolMessage) for m in exchange)
    given = any(out.get("result") for out in state.get("inputs", {}).values())
    if called or given:
        return None
    return (
        f"expert {task['expert']!r} called none of its tools, so nothing backs its answer "
        "(it may have no tool for this task)"
    )


async def _assess(
    state: TaskRun, runtime: Runtime[Context], exchange: list[AnyMessage]
) -> Assessment:
    """The assessor's verdict; an unusable answer is a "not completed" saying why."""
    ctx = context_of(runtime, state)
    prompt = ASSESS_SYSTEM_PROMPT.format(task=state["task"]["task"])
    # The exchange's calls under provider-safe names, as the orchestrator made them.
    shown = names_in(exchange).for_model(exchange)
    async with model_errors("assess", ctx.model_for("assess")):
        verdict = await structured_call(
            model_for(ctx, "assess"), Assessment, [SystemMessage(prompt), *shown]
        )
    if isinstance(verdict, BadOutput):
        return Assessment(completed=False, reason=f"the assessment was unusable: {verdict.reason}")
    return verdict
