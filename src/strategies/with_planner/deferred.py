"""The plan_only path: calls held back for approval, released by the user's next message.

In plan_only mode `call_tool` holds a gated call back (`state.deferred`, with its exact
arguments) and the answer lists it. On the next turn the planner asks `release_held_calls`:
a "go ahead" (or a JSON `{"decisions": [...]}`) message turns each held call into a direct step
that carries the user's decision as a typed record (`TaskState.approval`). `call_tool` then runs
that step through `given_decisions`: the exact call the user saw, with their decision, which the
approval policy honours whatever this turn's gate says (an approval is never asked twice, and a
rejection or an edit is never dropped).
"""

from __future__ import annotations

from common.safety.approval import (
    ApprovalFormatError,
    Decision,
    PendingCall,
    approval_from_message,
    check_edits,
    decision_of,
    record_of,
)
from strategies.with_planner.plans import Task, TaskState, new_task_state

Released = list[TaskState] | str | None
"""The approved direct steps; or why nothing was released (said to the user); or None when the
message does not answer the held calls (it is a new request)."""


def release_held_calls(message: str, held: list[PendingCall], max_tasks: int) -> Released:
    """The plan a reply to held-back calls asks for, one direct step per held call."""
    try:
        decisions = approval_from_message(message, len(held))
        if decisions is not None:
            decisions = check_edits(decisions, held)
    except ApprovalFormatError as exc:
        return f"I did not run the proposed actions: {exc}"
    if decisions is None:
        return None
    if len(held) > max_tasks:
        return (
            f"There are {len(held)} held-back actions, more than one plan may hold "
            f"({max_tasks}); approve them in smaller groups with "
            '{"decisions": [...]} or raise MAX_PLAN_TASKS.'
        )
    return [
        approved_step(i, call, decision)
        for i, (call, decision) in enumerate(zip(held, decisions, strict=True), start=1)
    ]


def approved_step(index: int, call: PendingCall, decision: Decision) -> TaskState:
    """A direct step running exactly the held call, carrying the user's decision on it."""
    step = Task(
        id=f"approved-{index}",
        expert=call["expert"],
        task=f"Run the approved call {call['name']}",
        tool=call["name"],
        args=call["args"],
        critical=False,
    )
    task = new_task_state(step)
    task["approval"] = record_of(decision, call.get("definition"))
    return task


def is_released(task: TaskState) -> bool:
    """Whether the task runs a held call the user already decided on (its args are exact)."""
    return task["approval"] is not None


def given_decisions(task: TaskState, keys: dict[str, str]) -> dict[str, Decision]:
    """Decisions the user already gave on this round's calls, by call id.

    `keys` maps each call id of the round to its call key. A released step's decision covers
    its one call; a task that stopped for approval has a decision per call key, so a decision
    never reaches another round's call that happens to reuse a call id.
    """
    record = task["approval"]
    if record is not None:
        decision = decision_of(record)
        return {cid: decision for cid in keys}
    given = task.get("decisions") or {}
    return {cid: decision_of(given[key]) for cid, key in keys.items() if key in given}
