"""One long-lived MCP client per server (the SDK's `Client`), owned by a dedicated task.

The SDK's `Client` chooses the protocol era (the 2026-07-28 revision through `server/discover`,
or the 2025 `initialize` handshake), validates structured results against each tool's output
schema, and tells the server when a request is abandoned (`notifications/cancelled`). A session
decides the rest of its server's lifetime:
- a request pending when the session ends fails at once with a connection error, never at the
  caller's timeout;
- a server that fails to start or to answer its first requests is not started again for a
  cool-down that doubles with each failure (5 s up to 5 min, reset on success): meanwhile every
  lookup gets the cached reason at once, so one turn pays for one start attempt, not one per node;
- a start whose caller is cancelled is torn down at once (the server may be half-started and
  would not hear a polite stop), and the cancellation propagates;
- each start's live tool list is written to the session's `tool_cache` (when it has one), so
  the next process can plan before its servers are up;
- the tool list is listed again after the server says its tools changed (on the next lookup,
  never inside the SDK's receive loop, which must go on reading the answer), and when a caller
  asks for a list no older than some age (`current_tools`).
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import time
from collections.abc import AsyncIterable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TextIO

import anyio
import anyio.lowlevel
from mcp import Client, MCPError
from mcp.client.subscriptions import SubscriptionLost
from mcp.shared.dispatcher import ProgressFnT
from mcp.types import CONNECTION_CLOSED, CallToolResult, Tool, ToolListChangedNotification
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from common.mcp.asking import Asking, Inputs
from common.mcp.calls import Calls, TaskHooks
from common.mcp.config import ServerConfig
from common.mcp.errors import ExpertUnavailable
from common.mcp.listing import list_all_tools
from common.mcp.stdout_watch import StdoutWatch
from common.mcp.tasks import Tasks
from common.mcp.transports import HttpRefusal, connection

if TYPE_CHECKING:
    from common.mcp.tool_cache import ToolCache

STDERR_TAIL_CHARS = 1500
CLOSE_GRACE_S = 5.0
"""Time a server gets to shut down cleanly before its session's owner task is cancelled."""
COOLDOWN_FIRST_S = 5.0
"""How long a server that failed to start is left alone before the next attempt."""
COOLDOWN_MAX_S = 300.0
"""The cap of the doubling cool-down."""
CONNECTION_ERRORS = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream)
"""What a transport raises when the connection under a session broke."""
logger = logging.getLogger(__name__)


def now() -> float:
    """The cool-down clock (monotonic seconds); tests move it instead of waiting."""
    return time.monotonic()


@dataclass(frozen=True)
class Cooldown:
    """A server that failed to start: why, and when it may be started again."""

    reason: str
    """The start failure, stderr tail included."""
    retry_at: float
    """`now()` after which the next lookup starts it again."""
    length_s: float
    """How long this cool-down lasts; the next failure doubles it (capped)."""

    def retry_in_s(self) -> float:
        """Seconds left before the server is tried again (0 once it may be)."""
        return max(0.0, self.retry_at - now())


SessionStatus = Literal["open", "closed", "unavailable"]
"""Open; not started (or ended, reopened on the next use); failed to start, cooling down."""


@dataclass(frozen=True)
class SessionState:
    """What `mcp-planner tools` shows of one expert's session."""

    status: SessionStatus
    """Whether the session is open, closed, or its server is unavailable."""
    reason: str = ""
    """Why it is unavailable (empty otherwise)."""
    retry_in_s: float = 0.0
    """Seconds before the next start attempt (0 unless unavailable)."""
    protocol: str = ""
    """The protocol version the open session speaks ("2026-07-28", "2025-11-25", ...)."""


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
        self._session: Client | None = None
        self._owner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._ready: asyncio.Future[None] | None = None
        self._lock = asyncio.Lock()
        self._errlog: TextIO | None = None
        self._ended = asyncio.Event()
        self._cooldown: Cooldown | None = None
        self._teardown: asyncio.Task[None] | None = None
        self._launched = asyncio.Event()
        self.close_grace_s = CLOSE_GRACE_S
        """How long a closing session may take before its owner task is cancelled."""
        self.tool_cache: ToolCache | None = None
        """Where each start's live tool list is remembered (None: nowhere)."""
        self._listed_at = 0.0
        self._tools_changed = False
        self._listing = asyncio.Lock()
        self._watch: StdoutWatch | None = None
        self._refusal = HttpRefusal()
        self._calls = Calls(name)

    @property
    def alive(self) -> bool:
        """Whether the session is open and its owner task still running."""
        owner = self._owner
        # `_ended` is set a moment before the owner is done: a session ending is not alive.
        running = owner is not None and not owner.done() and not self._ended.is_set()
        return self._session is not None and running

    def state(self) -> SessionState:
        """Whether the session is open, closed, or its server unavailable (and for how long)."""
        if self.alive:
            assert self._session is not None
            return SessionState("open", protocol=self._session.protocol_version)
        cooldown = self._cooldown
        if cooldown is not None and cooldown.retry_in_s() > 0:
            return SessionState("unavailable", cooldown.reason, cooldown.retry_in_s())
        return SessionState("closed")

    async def ensure_open(self) -> Client:
        """Open the session if it is not open (again, if the server died).

        Raises ExpertUnavailable, with the cached reason while a failed start cools down.
        """
        async with self._lock:
            if self.alive:
                assert self._session is not None
                return self._session
            cooldown = self._cooldown
            if cooldown is not None and (wait := cooldown.retry_in_s()) > 0:
                raise ExpertUnavailable(self.name, cooldown.reason, wait)
            await self._close_owner()
            try:
                session = await self._start()
            except ExpertUnavailable as exc:
                cooldown = self._cool_down(exc.reason)
                # A long-lived process (a server) does retry: its log says when.
                logger.info(
                    "MCP server %r did not start; next start in %gs", self.name, cooldown.length_s
                )
                raise ExpertUnavailable(self.name, exc.reason, cooldown.length_s) from exc
            self._cooldown = None
            return session

    def _cool_down(self, reason: str) -> Cooldown:
        """Remember a failed start; each failure in a row doubles the wait, up to the cap."""
        last = self._cooldown
        length = COOLDOWN_FIRST_S if last is None else min(last.length_s * 2, COOLDOWN_MAX_S)
        self._cooldown = Cooldown(reason, now() + length, length)
        return self._cooldown

    async def _start(self) -> Client:
        loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self._ended = asyncio.Event()
        # Cleared, not replaced: a waiter from before this start must hear of its launch.
        self._launched.clear()
        self._ready = loop.create_future()
        if self.config.resolved_transport == "stdio":
            # A fresh log per start, so an error quotes this start's stderr, not every restart's.
            await self._close_errlog()
            self._errlog = await asyncio.to_thread(_temp_log)
        self._owner = loop.create_task(self._own(), name=f"mcp-session:{self.name}")
        try:
            async with asyncio.timeout(self.startup_timeout_s):
                await asyncio.shield(self._ready)
        except TimeoutError as exc:
            self._drop_start()
            reason = f"no answer to its first requests within {self.startup_timeout_s:g}s"
            reason += await self._stderr_suffix()
            self._tear_down_in_background()
            raise ExpertUnavailable(self.name, reason) from exc
        except ExpertUnavailable:
            await self._close_owner()
            raise
        except asyncio.CancelledError:
            self._drop_start()
            self._tear_down_in_background()
            raise
        assert self._session is not None
        return self._session

    async def _own(self) -> None:
        assert self._ready is not None
        try:
            async with AsyncExitStack() as stack:
                stdio = self.config.resolved_transport == "stdio"
                self._watch = StdoutWatch(self.name) if stdio else None
                self._refusal = HttpRefusal()
                closed = asyncio.Event()
                client = Client(
                    connection(self.config, self._errlog, (self._launched, closed), self._refusal),
                    mode=self.config.protocol,
                    message_handler=self._on_message,
                    elicitation_callback=self._calls.elicitations,
                    extensions=[Tasks()],
                )
                greeting = _greet(stack, client)
                self._tools_changed = False
                self.tools = await (self._watch.guard(greeting) if self._watch else greeting)
                await self._listen(stack, client)
                self._listed_at = now()
                await self._remember_tools()
                if self._ready.cancelled():
                    return  # abandoned meanwhile: the owner is being torn down
                self._session = client
                self._ready.set_result(None)
                if await _first_set(self._stop, closed) is closed:
                    logger.warning("MCP server %r disconnected (its connection ended)", self.name)
        except Exception as raised:
            await self._ended_with(raised)
        finally:
            self._session = None
            self._launched.set()
            # Requests still waiting on this session fail now, not at their timeout.
            self._ended.set()

    async def _ended_with(self, raised: Exception) -> None:
        """Hand the session's failure to its starter, or log it when no one waits for it."""
        assert self._ready is not None
        exc: BaseException = raised
        while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
            exc = exc.exceptions[0]
        if self._ready.cancelled():
            # Its starter gave up (timeout, cancellation) and is tearing it down: the
            # failure is that teardown, and no one is left to hand it to.
            logger.debug("MCP server %r ended during an abandoned start: %r", self.name, exc)
        elif self._ready.done():
            logger.warning("MCP server %r disconnected: %r", self.name, exc)
        else:
            failure = self._watch.failure if self._watch is not None else None
            # Closing the transport after a stray stdout line may raise over it.
            reason = (
                str(failure)
                if failure
                else start_failure(exc, self.name, self.config, self._refusal.status)
            )
            self._ready.set_exception(
                ExpertUnavailable(self.name, reason + await self._stderr_suffix())
            )

    async def _remember_tools(self) -> None:
        """Refresh the tool cache with this start's live list (a failed write is only logged)."""
        if self.tool_cache is not None:
            await asyncio.to_thread(self.tool_cache.store, self.config, list(self.tools))

    async def _on_message(self, message: Any) -> None:
        """Note a tools/list_changed notice (the next lookup lists again); pass on stray output."""
        if self._watch is not None:
            await self._watch(message)
        if isinstance(message, ToolListChangedNotification):
            logger.info("MCP server %r says its tools changed", self.name)
            self._tools_changed = True
        await anyio.lowlevel.checkpoint()

    async def _listen(self, stack: AsyncExitStack, client: Client) -> None:
        """On the 2026-07-28 revision, ask to hear of tool list changes (`subscriptions/listen`).

        A 2025-era server sends `notifications/tools/list_changed` unasked; a 2026 one only to a
        client that listens. A server that refuses is used without it (its list is then seen
        anew only by a caller that asks for a recent one, or at the moment of a call).
        """
        if client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return
        try:
            async with asyncio.timeout(self.startup_timeout_s):
                sub = await stack.enter_async_context(client.listen(tools_list_changed=True))
        except (MCPError, RuntimeError, TimeoutError) as exc:
            logger.info("MCP server %r will not say when its tools change: %r", self.name, exc)
            return
        changes = asyncio.get_running_loop().create_task(self._hear_changes(sub))
        stack.callback(changes.cancel)

    async def _hear_changes(self, sub: AsyncIterable[object]) -> None:
        """Mark the list changed at each event; a lost stream marks it too (no replay)."""
        try:
            async for _ in sub:
                logger.info("MCP server %r says its tools changed", self.name)
                self._tools_changed = True
        except SubscriptionLost:
            self._tools_changed = True

    async def current_tools(self, max_age_s: float | None = None) -> list[Tool]:
        """The server's tools, listed again first if it said they changed or they are too old.

        `max_age_s` is the oldest listing the caller accepts (None: any age); a server that
        changes its tools without saying so is only seen by such a caller. Raises
        ExpertUnavailable when the server cannot be reached or the listing fails.
        """
        session = await self.ensure_open()
        async with self._listing:
            old = max_age_s is not None and now() - self._listed_at >= max_age_s
            if self._tools_changed or old:
                await self._list_again(session)
        return list(self.tools)

    async def _list_again(self, session: Client) -> None:
        """List the tools again on the open session (a failure keeps them marked as changed)."""
        # Cleared first: a notice arriving during the listing asks for another one.
        self._tools_changed, ended = False, self._ended
        try:
            async with asyncio.timeout(self.startup_timeout_s):
                tools = await list_all_tools(session)
        except (TimeoutError, MCPError, *CONNECTION_ERRORS) as exc:
            self._tools_changed = True
            if isinstance(exc, CONNECTION_ERRORS) or (
                isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED
            ):
                self._end(ended)
            why = "no answer" if isinstance(exc, TimeoutError) else start_failure(exc)
            raise ExpertUnavailable(self.name, f"listing its tools again failed: {why}") from exc
        self.tools, self._listed_at = tools, now()
        await self._remember_tools()

    async def launched(self) -> None:
        """Wait until a start has launched its transport (the server process runs) or ended."""
        await self._launched.wait()

    async def _stderr_suffix(self) -> str:
        tail = await asyncio.to_thread(self._stderr_tail)
        return f"; server stderr: {tail}" if tail else ""

    def _stderr_tail(self) -> str:
        if self._errlog is None:
            return ""
        self._errlog.flush()
        self._errlog.seek(0)
        return self._errlog.read()[-STDERR_TAIL_CHARS:].strip()

    async def call_tool(
        self,
        tool: str,
        args: dict[str, Any],
        progress: ProgressFnT | None = None,
        key: str = "",
        inputs: Inputs | None = None,
        tasks: TaskHooks | None = None,
    ) -> CallToolResult | Asking:
        """Send `tools/call` on the open session (the caller applies the timeout).

        Raises MCPError (connection closed) as soon as the session ends while the call waits;
        a call its caller abandons is cancelled on the server by the SDK. `progress` hears
        the server's `notifications/progress` for this call. The call may stop at its
        server's questions (`Asking`); `inputs` then carries the answers, and `key` names
        the call across the two (`common.mcp.calls`). `tasks`: see `common.mcp.tasks`.
        """
        client = await self.ensure_open()
        ended = self._ended
        try:
            return await self._calls.call(client, ended, tool, args, progress, key, inputs, tasks)
        except (MCPError, *CONNECTION_ERRORS) as exc:
            if not isinstance(exc, MCPError) or exc.code == CONNECTION_CLOSED:
                self._end(ended)
            raise

    def mark_dead(self) -> None:
        """Forget the session after a connection failure so the next use reopens it."""
        self._session = None
        self._stop.set()

    def _end(self, ended: asyncio.Event) -> None:
        """Forget the session a call saw die, unless it was already replaced by a fresh one.

        `ended` names the session's start: a late error from a dead session must not end the
        session a retry has just opened.
        """
        if self._ended is ended:
            self.mark_dead()

    def _drop_start(self) -> None:
        """Let go of a start its caller stopped waiting for, leaving no orphan outcome behind.

        A start not yet decided is cancelled, so its owner hands no failure to a future no one
        awaits (asyncio would print "Future exception was never retrieved" at exit); a failure
        that arrived as the caller gave up is taken here, since the caller's own timeout or
        cancellation is what it raises.
        """
        ready = self._ready
        if ready is None:
            return
        if not ready.done():
            ready.cancel()
        elif not ready.cancelled() and (failure := ready.exception()) is not None:
            logger.debug("MCP server %r failed as its start was abandoned: %r", self.name, failure)

    def _tear_down_in_background(self) -> None:
        """End a server that never initialized without making the caller wait for its exit.

        It will not stop when asked (it is not listening), so it is cancelled at once; the
        next start or `aclose` waits for it to be gone.
        """
        owner, self._owner = self._owner, None
        if owner is not None:
            owner.cancel()
            self._teardown = asyncio.get_running_loop().create_task(self._reap(owner))

    async def _close_owner(self) -> None:
        teardown, self._teardown = self._teardown, None
        if teardown is not None:
            await teardown
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
        await self._close_errlog()

    async def _close_errlog(self) -> None:
        if self._errlog is not None:
            errlog, self._errlog = self._errlog, None
            await asyncio.to_thread(errlog.close)


async def _first_set(*events: asyncio.Event) -> asyncio.Event:
    """Wait until one of `events` is set, and return it."""
    waits = {asyncio.ensure_future(e.wait()): e for e in events}
    try:
        done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()
    return waits[done.pop()]


async def _greet(stack: AsyncExitStack, client: Client) -> list[Tool]:
    """Connect `client` (its era chosen, its lifetime on `stack`), then its whole tool list."""
    await stack.enter_async_context(client)
    return await list_all_tools(client)


def never_sent(exc: BaseException) -> bool:
    """Whether a failed request provably never left: its write met a closed transport.

    The SDK raises `CONNECTION_CLOSED` for it from the write's own closed-stream error, where a
    request that was written and then lost its connection gets the same code with no cause.
    """
    if isinstance(exc, anyio.ClosedResourceError):
        return True
    written_to_closed = isinstance(
        exc.__context__, (anyio.ClosedResourceError, anyio.BrokenResourceError)
    )
    return isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED and written_to_closed


def _being_cancelled() -> bool:
    """Whether the running task has a cancellation pending (not only a child it awaited)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _temp_log() -> TextIO:
    return tempfile.TemporaryFile("w+", encoding="utf-8")


def start_failure(
    exc: BaseException,
    name: str = "",
    config: ServerConfig | None = None,
    status: int | None = None,
) -> str:
    """Why a server did not start, in words: a closed pipe means the server went away.

    An HTTP server's reason names its URL and what to check: nothing listening (its url, or
    start it), or a refusal of our credentials (its `headers`); `status` is the HTTP error
    status it last answered with, which the SDK's own error no longer carries. A server that
    refuses the protocol its `protocol` setting pins is told to be given another.
    """
    command = config.command if config is not None else None
    if command and isinstance(exc, FileNotFoundError):
        return (
            f"its command {command!r} was not found; install it, or correct the command of "
            f"server {name!r} in the MCP config file"
        )
    import httpx2

    url = config.url if config is not None else None
    if url and isinstance(exc, httpx2.HTTPStatusError):
        status = exc.response.status_code
    closed = isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED
    answered = (isinstance(exc, MCPError) and not closed) or status not in (None, 401, 403)
    if config is not None and config.protocol != "auto" and answered:
        return _refused_protocol(exc, name, config.protocol, status)
    if url and status is not None:
        if status in (401, 403):
            return (
                f"{url} refused the connection with HTTP {status}; check the `headers` "
                f"(credentials) of server {name!r} in the MCP config file"
            )
        return f"{url} answered HTTP {status} to the MCP connection; check its url"
    if url and isinstance(exc, httpx2.TransportError):
        why = " ".join(str(exc).split()) or type(exc).__name__
        return (
            f"nothing answered at {url} ({why}); start that server, or correct the url of "
            f"server {name!r} in the MCP config file"
        )
    if closed or isinstance(exc, CONNECTION_ERRORS):
        return "the server closed the connection while starting (it exited or crashed)"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _refused_protocol(exc: BaseException, name: str, protocol: str, status: int | None) -> str:
    """A server's refusal of the protocol its `protocol` setting pins, and what to change."""
    said = " ".join(str(exc).split()) or (f"HTTP {status}" if status else type(exc).__name__)
    other = '"auto"' if protocol == "legacy" else '"auto" or "legacy"'
    return (
        f"it refused protocol {protocol!r}, which the `protocol` setting of server {name!r} "
        f"pins ({said}); set it to {other} in the MCP config file"
    )
