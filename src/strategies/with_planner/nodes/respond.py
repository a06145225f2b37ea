"""advance and generate_response: move through the plan, then answer and reset for next turn."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import SystemMessage
from langgraph.runtime import Runtime

from strategies.with_planner.context import Context
from strategies.with_planner.nodes.common import (
    current,
    describe_call,
    emit,
    model_for,
    render_plan,
)
from strategies.with_planner.prompts import RESPONSE_SYSTEM_PROMPT
from strategies.with_planner.state import State


async def advance(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Close the current task and point at the next one."""
    task = current(state)
    emit(runtime, "task_end", task_id=task["id"], status=task["status"], error=task["error"])
    return {
        "current_task": state.get("current_task", 0) + 1,
        "task_completed": False,
        "task_message_start": len(state["messages"]),
    }


async def generate_response(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Write the answer from the plan's results, then clear the plan for the next turn."""
    plan = state.get("plan") or []
    deferred = state.get("deferred") or []
    prompt = RESPONSE_SYSTEM_PROMPT.format(
        plan=render_plan(plan, detailed=True),
        deferred="\n".join(
            f"- {d['expert']}: {describe_call(d['name'], d['args'])}" for d in deferred
        )
        or "(none)",
    )
    answer = await model_for(runtime, "response").ainvoke(
        [SystemMessage(prompt), *state["messages"]]
    )
    return {
        "messages": [answer],
        "previous_plan": plan,
        "plan": [],
        "current_task": 0,
        "task_completed": False,
    }
