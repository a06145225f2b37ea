"""assess_task: judge a task from its own exchange, within its attempt budget."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, SystemMessage, ToolMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from common.models import model_errors
from common.structured import BadOutput, structured_call
from strategies.with_planner.context import Context
from strategies.with_planner.nodes.common import (
    context_of,
    model_for,
    task_update,
    truncate,
    unwrap,
)
from strategies.with_planner.prompts import ASSESS_SYSTEM_PROMPT
from strategies.with_planner.state import TaskRun, TaskRunUpdate


class Assessment(BaseModel):
    """The assessor's verdict on one task."""

    completed: bool = Field(description="Whether the task is done.")
    """Whether the task is done."""
    reason: str = Field(description="One sentence saying why.")
    """One sentence saying why."""


def task_result(messages: list[AnyMessage]) -> str:
    """What the task produced: successful tool outputs and the assistant's last words."""
    parts = [
        str(m.additional_kwargs.get("full_output") or m.content)
        for m in messages
        if isinstance(m, ToolMessage) and m.status != "error" and m.content
    ]
    notes = [m for m in messages if isinstance(m, AIMessage) and not m.tool_calls and m.content]
    if notes:
        parts.append(str(notes[-1].content))
    return truncate("\n".join(parts))


def task_data(messages: list[AnyMessage]) -> Any:
    """The structured content of the task's last successful tool call, for templates."""
    for m in reversed(messages):
        if isinstance(m, ToolMessage) and m.status != "error" and m.artifact is not None:
            return unwrap(m.artifact)
    return None


async def assess_task(state: TaskRun, runtime: Runtime[Context]) -> TaskRunUpdate:
    """Mark the task completed, give it another round, or fail it when the budget is spent.

    An unusable verdict counts as "not completed", with the reason recorded.
    """
    task = state["task"]
    exchange = state.get("messages", [])
    verdict = await _assess(state, runtime, exchange)
    result = task_result(exchange)
    if verdict.completed:
        update = task_update(
            state, runtime, status="completed", result=result, data=task_data(exchange)
        )
        update["task_completed"] = True
        return update
    if task["attempts"] >= state["max_attempts"]:
        error = f"not completed after {task['attempts']} attempt(s): {verdict.reason}"
        update = task_update(state, runtime, status="failed", error=error, result=result or None)
        update["task_completed"] = False
        return update
    return TaskRunUpdate(task_completed=False)


async def _assess(
    state: TaskRun, runtime: Runtime[Context], exchange: list[AnyMessage]
) -> Assessment:
    """The assessor's verdict; an unusable answer is a "not completed" saying why."""
    ctx = context_of(runtime, state)
    prompt = ASSESS_SYSTEM_PROMPT.format(task=state["task"]["task"])
    async with model_errors("assess", ctx.model_for("assess")):
        verdict = await structured_call(
            model_for(ctx, "assess"), Assessment, [SystemMessage(prompt), *exchange]
        )
    if isinstance(verdict, BadOutput):
        return Assessment(completed=False, reason=f"the assessment was unusable: {verdict.reason}")
    return verdict
