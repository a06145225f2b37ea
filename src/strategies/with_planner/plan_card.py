"""The plan card: the plan drawn in Agent Chat UI through LangGraph's generative UI.

One UI message per turn (`ui` state key), updated in place by id as tasks change, and marked
final with the answer. Agent Chat UI draws a UI message under the assistant message its
`metadata.message_id` names, so the turn's first plan also adds a one-line assistant message
("Plan: ...") for the card to hang under; clients that draw no components show that line, and
the answer is untouched. The component itself is `ui-components/plan_card.tsx`, declared under
`ui` in langgraph.json and served by the LangGraph server.

The props are pushed at most once per scheduler step that changed them (`Feed`), so the stream
carries no more card updates than task state changes.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Awaitable, Iterable, Sequence
from datetime import datetime
from typing import Any, Literal, Protocol, TypedDict, cast

from langchain_core.messages import AIMessage
from langgraph.graph.ui import AnyUIMessage, RemoveUIMessage, UIMessage
from langgraph.runtime import Runtime

from common.safety.approval import PendingCall
from strategies.with_planner.context import Context
from strategies.with_planner.conversation import PEOPLE_ONLY_PREFIX
from strategies.with_planner.plans import PlanStatus, TaskState, describe_call, plan_status
from strategies.with_planner.state import (
    Awaiting,
    PlannerUpdate,
    ResponseUpdate,
    State,
    current_turn,
)

CARD = "plan"
"""The component's name in `ui-components/plan_card.tsx`."""

KEPT_CARDS = 1
"""Cards kept in state: the oldest go when a new turn plans, so checkpoints stay bounded."""

LINE_CHARS = 120
"""Characters of a task's one-line result or error."""

TASK_CHARS = 100
"""Characters of a task's description."""

CALL_CHARS = 160
"""Characters of a held call's rendering."""

CardStatus = Literal[
    "pending", "running", "awaiting_approval", "completed", "failed", "skipped", "cancelled"
]
"""A task's status as the card shows it (`ready` is shown as pending)."""


class CardTask(TypedDict):
    """One task as the card draws it."""

    id: str
    """Task id."""
    expert: str
    """The expert that does it."""
    task: str
    """What it does, on one line."""
    depends_on: list[str]
    """Ids of the tasks it waits for."""
    level: int
    """Its step: 0 without dependencies, else one more than its deepest dependency."""
    status: CardStatus
    """Where it is."""
    seconds: int | None
    """How long it ran, once it ended."""
    line: str | None
    """Its result or error, on one line."""
    held: list[str]
    """Calls of this task that wait for the user's approval."""


class CardProps(TypedDict):
    """What the component gets."""

    tasks: list[CardTask]
    """The tasks in plan order."""
    status: PlanStatus
    """The plan's status."""
    final: bool
    """Whether the turn has answered: the card changes no more."""
    go_ahead: list[str]
    """Calls plan_only held back: they run when the user replies "go ahead"."""


def card_id(turn: str) -> str:
    """The card's UI message id for the turn begun by human message `turn`."""
    return f"plan-card-{turn}"


def message_id(turn: str) -> str:
    """The id of the assistant message the turn's card is drawn under."""
    return f"{PEOPLE_ONLY_PREFIX}{turn}"


def one_line(text: str, limit: int) -> str:
    """`text` on one line (runs of whitespace made one space), cut to `limit` characters.

    Whole, not its first line: a result is often indented JSON, whose first line is "{".
    """
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def levels(plan: Sequence[TaskState]) -> dict[str, int]:
    """Each task's step: tasks of one step may run together (plans are acyclic)."""
    by_id = {t["id"]: t for t in plan}
    found: dict[str, int] = {}

    def level(tid: str) -> int:
        """The task's step, from its dependencies' steps."""
        if tid not in found:
            deps = [d for d in by_id[tid]["depends_on"] if d in by_id and d != tid]
            found[tid] = 1 + max(map(level, deps)) if deps else 0
        return found[tid]

    return {t["id"]: level(t["id"]) for t in plan}


def _seconds(t: TaskState) -> int | None:
    """Whole seconds between its start and end (None before it ended)."""
    if not (t["started_at"] and t["ended_at"]):
        return None
    start, end = datetime.fromisoformat(t["started_at"]), datetime.fromisoformat(t["ended_at"])
    return max(0, int((end - start).total_seconds()))


def _line(t: TaskState) -> str | None:
    """Its error when it did not complete, else its result, on one line."""
    text = t["result"] if t["status"] == "completed" else t["error"]
    return one_line(text, LINE_CHARS) if text else None


def _call(call: PendingCall) -> str:
    """A held call, as `expert: tool(args)`."""
    return one_line(f"{call['expert']}: {describe_call(call['name'], call['args'])}", CALL_CHARS)


def card_props(
    plan: Sequence[TaskState],
    awaiting: Iterable[Awaiting] = (),
    deferred: Iterable[PendingCall] = (),
    final: bool = False,
) -> CardProps:
    """The card's props: every task with its status, time and line; the calls that wait."""
    held: dict[str, list[str]] = {}
    for a in awaiting:
        held.setdefault(a["task_id"], []).append(_call(a["call"]))
    steps = levels(plan)
    tasks = [
        CardTask(
            id=t["id"],
            expert=t["expert"],
            task=one_line(t["task"], TASK_CHARS),
            depends_on=list(t["depends_on"]),
            level=steps[t["id"]],
            status="pending" if t["status"] == "ready" else t["status"],
            seconds=_seconds(t),
            line=_line(t),
            held=held.get(t["id"], []),
        )
        for t in plan
    ]
    go_ahead = [_call(c) for c in deferred]
    return CardProps(tasks=tasks, status=plan_status(plan), final=final, go_ahead=go_ahead)


def summary(plan: Sequence[TaskState]) -> str:
    """The plan on one line, step by step: what text-only clients show instead of the card."""
    steps = levels(plan)
    groups = [
        ", ".join(f"{t['id']} ({t['expert']})" for t in plan if steps[t["id"]] == n)
        for n in range(max(steps.values(), default=-1) + 1)
    ]
    return "Plan: " + "; then ".join(groups) + "."


def ui_message(turn: str, props: CardProps) -> UIMessage:
    """The turn's card as a UI message (replacing the previous one with the same id)."""
    _remember(card_id(turn), props)
    return UIMessage(
        type="ui",
        id=card_id(turn),
        name=CARD,
        props=dict(props),
        metadata={"message_id": message_id(turn), "merge": False},
    )


WHOLE_CARDS_KEPT = 256
"""Cards whose last whole props this process keeps, for drawing progress over them."""
_WHOLE: OrderedDict[str, CardProps] = OrderedDict()
_RUNNING: dict[str, dict[str, CardProgress]] = {}


def _remember(name: str, props: CardProps) -> None:
    """Keep the card's whole props; a whole card drops the progress laid over the last one."""
    _WHOLE[name] = props
    _WHOLE.move_to_end(name)
    _RUNNING.pop(name, None)
    while len(_WHOLE) > WHOLE_CARDS_KEPT:
        gone, _ = _WHOLE.popitem(last=False)
        _RUNNING.pop(gone, None)


class CardProgress(TypedDict):
    """What a running task's call last said about its progress (the server's own words)."""

    tool: str
    """The tool that reported it."""
    progress: float
    """How far it is."""
    total: float | None
    """Out of how much (None: unknown)."""
    message: str | None
    """What it is doing, on one capped line."""


def progress_key(task_id: str) -> str:
    """The card prop holding a task's progress: one key per task, so parallel tasks merge."""
    return f"progress:{task_id}"


def progress_message(turn: str, task_id: str, progress: CardProgress) -> UIMessage | None:
    """The turn's whole card with its running calls' progress laid over it, for the stream only.

    Whole, not a merge: Agent Chat UI's stream reducer (the SDK's `uiMessageReducer`) replaces
    a message by its id and ignores `metadata.merge`, so a progress-only message would draw an
    empty plan. The card is the last whole one this process sent for the turn (the run's parent
    nodes and its task runs share the process); never kept in state, so the next whole card
    drops the progress of calls that have ended. None when this process has not drawn the card
    (a run resumed on another instance): the "progress" event still goes out.
    """
    name = card_id(turn)
    whole = _WHOLE.get(name)
    if whole is None:
        return None
    running = _RUNNING.setdefault(name, {})
    running[task_id] = progress
    shown = {progress_key(t): dict(p) for t, p in running.items()}
    return UIMessage(
        type="ui",
        id=name,
        name=CARD,
        props={**whole, **shown},
        metadata={"message_id": message_id(turn), "merge": False},
    )


def card_turn(state: State) -> str | None:
    """The current turn when it has a card (None: no card, nothing to merge progress into)."""
    turn = current_turn(state).get("turn_of") or ""
    return turn if _shown(state, turn) is not None else None


def _shown(state: State, turn: str) -> CardProps | None:
    """The props of the turn's card as state holds them (None: the turn has no card)."""
    found = next((m for m in state.get("ui") or [] if m["id"] == card_id(turn)), None)
    if found is None or found["type"] != "ui":
        return None
    return cast(CardProps, found["props"])


class Feed:
    """Sends the turn's card whenever its props change; remembers the last one sent."""

    def __init__(self, state: State, runtime: Runtime[Context]) -> None:
        self.turn = current_turn(state).get("turn_of") or ""
        self.writer = runtime.stream_writer
        self.last = _shown(state, self.turn)
        self.sent: UIMessage | None = None
        """The last card sent by this feed (for the node's state update)."""

    def show(self, plan: Sequence[TaskState], awaiting: Iterable[Awaiting] = ()) -> None:
        """Send the card if it changed (nothing when the turn has no card)."""
        if self.last is None:
            return
        props = card_props(plan, awaiting, final=False)
        if props == self.last:
            return
        self.last, self.sent = props, ui_message(self.turn, props)
        self.writer(self.sent)


class Node(Protocol):
    """A node of the parent graph, as LangGraph calls it."""

    def __call__(self, state: State, *, runtime: Runtime[Context]) -> Awaitable[Any]:
        """Run the node on the state."""
        ...


def _planned(state: State, runtime: Runtime[Context], update: PlannerUpdate) -> PlannerUpdate:
    """A new plan: its one-line message and its card (older cards beyond KEPT_CARDS dropped)."""
    turn = (update.get("turn") or {}).get("turn_of") or current_turn(state).get("turn_of") or ""
    plan = update["plan"]
    card = ui_message(turn, card_props(plan))
    kept = [m for m in state.get("ui") or [] if m["type"] == "ui" and m["id"] != card["id"]]
    gone: list[AnyUIMessage] = [
        RemoveUIMessage(type="remove-ui", id=m["id"])
        for m in kept[: max(0, len(kept) - KEPT_CARDS + 1)]
    ]
    for sent in (*gone, card):
        runtime.stream_writer(sent)
    said = AIMessage(summary(plan), id=message_id(turn))
    return cast(
        PlannerUpdate,
        {**update, "messages": [*update.get("messages", []), said], "ui": [*gone, card]},
    )


def _set_aside(state: State, runtime: Runtime[Context], update: PlannerUpdate) -> PlannerUpdate:
    """A new message left the last turn's calls undecided: that card shows them not run."""
    turn = current_turn(state).get("turn_of") or ""
    if _shown(state, turn) is None:
        return update
    card = ui_message(turn, card_props(update.get("previous_plan") or [], final=True))
    runtime.stream_writer(card)
    return cast(PlannerUpdate, {**update, "ui": [card]})


def on_planner(node: Node) -> Node:
    """The planner node, adding the card when it makes a plan (or sets a plan aside)."""

    @functools.wraps(node)
    async def planner(state: State, runtime: Runtime[Context]) -> PlannerUpdate:
        update = cast(PlannerUpdate, await node(state, runtime=runtime))
        if update.get("planner_outcome") == "planned" and update.get("plan"):
            return _planned(state, runtime, update)
        if update.get("abandoned"):
            return _set_aside(state, runtime, update)
        return update

    return planner


def on_answer(node: Node) -> Node:
    """The answering node, marking the turn's card final with the plan as it ended."""

    @functools.wraps(node)
    async def generate_response(state: State, runtime: Runtime[Context]) -> ResponseUpdate:
        update = cast(ResponseUpdate, await node(state, runtime=runtime))
        turn = current_turn(state).get("turn_of") or ""
        if _shown(state, turn) is None:
            return update
        props = card_props(
            state.get("plan") or [], deferred=state.get("deferred") or [], final=True
        )
        card = ui_message(turn, props)
        runtime.stream_writer(card)
        return cast(ResponseUpdate, {**update, "ui": [card]})

    return generate_response
