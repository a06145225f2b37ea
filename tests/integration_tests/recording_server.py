"""A loopback HTTP server that records each request body and answers a provider's canned reply.

The provider integrations are pointed at it through their own base-URL settings, so what is
recorded is what their real transports put on the wire. A real server (tests/http_stub.py)
rather than mocks from respx or `responses`, because those patch one HTTP library each, and
the clients here use three: anthropic and openai use `httpx2` (which respx does not patch),
ollama uses `httpx`, and google-ai-generativelanguage's REST transport uses `requests`.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from werkzeug import Request, Response

from tests.http_stub import StubServer, json_response, sent_path

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


class RecordingServer(StubServer):
    """Serve canned replies on http://127.0.0.1:PORT; `requests` holds (path, JSON body) pairs.

    `openai_reply` replaces the chat-completions answer (`OPENAI_REPLY`).
    """

    def __init__(self, openai_reply: dict[str, Any] | None = None) -> None:
        super().__init__(self._answer, methods=("POST",))
        self.requests: list[tuple[str, dict[str, Any]]] = []
        """Each request's path and JSON body, in order."""
        self.openai_reply = openai_reply
        """The chat-completions answer, if not `OPENAI_REPLY`."""

    def _answer(self, request: Request) -> Response:
        path = sent_path(request)
        self.requests.append((path, json.loads(request.get_data() or b"{}")))
        reply = reply_for(path)
        if self.openai_reply is not None and reply is OPENAI_REPLY:
            reply = self.openai_reply
        return json_response(reply)

    def bodies(self) -> list[dict[str, Any]]:
        """The JSON bodies received, in order."""
        return [body for _path, body in self.requests]


class RecordingProxy(StubServer):
    """Forward POSTs to `upstream` (a real server) and keep each (request, response) body pair.

    What a client sent and what the real server answered, for assertions about answers the
    client cannot show (each of a run's model answers, not only its last).
    """

    def __init__(self, upstream: str) -> None:
        super().__init__(self._forward, methods=("POST",))
        self.upstream = upstream.rstrip("/")
        """The real server's base URL."""
        self.exchanges: list[tuple[dict[str, Any], dict[str, Any]]] = []
        """Each request body and the upstream's answer body, in order."""

    def _forward(self, request: Request) -> Response:
        raw = request.get_data()
        forwarded = urllib.request.Request(
            self.upstream + sent_path(request),
            data=raw,
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(forwarded, timeout=PROXY_TIMEOUT_S) as answer:
                status, data = answer.status, answer.read()
        except urllib.error.HTTPError as refused:
            status, data = refused.code, refused.read()
        try:
            self.exchanges.append((json.loads(raw or b"{}"), json.loads(data)))
        except ValueError:
            self.exchanges.append((json.loads(raw or b"{}"), {"unparsed": repr(data)}))
        # Kept even if the client gave up waiting (the analyser's own time limit): werkzeug
        # takes the failed write for a dropped connection.
        return Response(data, status=status, content_type="application/json")


PROXY_TIMEOUT_S = 900
"""How long the proxy waits for the real server (a hang guard; the client has its own)."""
