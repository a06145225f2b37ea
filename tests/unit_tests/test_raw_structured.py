"""The one-step structured answer (issue 45) asks and answers as langchain-openai's chain does."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableLambda
from langchain_openai import ChatOpenAI
from pydantic import BaseModel
from werkzeug import Request, Response

from common.raw_structured import bound_model, one_step, plain_json_schema, with_raw
from common.strict_schema import response_format
from tests.http_stub import StubServer


class Lookup(BaseModel):
    """A small plan: which SKUs to look up."""

    skus: list[str]
    reason: str


def completion(message: dict[str, Any], finish: str = "stop") -> dict[str, Any]:
    """A chat completion with one choice."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
    }


ANSWERS = {
    "valid": completion({"role": "assistant", "content": '{"skus": ["WID-1"], "reason": "asked"}'}),
    "broken": completion({"role": "assistant", "content": '{"skus": ["WID-1"'}),
    "refused": completion({"role": "assistant", "content": None, "refusal": "I can't help."}),
}
"""Answers to the request, by name."""

PARSED = {
    "valid": {"skus": ["WID-1"], "reason": "asked"},
    # LangChain's JSON parser completes a cut object, in the chain and here alike.
    "broken": {"skus": ["WID-1"]},
    "refused": None,
}
"""What each answer parses into."""


async def both(
    answer: str, lean_only: bool = False
) -> tuple[list[bytes], dict[str, Any], dict[str, Any]]:
    """The request bodies and the answers of the stock chain and of `with_raw`'s step."""
    bodies: list[bytes] = []

    def handler(request: Request) -> Response:
        bodies.append(request.get_data())
        return Response(json.dumps(ANSWERS[answer]), content_type="application/json")

    with StubServer(handler) as stub:
        model = ChatOpenAI(
            model="gpt-4o-mini", base_url=stub.url + "/v1", api_key="none", max_retries=0
        )
        chain = model.with_structured_output(
            response_format(Lookup), method="json_schema", include_raw=True
        )
        messages = [SystemMessage("Plan."), HumanMessage("Stock of WID-1?")]
        lean = await with_raw(chain).ainvoke(messages)
        stock = lean if lean_only else await chain.ainvoke(messages)
    return bodies, stock, lean


@pytest.mark.parametrize("answer", list(ANSWERS))
async def test_the_same_request_bytes_and_the_same_answer_as_the_chain(answer: str) -> None:
    bodies, stock, lean = await both(answer)
    assert len(bodies) == 2
    assert bodies[0] == bodies[1]
    assert json.loads(bodies[0])["response_format"]["json_schema"]["name"] == "Lookup"
    assert lean["parsed"] == stock["parsed"]
    assert lean["raw"].content == stock["raw"].content
    assert type(lean["parsing_error"]) is type(stock["parsing_error"])
    assert str(lean["parsing_error"]) == str(stock["parsing_error"])
    assert lean["parsed"] == PARSED[answer]
    assert (lean["parsing_error"] is None) == (answer != "refused")


async def test_an_answer_stopped_by_a_content_filter_raises_as_from_the_chain() -> None:
    ANSWERS["filtered"] = completion(
        {"role": "assistant", "content": "{}"}, finish="content_filter"
    )
    try:
        with pytest.raises(openai.ContentFilterFinishReasonError):
            await both("filtered", lean_only=True)
        with pytest.raises(openai.ContentFilterFinishReasonError):
            await both("filtered")
    finally:
        del ANSWERS["filtered"]


async def plain_and_stock(answer: str) -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
    """The request bodies (as JSON) and answers of the stock chain and of the plain request."""
    bodies: list[Any] = []

    def handler(request: Request) -> Response:
        bodies.append(json.loads(request.get_data()))
        return Response(json.dumps(ANSWERS[answer]), content_type="application/json")

    with StubServer(handler) as stub:
        model = ChatOpenAI(
            model="gpt-4o-mini", base_url=stub.url + "/v1", api_key="none", max_retries=0
        )
        spec = response_format(Lookup)
        chain = model.with_structured_output(spec, method="json_schema", include_raw=True)
        plain = plain_json_schema(model, spec)
        assert plain is not None
        messages = [SystemMessage("Plan."), HumanMessage("Stock of WID-1?")]
        lean = await one_step(plain).ainvoke(messages)
        stock = await chain.ainvoke(messages)
    return bodies, stock, lean


@pytest.mark.parametrize("answer", list(ANSWERS))
async def test_the_plain_request_sends_the_same_body_and_answers_the_same(answer: str) -> None:
    bodies, stock, lean = await plain_and_stock(answer)
    assert bodies[0] == bodies[1]
    assert bodies[0]["response_format"]["json_schema"]["strict"] is True
    assert lean["parsed"] == stock["parsed"] == PARSED[answer]
    assert lean["raw"].content == stock["raw"].content
    assert type(lean["parsing_error"]) is type(stock["parsing_error"])


async def test_a_filtered_plain_answer_raises_as_the_typed_request_does() -> None:
    ANSWERS["filtered"] = completion(
        {"role": "assistant", "content": "{}"}, finish="content_filter"
    )
    try:
        with pytest.raises(openai.ContentFilterFinishReasonError):
            await plain_and_stock("filtered")
    finally:
        del ANSWERS["filtered"]


def test_a_model_on_the_responses_api_or_with_its_own_body_keeps_it() -> None:
    spec = response_format(Lookup)
    assert (
        plain_json_schema(ChatOpenAI(model="m", api_key="k", use_responses_api=True), spec) is None
    )
    own = ChatOpenAI(model="m", api_key="k", extra_body={"ttl": 300})
    plain = plain_json_schema(own, spec)
    assert plain is not None
    sent = plain.kwargs["extra_body"]  # type: ignore[attr-defined]
    assert sent["ttl"] == 300
    assert sent["response_format"] == {"type": "json_schema", "json_schema": spec}


def test_a_chain_of_another_shape_is_kept_as_it_is() -> None:
    other = RunnableLambda(lambda x: x) | RunnableLambda(lambda x: x)
    assert bound_model(other) is None
    assert with_raw(other) is other
