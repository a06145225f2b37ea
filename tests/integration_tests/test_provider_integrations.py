"""The requests each provider's LangChain integration sends for our schemas and real MCP tools.

Each integration is pointed at a loopback recording server, so what is checked is what its own
transport put on the wire, against that provider's documented limits (`tests.provider_limits`):
the planner's, analyser's and assessor's structured answers through `structured_runnable`, and
every server of tests/data/tool_catalog.json (real MCP tool schemas, `$ref`/`$defs` included)
plus one with dotted and 70-character names bound through `with_tools` as the orchestrator binds
an expert's tools. Requests are sent with `ainvoke`, as the nodes send them.

Gemini is captured on both of langchain-google-genai's transports: gRPC, its default and the
one the nodes' async calls take (`grpc_recording_server`), and REST, driven synchronously
(with a custom endpoint its async path sends the request, then fails awaiting a finished
response: "object GenerateContentResponse can't be used in 'await' expression"). Its structured
answers are checked for every method the fallback may ask it with (`STRUCTURED_OUTPUT_METHOD`,
`common.structured.NEXT_METHOD`): the integration's default (function calling, a forced
`functionDeclarations` entry), `function_calling`, and `json_schema` and `json_mode`, which it
sends alike as `generationConfig.responseJsonSchema`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest
from langchain_anthropic import ChatAnthropic
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_google_genai import ChatGoogleGenerativeAI
from langchain_ollama import ChatOllama
from langchain_openai import ChatOpenAI
from mcp.types import Tool
from pydantic import BaseModel

from common.cut_answers import AnswerCutError
from common.mcp.schema import check_args
from common.models import load_chat_model
from common.safety.verdict import IrreversibilityAnalysis
from common.settings import get_settings
from common.structured import (
    MALFORMED,
    Method,
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
from tests.integration_tests.grpc_recording_server import GrpcRecordingServer, gemini_grpc_model
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

Recorder = RecordingServer | GrpcRecordingServer
"""A loopback server that records the requests sent to it."""


@dataclass(frozen=True)
class Provider:
    """A provider's chat model against a recording server, and what the provider refuses."""

    model: Callable[[str], BaseChatModel]
    """Builds the chat model talking to the recording server at an address."""
    problems: Callable[[dict[str, Any]], list[str]]
    """What the provider refuses in one request body."""
    server: Callable[[], Recorder] = RecordingServer
    """The recording server its transport talks to."""
    sync_only: bool = False
    """Whether only its synchronous path can be captured (langchain-google-genai's REST)."""


PROVIDERS: dict[str, Provider] = {
    "anthropic": Provider(
        lambda url: ChatAnthropic(
            model_name="claude-sonnet-4-5", api_key="k", base_url=url, max_retries=0
        ),  # type: ignore[call-arg]
        anthropic_problems,
    ),
    "google_genai_grpc": Provider(gemini_grpc_model, gemini_problems, GrpcRecordingServer),
    "google_genai_rest": Provider(
        lambda url: ChatGoogleGenerativeAI(
            model="gemini-2.0-flash",
            google_api_key="k",
            transport="rest",
            client_options={"api_endpoint": url},
            max_retries=0,
        ),
        gemini_problems,
        sync_only=True,
    ),
    "ollama": Provider(lambda url: ChatOllama(model="llama3.2", base_url=url), ollama_problems),
    "openai_compatible": Provider(
        lambda url: ChatOpenAI(model="local", base_url=f"{url}/v1", api_key="k", max_retries=0),
        compatible_problems,
    ),
}
"""Each provider (Gemini once per transport)."""

GEMINI = ["google_genai_grpc", "google_genai_rest"]
"""Gemini's transports: gRPC (its default, async as the nodes call it) and REST."""

METHODS: list[Method | None] = [None, "json_schema", "function_calling", "json_mode"]
"""How a structured answer may be asked for: None is the integration's own default."""


def _captured(provider: str, send: Callable[[BaseChatModel], object]) -> list[dict[str, Any]]:
    """The request bodies `provider`'s integration sent while `send` used its model."""
    spec = PROVIDERS[provider]
    with spec.server() as server:
        send(spec.model(server.url))
    assert server.requests, f"{provider} sent nothing"
    return server.bodies()


def _ask(provider: str, runnable: Any, messages: list[Any]) -> Any:
    """`runnable`'s answer to `messages`, asked as the nodes ask (async) where that is captured."""
    if PROVIDERS[provider].sync_only:
        return runnable.invoke(messages)
    return asyncio.run(runnable.ainvoke(messages))


def _sent(provider: str, model: BaseChatModel, runnable: Any) -> str | None:
    """Send one request through `runnable`; why the integration could not build it, or None.

    The canned answers fit no schema, so a malformed answer is expected; any other error is
    the integration refusing our request before sending it, and is returned as a problem.
    """
    try:
        _ask(provider, runnable, ASK)
    except MALFORMED:
        return None
    except Exception as exc:  # reported as the test's failure, not swallowed
        return f"{type(model).__name__} could not build the request: {exc}"
    return None


def _problems(provider: str, bodies: list[dict[str, Any]]) -> list[str]:
    """Every problem `provider` finds in `bodies`."""
    check = PROVIDERS[provider].problems
    return [problem for body in bodies for problem in check(body)]


STRUCTURED = [(p, None) for p in PROVIDERS] + [(p, m) for p in GEMINI for m in METHODS[1:]]
"""Provider and method pairs checked: every provider's default, and every method for Gemini."""


@pytest.mark.parametrize(("provider", "method"), STRUCTURED)
@pytest.mark.parametrize("schema", [PlannerResult, IrreversibilityAnalysis, Assessment])
def test_structured_answers_are_sent_within_the_providers_limits(
    provider: str, method: Method | None, schema: type[BaseModel]
) -> None:
    failures: list[str] = []

    def send(model: BaseChatModel) -> None:
        runnable = structured_runnable(model, schema, method=method)
        failures.extend(filter(None, [_sent(provider, model, runnable)]))

    bodies = _captured(provider, send)
    assert failures + _problems(provider, bodies) == []


WIRE_FIELD: dict[Method | None, str] = {
    None: "tools",
    "function_calling": "tools",
    "json_schema": "responseJsonSchema",
    "json_mode": "responseJsonSchema",
}
"""Where each method puts the schema in a Gemini request."""


@pytest.mark.parametrize("method", METHODS)
def test_both_gemini_transports_send_the_same_checked_request(method: Method | None) -> None:
    """The schema is where the method puts it, and gRPC and REST carry the same request."""
    sent = {}
    for transport in GEMINI:

        def send(model: BaseChatModel, transport: str = transport) -> None:
            _sent(transport, model, structured_runnable(model, PlannerResult, method=method))

        [sent[transport]] = _captured(transport, send)
    grpc_body, rest_body = sent["google_genai_grpc"], sent["google_genai_rest"]
    assert grpc_body == rest_body
    config = grpc_body.get("generationConfig", {})
    if WIRE_FIELD[method] == "tools":
        [declaration] = grpc_body["tools"][0]["functionDeclarations"]
        assert declaration["name"] == "PlannerResult"
        assert "plan" in declaration["parameters"]["properties"]
        assert grpc_body["toolConfig"]["functionCallingConfig"]["allowedFunctionNames"] == [
            "PlannerResult"
        ]
        assert "responseJsonSchema" not in config
    else:
        assert config["responseMimeType"] == "application/json"
        assert "PlannedStep" in config["responseJsonSchema"]["$defs"]
        assert "tools" not in grpc_body


class Branch(BaseModel):
    """A step nesting its follow-ups: a constant, and a cycle through a required property."""

    kind: Literal["step"]
    then: list[Branch]


class Tree(BaseModel):
    """An answer shape Gemini's `responseJsonSchema` does not support."""

    root: Branch


@pytest.mark.parametrize("transport", GEMINI)
def test_a_schema_gemini_refuses_fails_the_checks_on_either_wire(transport: str) -> None:
    bodies = _captured(
        transport,
        lambda model: _sent(
            transport, model, structured_runnable(model, Tree, method="json_schema")
        ),
    )
    where = "generation_config.response_json_schema"
    assert _problems(transport, bodies) == [
        f"{where}: $defs/Branch/properties/kind: keyword 'const' is not supported",
        f"{where}: #/$defs/Branch: $ref '#/$defs/Branch' closes a cycle through required "
        "properties only",
    ]


def _catalog_tools() -> dict[str, list[Tool]]:
    """Each recorded server's tools, as MCP tool objects."""
    return {
        server: [Tool.model_validate(t) for t in entry["tools"]]
        for server, entry in CATALOG["servers"].items()
    }


def _bind_each(
    provider: str, tool_lists: dict[str, list[Tool]], failures: list[str]
) -> Callable[[BaseChatModel], object]:
    """Send one orchestrator round per server, bound to its tools as the orchestrator binds.

    A server whose request the integration cannot build goes to `failures`, by name.
    """

    def send(model: BaseChatModel) -> None:
        for server, tools in tool_lists.items():
            specs = bind_tools_for(tools, _CONTROL_SPECS, TASK).specs
            failure = _sent(provider, model, with_tools(model, specs))
            if failure is not None:
                failures.append(f"{server}: {failure}")

    return send


@pytest.mark.parametrize("provider", PROVIDERS)
def test_real_mcp_tool_schemas_are_sent_within_the_providers_limits(provider: str) -> None:
    tool_lists = _catalog_tools()
    assert any("$defs" in json.dumps(t.input_schema) for ts in tool_lists.values() for t in ts)
    failures: list[str] = []
    bodies = _captured(provider, _bind_each(provider, tool_lists, failures))
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
    bodies = _captured(provider, _bind_each(provider, {"shop": tools}, failures))
    assert failures + _problems(provider, bodies) == []


EXCHANGE = [
    SystemMessage("Say whether the task is done."),
    HumanMessage(TASK),
    AIMessage("", tool_calls=[{"name": "get_stock", "args": {"sku": "WID-1"}, "id": "call_1"}]),
    ToolMessage("12 in stock", tool_call_id="call_1", name="get_stock"),
]
"""A task's exchange as the assessor and the answer writer send it: one call, answered."""

ASYNC_PROVIDERS = [p for p, spec in PROVIDERS.items() if not spec.sync_only]
"""Providers whose captured transport has an async path (the nodes' calls are async)."""


@pytest.mark.parametrize("provider", ASYNC_PROVIDERS)
@pytest.mark.parametrize("method", ["auto", "json_schema", "function_calling", "json_mode"])
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


CUT_CALL: dict[str, Any] = {
    **recording_server.OPENAI_REPLY,
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_0",
                        "type": "function",
                        "function": {"name": "PlannerResult", "arguments": '{"tasks": [{"id": "t'},
                    }
                ],
            },
            "finish_reason": "length",
        }
    ],
}
"""A forced PlannerResult call stopped by the token limit mid-argument (a small local model
whose grammar-bound answer runs on, as llama.cpp sends it)."""


@pytest.mark.parametrize("temperature", [None, 0.0])
def test_a_cut_off_plan_is_named_as_such_and_the_temperature_is_the_operators(
    monkeypatch: pytest.MonkeyPatch, temperature: float | None
) -> None:
    settings = get_settings()
    monkeypatch.setattr(settings, "model_temperature", temperature)
    monkeypatch.setattr(settings, "model_max_tokens", 768)
    monkeypatch.setattr(settings, "structured_output_method", "function_calling")
    with RecordingServer(openai_reply=CUT_CALL) as server:
        monkeypatch.setattr(settings, "openai_base_url", f"{server.url}/v1")
        model = load_chat_model("openai:local")
        with pytest.raises(AnswerCutError) as cut:
            asyncio.run(structured_call(model, PlannerResult, [HumanMessage(TASK)]))
    [body] = server.bodies()
    assert body.get("temperature") == temperature
    assert str(cut.value).startswith(
        "The model stopped its answer at the length limit (finish_reason length"
    )
    assert "raise MODEL_MAX_TOKENS (now 768), or give the server a larger context" in str(cut.value)


@pytest.mark.parametrize("transport", GEMINI)
def test_a_gemini_call_comes_back_in_the_tools_shape_and_passes_its_live_schema(
    transport: str, monkeypatch: pytest.MonkeyPatch
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
    answers: list[Any] = []
    bodies = _captured(
        transport, lambda model: answers.append(_ask(transport, with_tools(model, specs), ASK))
    )
    assert gemini_problems(bodies[0]) == []
    [message] = answers
    assert isinstance(message, AIMessage)
    [made] = message.tool_calls
    assert made["args"] == {"side": 2, "meta": {"row": 3}}
    assert check_args(tool, made["args"]) == []
    assert check_args(tool, wrote) != []
