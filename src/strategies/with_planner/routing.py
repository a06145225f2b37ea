"""Routing functions for the conditional edges; each returns where the run goes next."""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import AIMessage, HumanMessage

from strategies.with_planner.plans import TERMINAL, ready_tasks
from strategies.with_planner.state import State, TaskRun, current_turn


def after_planner(
    state: State,
) -> Literal["planner", "irreversibility_check", "generate_response", "__end__"]:
    """Retry a rejected plan, run a plan, answer directly, or stop (clarification, failure)."""
    outcome = state.get("planner_outcome")
    if outcome == "retry":
        return "planner"
    if outcome == "planned":
        return "irreversibility_check"
    if outcome == "empty":
        return "generate_response"
    return "__end__"


def dispatch(
    state: State,
) -> Literal["request_approval", "planner", "advance", "generate_response"]:
    """Ask about calls tasks stopped at, replan after a failure, run what is left, or answer."""
    if state.get("awaiting"):
        return "request_approval"
    turn = current_turn(state)
    if turn.get("planner_feedback") and turn.get("replanned"):
        return "planner"
    if ready_tasks(state.get("plan") or []):
        # Left by a round that stopped to ask the user (its dependents could not start).
        return "advance"
    return "generate_response"


def task_start(state: TaskRun) -> Literal["orchestrate", "call_tool"]:
    """A direct step, or a task going on after a decision, goes to the gate; else orchestrate."""
    messages = state.get("messages") or []
    going_on = (
        bool(messages) and isinstance(messages[-1], AIMessage) and bool(messages[-1].tool_calls)
    )
    return "call_tool" if state["task"]["tool"] or going_on else "orchestrate"


def after_orchestrate(
    state: TaskRun,
) -> Literal["orchestrate", "call_tool", "assess_task", "__end__"]:
    """Run the tool calls, assess a plain answer, retry after an unusable one, or stop."""
    if state["task"]["status"] in TERMINAL:
        return "__end__"
    last = state["messages"][-1]
    if isinstance(last, HumanMessage):
        # Feedback on an unusable answer: the orchestrator gets another round.
        return "orchestrate"
    if isinstance(last, AIMessage) and last.tool_calls:
        return "call_tool"
    return "assess_task"


def after_call_tool(state: TaskRun) -> Literal["orchestrate", "assess_task", "__end__"]:
    """Stop when the task is over or waits for approval; orchestrate after the user answered."""
    if state["task"]["status"] in TERMINAL or state["task"]["status"] == "awaiting_approval":
        return "__end__"
    if isinstance(state["messages"][-1], HumanMessage):
        return "orchestrate"
    return "assess_task"


def after_assess(state: TaskRun) -> Literal["orchestrate", "__end__"]:
    """Another round on an unfinished task, or stop once it is completed or failed."""
    if state.get("task_completed") or state["task"]["status"] in TERMINAL:
        return "__end__"
    return "orchestrate"
