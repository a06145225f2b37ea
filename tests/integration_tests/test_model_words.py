"""A small model's words through an OpenAI-compatible server, as the person reads them.

The provider-faithful stub stands for llama.cpp's server, whose chat template HTML-escapes the
prompt so that the model writes `&#39;` for `'`: `MODEL=openai:smollm2` with the stub as
`OPENAI_BASE_URL`. A planner answer that is text three times is quoted to the person, unescaped
once and without the schema's name; an answer writer's entities are unescaped once too.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver

from common.settings import get_settings
from strategies.with_planner.graph import build_graph
from tests.integration_tests.openai_stub import OpenAIStub

pytestmark = pytest.mark.integration

MODEL = "openai:smollm2"
"""The planner's model as the person configured it."""

ECHO = "Answer: the widget&#39;s &quot;stock&quot; in a more formal tone &amp;lt;b&amp;gt;"
"""What the model sends instead of a plan, as an escaping template leads it to write it."""


def _route(planner: dict[str, Any], answer: str) -> Any:
    """Replies by the kind of request: the planner's, the analyser's, the answer writer's."""

    def route(body: dict[str, Any]) -> dict[str, Any]:
        spec = (body.get("response_format") or {}).get("json_schema") or {}
        if spec.get("name") == "PlannerResult":
            return planner
        if spec:
            return {
                "content": json.dumps({"blocked_tools": [], "read_only_tools": [], "reasons": []})
            }
        return {"content": answer}

    return route


async def _run(
    stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch, mcp_config: dict[str, Any]
) -> tuple[dict[str, Any], OpenAIStub]:
    """One turn on a new thread with every node on the stub; the thread's state after it."""
    monkeypatch.setattr(get_settings(), "openai_base_url", stub.base_url)
    graph = build_graph(InMemorySaver())
    thread: RunnableConfig = {"configurable": {"thread_id": "words"}}
    request = {"messages": [{"role": "user", "content": "How many widgets are in stock?"}]}
    await graph.ainvoke(request, thread, context={"mcp_config": mcp_config, "model": MODEL})
    return (await graph.aget_state(thread)).values, stub


async def test_text_instead_of_a_plan_is_quoted_unescaped_once(
    monkeypatch: pytest.MonkeyPatch, mcp_config: dict[str, Any]
) -> None:
    with OpenAIStub([], route=_route({"content": ECHO}, "unused")) as stub:
        state, _ = await _run(stub, monkeypatch, mcp_config)
    planned = [r for r in stub.requests if "PlannerResult" in json.dumps(r.get("response_format"))]
    assert len(planned) == 3
    answer = str(state["messages"][-1].content)
    assert answer == (
        "I could not make a usable plan after 3 attempts: the model did not send a plan; it "
        'answered "Answer: the widget\'s "stock" in a more formal tone &lt;b&gt;". A larger '
        f"model may be needed (MODEL={MODEL})."
    )
    assert [r.message for r in stub.refusals] == []


async def test_the_answer_writers_entities_are_unescaped_once(
    monkeypatch: pytest.MonkeyPatch, mcp_config: dict[str, Any]
) -> None:
    empty = {"decision": "replace", "plan": [], "next_task": 0, "clarification": None}
    planner = {"content": json.dumps({**empty, "not_covered": []})}
    with OpenAIStub([], route=_route(planner, "The widget&#39;s fine &amp;amp; ready.")) as stub:
        state, _ = await _run(stub, monkeypatch, mcp_config)
    assert state["messages"][-1].content == "The widget's fine &amp; ready."
