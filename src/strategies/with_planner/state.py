"""Graph state: the input schema, the full working state, and a task run's own state."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Literal, NotRequired, TypedDict, TypeVar

from langchain_core.messages import AnyMessage, RemoveMessage
from langgraph.graph.message import add_messages
from langgraph.graph.ui import AnyUIMessage, ui_message_reducer

from common.safety.analysis import AnalysisRecord
from common.safety.approval import PendingCall
from common.safety.classify import ToolVerdict
from common.safety.quoting import one_line
from common.served.approvers import Asked
from strategies.with_planner.conversation import TurnSummary
from strategies.with_planner.plans import PlanStatus, TaskState
from strategies.with_planner.results import FullResult

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


_Item = TypeVar("_Item")


def add_deferred(current: list[_Item] | None, update: list[_Item] | None) -> list[_Item]:
    """Append calls from task runs (held back, or awaiting approval); None clears the list."""
    return [] if update is None else [*(current or []), *update]


class Awaiting(TypedDict):
    """A call a task run stopped at: it waits for a human's decision before it can run."""

    task_id: str
    """The task whose round holds the call."""
    key: str
    """The call's key (message id and call id): the decision is given to exactly this call."""
    call: PendingCall
    """The call, with its exact arguments and why it needs approval."""


class Turn(TypedDict, total=False):
    """What belongs to one turn: its settings, budgets, planning round and what it could not do.

    The planner writes a whole new one when a turn begins (`turn.new_turn`); other nodes write
    only the fields they change (`merge_turn`). It stays, as the record of the last turn (what
    was unavailable or uncovered), until the next turn begins and replaces it.
    """

    run_context: dict[str, Any]
    """The settings of the turn (a validated Context as a dict), fixed when it began."""
    turn_of: str
    """Id of the human message whose turn this is (a retry keeps the turn and its settings)."""
    notes: list[str]
    """What the answer must mention: budgets that ran out, replans after failures."""
    replanned: bool
    """Whether the planner already replaced the rest of the plan after a failure."""
    steps_spent: int
    """Steps of tasks dropped by a replan, still counted against max_steps."""
    planner_attempts: int
    """Planner calls made for the current planning round."""
    planner_feedback: list[str]
    """Problems with the last plan (or a failure to replan around), shown to the planner."""
    planner_focus: list[str]
    """Experts this round's rejected plans named, listed whole on a retry (read only then)."""
    wave: list[str]
    """Ids of the tasks that ran in the scheduler's last round."""
    uncovered: list[str]
    """Parts of the request that no expert's tools could do, as the planner named them."""
    unavailable: dict[str, str]
    """Experts that could not be reached when the turn was planned, with the reason."""
    analysis: AnalysisRecord | None
    """The analyser's answer, asked alongside the planner (None: not asked)."""


def merge_turn(current: Turn | None, update: Turn) -> Turn:
    """A new turn replaces the old one as a whole; any other write changes only its fields.

    A write naming the message whose turn it is (`turn_of`) begins a turn: only the planner's
    turn start writes one (`turn.new_turn`, every field), and nothing of the previous turn is
    kept. Any other write is merged field by field, each field replaced (a list or dict too: a
    node computes it whole from the turn it read, e.g. `notes` with its note appended). Writes
    of one step are applied in turn, so two nodes writing different fields both land; task runs
    never write the turn (they hand back `plan`, `deferred` and `awaiting`, merged by theirs).
    """
    merged = Turn() if "turn_of" in update else Turn(**(current or {}))
    merged.update(update)
    return merged


def current_turn(state: Mapping[str, Any]) -> Turn:
    """The turn a state is in (empty before the first turn began)."""
    turn: Turn = state.get("turn") or Turn()
    return turn


class Answered(TypedDict):
    """Who answered a stop's questions, as the run that brought the answer was authenticated."""

    by: str
    """The identity of the run that resumed with the answer (`common.served.identity.run_user`)."""
    at: str
    """When the answer was read (ISO 8601, UTC)."""


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
    """Experts that could not be reached, with the error: the gate holds their calls."""
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


def turn_report(ok: bool, problems: Iterable[str]) -> TurnReport:
    """A report whose every problem is one line, whatever text (a model's, a tool's) it quotes."""
    # Callers print one problem per line and parse `run --json` line by line.
    return TurnReport(ok=ok, problems=[one_line(" ".join(p.split())) for p in problems])


class State(InputState, total=False):
    """Full working state of a run."""

    plan: Annotated[list[TaskState], update_plan]
    """Tasks of the current plan with status, attempts, times, results and errors."""
    plan_status: PlanStatus
    """Status of the plan as a whole."""
    turn: Annotated[Turn, merge_turn]
    """What belongs to the current turn (the last one, once answered), replaced when one begins."""
    guard: GuardVerdict
    """This turn's irreversibility verdict."""
    guard_stats: GuardStats
    """Analyser calls and skips so far on this thread."""
    planner_outcome: PlannerOutcome
    """The planner's decision, read by the router."""
    previous_plan: list[TaskState]
    """The last turn's plan, so the planner can continue or replace it."""
    deferred: Annotated[list[PendingCall], add_deferred]
    """Irreversible calls held back in plan_only mode, with their exact arguments."""
    awaiting: Annotated[list[Awaiting], add_deferred]
    """Calls the task runs stopped at, waiting for a human's decision (asked by the graph)."""
    asked: Asked
    """When, and for whom, the waiting calls were asked about (who may answer, until when)."""
    answered: Answered
    """Who gave the last answer that let waiting calls go on, and when (a late second answer
    to the same question is told who came first)."""
    owner: str
    """Whose thread it is, served with auth: the identity of the run that began its first turn,
    set by the planner then and never changed (`common.served.identity`). Absent without auth."""
    abandoned: list[PendingCall]
    """Calls still waiting for approval when a new message started a turn: not run, and said."""
    report: TurnReport
    """How the last finished turn ended: what was not done, and why."""
    summary: list[TurnSummary]
    """Older turns, one line each, oldest first: their messages left `messages` (see
    `conversation.py`); the models see these lines instead."""
    ui: Annotated[list[AnyUIMessage], ui_message_reducer]
    """Generative UI messages: the plan card of each recent turn (`plan_card`), by id."""


class DependencyOutput(TypedDict):
    """What a finished task hands to the tasks that depend on it."""

    expert: NotRequired[str]
    """The expert that produced it (whose data it is, for the data-leaving check)."""
    result: str | None
    """Its result as text, as the model sees it (trimmed when long)."""
    full: NotRequired[FullResult]
    """Where its whole text is, when `result` is trimmed; templates read that, never the view."""
    data: Any
    """The structured content of its last successful tool call (JSON), for templates."""


class TaskInput(TypedDict):
    """What the dispatcher sends to one task run."""

    task: TaskState
    """The task to carry out."""
    request: str
    """The user's request, for context."""
    plan_view: str
    """The whole plan, rendered for the orchestrator's prompt."""
    inputs: dict[str, DependencyOutput]
    """Results of the tasks it depends on, by task id."""
    order: list[str]
    """Task ids in plan order, for `${step[N]...}` templates."""
    guard: GuardVerdict
    """This turn's verdicts."""
    max_attempts: int
    """Orchestrate rounds this task may use (attempt and step budgets applied)."""
    run_context: dict[str, Any]
    """The turn's settings (see `Turn.run_context`)."""
    card_turn: NotRequired[str]
    """The turn whose plan card shows the task (absent: no card to show its progress on)."""
    messages: NotRequired[Annotated[list[AnyMessage], add_messages]]
    """This task's exchange with the orchestrator and the expert's tools (given when a task
    continues after its calls were decided)."""


class TaskOutput(TypedDict, total=False):
    """What a task run hands back to the plan."""

    plan: dict[str, TaskState]
    """The task, final, by id."""
    deferred: Annotated[list[PendingCall], add_deferred]
    """Calls it held back in plan_only mode, over all its rounds."""
    awaiting: Annotated[list[Awaiting], add_deferred]
    """Calls it stopped at, waiting for a human's decision."""


class TaskRun(TaskInput, TaskOutput, total=False):
    """A task run's working state: its own messages, never mixed with other tasks'."""

    task_completed: bool
    """Whether assess_task judged the task done."""


# Partial updates: what each node may write. Keys absent from an update leave state as it is.


class PlannerUpdate(TypedDict, total=False):
    """What the planner writes: a new turn, a plan, a retry, a question, a refusal or a failure."""

    messages: list[AnyMessage | RemoveMessage]
    """Older turns removed once summarised, or an answer or masked request."""
    summary: list[TurnSummary]
    """The summary with the removed turns added."""
    turn: Turn
    """A new turn (whole), or the turn's fields this step changed."""
    plan: list[TaskState]
    """The new plan (replacing the old one)."""
    plan_status: PlanStatus
    """`ready` for a new plan."""
    planner_outcome: PlannerOutcome
    """The decision the router reads."""
    report: TurnReport
    """How a turn the planner ends, ended."""
    deferred: list[PendingCall] | None
    """None clears the held-back calls (a new plan replaces them)."""
    awaiting: list[Awaiting] | None
    """None clears the calls a new message left undecided."""
    abandoned: list[PendingCall]
    """Those calls, for this turn's answer."""
    previous_plan: list[TaskState]
    """The plan a new message left unfinished."""
    owner: str
    """Whose thread it is, stamped when its first turn begins (served with auth only)."""


class GuardUpdate(TypedDict):
    """What irreversibility_check writes."""

    guard: GuardVerdict
    """This turn's verdicts."""
    guard_stats: GuardStats
    """Analyser calls and skips, counted."""


class AdvanceUpdate(TypedDict, total=False):
    """What the scheduler writes: the plan after a round of tasks (and a replan request)."""

    plan: list[TaskState]
    """The plan with the round's tasks updated and the rest settled."""
    plan_status: PlanStatus
    """The plan's status after settling."""
    deferred: list[PendingCall]
    """Calls the round's tasks held back in plan_only mode."""
    awaiting: list[Awaiting]
    """Calls the round's tasks stopped at, waiting for a human's decision."""
    turn: Turn
    """The round's tasks (`wave`), notes with a replan or a spent budget added, and a replan
    request (`replanned`, with the failures as `planner_feedback`)."""
    ui: list[AnyUIMessage]
    """The plan card as the round left it (when it changed)."""


class ResponseUpdate(TypedDict, total=False):
    """What generate_response writes: the answer and how the turn ended (the turn stays)."""

    messages: list[AnyMessage]
    """The answer."""
    report: TurnReport
    """How the turn ended."""
    previous_plan: list[TaskState]
    """This turn's plan, for the next turn's planner."""
    plan: list[TaskState]
    """Cleared."""
    plan_status: PlanStatus
    """The finished plan's status."""
    abandoned: list[PendingCall]
    """Cleared."""


class TaskRunUpdate(TypedDict, total=False):
    """What a task subgraph node (orchestrate, call_tool, assess_task) writes."""

    messages: list[AnyMessage]
    """New messages of the task's exchange."""
    task: TaskState
    """The task, updated."""
    plan: dict[str, TaskState]
    """The task by id, merged into the parent plan when the run ends."""
    deferred: list[PendingCall]
    """Calls held back in plan_only mode this round."""
    awaiting: list[Awaiting]
    """Calls this round stopped at, for the graph to ask about."""
    task_completed: bool
    """Whether assess_task judged the task done."""


class ApprovalRequestUpdate(TypedDict):
    """What request_approval writes: the question, in words, in the conversation."""

    messages: list[AnyMessage]
    """The assistant's message naming each waiting call and why it needs approval."""
    asked: Asked
    """When, and by whose run, they were asked about."""


class ApprovalUpdate(TypedDict):
    """What await_approval writes: each decision on its task, and nothing left waiting."""

    plan: dict[str, TaskState]
    """The tasks whose calls were decided, ready to continue."""
    awaiting: None
    """Cleared."""
    answered: Answered
    """Who answered, and when."""
