"""A scripted OpenAI-compatible chat-completions endpoint on loopback (on tests/http_stub.py).

Each request pops the next scripted reply: a dict `{"content": ...}` (structured output is JSON
text in `content`), or `{"tool_calls": [{"name", "arguments"}]}`. Streaming requests get the
same reply as server-sent events. Every request body (and its headers) is recorded.

A reply may instead be a fault: `{"status": 500}` (or 429 with `"retry_after": seconds`),
`{"stall": seconds}` (answer nothing for that long, then close the connection), `{"body": "..."}`
(that raw text as a 200 body, e.g. malformed JSON), or `{"completion": {...}}` (that exact
completion object, e.g. one with `choices: []`). `default` answers once the script is spent.
`route`, when given, answers first: a reply for a request body, or None to leave it to the
script (for requests whose order is not fixed, such as the planner's and the analyser's, asked
together).

It is provider-faithful by default: a request the real API (`dialect`, "openai" or "azure")
would refuse gets that API's HTTP 400 and error body (`tests.provider_rules`), before any
script is consulted, and is kept in `refusals`. So a schema, tool list or history that drifts
from what the providers accept fails the test. `dialect=None` accepts anything: only for
tests that send odd traffic on purpose, each saying why.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Any

from werkzeug import Request, Response

from tests.http_stub import StubServer, cut_short, json_response
from tests.provider_rules import Dialect, Refusal, check_request


class OpenAIStub(StubServer):
    """Serve scripted replies at http://127.0.0.1:PORT/v1/chat/completions."""

    def __init__(
        self,
        replies: list[dict[str, Any]],
        default: dict[str, Any] | None = None,
        route: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None,
        dialect: Dialect | None = "openai",
    ) -> None:
        super().__init__(self._answer, methods=("POST",))
        self.replies = list(replies)
        """The script: what is left of it, answered in order."""
        self.dialect = dialect
        """The API whose refusals are applied (None: accept anything)."""
        self.refusals: list[Refusal] = []
        """The requests refused for that API, in order."""
        self.default = default or {"content": "(script exhausted)"}
        """The reply once the script is spent."""
        self.route = route
        """A reply chosen from the request body, asked before the script (None: the script's)."""
        self.requests: list[dict[str, Any]] = []
        """Each request's JSON body, in order."""
        self.headers: list[dict[str, str]] = []
        """Each request's headers (names lower-cased), in order."""
        self.released = threading.Event()
        """Set when the stub stops: ends every stall."""

    @property
    def base_url(self) -> str:
        """The `OPENAI_BASE_URL` to use."""
        return f"{self.url}/v1"

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.released.set()
        super().__exit__(exc_type, exc, traceback)

    def _answer(self, request: Request) -> Response:
        body = json.loads(request.get_data())
        self.requests.append(body)
        self.headers.append({k.lower(): v for k, v in request.headers.items()})
        refusal = check_request(body, self.dialect) if self.dialect else None
        if refusal is not None:
            self.refusals.append(refusal)
            return json_response(refusal.body(), 400)
        reply = self.route(body) if self.route else None
        if reply is None:
            reply = self.replies.pop(0) if self.replies else self.default
        if "stall" in reply:
            # Released early when the stub stops, so no handler outlives a test.
            self.released.wait(float(reply["stall"]))
            return cut_short(request)
        if "status" in reply:
            status, retry_after = int(reply["status"]), reply.get("retry_after")
            headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
            return json_response({"error": {"message": f"stub status {status}"}}, status, headers)
        if "body" in reply:
            return Response(str(reply["body"]), content_type="application/json")
        if "completion" in reply:
            return json_response(reply["completion"])
        if body.get("stream"):
            return Response(_events(reply), content_type="text/event-stream")
        return json_response(_completion(reply))


def _events(reply: dict[str, Any]) -> Iterator[bytes]:
    """`reply` as a streamed completion's server-sent events."""
    message = _completion(reply)["choices"][0]["message"]
    delta: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        delta["tool_calls"] = [{**c, "index": i} for i, c in enumerate(message["tool_calls"])]
    for chunk in (
        {"delta": delta, "finish_reason": None},
        {"delta": {}, "finish_reason": "stop"},
    ):
        event = {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "stub",
            "choices": [{"index": 0, **chunk}],
        }
        yield f"data: {json.dumps(event)}\n\n".encode()
    yield b"data: [DONE]\n\n"


def _completion(reply: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
    if "tool_calls" in reply:
        message["content"] = None
        message["tool_calls"] = [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
            }
            for i, c in enumerate(reply["tool_calls"])
        ]
    finish = "tool_calls" if "tool_calls" in reply else "stop"
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": "stub",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
