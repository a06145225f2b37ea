"""Issue 35's measure: the stock request, on an expert whose tools have a dotted and a 70-character
name, runs through the whole graph against the provider-faithful stub, with OpenAI's and Azure's
rules, and no request is refused.

The stub answers by the kind of request, read from the request itself, so the script does not
depend on the schemas' exact shape or on the names tools are bound under: the planner gets a plan
built from its own schema's `Task`, the other structured answers the smallest instance their
schema allows, the orchestrator a call to the tool whose description asks for stock (under
whatever name it was bound), and the answer writer a sentence.

Fails before issue 35's schema and tool-name fixes (the planner's request is refused first).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from common.mcp.inprocess import register_inprocess_server
from common.settings import get_settings
from strategies.with_planner.graph import build_graph
from tests.integration_tests.openai_stub import OpenAIStub
from tests.provider_rules import DIALECTS, Dialect

pytestmark = pytest.mark.integration

DOTTED = "shop.get_stock"
"""A tool name with a dot, as MCP allows."""
LONG = "warehouse_current_stock_level_for_one_product_by_its_stock_keeping_id"
"""A 70-character tool name, longer than the 64 OpenAI takes."""
STOCK_WORDS = "Stock on hand"
"""How the tool to call describes itself."""


def _shop() -> MCPServer:
    """An expert whose two read-only tools have provider-unsafe names."""
    shop = MCPServer("shop")
    read_only = ToolAnnotations(readOnlyHint=True)

    @shop.tool(name=DOTTED, description=f"{STOCK_WORDS} for a SKU.", annotations=read_only)
    def get_stock(sku: str) -> str:
        return json.dumps({"sku": sku, "stock": 120})

    @shop.tool(name=LONG, description="Warehouse level for a SKU.", annotations=read_only)
    def level(sku: str) -> str:
        return json.dumps({"sku": sku, "level": 3})

    return shop


def minimal(schema: Any, defs: dict[str, Any]) -> Any:
    """The smallest instance of a JSON schema (nulls, empties, first choices)."""
    if not isinstance(schema, dict):
        return None
    if "$ref" in schema:
        return minimal(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "anyOf" in schema:
        choices = schema["anyOf"]
        null = [c for c in choices if isinstance(c, dict) and c.get("type") == "null"]
        return None if null else minimal(choices[0], defs)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
    empty: dict[Any, Any] = {"string": "", "integer": 0, "number": 0, "boolean": False}
    if kind == "object":
        properties = schema.get("properties") or {}
        return {name: minimal(sub, defs) for name, sub in properties.items()}
    if kind == "array":
        return []
    return empty.get(kind)


def _structured(body: dict[str, Any]) -> dict[str, Any]:
    """The structured answer for a request with a `json_schema` response format."""
    spec = body["response_format"]["json_schema"]
    schema = spec["schema"]
    defs = schema.get("$defs") or {}
    answer = minimal(schema, defs)
    if spec["name"] == "PlannerResult":
        task = minimal(schema["properties"]["plan"]["items"], defs)
        task.update(id="t1", expert="shop", task="How many WID-1 are in stock?", critical=True)
        answer.update(decision="replace", plan=[task], next_task=0)
    if spec["name"] == "Assessment":
        answer.update(completed=True, reason="stock read")
    return {"content": json.dumps(answer)}


def _answer(body: dict[str, Any]) -> dict[str, Any]:
    """The reply to any request of the run, by its kind."""
    if body.get("response_format", {}).get("type") == "json_schema":
        return _structured(body)
    if body.get("tools") and body["messages"][-1]["role"] != "tool":
        (stock,) = [
            t["function"]["name"]
            for t in body["tools"]
            if STOCK_WORDS in t["function"].get("description", "")
        ]
        return {"tool_calls": [{"name": stock, "arguments": {"sku": "WID-1"}}]}
    return {"content": "WID-1 has 120 units in stock."}


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_the_stock_request_on_unsafe_tool_names_is_never_refused(
    dialect: Dialect, monkeypatch: pytest.MonkeyPatch
) -> None:
    register_inprocess_server(f"shop-{dialect}", _shop())
    config = {"mcpServers": {"shop": {"inprocess": f"shop-{dialect}", "trust_annotations": True}}}
    with OpenAIStub([], route=_answer, dialect=dialect) as stub:
        monkeypatch.setattr(get_settings(), "openai_base_url", stub.base_url)
        graph = build_graph(InMemorySaver())
        thread: RunnableConfig = {"configurable": {"thread_id": f"faithful-{dialect}"}}
        request = {"messages": [{"role": "user", "content": "How many WID-1 are in stock?"}]}
        await graph.ainvoke(
            request, thread, context={"mcp_config": config, "model": "openai:gpt-4o-mini"}
        )
        state = (await graph.aget_state(thread)).values
    assert [r.message for r in stub.refusals] == []
    (task,) = state["previous_plan"]
    assert task["status"] == "completed", task
    assert '"stock": 120' in task["result"]
    assert state["messages"][-1].content == "WID-1 has 120 units in stock."
