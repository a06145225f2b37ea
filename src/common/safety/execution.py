"""Durable tool execution: an approved call runs once, even across a crash and a resume.

LangGraph re-runs an interrupted or crashed node from its start, so each call runs inside a
LangGraph `@task`, whose result is checkpointed and replayed instead of re-executed. For a gated
call a first task records, durably, that the call is about to be sent; on replay, a start marker
from an earlier process with no stored result means the call may have run before the crash, so
it is not sent again (at most once, and reported as such) rather than risk running it twice.
"""

from __future__ import annotations

import os
import uuid
from typing import Any, TypedDict

from langgraph.func import task

from common.mcp.loader import registry_for

_STARTED_HERE: set[str] = set()

TASK_NAMES = frozenset({"approved_call_started", "tool_call"})
"""Names under which the durable tasks appear in `updates` streams."""


class CallRecord(TypedDict):
    """A tool call's outcome as checkpointed (plain data)."""

    status: str
    """ok, tool_error, timeout, unknown_tool, unavailable or interrupted."""
    content: str
    """Output or error text."""
    structured: Any
    """Structured content, when the tool returned any."""


@task
async def approved_call_started(call_id: str) -> str:
    """Record that a gated call is about to be sent; returns this attempt's token."""
    token = f"{os.getpid()}:{uuid.uuid4().hex}:{call_id}"
    _STARTED_HERE.add(token)
    return token


@task
async def tool_call(
    mcp_config: dict[str, Any] | None,
    expert: str,
    name: str,
    args: dict[str, Any],
    timeout_s: float,
    allow_send: bool,
    retry_safe: bool,
) -> CallRecord:
    """Send one tool call through the expert registry, unless sending is withheld."""
    if not allow_send:
        return CallRecord(
            status="interrupted",
            content=(
                f"The process stopped while {name!r} was being sent to {expert!r}; whether it "
                "ran is unknown, so it was not sent again. Check the expert before retrying."
            ),
            structured=None,
        )
    registry = await registry_for(mcp_config)
    outcome = await registry.call(expert, name, args, timeout_s, retry_safe=retry_safe)
    return CallRecord(status=outcome.status, content=outcome.content, structured=outcome.structured)


async def run_once(
    call_id: str,
    mcp_config: dict[str, Any] | None,
    expert: str,
    name: str,
    args: dict[str, Any],
    timeout_s: float,
    gated: bool,
) -> CallRecord:
    """Run a call durably; a gated call cut off mid-flight by a crash is never resent.

    LangGraph replays a stored task result by call order, whatever the arguments, so on replay
    `tool_call` returns the stored outcome when there is one; only when there is none and the
    start marker came from an earlier process is sending withheld.
    """
    allow_send = True
    if gated:
        token = await approved_call_started(call_id)
        allow_send = token in _STARTED_HERE
    record: CallRecord = await tool_call(
        mcp_config, expert, name, args, timeout_s, allow_send, not gated
    )
    return record
