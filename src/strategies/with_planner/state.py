"""Graph state: the input schema, the full working state, and a task run's own state."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from common.safety.approval import PendingCall
from common.safety.classify import ToolVerdict
from strategies.with_planner.plans import PlanStatus, TaskState

PlannerOutcome = Literal["planned", "empty", "retry", "clarify", "failed"]
"""What the planner node decided, for routing."""


def update_plan(
    current: list[TaskState] | None, update: list[TaskState] | dict[str, TaskState]
) -> list[TaskState]:
    """A list replaces the plan; a dict of task id to task (from task runs) updates those tasks.

    Parallel task runs each return their own task, so their updates never collide.
    """
    if isinstance(update, list):
        return update
    return [update.get(t["id"], t) for t in current or []]


def add_deferred(
    current: list[PendingCall] | None, update: list[PendingCall] | None
) -> list[PendingCall]:
    """Append held-back calls from task runs; None clears the list."""
    return [] if update is None else [*(current or []), *update]


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


class TurnReport(TypedDict):
    """How the last turn ended, for callers (CLI exit codes, `run --json`, SDK clients)."""

    ok: bool
    """True when everything asked was done or deliberately declined by the user."""
    problems: list[str]
    """One line per thing not done: failed tasks, unavailable experts, uncovered parts."""


class State(InputState, total=False):
    """Full working state of a run."""

    plan: Annotated[list[TaskState], update_plan]
    """Tasks of the current plan with status, attempts, times, results and errors."""
    plan_status: PlanStatus
    """Status of the plan as a whole."""
    wave: list[str]
    """Ids of the tasks launched by the last dispatch."""
    guard: GuardVerdict
    """This turn's irreversibility verdict."""
    guard_stats: GuardStats
    """Analyser calls and skips so far on this thread."""
    planner_outcome: PlannerOutcome
    """The planner's decision, read by the router."""
    planner_attempts: int
    """Planner calls made for the current planning round."""
    planner_feedback: list[str]
    """Problems with the last plan (or a failure to replan around), shown to the planner."""
    replanned: bool
    """Whether the planner already replaced the rest of the plan after a failure this turn."""
    turn_notes: list[str]
    """What the answer must mention: budgets that ran out, replans after failures."""
    steps_spent: int
    """Steps of tasks dropped by a replan this turn, still counted against max_steps."""
    attempt_budget: int
    """Orchestrate rounds each task of the current wave may use."""
    previous_plan: list[TaskState]
    """The last turn's plan, so the planner can continue or replace it."""
    deferred: Annotated[list[PendingCall], add_deferred]
    """Irreversible calls held back in plan_only mode, with their exact arguments."""
    report: TurnReport
    """How the last finished turn ended: what was not done, and why."""
    run_context: dict[str, Any]
    """The settings of the current turn (a validated Context as a dict), fixed when it began."""
    unavailable: dict[str, str]
    """Experts that could not be reached when the turn was planned, with the reason."""
    uncovered: list[str]
    """Parts of the request that no expert's tools could do, as the planner named them."""


class TaskInput(TypedDict):
    """What the dispatcher sends to one task run."""

    task: TaskState
    """The task to carry out."""
    request: str
    """The user's request, for context."""
    plan_view: str
    """The whole plan, rendered for the orchestrator's prompt."""
    inputs: dict[str, dict[str, Any]]
    """Results of the tasks it depends on: id to {result, data}."""
    order: list[str]
    """Task ids in plan order, for `${step[N]...}` templates."""
    guard: GuardVerdict
    """This turn's verdicts."""
    max_attempts: int
    """Orchestrate rounds this task may use (attempt and step budgets applied)."""
    run_context: dict[str, Any]
    """The turn's settings (see `State.run_context`)."""


class TaskOutput(TypedDict, total=False):
    """What a task run hands back to the plan."""

    plan: dict[str, TaskState]
    """The task, final, by id."""
    deferred: Annotated[list[PendingCall], add_deferred]
    """Calls it held back in plan_only mode, over all its rounds."""


class TaskRun(TaskInput, TaskOutput, total=False):
    """A task run's working state: its own messages, never mixed with other tasks'."""

    messages: Annotated[list[AnyMessage], add_messages]
    """This task's exchange with the orchestrator and the expert's tools."""
    task_completed: bool
    """Whether assess_task judged the task done."""
