"""The caller of a run: who sent it, with which roles, on whose thread; resolved once, typed.

A run enters the graph through `ScreenedGraph.stream`/`astream` (every entry point: `invoke`,
`ainvoke`, `langgraph dev`, Aegra, the CLI); there `resolve` reads the server's word on who the
caller is, once, and the graph carries the frozen `Caller` on its runtime context
(`Context.caller`). Nodes read that object and nothing else about identity, so the config keys
the servers use (`langgraph_auth_user`, `langgraph_auth_user_id`, `langgraph_auth_permissions`)
are read in this module only.

The rules:
- **Who sent the run** (`identity`): served with auth, the identity the server authenticated;
  otherwise (embedding, the CLI, a server without auth: one local user) the context's
  `user_id`, else DEFAULT_USER. It says who answered a question, so nobody names another user.
- **Whose thread** (`owner`): served with auth, the identity of the run that began the thread's
  first turn, kept in the thread's state and never changed (only its owner begins a turn). Every
  later run works for the owner, an approver's resume included: the thread's records
  (`records_owner`) and the turn's memory, remembered approvals and audit trail (`turn_user`).
  A run's client-settable metadata is never read for either: it could name anyone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from common.served.identity import DEFAULT_USER
from common.settings import get_settings

USER_KEY = "langgraph_auth_user"
"""Config key of the user object both LangGraph servers and Aegra set themselves."""

USER_ID_KEY = "langgraph_auth_user_id"
"""Config key LangGraph sets to the identity (Aegra leaves it as the client sent it)."""

ROLES_KEY = "langgraph_auth_permissions"
"""Config key of the roles LangGraph sets (Aegra keeps a client's): never read for roles."""

IDENTITY_KEYS = (USER_ID_KEY, USER_KEY)
"""Config keys through which a server tells the graph who the caller is."""


@dataclass(frozen=True)
class Caller:
    """Who sent a run and on whose thread: resolved where the run enters the graph."""

    identity: str
    """Who sent the run: the authenticated identity, served with auth; else the local user."""
    roles: tuple[str, ...] = ()
    """The roles the server authenticated (none without auth: fail closed)."""
    owner: str | None = None
    """The thread's owner as its state records it (served with auth; None before its first turn)."""
    served: bool = False
    """Whether a server with auth named the caller (else embedded, the CLI, or no auth)."""

    @property
    def owner_to_stamp(self) -> str | None:
        """Who a thread's first turn makes its owner: the caller, served with auth; else nobody."""
        return self.identity if self.served else None

    @property
    def records_owner(self) -> str:
        """Whose the thread's records are: its owner (else the caller), served; else the local user.

        An approver's resume adds to the owner's records and reads them, so the data-leaving
        check and the call ledger see the whole thread. Without auth, the one local user,
        whatever `user_id` a run names, so every run of a thread finds the same records.
        """
        if not self.served:
            return DEFAULT_USER
        return self.owner or self.identity

    @property
    def turn_user(self) -> str:
        """The user a run works for: the thread's owner served with auth, else the caller.

        Memory of past runs, remembered approvals, who asked a question and whose audit trail
        holds it ask this, so an approver's resume neither reads nor writes the approver's own.
        """
        return self.owner if self.served and self.owner else self.identity


def local(user_id: object) -> Caller:
    """The one local user (embedding, the CLI, no auth): the context's `user_id`, else default."""
    if isinstance(user_id, str) and user_id.strip():
        return Caller(user_id)
    return Caller(DEFAULT_USER)


def auth_identity(configurable: Mapping[str, Any]) -> str | None:
    """The identity the server authenticated for this run, if any.

    The user object first: both LangGraph servers and Aegra set it themselves. Then the user id
    key, which LangGraph sets but Aegra leaves as the client sent it (as it does `user_id`), so
    it never outranks the user object.
    """
    user = configurable.get(USER_KEY)
    found = user.get("identity") if isinstance(user, Mapping) else getattr(user, "identity", None)
    if not (isinstance(found, str) and found.strip()):
        found = configurable.get(USER_ID_KEY)
    return found if isinstance(found, str) and found.strip() else None


def auth_roles(configurable: Mapping[str, Any]) -> tuple[str, ...]:
    """The roles the server authenticated for this run: its user object's (none without one).

    Never the roles key alone: LangGraph sets it, but Aegra keeps it as the client sent it,
    so a client could name itself an approver there.
    """
    user = configurable.get(USER_KEY)
    found = user.get("permissions") if isinstance(user, Mapping) else None
    found = found if found is not None else getattr(user, "permissions", None)
    if not isinstance(found, list | tuple):
        return ()
    return tuple(r for r in found if isinstance(r, str))


def owner_in(values: Mapping[str, Any] | None) -> str | None:
    """The thread's owner as its state records it, if it does.

    A thread whose turn began before owners were stamped has none; while its question waits,
    the person it was asked for (`asked.by`, the requester) stands in for the owner.
    """
    values = values or {}
    owner = values.get("owner")
    if isinstance(owner, str) and owner:
        return owner
    asked = values.get("asked")
    by = asked.get("by") if isinstance(asked, Mapping) else None
    return by if isinstance(by, str) and by else None


def resolve(
    config: Mapping[str, Any] | None, user_id: object, thread: Mapping[str, Any] | None = None
) -> Caller:
    """The caller of a run: from the server's config keys with auth on, else the local user.

    `thread` is the thread's state values (read only when served with auth); `user_id` the
    run context's.
    """
    configurable = (config or {}).get("configurable") or {}
    found = auth_identity(configurable) if get_settings().auth_on else None
    if found is None:
        return local(user_id)
    return Caller(found, auth_roles(configurable), owner_in(thread), served=True)


def of(context: object) -> Caller:
    """The caller a run's context carries; the local user of its `user_id` when it has none.

    Only a graph entered other than through `ScreenedGraph` (a node called directly) lacks one:
    it gets no served identity and no roles (fail closed).
    """
    found = getattr(context, "caller", None)
    if isinstance(found, Caller):
        return found
    return local(getattr(context, "user_id", None))
