"""A fault-injecting OpenAI-compatible endpoint: the scripted stub, plus the faults to script.

Each fault is one scripted reply of `OpenAIStub` (see its docstring), so a script can mix
faults and good answers in the order the graph's nodes ask: e.g. `[SERVER_ERROR, plan, ...]`
fails the planner's first request and answers its retry.
"""

from __future__ import annotations

from typing import Any

from tests.integration_tests.helpers import free_port
from tests.integration_tests.openai_stub import OpenAIStub

Reply = dict[str, Any]
"""One scripted reply: an answer or a fault."""

SERVER_ERROR: Reply = {"status": 500}
"""HTTP 500 with a JSON error body."""
RATE_LIMITED: Reply = {"status": 429, "retry_after": 1}
"""HTTP 429 asking the client to wait one second."""
MALFORMED_JSON: Reply = {"body": '{"id": "x", "choices": [ not json'}
"""A 200 answer whose body is not JSON."""
EMPTY_CONTENT: Reply = {"content": ""}
"""A well-formed completion with empty text."""
NO_CHOICES: Reply = {
    "completion": {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": "stub",
        "choices": [],
    }
}
"""A well-formed completion with `choices: []`."""
SCHEMA_MISMATCH: Reply = {"content": '{"plan": "not a list", "completed": "maybe"}'}
"""JSON text that does not match the structured answer's schema."""


STALL_S = 60.0
"""How long a stalled reply stalls unless a test says otherwise (far past any model timeout)."""


def stall(seconds: float = STALL_S) -> Reply:
    """Answer nothing for `seconds` (longer than the model timeout under test)."""
    return {"stall": seconds}


def refused_url() -> str:
    """An `OPENAI_BASE_URL` on loopback where nothing listens: connections are refused."""
    return f"http://127.0.0.1:{free_port()}/v1"


class FaultyOpenAI(OpenAIStub):
    """The scripted endpoint with `heal`: replace what is left of the script."""

    def heal(self, replies: list[Reply]) -> None:
        """From now on answer `replies` (faults left in the script are dropped)."""
        self.replies[:] = list(replies)
