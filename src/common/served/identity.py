"""Where each user's records live in the store: one namespace layout for every kind of record.

Who the user of a run is (the caller, the thread's owner) is `common.served.caller`'s.

Store layout: every record the graph keeps is under `("mcp_planner", <kind>, <user label>, ...)`
(`user_namespace`), so the store API can tell whose a namespace is from its third element.
"""

from __future__ import annotations

import hashlib
import re

DEFAULT_USER = "default"
"""The run's user when none is named and the server has no auth (the one local user)."""

ROOT = "mcp_planner"
"""First element of every namespace the graph writes."""

_SAFE_LABEL = re.compile(r"(?!u-)[A-Za-z0-9_-]{1,64}")
"""A user id kept readable as a label; `u-` is left to digests, so none can pose as another."""


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
