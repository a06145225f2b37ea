"""assess_task: judge a task from its own exchange, within its attempt budget."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, SystemMessage, ToolMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from strategies.with_planner.context import Context
from strategies.with_planner.nodes.common import (
    context_of,
    model_for,
    task_update,
    truncate,
    unwrap,
)
from strategies.with_planner.prompts import ASSESS_SYSTEM_PROMPT
from strategies.with_planner.state import TaskRun


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


async def assess_task(state: TaskRun, runtime: Runtime[Context]) -> dict[str, Any]:
    """Mark the task completed, give it another round, or fail it when the budget is spent."""
    task = state["task"]
    exchange = state.get("messages", [])
    model = model_for(context_of(runtime, state), "assess").with_structured_output(Assessment)
    prompt = ASSESS_SYSTEM_PROMPT.format(task=task["task"])
    verdict = Assessment.model_validate(await model.ainvoke([SystemMessage(prompt), *exchange]))
    result = task_result(exchange)
    if verdict.completed:
        update = task_update(
            state, runtime, status="completed", result=result, data=task_data(exchange)
        )
        return {**update, "task_completed": True}
    if task["attempts"] >= state["max_attempts"]:
        error = f"not completed after {task['attempts']} attempt(s): {verdict.reason}"
        update = task_update(state, runtime, status="failed", error=error, result=result or None)
        return {**update, "task_completed": False}
    return {"task_completed": False}
