"""assess_task: judge a task from its own exchange, within its attempt budget."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, SystemMessage, ToolMessage
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

    An unusable verdict counts as "not completed", with the reason recorded.
    """
    task = state["task"]
    exchange = state.get("messages", [])
    verdict = await _assess(state, runtime, exchange)
    results = results_for(runtime, state)
    fields = await task_fields(exchange, results)
    if verdict.completed:
        fields = await results.keep(task["id"], fields)
        update = task_update(state, runtime, status="completed", **fields)
        update["task_completed"] = True
        return update
    if task["attempts"] >= state["max_attempts"]:
        error = f"not completed after {task['attempts']} attempt(s): {verdict.reason}"
        update = task_update(
            state, runtime, status="failed", error=error, result=fields["result"] or None
        )
        update["task_completed"] = False
        return update
    return TaskRunUpdate(task_completed=False)


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
