"""Long calls as tasks: the client half of the MCP Tasks extension.

The extension is `io.modelcontextprotocol/tasks`. A 2026-07-28 server offering it may answer a
`tools/call` with a task (`resultType: "task"`, a `taskId`) instead of the result; the client
then polls `tasks/get` until the task is completed, failed or cancelled (SEP-2663). We
advertise the extension on every session and take the task's id out of the call (`on_task`)
before polling, so the call ledger can keep it: a planner that restarts mid-call polls that
task again instead of sending the call a second time (`common.safety.execution`). The id is
kept in the ledger (the graph's store), not in the checkpoint: a checkpoint is written when a
node ends, and the crash this guards against comes before that.

The SDK has no client for this extension (it ships the `ClientExtension` hooks); FastMCP's
`fastmcp-tasks` has one, but it pins fastmcp-slim and redis versions of its own and polls inside
the call, where the task's id cannot be kept first. So this module is the ~100 lines that speak
the three wire shapes we need (the task result, `tasks/get` and its answer).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.shared.dispatcher import ProgressFnT
from mcp.types import CallToolResult, Request, RequestParams, Result, TextContent
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ConfigDict, Field

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
"""The extension's identifier."""
POLL_MIN_S = 0.05
"""The shortest wait between two polls, whatever the server suggests."""
POLL_MAX_S = 2.0
"""The longest wait between two polls (a server may suggest minutes)."""
TERMINAL = ("completed", "failed", "cancelled")
"""The statuses a task ends in."""

OnTask = Callable[[str], Awaitable[None]]
"""Told a call's task id as soon as the server gives it, before any poll."""


class TaskLost(Exception):
    """A task the planner was polling is unknown to its server (it restarted, or it expired)."""


class TaskCreated(Result):
    """A `tools/call` answered with a task (SEP-2663 `CreateTaskResult`)."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")
    task_id: str = Field(alias="taskId")
    """The task's id on its server."""
    status: str
    """Its status now (usually "working")."""
    poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")
    """How often the server suggests polling."""
    result_type: Literal["task"] = Field(alias="resultType")
    """The wire discriminator."""


class TaskNow(Result):
    """A task as `tasks/get` tells it: its status, and its result or error once it ended."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")
    task_id: str = Field(alias="taskId")
    """The task's id."""
    status: str
    """working, input_required, completed, failed or cancelled."""
    status_message: str | None = Field(default=None, alias="statusMessage")
    """What the server says it is doing."""
    poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")
    """How often the server suggests polling."""
    result: dict[str, Any] | None = None
    """The tool's result (completed)."""
    error: dict[str, Any] | None = None
    """Why it failed (failed)."""


class _GetParams(RequestParams):
    model_config = ConfigDict(populate_by_name=True)
    task_id: str = Field(serialization_alias="taskId")


class _GetRequest(Request[_GetParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: _GetParams


class Tasks(ClientExtension):
    """Advertises the Tasks extension and admits its task result on `tools/call`."""

    identifier = TASKS_EXTENSION

    def settings(self) -> dict[str, Any]:
        """No per-extension settings."""
        return {}

    def claims(self) -> Sequence[ResultClaim[Any]]:
        """The task result, on the 2026 revision only."""
        return (
            ResultClaim(
                result_type="task",
                model=TaskCreated,
                resolve=_resolve,
                protocol_versions=frozenset(MODERN_PROTOCOL_VERSIONS),
            ),
        )


async def _resolve(created: TaskCreated, ctx: ClaimContext) -> CallToolResult:
    """A task reached through the SDK's own `call_tool` (not ours): polled to its end."""
    return await poll(ctx.session, created.task_id, created.poll_interval_ms)


async def poll(
    session: ClientSession,
    task_id: str,
    interval_ms: int | None = None,
    progress: ProgressFnT | None = None,
) -> CallToolResult:
    """Poll `tasks/get` until the task ends; its result, or its failure as an error result.

    TaskLost when the server no longer knows the task. The caller bounds the wait.
    """
    from mcp import MCPError

    said = ""
    while True:
        try:
            now = await session.send_request(
                _GetRequest(params=_GetParams(task_id=task_id)), TaskNow
            )
        except MCPError as exc:
            raise TaskLost(f"task {task_id}: {exc}") from exc
        if progress is not None and now.status_message and now.status_message != said:
            said = now.status_message
            await progress(0.0, None, said)
        if now.status in TERMINAL:
            return _ended(now)
        if now.status == "input_required":
            return _error(f"Task {task_id} asks for input, which tasks cannot be given here yet.")
        wait_ms = now.poll_interval_ms or interval_ms or 500
        await asyncio.sleep(min(POLL_MAX_S, max(POLL_MIN_S, wait_ms / 1000)))


def _ended(now: TaskNow) -> CallToolResult:
    """The result of an ended task."""
    if now.status == "completed" and now.result is not None:
        return CallToolResult.model_validate(now.result)
    if now.status == "failed":
        message = str((now.error or {}).get("message") or "the task failed")
        return _error(f"Task {now.task_id} failed: {message}")
    return _error(f"Task {now.task_id} was {now.status} on the server.")


def _error(text: str) -> CallToolResult:
    """A task's failure as an error result."""
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
