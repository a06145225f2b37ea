"""The real langchain-openai client through the whole graph, against a scripted loopback server."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver

from common.models import load_chat_model
from common.settings import get_settings
from strategies.with_planner.graph import build_graph
from tests.integration_tests.openai_stub import OpenAIStub

pytestmark = pytest.mark.integration


@pytest.fixture
def stub_settings(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Point OPENAI_BASE_URL at the stub (the test guard allows loopback only)."""

    def use(stub: OpenAIStub) -> None:
        monkeypatch.setattr(get_settings(), "openai_base_url", stub.base_url)

    return use


async def test_structured_output_tool_calls_and_streaming_through_the_graph(
    mcp_config: dict[str, Any], stub_settings: Any
) -> None:
    step = {"id": "t1", "expert": "inventory", "task": "Stock of WID-1", "depends_on": []}
    plan = {
        "decision": "replace",
        "plan": [{**step, "critical": True, "tool": None, "args_json": None}],
        "next_task": 0,
        "clarification": None,
        "not_covered": [],
    }
    replies = [
        {"content": json.dumps(plan)},
        {"tool_calls": [{"name": "get_stock", "arguments": {"sku": "WID-1"}}]},
        {"content": json.dumps({"completed": True, "reason": "stock read"})},
        {"content": "WID-1 has 120 units in stock."},
    ]
    config = {
        "mcpServers": {
            "inventory": {**mcp_config["mcpServers"]["inventory"], "trust_annotations": True}
        }
    }
    with OpenAIStub(replies) as stub:
        stub_settings(stub)
        assert isinstance(load_chat_model("openai:gpt-4o-mini"), ChatOpenAI)
        graph = build_graph(InMemorySaver())
        ctx = {"mcp_config": config, "model": "openai:gpt-4o-mini"}
        tokens: list[str] = []
        async for chunk, _meta in graph.astream(
            {"messages": [{"role": "user", "content": "How many WID-1 are in stock?"}]},
            {"configurable": {"thread_id": "openai-1"}},
            context=ctx,
            stream_mode="messages",
        ):
            if getattr(chunk, "content", None):
                tokens.append(str(chunk.content))
        state = (await graph.aget_state({"configurable": {"thread_id": "openai-1"}})).values

    assert state["messages"][-1].content == "WID-1 has 120 units in stock."
    (task,) = state["previous_plan"]
    assert task["status"] == "completed"
    assert '"stock": 120' in task["result"]
    assert any("120 units" in t for t in tokens), tokens
    planner_request, orchestrate_request = stub.requests[0], stub.requests[1]
    assert planner_request["response_format"]["type"] == "json_schema"
    assert [t["function"]["name"] for t in orchestrate_request["tools"]][:3] == [
        "list_products",
        "get_stock",
        "search_products",
    ]
