"""Definitions at call time: an answer holds for the tool as the person saw it, not another.

A question keeps the definition of each call's tool (`PendingCall.definition`), and the answer
keeps it with the decision (`record_of`). Just before the call runs, `call_tool` compares it
with the tool's current definition (`ExpertRegistry.definition`: the session's list, listed
again after `notifications/tools/list_changed` or when older than a few seconds): a changed
definition voids the approve or the edit, and the call is asked about again, saying what
changed, with the offer to remember the new definition where the hold allows it. A reject
needs no check. Remembered approvals are checked the same way (`remembered.look_up`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

from langchain_core.messages import ToolCall

from common.mcp import ExpertUnavailable
from common.safety.approval import (
    Decision,
    DefinitionSeen,
    PendingCall,
    RejectDecision,
)
from common.safety.definitions import seen_of, unchanged, what_changed
from strategies.with_planner.plans import TaskState

if TYPE_CHECKING:
    from mcp.types import Tool

    from common.mcp import ExpertRegistry

logger = logging.getLogger(__name__)

CHANGED_SINCE = (
    "its tool's definition changed after you were asked ({what}), so your answer is not used "
    "and it is asked again"
)
"""Added to the reason of a call whose answer was given for another definition."""

CHANGED_MEANWHILE = (
    "Not run: {name!r}: its tool's definition changed after it was approved, while this step "
    "ran ({what}); the approval was for the previous definition. Call it again to have it asked "
    "about."
)
"""The answer to an approved call whose tool changed between the check and its turn to run."""

UNHELD_REASON = "you were asked about it"
"""The reason of a decided call the gate no longer holds, before what changed."""


async def current_definition(registry: ExpertRegistry, expert: str, name: str) -> Tool | None:
    """The tool's definition now; None when the expert lacks it or cannot be reached.

    None is never a pass: the call is then asked about with nothing to remember, or fails
    when sent (unknown tool, unavailable expert).
    """
    try:
        return await registry.definition(expert, name)
    except ExpertUnavailable as exc:
        logger.warning("definition of %s on %s unknown: %s", name, expert, exc)
        return None


def seen_with(call: PendingCall, tool: Tool | None) -> PendingCall:
    """`call` carrying the definition the question shows (unchanged when it is unknown)."""
    if tool is None:
        return call
    return PendingCall(**{**call, "definition": seen_of(tool)})


def definitions_seen(task: TaskState, keys: Mapping[str, str]) -> dict[str, DefinitionSeen]:
    """The definition each of the round's decisions was given for, by call id (when kept)."""
    records = task.get("decisions") or {}
    released = task["approval"]
    seen: dict[str, DefinitionSeen] = {}
    for cid, key in keys.items():
        record = released if released is not None else records.get(key)
        if record is not None and record["type"] != "reject" and "definition" in record:
            seen[cid] = record["definition"]
    return seen


async def voided(
    registry: ExpertRegistry,
    expert: str,
    calls: list[ToolCall],
    decisions: Mapping[str, Decision],
    seen: Mapping[str, DefinitionSeen],
    gated: Mapping[str, PendingCall],
) -> dict[str, PendingCall]:
    """Decided calls whose tool changed since the question, as they are asked again, by call id."""
    again: dict[str, PendingCall] = {}
    for call in calls:
        cid = call["id"] or ""
        before = seen.get(cid)
        if before is None or isinstance(decisions.get(cid), RejectDecision) or cid not in decisions:
            continue
        tool = await current_definition(registry, expert, call["name"])
        if tool is None or unchanged(before, tool):
            continue
        what = what_changed(before, tool)
        logger.warning("answer on %s (%s) not used: its definition changed: %s", cid, expert, what)
        base = gated.get(cid) or _unheld(call, expert)
        reason = f"{base['reason']}; {CHANGED_SINCE.format(what=what)}"
        again[cid] = PendingCall(**{**base, "reason": reason, "definition": seen_of(tool)})
    return again


async def changed_meanwhile(
    registry: ExpertRegistry, expert: str, checked: PendingCall | None
) -> str | None:
    """What changed in the tool of an approved call since the round checked it; None if nothing.

    The round checks every call before any runs; a call that runs after others is checked
    again, since a server may change its tools (and say so) while an earlier call runs.
    """
    before = checked.get("definition") if checked is not None else None
    if before is None or checked is None:
        return None
    tool = await current_definition(registry, expert, checked["name"])
    if tool is None or unchanged(before, tool):
        return None
    return CHANGED_MEANWHILE.format(name=checked["name"], what=what_changed(before, tool))


def _unheld(call: ToolCall, expert: str) -> PendingCall:
    """A decided call the gate no longer holds: still asked, since the answer was for another."""
    cid, name = call["id"] or "", call["name"]
    return PendingCall(id=cid, expert=expert, name=name, args=call["args"], reason=UNHELD_REASON)
