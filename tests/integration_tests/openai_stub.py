"""A scripted OpenAI-compatible chat-completions endpoint on loopback (stdlib only).

Each request pops the next scripted reply: a dict `{"content": ...}` (structured output is JSON
text in `content`), or `{"tool_calls": [{"name", "arguments"}]}`. Streaming requests get the
same reply as server-sent events. Every request body (and its headers) is recorded.

A reply may instead be a fault: `{"status": 500}` (or 429 with `"retry_after": seconds`),
`{"stall": seconds}` (answer nothing for that long), `{"body": "..."}` (that raw text as a 200
body, e.g. malformed JSON), or `{"completion": {...}}` (that exact completion object, e.g. one
with `choices: []`). `default` answers once the script is spent. `route`, when given, answers
first: a reply for a request body, or None to leave it to the script (for requests whose order
is not fixed, such as the planner's and the analyser's, asked together).

It is provider-faithful by default: a request the real API (`dialect`, "openai" or "azure")
would refuse gets that API's HTTP 400 and error body (`tests.provider_rules`), before any
script is consulted, and is kept in `refusals`. So a schema, tool list or history that drifts
from what the providers accept fails the test. `dialect=None` accepts anything: only for
tests that send odd traffic on purpose, each saying why.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.provider_rules import Dialect, Refusal, check_request


class OpenAIStub:
    """Serve scripted replies at http://127.0.0.1:PORT/v1/chat/completions."""

    def __init__(
        self,
        replies: list[dict[str, Any]],
        default: dict[str, Any] | None = None,
        route: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None,
        dialect: Dialect | None = "openai",
    ) -> None:
        self.replies = list(replies)
        self.dialect = dialect
        self.refusals: list[Refusal] = []
        self.default = default or {"content": "(script exhausted)"}
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.released = threading.Event()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append(body)
                stub.headers.append({k.lower(): v for k, v in self.headers.items()})
                refusal = check_request(body, stub.dialect) if stub.dialect else None
                if refusal is not None:
                    stub.refusals.append(refusal)
                    self._send(400, refusal.body())
                    return
                reply = route(body) if route else None
                if reply is None:
                    reply = stub.replies.pop(0) if stub.replies else stub.default
                if "stall" in reply:
                    # Released early when the stub stops, so no handler outlives a test.
                    stub.released.wait(float(reply["stall"]))
                    return
                if "status" in reply:
                    self._fail(int(reply["status"]), reply.get("retry_after"))
                elif "body" in reply:
                    self._raw(str(reply["body"]))
                elif "completion" in reply:
                    self._send(200, reply["completion"])
                elif body.get("stream"):
                    self._stream(reply)
                else:
                    self._send(200, _completion(reply))

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _fail(self, status: int, retry_after: float | None) -> None:
                data = json.dumps({"error": {"message": f"stub status {status}"}}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if retry_after is not None:
                    self.send_header("Retry-After", str(retry_after))
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _raw(self, text: str) -> None:
                data = text.encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, reply: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                message = _completion(reply)["choices"][0]["message"]
                delta: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
                if message.get("tool_calls"):
                    delta["tool_calls"] = [
                        {**c, "index": i} for i, c in enumerate(message["tool_calls"])
                    ]
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
                    self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The `OPENAI_BASE_URL` to use."""
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> OpenAIStub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


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
