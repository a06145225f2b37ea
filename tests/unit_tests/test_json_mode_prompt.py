"""The planner's json_mode request fits a small local model's context (llama.cpp's 4,096 tokens).

The request is the one langchain-openai sends, caught by an in-process HTTP transport: the
planner's system prompt for the demo experts (their tools listed in-process, described as in
mcp.json) on a first turn, with what json_mode adds to it. Sizes are the project's estimate
(`estimate_tokens`, characters / 4); docs/configuration.md gives SmolLM2's own token counts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI

from common.demo_servers import inventory, notes
from common.guardrails.request import estimate_tokens
from common.settings import get_settings
from common.structured import structured_call
from strategies.with_planner.perception import describe_catalog
from strategies.with_planner.plans import PlannerResult
from strategies.with_planner.prompts import PLANNER_SYSTEM_PROMPT

ROOT = Path(__file__).resolve().parents[2]
REQUEST = 'How many units of WID-1 are in stock, then write a note titled "llama"'
PLANNER_JSON_MODE_TOKENS = 1000
"""Most estimated tokens of the planner's json_mode request for the demo experts (documented
in docs/configuration.md): a quarter of llama.cpp's 4,096, the rest left for the answer."""
PLAN = {
    "decision": "replace",
    "plan": [],
    "next_task": 0,
    "clarification": None,
    "not_covered": [],
}


async def _planner_prompt() -> str:
    """The planner's system prompt for the demo experts on a first turn."""
    servers = json.loads((ROOT / "mcp.json").read_text())["mcpServers"]
    catalog = {
        name: await s.mcp.list_tools() for name, s in (("inventory", inventory), ("notes", notes))
    }
    experts = describe_catalog(
        {name: servers[name]["description"] for name in catalog},
        catalog,
        {},
        request=REQUEST,
        budget=get_settings().planner_tool_budget,
    )
    return PLANNER_SYSTEM_PROMPT.format(
        experts=experts,
        now="Tuesday 2026-11-24 17:00 UTC",
        dates="(none)",
        previous_plan="(none)",
        memory="(no store configured)",
        strategy="",
        feedback="",
    )


async def _json_mode_request(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The body of the planner's json_mode request, as the openai client sends it."""
    monkeypatch.setattr(get_settings(), "structured_output_method", "json_mode")
    sent: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        message = {"role": "assistant", "content": json.dumps(PLAN)}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        return httpx.Response(
            200,
            json={
                "id": "c",
                "object": "chat.completion",
                "created": 0,
                "model": "m",
                "choices": [choice],
            },
        )

    client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    model = ChatOpenAI(model="smollm2", api_key="sk-local", http_async_client=client)
    messages = [SystemMessage(await _planner_prompt()), HumanMessage(REQUEST)]
    result = await structured_call(model, PlannerResult, messages)
    assert isinstance(result, PlannerResult), result
    [body] = sent
    return body


async def test_the_planners_json_mode_prompt_fits_a_small_context(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    body = await _json_mode_request(monkeypatch)
    text = "".join(str(m["content"]) for m in body["messages"])
    assert estimate_tokens(text) <= PLANNER_JSON_MODE_TOKENS, estimate_tokens(text)
    assert body["response_format"]["type"] == "json_object"


async def test_json_mode_tells_the_shape_once_without_the_schemas_descriptions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    body = await _json_mode_request(monkeypatch)
    system = [m["content"] for m in body["messages"] if m["role"] == "system"]
    assert len(system) == 1
    assert system[0].count("one JSON object of this shape") == 1
    assert 'decision: "continue"|"replace", plan: [{id: string, expert: string' in system[0]
    assert "Short unique id" not in system[0]  # a field's description, from the schema
    # The server still gets the whole schema for its grammar.
    assert body["response_format"]["schema"]["title"] == "PlannerResult"
