"""Stand-in HTTP servers for the tests, all on one library: pytest-httpserver (werkzeug).

A stand-in is one handler function (a `werkzeug.Request` in, a `werkzeug.Response` out), served
by `StubServer` on a real loopback port. A real port, because what is tested is often a
subprocess (the CLI, `langgraph dev`, the SDK examples) or a client library with a transport of
its own (httpx, requests, urllib): a URL reaches them all, with nothing patched. This library,
because it is a maintained server made for tests, with werkzeug underneath to handle what
hand-written `http.server` handlers had to do themselves (lengths, chunked and streamed bodies,
content types). It is run threaded, so a stand-in stalling one answer holds up no other request.
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import suppress
from types import TracebackType
from typing import Any, NoReturn, Self

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response
from werkzeug.exceptions import NotImplemented as MethodNotImplemented

Handler = Callable[[Request], Response]
"""A stand-in: the response to each request."""


class StubServer:
    """Answer every request with `handler` on http://127.0.0.1:PORT while the `with` block runs."""

    def __init__(self, handler: Handler, methods: Collection[str] | None = None) -> None:
        self.handler = handler
        """The stand-in's answer to each request."""
        self.methods = None if methods is None else frozenset(methods)
        """The HTTP methods answered (None: all); others get 501, as from an `http.server`."""
        self.server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
        """The pytest-httpserver server (its `log` holds each request and response)."""
        self.server.expect_request(re.compile(".*")).respond_with_handler(self._dispatch)

    def _dispatch(self, request: Request) -> Response:
        if self.methods is not None and request.method not in self.methods:
            return MethodNotImplemented().get_response()
        return self.handler(request)

    @property
    def url(self) -> str:
        """The base URL, without a trailing slash (the port is chosen when serving starts)."""
        if not self.server.port:
            raise RuntimeError("a StubServer has no port until its `with` block starts it")
        return self.server.url_for("/").rstrip("/")

    def __enter__(self) -> Self:
        self.server.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.server.stop()
        # A handler that raised answered 500 to a client that may have hidden it: fail the
        # test here, unless it is already failing (its own error says more).
        if exc_type is None:
            self.server.check_handler_errors()


def sent_path(request: Request) -> str:
    """The request target as the client sent it: path and query, still percent-encoded."""
    # `request.path` is decoded and without the query; a recording or a forward wants the wire's.
    target: str = request.environ["RAW_URI"]
    return target


def json_response(
    body: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    """`body` as JSON (`json.dumps`' default spacing), with `status` and any extra `headers`."""
    return Response(
        json.dumps(body),
        status=status,
        headers=dict(headers or {}),
        content_type="application/json",
    )


def _hang_up(request: Request) -> NoReturn:
    """Close `request`'s connection now, as a server that crashed would (from a body only)."""
    with suppress(OSError):
        request.environ["werkzeug.socket"].shutdown(socket.SHUT_RDWR)
    # werkzeug takes a ConnectionError from a body for a client that went away: it sends nothing
    # more, logs nothing and ends the connection. (Raised by a handler, pytest-httpserver would
    # keep it as the handler's error, hence bodies only.)
    raise ConnectionAbortedError("the stand-in hung up")


def cut_short(request: Request, sent: Iterable[bytes] = (), **response: Any) -> Response:
    """A `Response(**response)` whose body sends `sent`, then hangs up before the answer ends."""

    def body() -> Iterator[bytes]:
        # With nothing sent, not even the status line goes out: the client sees the connection
        # close unanswered. Otherwise the body is chunked and its last chunk never comes.
        yield from sent
        _hang_up(request)

    return Response(body(), **response)
