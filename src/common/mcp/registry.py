"""The expert registry: the only way nodes reach MCP servers."""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass
from typing import Any

import anyio
from mcp.shared.exceptions import McpError
from mcp.types import Tool

from common.mcp.config import McpConfig, ServerConfig
from common.mcp.outcome import ToolOutcome, from_result, outcome
from common.mcp.session import (
    CONNECTION_ERRORS,
    ExpertUnavailable,
    PersistentSession,
    SessionState,
)

_POOLS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, PersistentSession]] = (
    weakref.WeakKeyDictionary()
)

__all__ = ["ExpertRegistry", "ExpertUnavailable", "ToolOutcome", "get_registry", "shutdown_pool"]


@dataclass(frozen=True)
class _Lost:
    """A call whose connection broke: it may be retried on a fresh session."""

    error: Exception
    """What broke the connection."""
    never_sent: bool
    """Whether the request certainly never reached the server."""

    def outcome(self, expert: str, tool: str, retry_safe: bool) -> ToolOutcome:
        """The outcome reported when the call is not (or no longer) retried."""
        lost = f"Connection to expert {expert!r} was lost during {tool!r}: {self.error!r}."
        if retry_safe or self.never_sent:
            return outcome("unavailable", f"{lost} It is reopened on the next call.")
        # It may have reached the server and run: the same "outcome unknown" as a timed-out
        # irreversible call, so the answer lists it there and nobody resends it blindly.
        return outcome("interrupted", f"{lost} {_MAY_HAVE_RUN.format(expert=expert)}")


_MAY_HAVE_RUN = (
    "The request may have reached the server, so it may have taken effect: whether it ran is "
    "unknown, and it was not sent again. Check {expert!r} (look at what the call would have "
    "changed) before retrying."
)
"""What the user is told of an irreversible call that may or may not have run."""


def _pool() -> dict[str, PersistentSession]:
    loop = asyncio.get_running_loop()
    if loop not in _POOLS:
        _POOLS[loop] = {}
    return _POOLS[loop]


class ExpertRegistry:
    """Experts of one MCP config, backed by the process-wide pool of persistent sessions."""

    def __init__(self, config: McpConfig, startup_timeout_s: float = 30.0) -> None:
        self.config = config
        self.startup_timeout_s = startup_timeout_s

    @property
    def experts(self) -> list[str]:
        """Names of every configured expert."""
        return list(self.config.servers)

    def server(self, expert: str) -> ServerConfig:
        """The configuration of `expert` (KeyError when unknown)."""
        return self.config.servers[expert]

    def _session(self, expert: str) -> PersistentSession:
        cfg = self.server(expert)
        pool = _pool()
        key = cfg.fingerprint()
        if key not in pool:
            pool[key] = PersistentSession(expert, cfg, self.startup_timeout_s)
        return pool[key]

    async def tools(self, expert: str) -> list[Tool]:
        """The expert's tools, listed once per session (raises ExpertUnavailable)."""
        session = self._session(expert)
        try:
            await session.ensure_open()
        except ExpertUnavailable as exc:
            raise ExpertUnavailable(expert, exc.reason) from exc
        return list(session.tools)

    def state(self, expert: str) -> SessionState:
        """Whether the expert's session is open, closed, or unavailable (with its reason)."""
        return self._session(expert).state()

    async def catalog(self, experts: list[str]) -> dict[str, list[Tool] | ExpertUnavailable]:
        """Tools of several experts, started concurrently; a failure is kept as a value."""
        names = list(dict.fromkeys(experts))
        results = await asyncio.gather(*(self.tools(n) for n in names), return_exceptions=True)
        out: dict[str, list[Tool] | ExpertUnavailable] = {}
        for name, res in zip(names, results, strict=True):
            if isinstance(res, BaseException) and not isinstance(res, ExpertUnavailable):
                raise res
            out[name] = res
        return out

    async def call(
        self, expert: str, tool: str, args: dict[str, Any], timeout_s: float, retry_safe: bool
    ) -> ToolOutcome:
        """Call `tool` on `expert`; every failure comes back as a ToolOutcome.

        A call whose connection broke is retried once on a fresh session when it never left
        (closed write stream) or when `retry_safe` (the tool is reversible): an irreversible
        call that may have reached the server is never sent twice, and one that timed out is
        reported as "interrupted" (it was cancelled, but may already have taken effect).
        """
        try:
            tools = await self.tools(expert)
        except ExpertUnavailable as exc:
            return outcome("unavailable", str(exc))
        names = [t.name for t in tools]
        if tool not in names:
            return outcome(
                "unknown_tool",
                f"Expert {expert!r} has no tool {tool!r}; its tools are: {', '.join(names)}.",
            )
        sent = await self._send(expert, tool, args, timeout_s, retry_safe)
        if isinstance(sent, _Lost) and (retry_safe or sent.never_sent):
            sent = await self._send(expert, tool, args, timeout_s, retry_safe)
        return sent.outcome(expert, tool, retry_safe) if isinstance(sent, _Lost) else sent

    async def _send(
        self, expert: str, tool: str, args: dict[str, Any], timeout_s: float, retry_safe: bool
    ) -> ToolOutcome | _Lost:
        """One attempt at the call; a lost connection is returned for the caller to retry."""
        session = self._session(expert)
        try:
            async with asyncio.timeout(timeout_s):
                result = await session.call_tool(tool, args)
        except TimeoutError:
            late = f"Tool {tool!r} of {expert!r} did not answer within {timeout_s:g}s"
            if retry_safe:
                return outcome("timeout", f"{late}.")
            # The server was told to cancel it, but it may have finished first.
            return outcome(
                "interrupted", f"{late} and was cancelled. {_MAY_HAVE_RUN.format(expert=expert)}"
            )
        except ExpertUnavailable as exc:
            return outcome("unavailable", str(exc))
        except (McpError, *CONNECTION_ERRORS) as exc:
            lost = not isinstance(exc, McpError) or "connection closed" in str(exc).lower()
            if not lost:
                return outcome("tool_error", f"Tool {tool!r} failed: {exc}")
            # The session has already forgotten the dead connection. A closed write stream
            # means the request never left: resending it is safe.
            return _Lost(exc, never_sent=isinstance(exc, anyio.ClosedResourceError))
        return from_result(result)


def get_registry(config: McpConfig, startup_timeout_s: float = 30.0) -> ExpertRegistry:
    """A registry over `config`; sessions are shared process-wide by identical servers."""
    return ExpertRegistry(config, startup_timeout_s)


async def shutdown_pool() -> None:
    """Close every session opened on the running event loop."""
    pool = _pool()
    sessions = list(pool.values())
    pool.clear()
    await asyncio.gather(*(s.aclose() for s in sessions))
