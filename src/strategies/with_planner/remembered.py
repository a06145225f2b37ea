"""Remembered approvals in a run: looked up where the gate holds a call, kept once answered.

The rules (what may be remembered, what voids it) are `common.safety.trust`'s; this module only
finds the store and the live tool definition, so the nodes stay wiring. The user is the one the
run works for, the thread's owner when served: an approver's resume neither uses nor adds to
the approver's own.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langgraph.store.base import BaseStore

from common.mcp.config import ServerConfig
from common.safety.approval import ApproveDecision, Decision, PendingCall
from common.safety.gate import GateDecision
from common.safety.trust import Changed, consulted, offer_for, remember, remembered
from common.served.approvers import may_remember, rule_for

if TYPE_CHECKING:
    from mcp.types import Tool

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class TrustScope:
    """Whose remembered approvals apply to a run, and the store that keeps them."""

    store: BaseStore
    """The graph's store."""
    user: str
    """The user the run works for (`Caller.turn_user`): the thread's owner, served."""


@dataclass(frozen=True)
class Looked:
    """What remembered approvals say about one held call."""

    cleared: bool
    """A remembered approval stands for the reviewer's: the call runs without a question."""
    call: PendingCall
    """The call as the reviewer would see it: the offer to remember, a rug pull's reason."""


def scope_for(store: BaseStore | None, user: str) -> TrustScope | None:
    """`user`'s trust scope (the user the run works for); None without a store."""
    if store is None:
        return None
    return TrustScope(store, user)


async def look_up(
    scope: TrustScope | None,
    config: ServerConfig,
    mode: object,
    verdict: GateDecision,
    pending: PendingCall,
    tool: Tool | None,
) -> Looked:
    """Whether a remembered approval clears the held call `pending`; else how to ask about it.

    `tool` is the tool's current definition (`ExpertRegistry.definition`), None when unknown.
    A rug pull (the definition changed since it was remembered) is asked about, saying what
    changed, and offers to remember the new definition.
    """
    if scope is None or not consulted(mode, verdict):
        return Looked(False, pending)
    expert, name = pending["expert"], pending["name"]
    if tool is None:
        # Without the live definition nothing can be compared: ask, offer nothing.
        return Looked(False, pending)
    if not may_remember(rule_for(config, name, None)):
        # Approvers must answer this tool's questions: nothing remembered stands in for them.
        return Looked(False, pending)
    found = await remembered(scope.store, scope.user, config, tool)
    if found is not None and not isinstance(found, Changed):
        logger.info("remembered approval (since %s) cleared %s on %s", found["since"], name, expert)
        return Looked(True, pending)
    asked = PendingCall(**{**pending, "remember": offer_for(config, tool)})
    if isinstance(found, Changed):
        logger.warning("remembered approval of %s on %s voided: %s", name, expert, found.reason())
        asked["reason"] = f"{pending['reason']}; {found.reason()}"
    return Looked(False, asked)


def remembered_decision() -> Decision:
    """The decision a remembered approval stands for: approve, as proposed."""
    return ApproveDecision(type="approve")


async def keep_chosen(
    scope: TrustScope | None, calls: list[PendingCall], decisions: Mapping[str, Decision]
) -> list[dict[str, Any]]:
    """Remember every approval given with `remember` on a call that offered it; what was kept."""
    kept: list[dict[str, Any]] = []
    for call in calls:
        decision = decisions[call["id"]]
        offer = call.get("remember")
        if not (isinstance(decision, ApproveDecision) and decision.remember and offer):
            continue
        if scope is None:
            logger.warning("not remembered (no store): %s on %s", call["name"], call["expert"])
            continue
        await remember(scope.store, scope.user, call["expert"], call["name"], offer)
        kept.append({"expert": call["expert"], "tool": call["name"], "user": scope.user})
    return kept
