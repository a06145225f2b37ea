"""The inventory demo server over streamable HTTP, through the registry and the graph."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from common.mcp import ExpertRegistry
from common.mcp.config import parse_mcp_config
from strategies.with_planner.graph import build_graph
from tests.bounds import HANG_GUARD_S
from tests.doubles import calls, tool_call
from tests.integration_tests.helpers import drop_pooled, free_port

pytestmark = pytest.mark.integration

STARTUP_S = HANG_GUARD_S


def _wait_for_port(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"HTTP inventory server exited with code {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"HTTP inventory server did not listen on {port} within {STARTUP_S:g}s")


@pytest.fixture(scope="module")
async def http_config() -> AsyncIterator[dict[str, Any]]:
    """An `mcpServers` document pointing at a fresh HTTP inventory server."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "common.demo_servers.inventory", "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    raw = {
        "mcpServers": {
            "shop": {"url": f"http://127.0.0.1:{port}/mcp", "description": "Shop stock (HTTP)."}
        }
    }
    try:
        _wait_for_port(port, proc)
        yield raw
        await drop_pooled(raw, "shop")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


async def test_registry_over_http(http_config: dict[str, Any]) -> None:
    registry = ExpertRegistry(parse_mcp_config(http_config), startup_timeout_s=HANG_GUARD_S)

    tools = await registry.tools("shop")
    outcome = await registry.call("shop", "get_stock", {"sku": "bolt-m6"}, 10, retry_safe=True)
    unknown = await registry.call("shop", "get_stock", {"sku": "NOPE"}, 10, retry_safe=True)

    assert {t.name for t in tools} == {"list_products", "get_stock", "search_products"}
    assert outcome["status"] == "ok"
    assert outcome["structured"] == {"sku": "BOLT-M6", "stock": 310, "aisle": "F2"}
    assert unknown["status"] == "tool_error"
    assert "Unknown SKU" in unknown["content"]


async def test_graph_task_over_http(
    http_config: dict[str, Any], scripted: Any, thread_config: Any
) -> None:
    ctx, models = scripted(
        planner=[{"plan": [{"id": "t1", "expert": "shop", "task": "Stock of BOLT-M6?"}]}],
        orchestrate=[calls(tool_call("get_stock", {"sku": "BOLT-M6"}))],
        assess=[{"completed": True, "reason": "The stock is in the result."}],
        response=["There are 310 packs of M6 bolts."],
    )
    ctx["mcp_config"] = http_config
    graph = build_graph(checkpointer=InMemorySaver())

    final = await graph.ainvoke(
        {"messages": [("user", "How many M6 bolts?")]}, thread_config(), context=ctx
    )

    assert final["messages"][-1].content == "There are 310 packs of M6 bolts."
    (task,) = final["previous_plan"]
    assert task["status"] == "completed"
    assert "310" in (task["result"] or "")
    assert "shop: Shop stock (HTTP)." in str(models["planner"].requests[0]["messages"][0].content)
