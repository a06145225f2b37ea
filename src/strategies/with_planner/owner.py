"""Whose thread a run works on, read from the graph's state for the nodes.

The rules are `common.identity`'s (`owner_to_stamp`, `records_owner`, `turn_user`); this module
only finds the thread's owner in the state a node sees (the parent graph's `State`, or a task
run's `TaskInput`, which carries it) and the running config, so the nodes stay wiring.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.config import get_config

from common import identity


def owner_in(state: Mapping[str, Any]) -> str | None:
    """The thread's owner as the state records it, if it does.

    A thread whose turn began before owners were stamped has none; while its question waits,
    the person it was asked for (`asked.by`, the requester) stands in for the owner.
    """
    owner = state.get("owner")
    if isinstance(owner, str) and owner:
        return owner
    asked = state.get("asked")
    by = asked.get("by") if isinstance(asked, Mapping) else None
    return by if isinstance(by, str) and by else None


def new_owner(state: Mapping[str, Any]) -> str | None:
    """The owner to write as a turn begins: the run's identity, on a thread that has none yet.

    Once written it stays: only its owner begins a thread's turns, so a later run that is not
    the owner's (an approver's resume) never gets here, and the records never change hands.
    """
    if isinstance(state.get("owner"), str) and state.get("owner"):
        return None
    if not identity.served_with_auth():
        # One local user: nothing to stamp (and no run config to read).
        return None
    return identity.owner_to_stamp(get_config())


def records_owner(state: Mapping[str, Any]) -> str:
    """Whose the thread's records are (`common.identity.records_owner`)."""
    return identity.records_owner(get_config(), owner_in(state))


def turn_user(state: Mapping[str, Any], context_user: str | None) -> str:
    """The user the run works for (`common.identity.turn_user`): the owner, served with auth."""
    return identity.turn_user(get_config(), owner_in(state), context_user)
