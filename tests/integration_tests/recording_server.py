"""A loopback HTTP server that records each request body and answers a provider's canned reply.

The provider integrations are pointed at it through their own base-URL settings, so what is
recorded is what their real transports put on the wire. Written with the standard library
rather than mocked with respx or `responses` because those patch one HTTP library each, and
the clients here use three: anthropic and openai use `httpx2` (which respx does not patch),
ollama uses `httpx`, and google-ai-generativelanguage's REST transport uses `requests`.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

ANTHROPIC_REPLY: dict[str, Any] = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude",
    "content": [{"type": "text", "text": "{}"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}
"""A Messages API answer (text "{}")."""

OLLAMA_REPLY: dict[str, Any] = {
    "model": "m",
    "created_at": "2024-01-01T00:00:00Z",
    "message": {"role": "assistant", "content": "{}"},
    "done": True,
    "done_reason": "stop",
}
"""An /api/chat answer, streamed as its one and last line."""

GEMINI_REPLY: dict[str, Any] = {
    "candidates": [
        {"content": {"role": "model", "parts": [{"text": "{}"}]}, "finishReason": "STOP"}
    ],
}
"""A generateContent answer (text "{}")."""


OPENAI_REPLY: dict[str, Any] = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 0,
    "model": "local",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "{}"}, "finish_reason": "stop"}
    ],
}
"""A chat-completions answer (text "{}"), as an OpenAI-compatible server sends it."""


def reply_for(path: str) -> dict[str, Any]:
    """The canned answer of the API that serves `path`."""
    if path.endswith("/chat/completions"):
        return OPENAI_REPLY
    if path.startswith("/api/chat"):
        return OLLAMA_REPLY
    if ":generateContent" in path:
        return GEMINI_REPLY
    return ANTHROPIC_REPLY


def _send(handler: BaseHTTPRequestHandler, status: int, data: bytes) -> None:
    """Answer the request `handler` holds with `status` and the JSON body `data`."""
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class _Loopback:
    """A threaded HTTP server on a free loopback port, served while the `with` block runs."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The server's base URL (no path)."""
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class RecordingServer(_Loopback):
    """Serve canned replies on http://127.0.0.1:PORT; `requests` holds (path, JSON body) pairs.

    `openai_reply` replaces the chat-completions answer (`OPENAI_REPLY`).
    """

    def __init__(self, openai_reply: dict[str, Any] | None = None) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        server = self
        canned = openai_reply

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                server.requests.append((self.path, json.loads(raw or b"{}")))
                reply = reply_for(self.path)
                if canned is not None and reply is OPENAI_REPLY:
                    reply = canned
                _send(self, 200, json.dumps(reply).encode())

        super().__init__(Handler)

    def bodies(self) -> list[dict[str, Any]]:
        """The JSON bodies received, in order."""
        return [body for _path, body in self.requests]


class RecordingProxy(_Loopback):
    """Forward POSTs to `upstream` (a real server) and keep each (request, response) body pair.

    What a client sent and what the real server answered, for assertions about answers the
    client cannot show (each of a run's model answers, not only its last).
    """

    def __init__(self, upstream: str) -> None:
        self.exchanges: list[tuple[dict[str, Any], dict[str, Any]]] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                request = urllib.request.Request(
                    upstream.rstrip("/") + self.path,
                    data=raw,
                    headers={"Content-Type": "application/json"},
                )
                try:
                    with urllib.request.urlopen(request, timeout=PROXY_TIMEOUT_S) as answer:
                        status, data = answer.status, answer.read()
                except urllib.error.HTTPError as refused:
                    status, data = refused.code, refused.read()
                try:
                    proxy.exchanges.append((json.loads(raw or b"{}"), json.loads(data)))
                except ValueError:
                    proxy.exchanges.append((json.loads(raw or b"{}"), {"unparsed": repr(data)}))
                try:
                    _send(self, status, data)
                except (BrokenPipeError, ConnectionResetError):
                    # The client gave up waiting (the analyser's own time limit): kept anyway.
                    return

        super().__init__(Handler)


PROXY_TIMEOUT_S = 900
"""How long the proxy waits for the real server (a hang guard; the client has its own)."""
