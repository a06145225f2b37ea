"""One long-lived MCP client session per server, owned by a dedicated task."""

from __future__ import annotations

import asyncio
import logging
import sys
import tempfile
from contextlib import AsyncExitStack
from typing import Any, TextIO

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.memory import create_client_server_memory_streams
from mcp.types import CallToolResult, PaginatedRequestParams, Tool

from common.mcp.config import ServerConfig
from common.mcp.inprocess import inprocess_server

STDERR_TAIL_CHARS = 1500
CLOSE_GRACE_S = 5.0
"""Time a server gets to shut down cleanly before its session's owner task is cancelled."""
logger = logging.getLogger(__name__)


def resolve_command(command: str) -> str:
    """A bare `python`/`python3` means this interpreter, so bundled servers share our venv."""
    return sys.executable if command in {"python", "python3"} else command


class ExpertUnavailable(RuntimeError):
    """An MCP server that could not be started or reached; the message names it."""

    def __init__(self, server: str, message: str) -> None:
        super().__init__(f"Expert {server!r} is unavailable: {message}")
        self.server = server
        """The expert's name."""
        self.reason = message
        """Why it is unavailable, without the expert's name."""


class PersistentSession:
    """An MCP session kept open for the life of the process.

    MCP sessions run inside anyio task groups, which must be exited by the task that entered
    them; so one owner task opens the session, parks until asked to stop, and closes it. Any
    task on the same event loop may send requests through it meanwhile.
    """

    def __init__(self, name: str, config: ServerConfig, startup_timeout_s: float) -> None:
        self.name = name
        self.config = config
        self.startup_timeout_s = startup_timeout_s
        self.tools: list[Tool] = []
        self._session: ClientSession | None = None
        self._owner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._ready: asyncio.Future[None] | None = None
        self._lock = asyncio.Lock()
        self._errlog: TextIO | None = None
        self.close_grace_s = CLOSE_GRACE_S
        """How long a closing session may take before its owner task is cancelled."""

    @property
    def alive(self) -> bool:
        """Whether the session is open and its owner task still running."""
        return self._session is not None and self._owner is not None and not self._owner.done()

    async def ensure_open(self) -> ClientSession:
        """Open the session if it is not open (again, if the server died)."""
        async with self._lock:
            if self.alive:
                assert self._session is not None
                return self._session
            await self._close_owner()
            return await self._start()

    async def _start(self) -> ClientSession:
        loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self._ready = loop.create_future()
        if self.config.resolved_transport == "stdio" and self._errlog is None:
            self._errlog = await asyncio.to_thread(_temp_log)
        self._owner = loop.create_task(self._own(), name=f"mcp-session:{self.name}")
        try:
            async with asyncio.timeout(self.startup_timeout_s):
                await asyncio.shield(self._ready)
        except TimeoutError as exc:
            await self._close_owner()
            raise ExpertUnavailable(
                self.name,
                f"no answer to initialize within {self.startup_timeout_s:g}s"
                + await self._stderr_suffix(),
            ) from exc
        except ExpertUnavailable:
            await self._close_owner()
            raise
        assert self._session is not None
        return self._session

    async def _own(self) -> None:
        assert self._ready is not None
        try:
            async with AsyncExitStack() as stack:
                read, write = await self._open_transport(stack)
                session = await stack.enter_async_context(ClientSession(read, write))
                await session.initialize()
                self.tools = await _list_all_tools(session)
                self._session = session
                self._ready.set_result(None)
                await self._stop.wait()
        except Exception as raised:
            exc: BaseException = raised
            while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
                exc = exc.exceptions[0]
            if self._ready.done():
                logger.warning("MCP server %r disconnected: %r", self.name, exc)
            else:
                reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                self._ready.set_exception(
                    ExpertUnavailable(self.name, reason + await self._stderr_suffix())
                )
        finally:
            self._session = None

    async def _open_transport(self, stack: AsyncExitStack) -> tuple[Any, Any]:
        cfg = self.config
        if cfg.resolved_transport == "stdio":
            assert cfg.command is not None
            assert self._errlog is not None
            params = StdioServerParameters(
                command=resolve_command(cfg.command),
                args=list(cfg.args),
                env=dict(cfg.env),
                cwd=cfg.cwd,
            )
            read, write = await stack.enter_async_context(stdio_client(params, self._errlog))
            return read, write
        if cfg.inprocess is not None:
            return await _open_inprocess(stack, cfg.inprocess)
        assert cfg.url is not None
        if cfg.resolved_transport == "sse":
            read, write = await stack.enter_async_context(
                sse_client(cfg.url, headers=dict(cfg.headers))
            )
            return read, write
        client = await stack.enter_async_context(create_mcp_http_client(dict(cfg.headers)))
        read, write, _ = await stack.enter_async_context(
            streamable_http_client(cfg.url, http_client=client)
        )
        return read, write

    async def _stderr_suffix(self) -> str:
        tail = await asyncio.to_thread(self._stderr_tail)
        return f"; server stderr: {tail}" if tail else ""

    def _stderr_tail(self) -> str:
        if self._errlog is None:
            return ""
        self._errlog.flush()
        self._errlog.seek(0)
        return self._errlog.read()[-STDERR_TAIL_CHARS:].strip()

    async def call_tool(self, tool: str, args: dict[str, Any]) -> CallToolResult:
        """Send `tools/call` on the open session (the caller applies the timeout)."""
        session = await self.ensure_open()
        return await session.call_tool(tool, args)

    def mark_dead(self) -> None:
        """Forget the session after a connection failure so the next use reopens it."""
        self._session = None
        self._stop.set()

    async def _close_owner(self) -> None:
        owner, self._owner = self._owner, None
        if owner is None:
            return
        self._stop.set()
        try:
            async with asyncio.timeout(self.close_grace_s):
                await asyncio.shield(owner)
        except (TimeoutError, Exception):
            await self._reap(owner)

    async def _reap(self, owner: asyncio.Task[None]) -> None:
        """Cancel an owner that would not stop; its errors are logged, our cancellation is not."""
        owner.cancel()
        try:
            await owner
        except asyncio.CancelledError:
            # The owner's end is expected; the closing task being cancelled itself must propagate.
            if _being_cancelled():
                raise
        except Exception as exc:
            logger.warning("MCP server %r failed while closing: %r", self.name, exc)

    async def aclose(self) -> None:
        """Close the session and end the server process."""
        async with self._lock:
            await self._close_owner()
        if self._errlog is not None:
            errlog, self._errlog = self._errlog, None
            await asyncio.to_thread(errlog.close)


async def _open_inprocess(stack: AsyncExitStack, name: str) -> tuple[Any, Any]:
    server = inprocess_server(name)
    client, (server_read, server_write) = await stack.enter_async_context(
        create_client_server_memory_streams()
    )
    group = await stack.enter_async_context(anyio.create_task_group())
    stack.callback(group.cancel_scope.cancel)
    group.start_soon(
        lambda: server.run(server_read, server_write, server.create_initialization_options())
    )
    return client


def _being_cancelled() -> bool:
    """Whether the running task has a cancellation pending (not only a child it awaited)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _temp_log() -> TextIO:
    return tempfile.TemporaryFile("w+", encoding="utf-8")


async def _list_all_tools(session: ClientSession) -> list[Tool]:
    tools: list[Tool] = []
    cursor: str | None = None
    while True:
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools.extend(page.tools)
        cursor = page.nextCursor
        if not cursor:
            return tools
