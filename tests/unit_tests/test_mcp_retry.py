"""A call whose connection broke is resent only when that cannot run an irreversible tool twice."""

from __future__ import annotations

import uuid
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult

from common.mcp import ExpertRegistry
from common.mcp.config import parse_mcp_config
from common.mcp.inprocess import register_inprocess_server
from common.mcp.session import PersistentSession


def counter_registry(sent: list[str]) -> ExpertRegistry:
    """A registry over an in-process server whose `send` tool records each call it runs."""
    mcp = MCPServer(f"sender-{uuid.uuid4().hex[:8]}")

    @mcp.tool()
    def send(text: str) -> str:
        """Send a message."""
        sent.append(text)
        return f"sent {text}"

    register_inprocess_server(mcp.name, mcp)
    return ExpertRegistry(parse_mcp_config({"mcpServers": {"s": {"inprocess": mcp.name}}}))


def break_connection(monkeypatch: pytest.MonkeyPatch, *errors: Exception) -> None:
    """The next calls fail with `errors`, one each, before reaching the server; then calls pass."""
    real = PersistentSession.call_tool
    pending = list(errors)

    async def flaky(self: PersistentSession, tool: str, args: dict[str, Any]) -> CallToolResult:
        if pending:
            raise pending.pop(0)
        return await real(self, tool, args)

    monkeypatch.setattr(PersistentSession, "call_tool", flaky)


@pytest.mark.parametrize(
    ("error", "retry_safe", "status"),
    [
        (anyio.BrokenResourceError(), False, "interrupted"),
        (anyio.BrokenResourceError(), True, "ok"),
        (anyio.ClosedResourceError(), False, "ok"),
    ],
    ids=["maybe-sent-irreversible", "maybe-sent-reversible", "never-sent"],
)
async def test_a_lost_connection_is_retried_once_when_safe(
    monkeypatch: pytest.MonkeyPatch, error: Exception, retry_safe: bool, status: str
) -> None:
    sent: list[str] = []
    registry = counter_registry(sent)
    await registry.tools("s")
    break_connection(monkeypatch, error)

    result = await registry.call("s", "send", {"text": "hi"}, 10, retry_safe=retry_safe)

    assert result["status"] == status
    assert sent == (["hi"] if status == "ok" else [])
    if status != "ok":
        assert "was lost during 'send'" in result["content"]


async def test_a_second_loss_is_reported_not_retried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[str] = []
    registry = counter_registry(sent)
    await registry.tools("s")
    break_connection(monkeypatch, anyio.EndOfStream(), anyio.EndOfStream(), anyio.EndOfStream())

    result = await registry.call("s", "send", {"text": "hi"}, 10, retry_safe=True)

    assert result["status"] == "unavailable"
    assert sent == []
