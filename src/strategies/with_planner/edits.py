"""A reviewer's edit runs only what the reviewer was asked about.

An edit changes a call's arguments, never its tool (an edit naming another tool is refused when
the answer is read: `common.safety.approval.check_edits`). The edited arguments go through the
gate again before anything runs: when they are held for a reason of their own (an argument rule,
data leaving) that the reviewer was not shown, the edited call is asked about again, saying why,
and approving that question runs the edit as shown (`approval.as_answered`). A hold by the tool
itself is the one the reviewer already answered, so it is never asked twice.

An edit is held for a reason of its own when its hold reads differently from the one shown, or
when it carries any text of other experts' results the call shown did not (`GateDecision.
carried`), even where the reason reads the same: keeping the URL that was held and adding an
IBAN in a header is a new hold, whichever format the answer came in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_core.messages import ToolCall

from common.safety.approval import Decision, EditDecision, PendingCall, ReviewedEdit
from common.safety.gate import (
    ASKED_AGAIN,
    PER_CALL_HOLDS,
    Gate,
    GateDecision,
    check_call,
    hold_of,
)

if TYPE_CHECKING:
    from common.mcp import ExpertRegistry


async def edits_asked_again(
    gate: Gate,
    registry: ExpertRegistry,
    expert: str,
    calls: list[ToolCall],
    decisions: dict[str, Decision],
    gated: dict[str, PendingCall],
) -> dict[str, PendingCall]:
    """The edited calls to ask about again, by call id: held for a reason nobody was shown.

    `gated` holds the questions the reviewer answered (their reasons are what was shown).
    """
    again: dict[str, PendingCall] = {}
    for call in calls:
        cid = call["id"] or ""
        decision = decisions.get(cid)
        if not isinstance(decision, EditDecision):
            continue
        args = decision.edited_action.args
        verdict = await check_call(gate, registry, expert, call["name"], args)
        hold = hold_of(verdict)
        if not verdict.needs_approval or verdict.source not in PER_CALL_HOLDS:
            continue
        shown = decision.held if isinstance(decision, ReviewedEdit) else _reason(gated, cid)
        if hold != shown or await _carries_more(gate, registry, verdict, decision, gated.get(cid)):
            again[cid] = PendingCall(
                id=cid,
                expert=expert,
                name=call["name"],
                args=args,
                reason=ASKED_AGAIN.format(hold=hold),
                held=hold,
            )
    return again


async def _carries_more(
    gate: Gate,
    registry: ExpertRegistry,
    verdict: GateDecision,
    decision: EditDecision,
    shown: PendingCall | None,
) -> bool:
    """Whether the edit carries other experts' data the call the reviewer was shown did not.

    An approved edit asked about again was shown as it is: it carries nothing more.
    """
    if not verdict.carried or isinstance(decision, ReviewedEdit) or shown is None:
        return False
    before = await check_call(gate, registry, shown["expert"], shown["name"], shown["args"])
    return bool(verdict.carried - before.carried)


def _reason(gated: dict[str, PendingCall], cid: str) -> str:
    """The reason the reviewer was shown for call `cid` ('' when it was not asked about)."""
    found = gated.get(cid)
    return found["reason"] if found is not None else ""
