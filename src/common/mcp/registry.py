"""The expert registry: the only way nodes reach MCP servers.

Sessions are opened lazily by their first use, or all at once in the background by
`start_all` (a CLI run starts them before it builds the graph). `catalog(..., cached_ok=True)`
answers a server that is still starting from the tool cache, so planning need not wait; every
call still waits for the live session and is refused when the live list lacks its tool.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from dataclasses import dataclass, replace
from typing import Any

from mcp import MCPError
from mcp.shared.dispatcher import ProgressFnT
from mcp.types import Tool

from common.mcp.asking import Inputs
from common.mcp.calls import HeldCallLost, TaskHooks
from common.mcp.config import McpConfig, ServerConfig
from common.mcp.errors import ExpertUnavailable
from common.mcp.outcome import ToolOutcome, asking_outcome, from_result, outcome
from common.mcp.session import CONNECTION_ERRORS, PersistentSession, SessionState, never_sent
from common.mcp.tasks import TaskLost
from common.mcp.tool_cache import ToolCache

_POOLS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, PersistentSession]] = (
    weakref.WeakKeyDictionary()
)
_STARTERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Task[None]]] = (
    weakref.WeakKeyDictionary()
)
LAUNCH_WAIT_S = 2.0
"""Longest `launched` waits for servers to be launched; their starts go on regardless."""
DEFINITION_MAX_AGE_S = 5.0
"""Oldest tool list a held call's definition is checked against; older ones are listed again.

One `tools/list` per held call at most every this many seconds: a server that changes a tool
without `list_changed` is caught unless the change falls within this time of the last listing.
"""
logger = logging.getLogger(__name__)

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


def _starters() -> dict[str, asyncio.Task[None]]:
    """Background starts under way on the running loop, by server fingerprint."""
    return _STARTERS.setdefault(asyncio.get_running_loop(), {})


async def _open_in_background(session: PersistentSession) -> None:
    try:
        await session.ensure_open()
    except ExpertUnavailable:
        # Not lost: the session keeps the failure (its cool-down) and the next lookup reports it.
        return


def _log_unexpected(task: asyncio.Task[None]) -> None:
    """A background start has no caller to raise to: an unexpected failure is logged."""
    if not task.cancelled() and (exc := task.exception()) is not None:
        logger.error("Starting MCP session %s failed: %r", task.get_name(), exc)


class ExpertRegistry:
    """Experts of one MCP config, backed by the process-wide pool of persistent sessions."""

    def __init__(
        self,
        config: McpConfig,
        startup_timeout_s: float = 30.0,
        tool_cache: ToolCache | None = None,
    ) -> None:
        self.config = config
        self.startup_timeout_s = startup_timeout_s
        self.tool_cache = tool_cache
        """Remembered tool lists (None: no cache, every listing is live)."""

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
        session = pool[key]
        if session.tool_cache is None and self._cacheable(expert):
            session.tool_cache = self.tool_cache
        return session

    def _cacheable(self, expert: str) -> bool:
        # An in-process server starts at once and is known only by name: nothing to gain.
        return self.tool_cache is not None and self.server(expert).inprocess is None

    def start_all(self, experts: list[str] | None = None) -> None:
        """Begin opening the sessions of `experts` (default: all) in the background.

        Returns at once; call it on the event loop that will use the sessions. Each session
        is opened by its own owner task as on first use, so `shutdown_pool` closes it; a
        failure to start is kept by the session and reported by the next lookup.
        """
        for name in dict.fromkeys(self.experts if experts is None else experts):
            self._begin(name)

    def _begin(self, expert: str) -> asyncio.Task[None] | None:
        """The background start of `expert` under way (begun now if none); None when open."""
        session = self._session(expert)
        if session.alive:
            return None
        starters = _starters()
        key = self.server(expert).fingerprint()
        task = starters.get(key)
        if task is None or task.done():
            task = asyncio.get_running_loop().create_task(
                _open_in_background(session), name=f"mcp-start:{expert}"
            )
            task.add_done_callback(_log_unexpected)
            starters[key] = task
        return task

    async def launched(
        self, experts: list[str] | None = None, timeout_s: float = LAUNCH_WAIT_S
    ) -> None:
        """Wait (at most `timeout_s`) until the servers being started have been launched.

        A launched server initializes in its own process while this one goes on working:
        the CLI waits for this much before its own blocking start-up work, not for `ready`.
        """
        names = list(dict.fromkeys(self.experts if experts is None else experts))
        waits = {asyncio.ensure_future(self._launch_of(n)) for n in names}
        if not waits:
            return
        try:
            await asyncio.wait(waits, timeout=timeout_s)
        finally:
            for wait in waits:
                wait.cancel()

    async def _launch_of(self, expert: str) -> None:
        starter = _starters().get(self.server(expert).fingerprint())
        if starter is None or starter.done():
            return
        launch = asyncio.ensure_future(self._session(expert).launched())
        try:
            await asyncio.wait({starter, launch}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            launch.cancel()

    async def tools(self, expert: str, max_age_s: float | None = None) -> list[Tool]:
        """The expert's tools, listed again if the server said they changed or they are too old.

        Listed at the session's start, again after `notifications/tools/list_changed`, and
        again when older than `max_age_s` (None: any age). Raises ExpertUnavailable.
        """
        session = self._session(expert)
        try:
            return await session.current_tools(max_age_s)
        except ExpertUnavailable as exc:
            raise ExpertUnavailable(expert, exc.reason, exc.retry_in_s) from exc

    async def definition(self, expert: str, tool: str) -> Tool | None:
        """The current definition of `tool` (None when the expert has no such tool).

        From a list no older than `DEFINITION_MAX_AGE_S`: for checking a held call just before
        it runs.
        """
        listed = await self.tools(expert, DEFINITION_MAX_AGE_S)
        return next((t for t in listed if t.name == tool), None)

    async def _listing(self, expert: str, cached_ok: bool) -> list[Tool]:
        """The cached tools of a server still starting when allowed and known, else the live."""
        cache = self.tool_cache
        starting = cached_ok and self.state(expert).status == "closed"
        if starting and cache is not None and self._cacheable(expert):
            cached = await asyncio.to_thread(cache.load, self.server(expert))
            if cached is not None:
                return cached
        return await self.tools(expert)

    def state(self, expert: str) -> SessionState:
        """Whether the expert's session is open, closed, or unavailable (with its reason)."""
        return self._session(expert).state()

    async def catalog(
        self, experts: list[str], cached_ok: bool = False
    ) -> dict[str, list[Tool] | ExpertUnavailable]:
        """Tools of several experts, started concurrently; a failure is kept as a value.

        With `cached_ok`, a server still starting answers from the tool cache when it has an
        entry (its start goes on in the background); one without an entry, an open one and
        one cooling down after a failed start answer live, as without it. Only for planning:
        safety decisions and calls use live lists.
        """
        names = list(dict.fromkeys(experts))
        if cached_ok:
            self.start_all(names)
        results = await asyncio.gather(
            *(self._listing(n, cached_ok) for n in names), return_exceptions=True
        )
        out: dict[str, list[Tool] | ExpertUnavailable] = {}
        for name, res in zip(names, results, strict=True):
            if isinstance(res, BaseException) and not isinstance(res, ExpertUnavailable):
                raise res
            out[name] = res
        return out

    async def call(
        self,
        expert: str,
        tool: str,
        args: dict[str, Any],
        timeout_s: float,
        retry_safe: bool,
        progress: ProgressFnT | None = None,
        key: str = "",
        inputs: Inputs | None = None,
        tasks: TaskHooks | None = None,
    ) -> ToolOutcome:
        """Call `tool` on `expert`; every failure comes back as a ToolOutcome.

        A call whose connection broke is retried once on a fresh session when it never left
        (closed write stream) or when `retry_safe` (the tool is reversible): an irreversible
        call that may have reached the server is never sent twice, and one that timed out is
        reported as "interrupted" (it was cancelled, but may already have taken effect).
        `progress`, when given, hears the server's progress notifications for the call. A
        call that stops at its server's questions is "needs_input"; it goes on with `inputs`
        (the answers) under the same `key` (`common.mcp.calls`). A call its server runs as a
        task tells `tasks` its id before it is polled; with a `tasks.task_id` the call is not
        sent, that task is polled (`common.mcp.tasks`).
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
        if inputs is not None:
            inputs = replace(inputs, resend=retry_safe)
        how = _How(timeout_s, retry_safe, progress, key, inputs, tasks)
        sent = await self._send(expert, tool, args, how)
        if isinstance(sent, _Lost) and (retry_safe or sent.never_sent):
            sent = await self._send(expert, tool, args, how)
        return sent.outcome(expert, tool, retry_safe) if isinstance(sent, _Lost) else sent

    async def _send(
        self, expert: str, tool: str, args: dict[str, Any], how: _How
    ) -> ToolOutcome | _Lost:
        """One attempt at the call; a lost connection is returned for the caller to retry."""
        session = self._session(expert)
        timeout_s, retry_safe = how.timeout_s, how.retry_safe
        try:
            async with asyncio.timeout(timeout_s):
                if how.plain:
                    # Without a listener the call goes out exactly as it did before progress.
                    result = await session.call_tool(tool, args)
                else:
                    result = await session.call_tool(
                        tool, args, how.progress, how.key, how.inputs, how.tasks
                    )
        except TimeoutError:
            late = f"Tool {tool!r} of {expert!r} did not answer within {timeout_s:g}s"
            if retry_safe:
                return outcome("timeout", f"{late}.")
            # The server was told to cancel it, but it may have finished first.
            return outcome(
                "interrupted", f"{late} and was cancelled. {_MAY_HAVE_RUN.format(expert=expert)}"
            )
        except HeldCallLost:
            return outcome("interrupted", HELD_LOST.format(tool=tool, expert=expert))
        except TaskLost as exc:
            return outcome("interrupted", TASK_LOST.format(tool=tool, expert=expert, why=exc))
        except ExpertUnavailable as exc:
            return outcome("unavailable", str(exc))
        except (MCPError, *CONNECTION_ERRORS) as exc:
            lost = not isinstance(exc, MCPError) or "connection closed" in str(exc).lower()
            if not lost:
                return outcome("tool_error", f"Tool {tool!r} failed: {exc}")
            # The session has already forgotten the dead connection. A closed write stream
            # means the request never left: resending it is safe.
            return _Lost(exc, never_sent=never_sent(exc))
        if isinstance(result, dict):
            return asking_outcome(result)
        return from_result(result)


TASK_LOST = (
    "{tool!r} of {expert!r} became a task on its server, which no longer knows it ({why}); "
    "whether it ran is unknown, so it was not sent again. Check the expert before retrying."
)
"""Why a call whose task was lost (its server restarted) was not sent again."""


@dataclass(frozen=True)
class _How:
    """How one call is sent: its bounds and what it may hear or go on with."""

    timeout_s: float
    retry_safe: bool
    progress: ProgressFnT | None
    key: str
    inputs: Inputs | None
    tasks: TaskHooks | None

    @property
    def plain(self) -> bool:
        """A call that needs nothing but its name and arguments."""
        no_hooks = self.progress is None and self.inputs is None and self.tasks is None
        return no_hooks and not self.key


HELD_LOST = (
    "{tool!r} of {expert!r} was waiting for your answer to its question, and this process no "
    "longer holds that call (it restarted, or the server stopped waiting); whether it ran is "
    "unknown, so it was not sent again. Check the expert before retrying."
)
"""Why an irreversible call whose server asked mid-call was not continued."""


def get_registry(
    config: McpConfig, startup_timeout_s: float = 30.0, tool_cache: ToolCache | None = None
) -> ExpertRegistry:
    """A registry over `config`; sessions are shared process-wide by identical servers."""
    return ExpertRegistry(config, startup_timeout_s, tool_cache)


async def shutdown_pool() -> None:
    """Stop the background starts, then close every session opened on the running event loop."""
    starters = _starters()
    pending = list(starters.values())
    starters.clear()
    for task in pending:
        task.cancel()
    # Their outcomes are cancellations or failures already logged; our own cancellation propagates.
    await asyncio.gather(*pending, return_exceptions=True)
    pool = _pool()
    sessions = list(pool.values())
    pool.clear()
    await asyncio.gather(*(s.aclose() for s in sessions))
