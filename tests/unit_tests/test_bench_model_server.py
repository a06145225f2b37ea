"""The benches' scripted model server holds requests to the provider rules (OpenAI's by default)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.unit_tests.helpers import bench_script

WRITER = {
    "model": "bench-0ms",
    "messages": [
        {"role": "system", "content": "You write the final answer. Order ord-1 placed."},
        {"role": "user", "content": "Reorder WID-1"},
    ],
}
"""An answer-writer request the server recognises."""


@pytest.fixture
def server() -> Iterator[tuple[str, Any]]:
    """bench/model_server.py's server on a free loopback port; its URL and handler class."""
    module = bench_script("model_server")
    httpd = module.Server(("127.0.0.1", 0), module.Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1/chat/completions", module.Handler
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_valid_request_is_answered(server: tuple[str, Any]) -> None:
    url, _handler = server
    reply = httpx.post(url, json=WRITER)
    assert reply.status_code == 200
    assert reply.json()["choices"][0]["message"]["role"] == "assistant"


def test_a_request_the_api_refuses_gets_its_400(
    server: tuple[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, handler = server
    tool = {"type": "function", "function": {"name": "shop.get", "parameters": {}}}
    reply = httpx.post(url, json={**WRITER, "tools": [tool]})
    assert reply.status_code == 400
    assert reply.json() == {
        "error": {
            "message": "Invalid 'tools[0].function.name': string does not match pattern. "
            "Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
            "type": "invalid_request_error",
            "param": "tools[0].function.name",
            "code": "invalid_value",
        }
    }
    # `--dialect none` takes it.
    monkeypatch.setattr(handler, "dialect", None)
    assert httpx.post(url, json={**WRITER, "tools": [tool]}).status_code == 200
