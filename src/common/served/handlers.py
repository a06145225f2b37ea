"""The served instance's `Auth`: who each client is, and what each may see and set.

`langgraph.json`, `langgraph.noui.json` and `aegra.json` name `auth` here (Aegra reads the same
`langgraph_sdk.Auth`). Authentication is `tokens`' (bearer JWT or `x-api-key`); without any
auth setting every client is the one local user, said once at start. Authorization: threads,
runs, crons and assistants carry an `owner` and are filtered by it, so another user's get a
404 and never show in a search; store namespaces belong to the caller (`identity` layout); a
run, assistant or cron whose context would configure the server is refused at the API edge
with `context_rule.refusal`'s sentence (403), before anything runs. Studio's own user keeps
full access (LangGraph authenticates it itself). Each request is read through `requests`, the
one reader of the two servers' shapes.

Loading this module checks the settings (`startup.checked_or_stop`); a bad one stops the
server with its sentence, since Aegra would otherwise log the error and serve with no auth.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping
from typing import Any

from langgraph_sdk import Auth

from common.mcp.config import McpConfigError, load_mcp_config
from common.served import requests
from common.served.caller import IDENTITY_KEYS, ROLES_KEY, auth_identity
from common.served.context_rule import check_served_fields, refusal
from common.served.identity import DEFAULT_USER, owner_of, user_label
from common.served.startup import checked_or_stop
from common.served.tokens import Principal, Unauthenticated, principal_of_key, principal_of_token
from common.settings import Settings, get_settings

logger = logging.getLogger(__name__)

OWNER = "owner"
"""The metadata key naming who created a thread, run, cron or assistant."""

APPROVERS = "approvers"
"""The thread metadata key naming the roles that may answer its questions (set by the server)."""

AUDITOR = "auditor"
"""The role that may read every user's audit trail."""

LOCAL_MODE = (
    "No AUTH_JWT_SECRET, AUTH_JWKS_URL or AUTH_API_KEYS is set: every client of this server is "
    f"the one local user {DEFAULT_USER!r} (set one of them before serving more than yourself)."
)
"""The one line a server without auth logs at start."""

GRAPH_RECORDS = (
    "The planner's records are written by the server only; a client may read its own, under "
    "('mcp_planner', <kind>, <your identity>)."
)
"""Why a client may not write, or read another user's, graph namespace."""

STATE_WRITES = (
    "A thread's state is written by the graph only: send a new message, or answer its question "
    "with command={'resume': ...} (a state update, and a command's update or goto, are refused)."
)
"""Why a client may not write a thread's state itself (it holds the turn's settings)."""

OWN_NAMESPACE = "Store namespaces of clients start with the caller's identity: use ({me!r}, ...)."
"""Why a client may not use another namespace (formatted with the caller's label)."""

BAD_LABEL = "Store namespace labels are non-empty and contain no period ('.'): rename the label."
"""Why a namespace with an empty or dotted label is refused (400)."""

STORE_SCOPE = "store_scope"
"""The user field `aegra.json` names for the store prefix 'mcp_planner' (`store.scopes`)."""

SHARED_KIND = "audit"
"""That field's value, the same for every user: the kind of record Aegra leaves in place.

Aegra files every Store API request under ["users", <caller>, ...] after this module's handler
has judged it (aegra_api/api/store.py `apply_namespace_scoping`, applied by each store route
after `handle_event`; the handler cannot undo it). Only a prefix `store.scopes` maps to user
fields escapes: it is filed under [prefix, <their values>], and left as it is when it already
starts so. With "mcp_planner" mapped to this field, ("mcp_planner", "audit", <label>) is read
where the graph writes it, on Aegra as on a LangGraph server, and `on_store` alone decides who
reads it; no client writes under "mcp_planner" on either. The graph's other records stay
unreadable through Aegra's Store API (found empty, under ["mcp_planner", "audit", ...]).
"""


if not checked_or_stop(check_served_fields).auth_on:
    logger.warning(LOCAL_MODE)

auth = Auth()
"""The served instance's authentication and authorization."""


async def principal(headers: Mapping[Any, Any], settings: Settings) -> Principal:
    """The caller the request's credentials name (Unauthenticated when none is valid)."""
    if not settings.auth_on:
        return Principal(DEFAULT_USER)
    key = requests.header(headers, "x-api-key")
    if key and settings.auth_api_keys:
        return principal_of_key(key, settings)
    scheme, _, token = (requests.header(headers, "authorization") or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated(
            "This server needs a bearer token (Authorization: Bearer <token>) or an API key "
            "(x-api-key): send one."
        )
    return await principal_of_token(token.strip(), settings)


@auth.authenticate
async def authenticate(headers: dict[Any, Any]) -> dict[str, Any]:
    """Who the caller is; a missing, malformed, expired or forged credential is a 401.

    A `MinimalUserDict` and one field more, `STORE_SCOPE` (both servers keep extra fields).
    """
    try:
        who = await principal(headers, get_settings())
    except Unauthenticated as exc:
        raise Auth.exceptions.HTTPException(status_code=401, detail=str(exc)) from None
    return {
        "identity": who.identity,
        "permissions": list(who.roles),
        "is_authenticated": True,
        STORE_SCOPE: SHARED_KIND,
    }


def _studio(ctx: Auth.types.AuthContext) -> bool:
    """Whether LangGraph Studio's own user calls a server without auth (the one local user).

    With auth on it is trusted with nothing: `langgraph dev` names a request Studio's user on a
    header alone (`x-auth-scheme: langsmith`, no credential), so `langgraph.json` turns that off
    (`disable_studio_auth`) and Studio signs in like any client; should a deployment leave it on,
    the user it names is still no one here.
    """
    return isinstance(ctx.user, Auth.types.StudioUser) and not get_settings().auth_on


def _forbidden(sentence: str) -> Auth.exceptions.HTTPException:
    return Auth.exceptions.HTTPException(status_code=403, detail=sentence)


def _check_context(ctx: Auth.types.AuthContext, *contexts: Any) -> None:
    """Refuse (403) a context that would configure the server, naming the field."""
    caller = ctx.user.identity if get_settings().auth_on else None
    for given in contexts:
        if isinstance(given, Mapping) and (why := refusal(given, get_settings(), caller)):
            raise _forbidden(why)


def _check_identity_keys(ctx: Auth.types.AuthContext, value: object) -> None:
    """Refuse (403) a `config.configurable` naming someone other than the caller.

    The server tells the graph who the caller is through these keys (`common.served.caller`
    reads them). LangGraph sets them itself before asking this handler; a server that let the
    client's value stand would let the client be anyone, so one that names another is refused.
    """
    for configurable in requests.configurables(value):
        for key in IDENTITY_KEYS:
            if key in configurable and auth_identity({key: configurable[key]}) != (
                ctx.user.identity
            ):
                raise _forbidden(
                    f"The config key {key!r} is set by the server to the signed-in user: "
                    "leave it out."
                )
        named = configurable.get(ROLES_KEY)
        if named is not None and sorted(map(str, named)) != sorted(ctx.permissions):
            # Aegra keeps a client's roles key as sent (LangGraph overwrites it).
            raise _forbidden(
                f"The config key {ROLES_KEY!r} is set by the server to your roles: leave it out."
            )


def _owned(ctx: Auth.types.AuthContext, value: Any) -> dict[str, str]:
    """Stamp the caller as owner of what is being created; the filter that keeps it theirs."""
    if isinstance(value, dict):
        metadata = value.get("metadata")
        if not isinstance(metadata, dict):
            metadata = value["metadata"] = {}
        metadata[OWNER] = ctx.user.identity
    return {OWNER: ctx.user.identity}


def approver_roles(settings: Settings) -> list[str]:
    """Every role the server's mcp.json names as an approver (servers and per-tool rules).

    A config that cannot be read names none (the graph itself reports the error to the run).
    """
    try:
        config = load_mcp_config(None, settings.mcp_config)
    except McpConfigError as exc:
        logger.warning("approver roles not read: %s", exc)
        return []
    roles = {r for s in config.servers.values() for r in s.approvers}
    roles |= {
        r
        for s in config.servers.values()
        for o in s.approval_rules.values()
        for r in o.approvers or ()
    }
    return sorted(roles)


def _seen_by_approvers(ctx: Auth.types.AuthContext) -> dict[str, Any]:
    """The caller's own threads, and those whose approvers include one of the caller's roles."""
    mine: dict[str, Any] = {OWNER: ctx.user.identity}
    roles = sorted({r for r in ctx.permissions if isinstance(r, str)})
    if not roles:
        return mine
    return {"$or": [mine, *({APPROVERS: {"$contains": role}} for role in roles)]}


def may_reach_question(
    identity: str, roles: Iterable[str], metadata: Mapping[str, Any], server_roles: Iterable[str]
) -> bool:
    """Whether a caller may reach a thread's question: its owner, or an approver of it.

    An approver holds a role that the thread names and the server's mcp.json names too, so a
    role a client wrote into its thread's metadata grants no one anything. Aegra's approvals
    routes ask this (`aegra_approvals`); `langgraph dev` applies `_seen_by_approvers`.
    """
    if metadata.get(OWNER) == identity:
        return True
    named = metadata.get(APPROVERS)
    if not isinstance(named, list):
        return False
    return bool(set(roles) & set(named) & set(server_roles))


def answer_filter(ctx: Auth.types.AuthContext, value: Any = None) -> dict[str, Any]:
    """Which threads the caller may start runs on, answering their questions included.

    The server's decision of who may reach a thread's question: its owner, for any run; a user
    holding one of the thread's approver roles, for a run that only answers (a resume). Whether
    that person may answer that question is the graph's decision (`common.served.approvers`).
    """
    if requests.answers_only(requests.read(value)):
        return _seen_by_approvers(ctx)
    return {OWNER: ctx.user.identity}


NO_COPIES = (
    "Copying a thread is not offered on this server: start a new thread, or answer the "
    "question where it waits."
)
"""Why a thread copy is refused (403): the server cannot tell whose thread is copied."""


@auth.on.threads.create
async def on_thread_create(ctx: Auth.types.AuthContext, value: Any) -> Any:
    """A new thread is the caller's; it names the roles that may answer its questions."""
    if _studio(ctx):
        return True
    if requests.is_copy(value):
        # A copy of an approver's reach would be theirs to answer again: two runs of one call.
        raise _forbidden(NO_COPIES)
    owned = _owned(ctx, value)
    if isinstance(value, dict):
        # The server names them, from its own mcp.json; a client's list is dropped.
        value["metadata"].pop(APPROVERS, None)
        # Read off the event loop: the file is the server's, read at each creation (it may change).
        if roles := await asyncio.to_thread(approver_roles, get_settings()):
            value["metadata"][APPROVERS] = roles
    return owned


END_ONLY: tuple[Any, ...] = (None, "__end__", ["__end__"])
"""The jumps a client's command may make: none, or only to the end (Agent Chat UI's "Mark as
Resolved", which `strategies.with_planner.resume` turns into an answer that runs nothing)."""


def _check_command(asked: requests.Request) -> None:
    """Refuse (403) a run whose command writes state or jumps to a node; a resume is fine."""
    for command in asked.commands:
        if command.get("update") or command.get("goto") not in END_ONLY:
            raise _forbidden(STATE_WRITES)


@auth.on.threads.create_run
async def on_run_create(ctx: Auth.types.AuthContext, value: Any) -> Any:
    """A run only on the caller's own thread, with a context a client may set."""
    if _studio(ctx):
        return True
    asked = requests.read(value)
    _check_context(ctx, *asked.contexts)
    _check_identity_keys(ctx, value)
    _check_command(asked)
    _owned(ctx, value)
    return answer_filter(ctx, value)


@auth.on.threads.update
async def on_thread_update(ctx: Auth.types.AuthContext, value: Any) -> Any:
    """A client may change its own thread's metadata (staying its owner) and cancel its runs.

    Never its state: the state holds the turn's settings and the approvals, so a state update
    would skip every check above.
    """
    if _studio(ctx):
        return True
    if not isinstance(value, Mapping) or requests.writes_state(value):
        raise _forbidden(STATE_WRITES)
    if isinstance(value.get("metadata"), dict):
        # Who may read a thread for its questions is the server's to say, as at creation.
        value["metadata"].pop(APPROVERS, None)
    return _owned(ctx, value)


@auth.on.threads
async def on_threads(ctx: Auth.types.AuthContext, value: Any) -> Any:
    """Updating or deleting a thread: the caller's only; reading and searching, also another's.

    Another user's thread is readable when its questions may be answered by one of the caller's
    roles: an approver finds the question there, and follows the run that answers it.
    """
    if _studio(ctx):
        return True
    if ctx.action in ("read", "search"):
        return _seen_by_approvers(ctx)
    return {OWNER: ctx.user.identity}


NO_THREAD_CRONS = (
    "A cron on a thread is not offered on this server: create it without a thread "
    "(each of its runs starts a new thread of yours)."
)
"""Why a cron naming a thread is refused (403)."""


@auth.on.crons
async def on_crons(ctx: Auth.types.AuthContext, value: Any) -> Any:
    """Crons are their creator's; a cron's run context is checked like a run's."""
    if _studio(ctx):
        return True
    if ctx.action == "create":
        if isinstance(value, Mapping) and value.get("thread_id"):
            # The handler cannot see whose thread it names: a cron on a thread would run
            # messages in any thread whose id the caller knows.
            raise _forbidden(NO_THREAD_CRONS)
        _check_context(ctx, *requests.read(value).contexts)
        _check_identity_keys(ctx, value)
        return _owned(ctx, value)
    return {OWNER: ctx.user.identity}


@auth.on.assistants
async def on_assistants(ctx: Auth.types.AuthContext, value: Any) -> Any:
    """Assistants may be read by all (the graph's own has no owner); changed by their owner.

    An assistant's context and config reach every run that uses it, so they are checked like a
    run's when one is created or updated.
    """
    if _studio(ctx) or ctx.action in ("read", "search"):
        return True
    if ctx.action in ("create", "update"):
        _check_context(ctx, *requests.read(value).contexts)
        _check_identity_keys(ctx, value)
        # An update keeps the owner too: metadata naming someone else would hand it to them.
        return _owned(ctx, value)
    return {OWNER: ctx.user.identity}


@auth.on.store
async def on_store(ctx: Auth.types.AuthContext, value: Any) -> Any:
    """A client reads its own graph records and reads and writes its own namespace only."""
    if _studio(ctx):
        return True
    me = user_label(ctx.user.identity)
    namespace = requests.store_namespace(value)
    if any(not part or "." in part for part in namespace):
        # Stores join labels with periods: such a label is refused by the store itself, which
        # Aegra answers with a 500 and a dropped connection.
        raise Auth.exceptions.HTTPException(status_code=400, detail=BAD_LABEL)
    if namespace and namespace[0] == "mcp_planner":
        # Without auth there is one local user, and every record is theirs to read; an auditor
        # reads every user's audit trail.
        theirs = (
            owner_of(namespace) == me
            or not get_settings().auth_on
            or (namespace[1:2] == ("audit",) and AUDITOR in ctx.permissions)
        )
        if ctx.action in ("put", "delete") or not theirs:
            raise _forbidden(GRAPH_RECORDS)
        return True
    if not namespace or namespace[0] != me:
        raise _forbidden(OWN_NAMESPACE.format(me=me))
    return True
