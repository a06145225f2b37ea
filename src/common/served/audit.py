"""The audit trail: every question asked and every answer given, appended to the store.

One entry per event, in the LangGraph store (so it lives wherever the graph's store does:
memory, SQLite, PostgreSQL, a LangGraph server or Aegra), never in the checkpoints, which a
client may rewrite with a state update. The layout is made to be protected by a store rule
like every record of the graph's (`common.served.identity.user_namespace`):

    ("mcp_planner", "audit", <user label>)   key: "<UTC time, sortable>-<event digest prefix>"

Served with auth, a client may read its own trail and an `auditor` may read everyone's; no
client may write one (`common.served.handlers.on_store`).

`<user label>` is whose trail it is, as `common.served.identity.user_label` writes it (a plain id
as is, any other as `u-` and a digest): a thread's questions and answers are in its owner's
trail, and an answer someone else gave (an approver) is in theirs too, under the same `id`
(`entries` lists it once). An entry keeps digests of what was asked and answered
(SHA-256 of canonical JSON), never the arguments, an edit or an answer's text: they may hold
private data. The graph only appends: an event already in the trail (a node re-run after a
resume replays its questions) is found by its digest and not written again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, TypedDict

from langgraph.store.base import BaseStore

from common.safety.approval import Decision, EditDecision, PendingCall, RejectDecision
from common.served.identity import ROOT as IDENTITY_ROOT
from common.served.identity import user_namespace

ROOT = (IDENTITY_ROOT, "audit")
"""The first element of every audit namespace (one namespace per user under it)."""

PAGE = 100
"""Entries read per store search."""

WHY_CHARS = 300
"""How much of a refused answer's reason an entry keeps."""

Event = Literal["asked", "answered"]
"""A question put to a person, or their answer to it."""

AuditDecision = Literal["approve", "edit", "reject", "remember", "refused", "answer", "decline"]
"""What an answer decided: an approval's decision, a refused answer, a question's answer."""


class AuditEntry(TypedDict):
    """One event of the trail as the store keeps it."""

    id: str
    """Digest of the event's identity (thread, stop, call, event, attempt): written once."""
    at: str
    """When it was recorded (ISO 8601, UTC)."""
    user: str
    """Whose question it was (the thread's owner), or who answered it."""
    thread_id: str
    """The thread it happened on."""
    event: Event
    """`asked` or `answered`."""
    expert: str
    """The expert whose call (or question) it is about."""
    tool: str
    """The tool called (`ask_user` for an expert's question)."""
    task_id: str
    """The plan task that waits."""
    args_digest: str
    """SHA-256 of the call's arguments as canonical JSON (never the arguments themselves)."""
    decision: AuditDecision | None
    """What the answer decided; None for a question asked."""
    why: str | None
    """For a refused answer, why it was refused (the answer itself left out)."""
    edit_digest: str | None
    """For an edit, SHA-256 of the edited arguments as canonical JSON."""
    answer_digest: str | None
    """For a reject's message or a question's answer, SHA-256 of its text."""
    remember: bool
    """Whether the approval was given with "don't ask again"."""


def digest(value: Any) -> str:
    """SHA-256 of `value` as canonical JSON (sorted keys, no spaces): the same data, the same."""
    text = json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr
    )
    return hashlib.sha256(text.encode()).hexdigest()


def namespace(user: str) -> tuple[str, ...]:
    """Where a user's audit entries live."""
    return user_namespace("audit", user)


def now() -> str:
    """The current time as entries record it (ISO 8601, UTC, microseconds)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def entry_key(entry: AuditEntry) -> str:
    """A store key that sorts by time and is unique per event."""
    stamp = datetime.fromisoformat(entry["at"]).strftime("%Y%m%dT%H%M%S.%fZ")
    return f"{stamp}-{entry['id'][:16]}"


def decision_fields(decision: Decision) -> dict[str, Any]:
    """An approval decision's fields in an entry: its kind and digests, never its text."""
    if isinstance(decision, EditDecision):
        return {"decision": "edit", "edit_digest": digest(decision.edited_action.args)}
    if isinstance(decision, RejectDecision):
        said = decision.message.strip()
        return {"decision": "reject", "answer_digest": digest(said) if said else None}
    if decision.remember:
        return {"decision": "remember", "remember": True}
    return {"decision": "approve"}


def without_answer(why: str, shown: str) -> str:
    """A refused answer's reason with the answer's quoted text (`shown`) left out, cut short."""
    text = why.replace(shown, "<the answer>") if shown else why
    return text if len(text) <= WHY_CHARS else text[:WHY_CHARS] + "…"


async def append(store: BaseStore, entry: AuditEntry, trail: str | None = None) -> bool:
    """Add `entry` to `trail`'s trail (default: its user's) unless it is there; whether added."""
    ns = namespace(entry["user"] if trail is None else trail)
    if await store.asearch(ns, filter={"id": entry["id"]}, limit=1):
        return False
    await store.aput(ns, entry_key(entry), dict(entry), index=False)
    return True


async def entries(
    store: BaseStore,
    user: str | None = None,
    thread: str | None = None,
    since: str | None = None,
) -> list[AuditEntry]:
    """The trail (one user's, or everyone's when None), oldest first, filtered as asked.

    `since` is an ISO 8601 time (UTC when it names no zone); earlier entries are left out.
    """
    prefix = namespace(user) if user is not None else ROOT
    where = {"thread_id": thread} if thread is not None else None
    found: list[AuditEntry] = []
    offset = 0
    while True:
        page = await store.asearch(prefix, filter=where, limit=PAGE, offset=offset)
        found += [i.value for i in page]  # type: ignore[misc]
        if len(page) < PAGE:
            break
        offset += PAGE
    return in_order(found, since)


def in_order(found: list[AuditEntry], since: str | None = None) -> list[AuditEntry]:
    """`found` oldest first, each event once, without those before `since` (ISO 8601; UTC).

    An event in two trails (an approver's answer: the owner's and the approver's) is one event.
    """
    start = as_utc(since) if since is not None else None
    once = {e["id"]: e for e in found}.values()
    kept = [e for e in once if start is None or as_utc(e["at"]) >= start]
    return sorted(kept, key=lambda e: (e["at"], e["id"]))


def as_utc(text: str) -> datetime:
    """An ISO 8601 date or time as an aware UTC datetime (a time with no zone is UTC)."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


@dataclass(frozen=True)
class Trail:
    """Where one stop's events go: the store, whose trail, the thread and the stop."""

    store: BaseStore
    """The graph's store."""
    user: str
    """Whose trail: the user the run works for (a graph thread's owner, served with auth)."""
    thread_id: str
    """The thread the run is on."""
    stop: str
    """The asking node's task (its checkpoint namespace), the same across its re-runs."""


def call_entry(
    trail: Trail,
    call: PendingCall,
    task_id: str,
    key: str,
    event: Event,
    step: str,
    **fields: Any,
) -> AuditEntry:
    """An entry about `call` of `task_id` (its call `key`), one event of the stop."""
    where = [trail.thread_id, trail.stop, task_id, key, event, step]
    base = AuditEntry(
        id=digest(where),
        at=now(),
        user=trail.user,
        thread_id=trail.thread_id,
        event=event,
        expert=call["expert"],
        tool=call["name"],
        task_id=task_id,
        args_digest=digest(call["args"]),
        decision=None,
        why=None,
        edit_digest=None,
        answer_digest=None,
        remember=False,
    )
    return AuditEntry(**{**base, **fields})  # type: ignore[typeddict-item]
