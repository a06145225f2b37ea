"""Routing functions for the conditional edges; each returns the name of the next node."""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import AIMessage, HumanMessage

from strategies.with_planner.nodes.common import current
from strategies.with_planner.state import State


def after_planner(
    state: State,
) -> Literal["planner", "irreversibility_check", "call_tool", "generate_response", "__end__"]:
    """Retry a rejected plan, run a plan or approved held-back calls, answer, or stop."""
    outcome = state.get("planner_outcome")
    if outcome == "retry":
        return "planner"
    if outcome == "run_deferred":
        return "call_tool"
    if outcome == "planned":
        return "irreversibility_check"
    if outcome == "empty":
        return "generate_response"
    return "__end__"


def after_orchestrate(state: State) -> Literal["call_tool", "assess_task", "advance"]:
    """Run the tool calls, assess a plain answer, or move on from a failed task."""
    if current(state)["status"] == "failed":
        return "advance"
    last = state["messages"][-1]
    if isinstance(last, AIMessage) and last.tool_calls:
        return "call_tool"
    return "assess_task"


def after_call_tool(
    state: State,
) -> Literal["orchestrate", "assess_task", "advance", "generate_response"]:
    """Assess the results; back to work after the user answered; on if the task is impossible."""
    if state.get("planner_outcome") == "run_deferred":
        return "generate_response"
    if current(state)["status"] == "failed":
        return "advance"
    if isinstance(state["messages"][-1], HumanMessage):
        return "orchestrate"
    return "assess_task"


def after_assess(state: State) -> Literal["orchestrate", "advance"]:
    """Another round on an unfinished task, or move on once it is completed or failed."""
    if state.get("task_completed") or current(state)["status"] == "failed":
        return "advance"
    return "orchestrate"


def after_advance(state: State) -> Literal["orchestrate", "generate_response"]:
    """Work on the next task, or answer once every task has been through."""
    if state.get("current_task", 0) < len(state.get("plan") or []):
        return "orchestrate"
    return "generate_response"
