"""Messages sent as body data (issue 45): the same request bytes as langchain-openai's own."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from langchain_openai import AzureChatOpenAI, ChatOpenAI
from openai._utils._transform import PropertyInfo
from openai.types.chat import ChatCompletionMessageParam
from werkzeug import Request, Response

from common.openai_compatible import (
    BodyAzureChatOpenAI,
    BodyChatOpenAI,
    CompatibleChatOpenAI,
    messages_as_body,
)
from common.raw_structured import plain_json_schema
from tests.http_stub import StubServer

ANSWER = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 0,
    "model": "gpt-4o-mini",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
}
"""A plain answer to every request."""

CONVERSATION: list[BaseMessage] = [
    SystemMessage('You plan. Ünïcode and "quotes" stay as they are.'),
    HumanMessage(
        [
            {"type": "text", "text": "What is in this picture, and the stock of WID-1?"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        ]
    ),
    AIMessage("", tool_calls=[{"name": "get_stock", "args": {"sku": "WID-1"}, "id": "call_1"}]),
    ToolMessage('{"sku": "WID-1", "on_hand": 4}', tool_call_id="call_1"),
]
"""Every message shape a run sends: system, user with an image part, a tool call, its result."""


@tool
def get_stock(sku: str) -> str:
    """The stock of one SKU."""
    return sku


def bodies_of(models: dict[str, Any], shape: str) -> dict[str, bytes]:
    """The bytes each model sends for `CONVERSATION`, asked as `shape` (plain, tools, format)."""
    sent: list[bytes] = []

    def handler(request: Request) -> Response:
        sent.append(request.get_data())
        return Response(json.dumps(ANSWER), content_type="application/json")

    found: dict[str, bytes] = {}
    with StubServer(handler) as stub:
        for label, build in models.items():
            model = build(stub.url + "/v1")
            if shape == "tools":
                model = model.bind_tools([get_stock])
            elif shape == "format":
                spec = {"name": "plan", "strict": True, "schema": {"type": "object"}}
                model = plain_json_schema(model, spec)
            model.invoke(CONVERSATION)
            found[label] = sent.pop()
    return found


def _openai(cls: type[ChatOpenAI]) -> Any:
    return lambda url: cls(model="gpt-4o-mini", base_url=url, api_key="k", max_retries=0)


@pytest.mark.parametrize("shape", ["plain", "tools", "format"])
def test_the_request_is_the_same_to_the_byte(shape: str) -> None:
    found = bodies_of({"stock": _openai(ChatOpenAI), "body": _openai(BodyChatOpenAI)}, shape)
    assert found["body"] == found["stock"]
    sent = json.loads(found["body"])
    assert sent["messages"][2]["tool_calls"][0]["function"]["name"] == "get_stock"


def test_azure_sends_the_same_request_to_the_byte() -> None:
    def azure(cls: type[AzureChatOpenAI]) -> Any:
        return lambda url: cls(
            azure_deployment="d",
            azure_endpoint=url.removesuffix("/v1"),
            api_version="2024-10-21",
            api_key="k",
            max_retries=0,
        )

    found = bodies_of(
        {"stock": azure(AzureChatOpenAI), "body": azure(BodyAzureChatOpenAI)}, "tools"
    )
    assert found["body"] == found["stock"]


def test_a_compatible_server_still_gets_its_shape() -> None:
    found = bodies_of({"compatible": _openai(CompatibleChatOpenAI)}, "plain")
    sent = json.loads(found["compatible"])
    assert sent["messages"][2]["content"] == ""
    assert sent["messages"][3]["role"] == "tool"


def test_messages_holding_other_than_json_keep_the_typed_path(tmp_path: Path) -> None:
    odd = {"messages": [{"role": "user", "content": tmp_path}], "model": "m"}
    assert messages_as_body(dict(odd)) == odd
    named = {"messages": [{"role": "user", "content": "hi"}], "extra_body": {"messages": []}}
    assert messages_as_body(dict(named)) == named
    deep: Any = "hi"
    for _ in range(5000):  # a sender's nesting is not walked to the interpreter's limit
        deep = [deep]
    nested = {"messages": [{"role": "user", "content": deep}], "model": "m"}
    assert messages_as_body(dict(nested)) == nested
    moved = messages_as_body({"messages": [{"role": "user", "content": "hi"}], "model": "m"})
    assert moved["messages"] == []
    assert moved["extra_body"] == {"messages": [{"role": "user", "content": "hi"}]}


def _aliases(annotation: Any, seen: set[int]) -> list[str]:
    """Every key the openai client renames (`PropertyInfo(alias=...)`) under `annotation`."""
    if id(annotation) in seen:
        return []
    seen.add(id(annotation))
    found = [
        str(extra.alias)
        for extra in getattr(annotation, "__metadata__", ())
        if isinstance(extra, PropertyInfo) and extra.alias
    ]
    if typing.is_typeddict(annotation):
        hints = typing.get_type_hints(annotation, include_extras=True)
        for hint in hints.values():
            found += _aliases(hint, seen)
    for arg in typing.get_args(annotation):
        found += _aliases(arg, seen)
    return found


def test_the_clients_transform_renames_no_key_of_a_chat_message() -> None:
    # Why skipping the transform changes nothing for JSON values: it only renames aliased keys
    # and formats files and dates, and no chat message type has an alias.
    assert _aliases(ChatCompletionMessageParam, set()) == []


def test_traces_show_and_serialize_the_stock_class() -> None:
    plain = BodyChatOpenAI(model="gpt-4o-mini", api_key="k")
    azure = BodyAzureChatOpenAI(
        azure_deployment="d", azure_endpoint="http://127.0.0.1:9", api_version="v", api_key="k"
    )
    assert plain.get_name() == "ChatOpenAI"
    assert BodyChatOpenAI(model="m", api_key="k", name="planner").get_name() == "planner"
    assert azure.get_name() == "AzureChatOpenAI"
    assert BodyChatOpenAI.lc_id() == ChatOpenAI.lc_id()
    assert CompatibleChatOpenAI.lc_id() == ChatOpenAI.lc_id()
    assert BodyAzureChatOpenAI.lc_id() == AzureChatOpenAI.lc_id()
