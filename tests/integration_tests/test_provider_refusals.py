"""Provider refusals through the real clients: the one sentence, and the structured-output fallback.

A loopback HTTP server answers with the real APIs' error bodies (OpenAI's
`{"error": {"message", "type", "param", "code"}}`, Anthropic's `{"type": "error", "error":
{"type", "message"}}`, and the FastAPI validation body llama.cpp's server sends), and the
requests go through langchain-openai / langchain-anthropic unchanged: nothing of ours is mocked.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel
from werkzeug import Request, Response

from common.models import ModelCallError, describe_failure, load_chat_model, model_errors
from common.safety.verdict import IrreversibilityAnalysis
from common.settings import get_settings
from common.strict_schema import DIALECTS, strict_problems
from common.structured import structured_call
from strategies.with_planner.nodes.assess import Assessment
from strategies.with_planner.plans import PlannerResult
from tests.http_stub import StubServer, json_response

Answer = tuple[int, dict[str, Any], dict[str, str]]
"""An HTTP answer: status, JSON body, extra headers."""


class Refuser(StubServer):
    """A loopback chat-completions server answering each request by a function of its body."""

    def __init__(self, answer: Callable[[dict[str, Any]], Answer]) -> None:
        super().__init__(self._answer, methods=("POST",))
        self.answer = answer
        """The status, JSON body and extra headers for a request body."""
        self.requests: list[dict[str, Any]] = []
        """Each request's JSON body, in order."""

    def _answer(self, request: Request) -> Response:
        body = json.loads(request.get_data())
        self.requests.append(body)
        status, payload, headers = self.answer(body)
        return json_response(payload, status, headers)


@pytest.fixture
def serve(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Refuser]]:
    """Start a `Refuser`, point OPENAI_BASE_URL at it, no client retries."""
    settings = get_settings()
    monkeypatch.setattr(settings, "model_max_retries", 0)
    monkeypatch.setattr(settings, "structured_output_method", "auto")

    with ExitStack() as started:

        def start(answer: Callable[[dict[str, Any]], Answer]) -> Refuser:
            server = started.enter_context(Refuser(answer))
            monkeypatch.setattr(settings, "openai_base_url", f"{server.url}/v1")
            return server

        yield start


def openai_error(message: str, kind: str, code: str | None, param: str | None = None) -> Any:
    """OpenAI's error body."""
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def completion(content: str) -> dict[str, Any]:
    """A chat completion whose message is `content`."""
    return {
        "id": "c1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
    }


MESSAGES = [SystemMessage("Plan the request."), HumanMessage("Write a note")]


async def _planner_failure(spec: str = "openai:gpt-4o-mini") -> str:
    """The sentence a planner call against the server ends with."""
    with pytest.raises(ModelCallError) as caught:
        async with model_errors("planner", spec):
            await structured_call(load_chat_model(spec), PlannerResult, MESSAGES)
    return caught.value.advice("resume")


async def test_a_refused_schema_names_the_providers_message_and_param_and_asks_for_a_report(
    serve: Callable[..., Refuser],
) -> None:
    message = (
        "Invalid schema for response_format 'PlannerResult': In context=('$defs', 'Task', "
        "'properties', 'args', 'anyOf', 0), 'additionalProperties' is required to be supplied "
        "and to be false."
    )
    server = serve(
        lambda _: (400, openai_error(message, "invalid_request_error", None, "response_format"), {})
    )
    text = await _planner_failure()
    assert len(server.requests) == 1  # a refused schema is not hidden by asking another way
    assert "refused the request (HTTP 400 invalid_request_error, param 'response_format': " in text
    assert "'additionalProperties' is required to be supplied and to be false." in text
    assert "is a bug: please report it with this message, then resume." in text
    assert "\n" not in text


async def test_an_unknown_model_says_to_set_model(serve: Callable[..., Refuser]) -> None:
    message = "The model `gpt-9` does not exist or you do not have access to it."
    serve(lambda _: (404, openai_error(message, "invalid_request_error", "model_not_found"), {}))
    text = await _planner_failure("openai:gpt-9")
    assert f'does not serve this model (HTTP 404 model_not_found: "{message}")' in text
    assert "; set MODEL (or the node's *_MODEL setting) to a model this endpoint serves" in text


async def test_a_refused_key_says_which_variable(serve: Callable[..., Refuser]) -> None:
    message = "Incorrect API key provided: sk-abc. You can find your API key at https://x."
    serve(lambda _: (401, openai_error(message, "invalid_request_error", "invalid_api_key"), {}))
    text = await _planner_failure()
    assert f'refused the key (HTTP 401 invalid_api_key: "{message}")' in text
    assert "; set OPENAI_API_KEY to a key this endpoint accepts" in text


async def test_a_rate_limit_says_how_long_to_wait(serve: Callable[..., Refuser]) -> None:
    message = "Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3."
    body = openai_error(message, "requests", "rate_limit_exceeded")
    serve(lambda _: (429, body, {"Retry-After": "20"}))
    text = await _planner_failure()
    said = "answered 429 Too Many Requests (not retried: MODEL_MAX_RETRIES=0; rate_limit_exceeded: "
    assert said in text
    assert message in text
    assert "; wait 20 s (the provider's Retry-After), then resume." in text


async def test_anthropics_error_body_is_read_too(serve: Callable[..., Refuser]) -> None:
    from anthropic import BadRequestError
    from langchain_anthropic import ChatAnthropic

    message = "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    server = serve(lambda _: (400, body, {}))
    model = ChatAnthropic(  # type: ignore[call-arg]
        model="claude-x", base_url=server.url, api_key="k", max_retries=0
    )
    with pytest.raises(BadRequestError) as caught:
        await model.ainvoke("hi")
    text = describe_failure("orchestrate", "anthropic:claude-x", caught.value)
    assert f'refused the request (HTTP 400 invalid_request_error: "{message}")' in text
    assert "please report it" in text


LLAMA_CPP_REFUSAL = {
    "error": {
        "message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
        "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", "
        "'input': 'json_schema', 'ctx': {'expected': \"'text' or 'json_object'\"}}\n\n  File "
        '"/srv/llama_cpp/server/app.py", line 376, in create_chat_completion\n    POST '
        "/v1/chat/completions",
        "type": "internal_server_error",
        "param": None,
        "code": None,
    }
}
"""What llama.cpp's server (llama-cpp-python 0.3.36) answers to `response_format` json_schema:
HTTP 500, as tried by hand against it."""


def _like_llama_cpp(tools: bool) -> Callable[[dict[str, Any]], Answer]:
    """A server refusing json_schema (and, unless `tools`, tool calls) as llama.cpp does."""

    def answer(body: dict[str, Any]) -> Answer:
        kind = (body.get("response_format") or {}).get("type")
        if kind == "json_schema":
            return 500, LLAMA_CPP_REFUSAL, {}
        if "tools" in body and not tools:
            return 400, openai_error("tools are not supported", "invalid_request_error", None), {}
        if "tools" in body:
            call = {
                "id": "call_1",
                "type": "function",
                "function": {
                    "name": "Assessment",
                    "arguments": '{"completed": true, "reason": "t"}',
                },
            }
            reply = completion("")
            reply["choices"][0]["message"]["tool_calls"] = [call]
            return 200, reply, {}
        return 200, completion('{"completed": true, "reason": "the note exists"}'), {}

    return answer


async def test_a_server_refusing_json_schema_is_asked_by_the_next_method_said_once(
    serve: Callable[..., Refuser], caplog: pytest.LogCaptureFixture
) -> None:
    server = serve(_like_llama_cpp(tools=False))
    model = load_chat_model("openai:smollm2")
    with caplog.at_level(logging.WARNING, logger="common.structured"):
        first = await structured_call(model, Assessment, MESSAGES)
        second = await structured_call(model, Assessment, MESSAGES)
    assert first == second == Assessment(completed=True, reason="the note exists")
    kinds = [(r.get("response_format") or {}).get("type") or "tools" for r in server.requests]
    assert kinds == ["json_schema", "tools", "json_object", "json_object"]
    sent = server.requests[2]["response_format"]
    assert sent["schema"]["required"] == ["completed", "reason"]
    assert "{completed: boolean, reason: string}" in server.requests[2]["messages"][0]["content"]
    # Its own logger's: a task an earlier test's closed event loop left behind may be reported
    # by asyncio when the garbage collector meets it, in whichever test runs then.
    said = [r.getMessage() for r in caplog.records if r.name == "common.structured"]
    assert len(said) == 2
    assert "refused structured output by json_schema (HTTP 500 internal_server_error: " in said[0]
    assert "Input should be 'text' or 'json_object'" in said[0]
    assert "; asking with function_calling from now on" in said[0]
    assert "asking with json_mode from now on" in said[1]


async def test_forced_tool_calls_answer_when_json_schema_is_refused(
    serve: Callable[..., Refuser],
) -> None:
    server = serve(_like_llama_cpp(tools=True))
    model = load_chat_model("openai:smollm2-tools")
    answer = await structured_call(model, Assessment, MESSAGES)
    assert answer == Assessment(completed=True, reason="t")
    assert server.requests[1]["tool_choice"]["function"]["name"] == "Assessment"


async def test_a_chosen_method_is_the_first_one_asked(
    serve: Callable[..., Refuser], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(get_settings(), "structured_output_method", "json_mode")
    server = serve(_like_llama_cpp(tools=False))
    answer = await structured_call(load_chat_model("openai:smollm2-json"), Assessment, MESSAGES)
    assert answer == Assessment(completed=True, reason="the note exists")
    assert [r["response_format"]["type"] for r in server.requests] == ["json_object"]


STOCK_ANSWERS: dict[str, dict[str, Any]] = {
    "PlannerResult": {
        "decision": "replace",
        "plan": [],
        "next_task": 0,
        "clarification": None,
        "not_covered": [],
    },
    "IrreversibilityAnalysis": {
        "irreversible": False,
        "blocked_tools": [],
        "read_only_tools": [],
        "reasons": [],
    },
    "Assessment": {"completed": True, "reason": "done"},
}
"""A valid answer for each model-facing schema."""


@pytest.mark.parametrize(
    "schema", [PlannerResult, IrreversibilityAnalysis, Assessment], ids=lambda s: s.__name__
)
async def test_the_stock_requests_fit_openais_and_azures_strict_subsets(
    serve: Callable[..., Refuser], schema: type[BaseModel]
) -> None:
    name = schema.__name__
    server = serve(lambda _: (200, completion(json.dumps(STOCK_ANSWERS[name])), {}))
    answer = await structured_call(load_chat_model("openai:gpt-4o-mini"), schema, MESSAGES)
    assert answer == schema.model_validate(STOCK_ANSWERS[name])
    (sent,) = [r["response_format"] for r in server.requests]
    assert sent["type"] == "json_schema"
    assert sent["json_schema"]["name"] == name
    assert sent["json_schema"]["strict"] is True
    for dialect in DIALECTS:
        assert strict_problems(sent["json_schema"]["schema"], dialect) == []


async def test_a_fastapi_422_refusal_moves_on_and_an_unrelated_500_does_not(
    serve: Callable[..., Refuser],
) -> None:
    refusal = {
        "detail": [{"loc": ["body", "response_format", "type"], "msg": "Input should be 'text'"}]
    }
    answers = iter(
        [
            (422, refusal, {}),
            (500, openai_error("The server had an error", "server_error", None), {}),
        ]
    )
    server = serve(lambda _: next(answers))
    text = await _planner_failure("openai:fastapi-model")
    kinds = [(r.get("response_format") or {}).get("type") or "tools" for r in server.requests]
    assert kinds == ["json_schema", "tools"]
    said = 'failed with HTTP 500 (not retried: MODEL_MAX_RETRIES=0; server_error: "The server had'
    assert said in text
