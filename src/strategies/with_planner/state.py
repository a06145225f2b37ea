"""Graph state: the input schema and the full working state (TypedDicts, JSON-native)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from common.plans import TaskState
from common.safety import PendingCall, ToolVerdict

PlannerOutcome = Literal["planned", "empty", "retry", "clarify", "failed", "run_deferred"]
"""What the planner node decided, for routing."""


class InputState(TypedDict):
    """What a caller sends: the conversation."""

    messages: Annotated[list[AnyMessage], add_messages]
    """Conversation so far; the last message is the answer after a run."""


class GuardVerdict(TypedDict):
    """The guard's classification of the tools of the plan's experts, for this turn."""

    irreversible: dict[str, list[str]]
    """Expert name to the tools that need approval."""
    verdicts: list[ToolVerdict]
    """Every classified tool with its deciding source and reason."""
    unavailable: dict[str, str]
    """Experts that could not be reached, with the error."""
    analysis: Literal["skipped", "ok", "error"]
    """Whether the LLM analysis ran this turn (skipped when it could change nothing)."""
    notes: list[str]
    """Analyser problems worth reporting: made-up tool names, errors behind a safe default."""


class GuardStats(TypedDict):
    """How often the LLM analysis ran or was skipped on this thread."""

    llm_calls: int
    """Turns whose analysis called the model."""
    llm_skipped: int
    """Turns whose tools were all settled without the model."""


class State(InputState, total=False):
    """Full working state of a run."""

    plan: list[TaskState]
    """Tasks of the current plan with status, attempts and results."""
    current_task: int
    """Index of the task being worked on."""
    task_completed: bool
    """Whether assess_task judged the current task done."""
    task_message_start: int
    """Index in `messages` where the current task's exchange begins."""
    guard: GuardVerdict
    """This turn's irreversibility verdict."""
    guard_stats: GuardStats
    """Analyser calls and skips so far on this thread."""
    planner_outcome: PlannerOutcome
    """The planner's decision, read by the router."""
    planner_attempts: int
    """Planner calls made this turn."""
    planner_feedback: list[str]
    """Problems with the last plan, shown to the planner on a retry."""
    previous_plan: list[TaskState]
    """The last turn's plan, so the planner can continue or replace it."""
    deferred: list[PendingCall]
    """Irreversible calls held back in plan_only mode, with their exact arguments."""
    deferred_decisions: list[dict[str, Any]]
    """The user's decisions on `deferred`, one per call, when they approved running them."""
