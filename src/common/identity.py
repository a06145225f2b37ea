"""Whose run it is, whose thread it is, and where that user's records live in the store.

One rule for the run's user (`run_user`): on a server with auth, the authenticated identity the
server put in the run's config; otherwise (embedding, the CLI, a server without auth, which is one
local user) the context's `user_id`, else DEFAULT_USER. It says who sent a run: who answered a
question (the resume's stamp), so a client cannot name another user to read or forge theirs.

One rule for the thread's owner: served with auth, a thread and its turns are the owner's, the
authenticated identity of the run that began its first turn (`owner_to_stamp`, kept in the
graph's state by the planner and never changed: with auth only the owner may start a turn on its
threads, and no client may write the state). Every later run of the thread works for the owner,
an approver's resume included: the thread's record of results, what its experts returned, the
approved-call ledger and kept history (`records_owner`), and the turn's memory of past runs,
remembered approvals, who asked its questions and whose audit trail holds them (`turn_user`).
A run's client-settable metadata is never read for either: it could name anyone.

Store layout: every record the graph keeps is under `("mcp_planner", <kind>, <user label>, ...)`
(`user_namespace`), so the store API can tell whose a namespace is from its third element.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from common.settings import get_settings

DEFAULT_USER = "default"
"""The run's user when none is named and the server has no auth (the one local user)."""

ROOT = "mcp_planner"
"""First element of every namespace the graph writes."""

_SAFE_LABEL = re.compile(r"(?!u-)[A-Za-z0-9_-]{1,64}")
"""A user id kept readable as a label; `u-` is left to digests, so none can pose as another."""


def auth_identity(configurable: Mapping[str, Any]) -> str | None:
    """The identity the server authenticated for this run, if any.

    The user object in `langgraph_auth_user` first: both LangGraph servers and Aegra set it
    themselves. Then `langgraph_auth_user_id`, which LangGraph sets but Aegra leaves as the
    client sent it (as it does `user_id`), so it never outranks the user object.
    """
    user = configurable.get("langgraph_auth_user")
    found = user.get("identity") if isinstance(user, Mapping) else _identity_of(user)
    if not (isinstance(found, str) and found.strip()):
        found = configurable.get("langgraph_auth_user_id")
    return found if isinstance(found, str) and found.strip() else None


def _identity_of(user: object) -> object:
    """The `identity` attribute of a user object (Aegra's), if it has one."""
    return getattr(user, "identity", None)


def auth_roles(configurable: Mapping[str, Any]) -> tuple[str, ...]:
    """The roles the server authenticated for this run (none when it names none).

    LangGraph servers put them in `langgraph_auth_permissions`; Aegra in its user object's
    `permissions`.
    """
    found = configurable.get("langgraph_auth_permissions")
    if found is None:
        user = configurable.get("langgraph_auth_user")
        found = user.get("permissions") if isinstance(user, Mapping) else None
        found = found if found is not None else getattr(user, "permissions", None)
    if not isinstance(found, list | tuple):
        return ()
    return tuple(r for r in found if isinstance(r, str))


def served_with_auth() -> bool:
    """Whether the server authenticates its clients (else there is one local user)."""
    return get_settings().auth_on


def run_roles(config: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The run's roles: the authenticated ones when served with auth, else none (fail closed)."""
    if not served_with_auth():
        return ()
    return auth_roles((config or {}).get("configurable") or {})


def run_user(config: Mapping[str, Any] | None, context_user: str | None) -> str:
    """The run's user: the authenticated identity when served with auth, else the context's."""
    identity = auth_identity((config or {}).get("configurable") or {})
    if identity is not None and served_with_auth():
        return identity
    if isinstance(context_user, str) and context_user.strip():
        return context_user
    return DEFAULT_USER


def owner_to_stamp(config: Mapping[str, Any] | None) -> str | None:
    """Who a thread's first turn makes its owner: the authenticated identity, served with auth.

    None otherwise (embedding, the CLI, a server without auth): there is one local user, and
    nothing is stamped, so every rule below stays as it was.
    """
    if not served_with_auth():
        return None
    return auth_identity((config or {}).get("configurable") or {})


def records_owner(config: Mapping[str, Any] | None, owner: str | None) -> str:
    """Whose a thread's records are (its results, what experts returned, its call ledger).

    Served with auth, the thread's `owner` as its state records it (`owner_to_stamp`), whoever
    runs it now: an approver's resume adds to the owner's records and reads them, so the
    data-leaving check and the ledger see the whole thread. A thread begun before owners were
    stamped falls back to the run's authenticated identity. Without auth, the one local user,
    whatever `user_id` a run names, so every run of a thread finds the same records.
    """
    if not served_with_auth():
        return DEFAULT_USER
    if owner:
        return owner
    return auth_identity(((config or {}).get("configurable")) or {}) or DEFAULT_USER


def turn_user(config: Mapping[str, Any] | None, owner: str | None, context_user: str | None) -> str:
    """The user a run works for: the thread's `owner` served with auth, else the run's user.

    The memory of past runs, remembered approvals ("don't ask again"), who asked a question and
    whose audit trail it goes to all ask this, so an approver's resume neither reads nor writes
    the approver's own: the turn stays the requester's. Without auth (or before owners were
    stamped) it is `run_user`, as it always was.
    """
    if owner and served_with_auth():
        return owner
    return run_user(config, context_user)


def user_label(user: str) -> str:
    """The user as one store namespace element: readable when plain, else a digest."""
    # Store namespace labels may not contain periods (emails do), and each backend has its own
    # limits: a plain id is kept readable, any other one becomes a digest.
    if _SAFE_LABEL.fullmatch(user):
        return user
    return "u-" + hashlib.sha256(user.encode()).hexdigest()[:40]


def user_namespace(kind: str, user: str, *rest: str) -> tuple[str, ...]:
    """Where the graph keeps a user's records of one kind (`runs`, `trust`, `results`, ...)."""
    return (ROOT, kind, user_label(user), *rest)


def owner_of(namespace: tuple[str, ...] | list[str]) -> str | None:
    """The user label a graph namespace belongs to, or None when it is not the graph's."""
    return namespace[2] if len(namespace) >= 3 and namespace[0] == ROOT else None
