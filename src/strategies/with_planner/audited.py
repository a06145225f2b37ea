"""The audit trail in a run: what `await_approval` asks and what it is answered, recorded.

The rules (what an entry holds, where it lives, written once) are `common.served.audit`'s;
this module finds the thread's trail (the user the run works for: served with auth, the
thread's owner, `common.served.identity.turn_user`), its thread and stop, and turns the node's
questions and answers into entries. An answer by someone else (an approver) names them and is
added to the owner's trail and to theirs, so each reads it with their own. A stop is one wait
at `await_approval` (LangGraph re-runs the node from its start on every answer, under the same
task id, so the same stop's events are found again and not written twice; the next wait in
the thread is another task, so another stop). In
`plan_only` the answer that lists the held calls asks (`record_held`), and the planner step
that reads the next message records its answer (`record_release`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from langgraph.config import get_config
from langgraph.store.base import BaseStore

from common.safety.approval import Decision, PendingCall, decision_of, echo
from common.safety.questions import CLOSED_QUESTION, DECLINED
from common.served.approvers import unstamped
from common.served.audit import (
    AuditDecision,
    AuditEntry,
    Event,
    Trail,
    append,
    call_entry,
    decision_fields,
    digest,
    without_answer,
)
from strategies.with_planner.deferred import Released
from strategies.with_planner.state import Awaiting

logger = logging.getLogger(__name__)

DECLINED_START = DECLINED.split("{", 1)[0]
"""How the text passed on for a declined question begins."""


@dataclass
class Refusals:
    """The answers refused during one run of the asking node, in the order they came."""

    seen: list[tuple[list[str], str, Any]] = field(default_factory=list)
    """Each refused answer: the ids it was for, why, and the answer."""

    def add(self, ids: list[str], why: str, value: Any) -> None:
        """Keep one refused answer (`common.safety.approval.Refused`)."""
        self.seen.append((ids, why, value))


def trail_for(store: BaseStore | None, user: str) -> Trail | None:
    """The running node's trail, `user`'s; None without a store (nothing can be recorded)."""
    if store is None:
        logger.warning("no store: the approvals of this run are not recorded in an audit trail")
        return None
    configurable = get_config().get("configurable", {})
    return Trail(
        store,
        user,
        str(configurable.get("thread_id") or ""),
        str(configurable.get("checkpoint_ns") or ""),
    )


def _entry(trail: Trail, a: Awaiting, event: Event, step: str, **fields: Any) -> AuditEntry:
    """An entry about the waiting call `a`; `step` tells this event from the stop's others."""
    return call_entry(trail, a["call"], a["task_id"], a["key"], event, step, **fields)


async def _append(trail: Trail, entry: AuditEntry) -> None:
    """Add `entry` to the trail, and to its author's own when the author is someone else."""
    await append(trail.store, entry, trail.user)
    if entry["user"] != trail.user:
        await append(trail.store, entry)


async def record_asked(trail: Trail | None, awaiting: list[Awaiting]) -> None:
    """One `asked` entry per waiting call or question of the stop."""
    if trail is None:
        return
    for a in awaiting:
        await _append(trail, _entry(trail, a, "asked", "asked"))


async def record_refused(
    trail: Trail | None,
    awaiting: list[Awaiting],
    refusals: Refusals,
    asked_id: Callable[[Awaiting], str],
) -> None:
    """One `refused` answer entry per call a refused answer was for, with why."""
    if trail is None:
        return
    by_id = {asked_id(a): a for a in awaiting}
    counts: dict[str, int] = {}
    for ids, why, raw in refusals.seen:
        # A stamped answer names its author: the refusal goes to their trail, not the resumer's.
        value, author = unstamped(raw)
        reason = without_answer(why, echo(value))
        by = trail.user if author is None else author["by"]
        for i in ids:
            counts[i] = counts.get(i, 0) + 1
            entry = _entry(trail, by_id[i], "answered", f"refused-{counts[i]}", why=reason)
            await _append(trail, AuditEntry(**{**entry, "user": by, "decision": "refused"}))


async def record_answers(
    trail: Trail | None,
    by: str,
    awaiting: list[Awaiting],
    decisions: Mapping[str, Decision],
    answers: Mapping[str, str],
    asked_id: Callable[[Awaiting], str],
) -> None:
    """One `answered` entry per call decided and per question answered (digests only).

    `by` is who answered: the identity of the run that brought the answers.
    """
    if trail is None:
        return
    for a in awaiting:
        key = asked_id(a)
        if key in decisions:
            fields = decision_fields(decisions[key])
        elif key in answers:
            fields = _answer_fields(answers[key])
        else:
            continue
        await _append(trail, _entry(trail, a, "answered", "answer", user=by, **fields))


def _answer_fields(text: str) -> dict[str, Any]:
    """A question's answer in an entry: answered (its digest) or declined."""
    declined: AuditDecision = "decline"
    if text == CLOSED_QUESTION or text.startswith(DECLINED_START):
        return {"decision": declined}
    return {"decision": "answer", "answer_digest": digest(text)}


HELD = "held"
"""The task id of an entry about a call plan_only held back (it belongs to no running task)."""


async def record_held(trail: Trail | None, held: list[PendingCall]) -> None:
    """plan_only: one `asked` entry per call held back and listed in the turn's answer."""
    if trail is None:
        return
    for number, call in enumerate(held, start=1):
        entry = call_entry(trail, call, HELD, f"{number}:{call['id']}", "asked", "asked")
        await _append(trail, entry)


async def record_released(
    trail: Trail | None,
    held: list[PendingCall],
    decisions: list[Decision] | None,
    why: str | None = None,
    shown: str = "",
) -> None:
    """plan_only: the message's decision on each held call, or why it was not used.

    `shown` is how the refusal quotes the message, left out of the entry.
    """
    if trail is None:
        return
    for number, call in enumerate(held, start=1):
        if decisions is not None:
            fields = decision_fields(decisions[number - 1])
        else:
            fields = {"decision": "refused", "why": without_answer(why or "", shown)}
        key = f"{number}:{call['id']}"
        entry = call_entry(trail, call, HELD, key, "answered", "answer", **fields)
        await _append(trail, entry)


async def record_release(
    store: BaseStore | None,
    user: str,
    held: list[PendingCall],
    released: Released,
    message: str,
) -> None:
    """plan_only: a message that answered the held calls, recorded in `user`'s trail."""
    trail = trail_for(store, user)
    if isinstance(released, str):
        await record_released(trail, held, None, released, _quoted(message))
    elif released is not None:
        decided = [decision_of(t["approval"]) for t in released if t["approval"] is not None]
        await record_released(trail, held, decided)


def _quoted(message: str) -> str:
    """How a refusal quotes a JSON message (its parsed value's echo), to leave it out."""
    try:
        return echo(json.loads(message))
    except (json.JSONDecodeError, RecursionError):
        return ""
