"""The requests each provider's LangChain integration sends for our schemas and real MCP tools.

Each integration is pointed at a loopback recording server, so what is checked is what its own
transport put on the wire, against that provider's documented limits (`tests.provider_limits`):
the planner's, analyser's and assessor's structured answers through `structured_runnable`, and
every server of tests/data/tool_catalog.json (real MCP tool schemas, `$ref`/`$defs` included)
plus one with dotted and 70-character names bound through `with_tools` as the orchestrator binds
an expert's tools. Gemini is driven synchronously: langchain-google-genai's REST transport
(the one that can be captured; its default is gRPC) has no async path.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langchain_anthropic import ChatAnthropic
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_google_genai import ChatGoogleGenerativeAI
from langchain_ollama import ChatOllama
from langchain_openai import ChatOpenAI
from mcp.types import Tool
from pydantic import BaseModel

from common.mcp.schema import check_args
from common.models import load_chat_model
from common.safety.verdict import IrreversibilityAnalysis
from common.settings import get_settings
from common.structured import (
    MALFORMED,
    structured_call,
    structured_runnable,
    text_answer,
    tool_round,
    with_tools,
)
from strategies.with_planner.bound_tools import bind_tools_for
from strategies.with_planner.nodes.assess import Assessment
from strategies.with_planner.nodes.orchestrate import _CONTROL_SPECS
from strategies.with_planner.plans import PlannerResult
from tests.integration_tests import recording_server
from tests.integration_tests.recording_server import RecordingServer
from tests.provider_limits import (
    anthropic_problems,
    compatible_problems,
    gemini_problems,
    ollama_problems,
)
from tests.provider_rules import check_request

pytestmark = pytest.mark.integration

CATALOG = json.loads((Path(__file__).parents[1] / "data" / "tool_catalog.json").read_text())
"""Tool lists real MCP servers returned."""

TASK = "How many WID-1 are in stock?"
"""The request and the task the orchestrator's tools are chosen for."""
ASK = [SystemMessage("You plan how to answer."), HumanMessage(TASK)]

Factory = Callable[[str], BaseChatModel]
"""Builds a provider's chat model talking to the recording server at a base URL."""

PROVIDERS: dict[str, tuple[Factory, Callable[[dict[str, Any]], list[str]]]] = {
    "anthropic": (
        lambda url: ChatAnthropic(
            model_name="claude-sonnet-4-5", api_key="k", base_url=url, max_retries=0
        ),  # type: ignore[call-arg]
        anthropic_problems,
    ),
    "google_genai": (
        lambda url: ChatGoogleGenerativeAI(
            model="gemini-2.0-flash",
            google_api_key="k",
            transport="rest",
            client_options={"api_endpoint": url},
            max_retries=0,
        ),
        gemini_problems,
    ),
    "ollama": (lambda url: ChatOllama(model="llama3.2", base_url=url), ollama_problems),
    "openai_compatible": (
        lambda url: ChatOpenAI(model="local", base_url=f"{url}/v1", api_key="k", max_retries=0),
        compatible_problems,
    ),
}
"""Each provider: its chat model against the recording server, and what it refuses."""


def _captured(provider: str, send: Callable[[BaseChatModel], object]) -> list[dict[str, Any]]:
    """The request bodies `provider`'s integration sent while `send` used its model."""
    factory, _problems = PROVIDERS[provider]
    with RecordingServer() as server:
        send(factory(server.url))
    assert server.requests, f"{provider} sent nothing"
    return server.bodies()


def _sent(model: BaseChatModel, runnable: Any) -> str | None:
    """Send one request through `runnable`; why the integration could not build it, or None.

    The canned answers fit no schema, so a malformed answer is expected; any other error is
    the integration refusing our request before sending it, and is returned as a problem.
    """
    try:
        runnable.invoke(ASK)
    except MALFORMED:
        return None
    except Exception as exc:  # reported as the test's failure, not swallowed
        return f"{type(model).__name__} could not build the request: {exc}"
    return None


def _problems(provider: str, bodies: list[dict[str, Any]]) -> list[str]:
    """Every problem `provider` finds in `bodies`."""
    check = PROVIDERS[provider][1]
    return [problem for body in bodies for problem in check(body)]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("schema", [PlannerResult, IrreversibilityAnalysis, Assessment])
def test_structured_answers_are_sent_within_the_providers_limits(
    provider: str, schema: type[BaseModel]
) -> None:
    failures: list[str] = []

    def send(model: BaseChatModel) -> None:
        failures.extend(filter(None, [_sent(model, structured_runnable(model, schema))]))

    bodies = _captured(provider, send)
    assert failures + _problems(provider, bodies) == []


def _catalog_tools() -> dict[str, list[Tool]]:
    """Each recorded server's tools, as MCP tool objects."""
    return {
        server: [Tool.model_validate(t) for t in entry["tools"]]
        for server, entry in CATALOG["servers"].items()
    }


def _bind_each(
    tool_lists: dict[str, list[Tool]], failures: list[str]
) -> Callable[[BaseChatModel], object]:
    """Send one orchestrator round per server, bound to its tools as the orchestrator binds.

    A server whose request the integration cannot build goes to `failures`, by name.
    """

    def send(model: BaseChatModel) -> None:
        for server, tools in tool_lists.items():
            specs = bind_tools_for(tools, _CONTROL_SPECS, TASK).specs
            failure = _sent(model, with_tools(model, specs))
            if failure is not None:
                failures.append(f"{server}: {failure}")

    return send


@pytest.mark.parametrize("provider", PROVIDERS)
def test_real_mcp_tool_schemas_are_sent_within_the_providers_limits(provider: str) -> None:
    tool_lists = _catalog_tools()
    assert any("$defs" in json.dumps(t.inputSchema) for ts in tool_lists.values() for t in ts)
    failures: list[str] = []
    bodies = _captured(provider, _bind_each(tool_lists, failures))
    assert len(bodies) + len(failures) == len(tool_lists)
    assert failures + _problems(provider, bodies) == []


def _tool(name: str) -> Tool:
    """An MCP tool called `name` taking one string."""
    schema = {"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]}
    return Tool(name=name, description="Look something up.", inputSchema=schema)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_dotted_and_long_mcp_names_are_sent_within_the_providers_limits(provider: str) -> None:
    tools = [_tool("shop.get_stock"), _tool("inventory_" + "x" * 60), _tool("get_stock")]
    failures: list[str] = []
    bodies = _captured(provider, _bind_each({"shop": tools}, failures))
    assert failures + _problems(provider, bodies) == []


EXCHANGE = [
    SystemMessage("Say whether the task is done."),
    HumanMessage(TASK),
    AIMessage("", tool_calls=[{"name": "get_stock", "args": {"sku": "WID-1"}, "id": "call_1"}]),
    ToolMessage("12 in stock", tool_call_id="call_1", name="get_stock"),
]
"""A task's exchange as the assessor and the answer writer send it: one call, answered."""

ASYNC_PROVIDERS = [p for p in PROVIDERS if p != "google_genai"]
"""Providers whose captured transport has an async path (the nodes' calls are async)."""


@pytest.mark.parametrize("provider", ASYNC_PROVIDERS)
@pytest.mark.parametrize("method", ["auto", "json_schema", "function_calling"])
def test_an_assessment_of_a_tool_exchange_is_sent_within_the_providers_limits(
    provider: str, method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(get_settings(), "structured_output_method", method)
    failures: list[str] = []

    def send(model: BaseChatModel) -> None:
        try:
            asyncio.run(structured_call(model, Assessment, EXCHANGE))
        except Exception as exc:  # reported as the test's failure, not swallowed
            failures.append(f"{type(model).__name__} could not build the request: {exc}")

    bodies = _captured(provider, send)
    assert failures + _problems(provider, bodies) == []


@pytest.mark.parametrize("provider", ASYNC_PROVIDERS)
def test_an_answer_written_from_a_tool_exchange_is_sent_within_the_providers_limits(
    provider: str,
) -> None:
    bodies = _captured(provider, lambda model: asyncio.run(text_answer(model, EXCHANGE)))
    assert _problems(provider, bodies) == []


def test_the_anthropic_request_keeps_what_the_call_did_as_text() -> None:
    [body] = _captured("anthropic", lambda model: asyncio.run(text_answer(model, EXCHANGE)))
    text = json.dumps(body["messages"])
    assert "tool_use" not in text
    assert "tool_result" not in text
    assert 'get_stock({\\"sku\\": \\"WID-1\\"})' in text
    assert "12 in stock" in text


def test_an_openai_compatible_server_gets_requests_it_takes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """llama.cpp's server refuses `content: null` (HTTP 500), ignores `max_completion_tokens`
    and leaves tools sent without a `tool_choice` out of the prompt."""
    settings = get_settings()
    monkeypatch.setattr(settings, "model_max_tokens", 321)
    with RecordingServer() as server:
        monkeypatch.setattr(settings, "openai_base_url", f"{server.url}/v1")
        model = load_chat_model("openai:local")
        specs = bind_tools_for([_tool("get_stock")], _CONTROL_SPECS, TASK).specs
        asyncio.run(tool_round(with_tools(model, specs), EXCHANGE))
    [body] = server.bodies()
    assistant = [m for m in body["messages"] if m["role"] == "assistant"]
    assert assistant[0]["content"] == ""
    assert assistant[0]["tool_calls"][0]["function"]["name"] == "get_stock"
    assert body["max_tokens"] == 321
    assert "max_completion_tokens" not in body
    assert body["tool_choice"] == "auto"
    assert check_request(body, "openai") is None


def test_a_gemini_call_comes_back_in_the_tools_shape_and_passes_its_live_schema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Gemini is asked for an open object as a JSON string and an integer enum as strings."""
    schema = {
        "type": "object",
        "properties": {
            "side": {"type": "integer", "enum": [1, 2]},
            "meta": {"type": "object", "additionalProperties": True},
        },
        "required": ["side", "meta"],
    }
    tool = Tool(name="plant", description="Plant something.", inputSchema=schema)
    wrote = {"side": "2", "meta": '{"row": 3}'}
    call = {"functionCall": {"name": "plant", "args": wrote}}
    reply = {"candidates": [{"content": {"role": "model", "parts": [call]}}]}
    monkeypatch.setattr(recording_server, "GEMINI_REPLY", reply)
    specs = bind_tools_for([tool], [], TASK).specs
    with RecordingServer() as server:
        message = with_tools(PROVIDERS["google_genai"][0](server.url), specs).invoke(ASK)
    assert gemini_problems(server.bodies()[0]) == []
    assert isinstance(message, AIMessage)
    [made] = message.tool_calls
    assert made["args"] == {"side": 2, "meta": {"row": 3}}
    assert check_args(tool, made["args"]) == []
    assert check_args(tool, wrote) != []
