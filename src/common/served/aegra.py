"""Aegra's approvals routes: an approver reaches another user's question there, and no more.

Written as routes of our own because Aegra (aegra-api 0.11.0) files every thread and run under
the user who created it: each thread query carries `user_id == <caller>` in its SQL, and a run
on another user's thread is refused before any auth handler is asked, so no handler can grant
an approver the question (on `langgraph dev`, `handlers.py`'s filter does). `aegra.json` mounts
these routes (`http.app`); they call Aegra's own run preparation, so an answer runs exactly as
one the owner sends, queued, leased and streamed by Aegra, with the approver as the run's user:

- `GET /approvals`: threads waiting on a question one of the caller's roles may answer;
- `GET /approvals/{thread_id}/state`: that thread's state, its question among its tasks;
- `POST /approvals/{thread_id}/runs`: an answer (a run whose only command is a resume), the
  run the caller's own, so `runs.join` and `runs.get` follow it as usual.

Who may reach a thread is `auth.may_reach_question`; whether that person may answer that
question (second person, expiry) is the graph's (`common.served.approvers`), as on every
server. Aegra's own routes keep the thread hidden from everyone else. Only loaded by Aegra,
whose packages the project's own environment does not hold.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
from collections.abc import Mapping
from typing import Annotated, Any

from aegra_api.api.runs import _apply_create_run_auth
from aegra_api.api.threads import _serialize_thread, get_thread_state
from aegra_api.core.auth_deps import require_auth
from aegra_api.core.orm import Thread as ThreadORM
from aegra_api.core.orm import get_session
from aegra_api.models import Run, RunCreate, User
from aegra_api.services.run_preparation import _prepare_run
from fastapi import Body, Depends, FastAPI, HTTPException
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from common.served import requests
from common.served.handlers import approver_roles, may_reach_question
from common.settings import get_settings

ANSWERS_ONLY = (
    "This route only answers a question: send command={'resume': ...} and nothing else "
    "(a new message goes to the thread's owner's own runs)."
)
"""Why a run with input, an update or a jump is refused here (403)."""

ANSWER_FIELDS = frozenset({"assistant_id", "command", "context"})
"""What an answer's run may set: the graph, the resume, and a context (checked as any run's)."""

SDK_DEFAULTS: dict[str, tuple[Any, ...]] = {
    "stream_mode": ("values", ["values"]),
    "stream_subgraphs": (False,),
    "stream_resumable": (False,),
}
"""Fields the SDK's `runs.create` sends with every answer, taken only at these values."""

INTERNALS: dict[str, tuple[str, ...]] = {
    "aegra_api.api.runs._apply_create_run_auth": ("user", "thread_id", "request"),
    "aegra_api.api.threads._serialize_thread": ("thread_orm", "default_metadata"),
    "aegra_api.services.run_preparation._prepare_run": (
        "session",
        "thread_id",
        "request",
        "user",
        "initial_status",
        "event_streaming_v2",
    ),
}
"""Aegra's private functions these routes call, with the parameters they were written for."""


def extra_field(body: Mapping[str, Any]) -> str | None:
    """The first field of an answer's body that an answer does not take, or None."""
    for name, value in body.items():
        if name in ANSWER_FIELDS or value is None:
            continue
        if value in SDK_DEFAULTS.get(name, ()):
            continue
        return name
    return None


def check_internals() -> None:
    """Raise RuntimeError naming the private Aegra function that changed since 0.11.0.

    Run at load: an upgrade that renames or reshapes one stops the routes loudly instead of
    answering questions the wrong way.
    """
    for path, expected in INTERNALS.items():
        module, _, name = path.rpartition(".")
        found = getattr(importlib.import_module(module), name, None)
        params = tuple(inspect.signature(found).parameters) if callable(found) else None
        if params != expected:
            raise RuntimeError(
                f"Aegra's {path} is not what common.served.aegra was written for (aegra-api "
                f"0.11.0: parameters {expected}, found {params}): check the approvals routes "
                "against the new release before serving."
            )


SCANNED = 1000
"""Most waiting threads looked at per listing, newest first (the role check is in Python)."""

Caller = Annotated[User, Depends(require_auth)]
"""The authenticated caller (the server's `auth.authenticate`)."""

Session = Annotated[AsyncSession, Depends(get_session)]
"""A database session of Aegra's."""

check_internals()

app = FastAPI(title="mcp-planner approvals")
"""The routes `aegra.json` mounts beside Aegra's own."""


async def _server_roles() -> list[str]:
    """The approver roles the server's mcp.json names (read off the event loop)."""
    return await asyncio.to_thread(approver_roles, get_settings())


async def _reachable(session: AsyncSession, thread_id: str, user: User) -> Any:
    """The thread, if the caller may reach its question; else a 404 as for any unseen thread.

    Reached whether or not it waits now: the approver who answered reads the outcome there.
    """
    thread = await session.scalar(select(ThreadORM).where(ThreadORM.thread_id == thread_id))
    roles = await _server_roles()
    metadata = (thread.metadata_json or {}) if thread is not None else {}
    if thread is None or not may_reach_question(user.identity, user.permissions, metadata, roles):
        raise HTTPException(404, f"Thread '{thread_id}' not found")
    return thread


async def waiting(user: Caller, session: Session, limit: int = 50) -> list[Any]:
    """Threads waiting on a question one of the caller's roles may answer, newest first."""
    roles = await _server_roles()
    rows = await session.scalars(
        select(ThreadORM)
        .where(ThreadORM.status == "interrupted")
        .order_by(ThreadORM.updated_at.desc())
        .limit(SCANNED)
    )
    found = [
        _serialize_thread(t)
        for t in rows
        if may_reach_question(user.identity, user.permissions, t.metadata_json or {}, roles)
    ]
    return found[: max(1, min(limit, SCANNED))]


async def question(
    thread_id: str,
    user: Caller,
    session: Session,
) -> Any:
    """The thread's state as its owner reads it (the question is among its tasks)."""
    thread = await _reachable(session, thread_id, user)
    # Aegra reads a thread's graph and state for the user it is filed under.
    owner = User(identity=str(thread.user_id))
    return await get_thread_state(thread_id, subgraphs=False, checkpoint_ns=None, user=owner)


async def answer(
    thread_id: str,
    body: Annotated[dict[str, Any], Body()],
    user: Caller,
    session: Session,
) -> Any:
    """Start the caller's answer to the thread's question; follow it with `runs.join`.

    The body is read as sent: a field `RunCreate` would drop silently (`webhook`,
    `after_seconds`) is refused like one it keeps (`config`, `checkpoint_id`, `metadata`).
    """
    await _reachable(session, thread_id, user)
    if (extra := extra_field(body)) is not None:
        raise HTTPException(
            403,
            f"This route only answers a question: the field {extra!r} is not taken with an "
            "answer (send assistant_id and command={'resume': ...}).",
        )
    if not requests.answers_only(requests.read(body)):
        raise HTTPException(403, ANSWERS_ONLY)
    request = RunCreate.model_validate(body)
    # The server's own run checks (context, identity keys, command) refuse what they refuse
    # on Aegra's route, before anything runs.
    await _apply_create_run_auth(user, thread_id, request)
    _run_id, run, _job = await _prepare_run(
        session, thread_id, request, user, initial_status="pending"
    )
    return run


app.add_api_route("/approvals", waiting, methods=["GET"])
app.add_api_route("/approvals/{thread_id}/state", question, methods=["GET"])
app.add_api_route("/approvals/{thread_id}/runs", answer, methods=["POST"], response_model=Run)
