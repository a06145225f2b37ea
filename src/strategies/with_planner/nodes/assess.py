"""assess_task: judge the current task from its own exchange, within the attempt budget."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, SystemMessage, ToolMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from strategies.with_planner.context import Context
from strategies.with_planner.nodes.common import context_of, current, model_for, truncate, with_task
from strategies.with_planner.prompts import ASSESS_SYSTEM_PROMPT
from strategies.with_planner.state import State


class Assessment(BaseModel):
    """The assessor's verdict on one task."""

    completed: bool = Field(description="Whether the task is done.")
    """Whether the task is done."""
    reason: str = Field(description="One sentence saying why.")
    """One sentence saying why."""


def task_result(messages: list[AnyMessage]) -> str:
    """What the task produced: successful tool outputs and the assistant's last words."""
    parts = [
        str(m.content)
        for m in messages
        if isinstance(m, ToolMessage) and m.status != "error" and m.content
    ]
    notes = [m for m in messages if isinstance(m, AIMessage) and not m.tool_calls and m.content]
    if notes:
        parts.append(str(notes[-1].content))
    return truncate("\n".join(parts))


async def assess_task(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Mark the task completed, give it another round, or fail it when the budget is spent."""
    task = current(state)
    exchange = state["messages"][state.get("task_message_start", 0) :]
    model = model_for(runtime, "assess").with_structured_output(Assessment)
    prompt = ASSESS_SYSTEM_PROMPT.format(task=task["task"])
    verdict = Assessment.model_validate(await model.ainvoke([SystemMessage(prompt), *exchange]))
    if verdict.completed:
        plan = with_task(state, status="completed", result=task_result(exchange))
        return {"plan": plan, "task_completed": True}
    budget = context_of(runtime).max_task_attempts
    if task["attempts"] >= budget:
        error = f"not completed after {task['attempts']} attempt(s): {verdict.reason}"
        plan = with_task(state, status="failed", error=error, result=task_result(exchange) or None)
        return {"plan": plan, "task_completed": False}
    return {"task_completed": False}
