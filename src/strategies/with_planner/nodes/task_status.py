"""What a call_tool round changes in its task: status, attempts, result or error."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AnyMessage, ToolMessage

from strategies.with_planner.nodes.common import HELD_BACK, unwrap
from strategies.with_planner.nodes.tool_messages import full_output
from strategies.with_planner.plans import TaskState
from strategies.with_planner.results import result_fields


def task_changes(
    task: TaskState,
    direct: bool,
    messages: Sequence[AnyMessage],
    declined: list[str],
    failure: str | None,
    asked_user: bool,
    held: bool,
) -> dict[str, Any]:
    """The task fields a round sets (for `task_update`).

    A direct step ends with its one call: completed, skipped when plan_only held it back, or
    failed. Asking the user is not an attempt at the task, so that round is refunded. An
    expert's `cannot_complete` fails the task whatever else happened.
    """
    changes: dict[str, Any] = {"declined": declined, "status": "running"}
    if direct:
        changes |= direct_changes(task, messages[-1], held)
    elif asked_user:
        changes["attempts"] = max(task["attempts"] - 1, 0)
    if failure is not None:
        changes.update(status="failed", error=failure)
    return changes


def direct_changes(task: TaskState, outcome: AnyMessage, held: bool) -> dict[str, Any]:
    """How a direct step ends, from the answer to its one call.

    Its result is the call's whole output (the model sees a view of it; templates get it all).
    """
    attempts = task["attempts"] + 1
    if isinstance(outcome, ToolMessage) and outcome.status == "success":
        fields = result_fields(full_output(outcome), unwrap(outcome.artifact))
        return {"attempts": attempts, "status": "completed", **fields}
    if held:
        return {"attempts": attempts, "status": "skipped", "error": HELD_BACK}
    return {"attempts": attempts, "status": "failed", "error": str(outcome.content)}
