"""Whose run it is, and where that user's records live in the store.

One rule for the run's user (`run_user`): on a server with auth, the authenticated identity the
server put in the run's config; otherwise (embedding, the CLI, a server without auth, which is one
local user) the context's `user_id`, else DEFAULT_USER. Memory of past runs, remembered
approvals, the thread's record of results, the approved-call ledger and the audit trail all ask
it, so a client cannot name another user to read or forge theirs.

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


def run_roles(config: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The run's roles: the authenticated ones when served with auth, else none (fail closed)."""
    if not get_settings().auth_on:
        return ()
    return auth_roles((config or {}).get("configurable") or {})


def run_user(config: Mapping[str, Any] | None, context_user: str | None) -> str:
    """The run's user: the authenticated identity when served with auth, else the context's."""
    identity = auth_identity((config or {}).get("configurable") or {})
    if identity is not None and get_settings().auth_on:
        return identity
    if isinstance(context_user, str) and context_user.strip():
        return context_user
    return DEFAULT_USER


def records_owner(config: Mapping[str, Any] | None) -> str:
    """Whose a thread's records are (its results, what experts returned, its call ledger).

    Served with auth, the authenticated identity: only a thread's owner runs the graph on it.
    Otherwise the one local user, whatever `user_id` a run names, so every run of a thread finds
    the same records. (The client-settable run metadata is never read: it could name anyone.)
    """
    identity = auth_identity(((config or {}).get("configurable")) or {})
    if identity is not None and get_settings().auth_on:
        return identity
    return DEFAULT_USER


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
