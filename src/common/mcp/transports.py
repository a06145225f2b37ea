"""How a session reaches its server: the SDK's transports, announced once they run.

The SDK's `Client` takes a transport (stdio, streamable HTTP, SSE) or an in-process server and
does the rest: the protocol era (`server/discover`, or the 2025 `initialize` handshake), list
caching, cancellation. Two things it does not say are kept here:
- when a transport is up (a stdio server's process runs), which `launched()` waiters need
  before the handshake is over, and when it ended while the session was idle (`_Watched`);
- undecodable bytes on a stdio server's stdout are replaced, not fatal (see `connection`);
- the HTTP status a server refused us with: the 2.x streamable-HTTP transport turns a 401 or
  403 into a generic JSON-RPC error, so the status of each failed POST is noted (an httpx2
  event hook) and the start's failure can name the credentials.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

import anyio
from mcp import StdioServerParameters
from mcp.client.stdio import stdio_client

from common.mcp.config import ServerConfig
from common.mcp.inprocess import inprocess_server

if TYPE_CHECKING:
    from mcp.client._transport import Transport, TransportStreams
    from mcp.server.lowlevel import Server


def resolve_command(command: str) -> str:
    """A bare `python`/`python3` means this interpreter, so bundled servers share our venv."""
    return sys.executable if command in {"python", "python3"} else command


@dataclass
class HttpRefusal:
    """The last HTTP error status an HTTP server answered a request of ours with."""

    status: int | None = None
    """That status (None: every answer so far was a success)."""


class _Watched:
    """A transport's read stream that sets `closed` when it ends (the server went away).

    The SDK's client fails the requests pending at that moment, but says nothing to a client
    that is idle: without this, a session whose server died between calls stays "open".
    """

    def __init__(self, stream: Any, closed: asyncio.Event) -> None:
        self._stream = stream
        self._closed = closed

    def __getattr__(self, name: str) -> Any:
        # Anything else the SDK reads (`last_context`) is the stream's own.
        return getattr(self._stream, name)

    async def receive(self) -> Any:
        """The next message; the end of the stream is noted before it is raised."""
        try:
            return await self._stream.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._closed.set()
            raise

    async def aclose(self) -> None:
        """Close the stream."""
        await self._stream.aclose()

    def __aiter__(self) -> _Watched:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _Watched:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


@asynccontextmanager
async def _announced(
    transport: Transport, launched: asyncio.Event, closed: asyncio.Event
) -> AsyncIterator[Any]:
    """`transport`, with `launched` set as soon as it is open and `closed` once it ends."""
    async with transport as (read, write):
        launched.set()
        yield _Watched(read, closed), write


def connection(
    cfg: ServerConfig,
    errlog: TextIO | None,
    events: tuple[asyncio.Event, asyncio.Event],
    refusal: HttpRefusal,
) -> Transport | Server[Any]:
    """What the SDK's `Client` connects to for `cfg`: a transport, or an in-process server.

    `events` are set when the transport is up (`launched`) and when it ended (`closed`).
    """
    launched, closed = events
    kind = cfg.resolved_transport
    if kind == "inprocess":
        assert cfg.inprocess is not None
        launched.set()
        return inprocess_server(cfg.inprocess)
    if kind == "stdio":
        assert cfg.command is not None
        assert errlog is not None
        params = StdioServerParameters(
            command=resolve_command(cfg.command),
            args=list(cfg.args),
            env=dict(cfg.env),
            cwd=cfg.cwd,
            # Undecodable bytes become U+FFFD, so such a line is one the session skips: with
            # "strict", the SDK's reader stops at it and every pending call waits its timeout.
            encoding_error_handler="replace",
        )
        return _announced(stdio_client(params, errlog), launched, closed)
    assert cfg.url is not None
    return _announced(_http(cfg, refusal), launched, closed)


@asynccontextmanager
async def _http(cfg: ServerConfig, refusal: HttpRefusal) -> AsyncIterator[TransportStreams]:
    """Streamable HTTP (or SSE) to `cfg.url` with its headers; failed POSTs noted in `refusal`."""
    # httpx2 and the HTTP transports are imported by the first session that needs them.
    import httpx2
    from mcp.client.sse import sse_client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    assert cfg.url is not None

    async def note(response: Any) -> None:
        if response.request.method == "POST" and response.status_code >= 400:
            refusal.status = response.status_code

    if cfg.resolved_transport == "sse":

        def factory(
            headers: dict[str, str] | None = None,
            timeout: httpx2.Timeout | None = None,
            auth: httpx2.Auth | None = None,
        ) -> httpx2.AsyncClient:
            client = create_mcp_http_client(headers, timeout, auth)
            client.event_hooks["response"].append(note)
            return client

        async with sse_client(
            cfg.url, headers=dict(cfg.headers), httpx_client_factory=factory
        ) as streams:
            yield streams
        return
    async with create_mcp_http_client(dict(cfg.headers)) as client:
        client.event_hooks["response"].append(note)
        async with streamable_http_client(cfg.url, http_client=client) as streams:
            yield streams
