"""A stdio server that prints anything but MCP messages on stdout fails its start at once.

The MCP SDK's stdio reader hands each stdout line it cannot parse to the session's message
handler as an exception and carries on; a banner or a log line glued to the `initialize` answer
then loses that answer, and the start fails only at the start-up timeout, without saying why.
The specification says a stdio server must write nothing else on stdout, so the first such line
before the session is ready ends the start with a sentence quoting it. After the start, a stray
line is logged and skipped, as the SDK does.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any, TypeVar

from pydantic import ValidationError

QUOTED_CHARS = 120
"""How much of the offending line the sentence quotes."""
logger = logging.getLogger(__name__)

T = TypeVar("T")

SDK_PARSE_FAILURE = "Failed to parse JSONRPC message from server"
"""What the SDK's stdio reader logs, with a traceback, for each unparsable stdout line."""


def _not_a_parse_failure(record: logging.LogRecord) -> bool:
    """Drop the SDK's traceback for a stray stdout line: the watch reports it in one sentence."""
    return record.getMessage() != SDK_PARSE_FAILURE


# Added once per process (the same function object is not added twice).
logging.getLogger("mcp.client.stdio").addFilter(_not_a_parse_failure)


class NonProtocolOutput(RuntimeError):
    """A stdio server wrote a line on stdout that is not a JSON-RPC message."""


def _line_of(error: Exception) -> str:
    """The offending stdout line, as the SDK's parse error holds it."""
    if isinstance(error, ValidationError):
        for detail in error.errors():
            if isinstance(detail.get("input"), str):
                return str(detail["input"])
    return str(error)


class StdoutWatch:
    """The session's message handler: remembers the first unparsable stdout line."""

    def __init__(self, name: str) -> None:
        self.name = name
        """The expert's name (for the log)."""
        self.seen: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        """Resolved with the first non-protocol line received during the start."""
        self.started = False
        """Whether the guarded start is over (later lines are logged and skipped)."""
        self.failure: NonProtocolOutput | None = None
        """The start's failure, kept: closing the transport may raise over it."""

    async def __call__(self, message: Any) -> None:
        """Note a line the SDK could not parse; every other message needs nothing from us."""
        if not isinstance(message, Exception):
            return
        line = _line_of(message)
        if not line.strip():
            return
        if not self.started and not self.seen.done():
            self.seen.set_result(line)
        elif self.started:
            logger.warning("MCP server %r wrote non-protocol output on stdout: %r", self.name, line)

    async def guard(self, step: Awaitable[T]) -> T:
        """Run `step` (the start), ended at once by non-protocol output on stdout."""
        try:
            return await self._first_of(step)
        finally:
            self.started = True

    async def _first_of(self, step: Awaitable[T]) -> T:
        """`step`'s result, or NonProtocolOutput as soon as a stray line arrives first.

        `step` runs in the calling task, which a stray line cancels: the SDK's client enters
        its task groups there, and they must be left by the task that entered them.
        """
        task = asyncio.current_task()
        assert task is not None
        cut = False

        def interrupt(seen: asyncio.Future[str]) -> None:
            nonlocal cut
            if not seen.cancelled() and not self.started and not cut:
                cut = True
                task.cancel()

        if self.seen.done():
            interrupt(self.seen)
        else:
            self.seen.add_done_callback(interrupt)
        try:
            return await step
        except BaseException as exc:
            if not cut:
                raise
            if task.cancelling() > 0:
                task.uncancel()
            raise self._failure(self.seen.result()) from exc
        finally:
            self.started = True
            self.seen.remove_done_callback(interrupt)

    def _failure(self, line: str) -> NonProtocolOutput:
        """The start's failure for stray `line`, kept for the session's reason."""
        quoted = line.strip()[:QUOTED_CHARS]
        self.failure = NonProtocolOutput(
            f"it printed non-protocol output on stdout: {quoted!r}; MCP stdio servers must "
            "write their logs to stderr"
        )
        return self.failure
