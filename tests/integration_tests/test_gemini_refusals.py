"""A Gemini refusal on its default gRPC transport: the method fallback moves, or one sentence.

The loopback gRPC server (`grpc_recording_server`) answers INVALID_ARGUMENT, as Gemini answers
a request it refuses (HTTP 400). langchain-google-genai raises its own error from that one, and
the status and Gemini's words are read behind it (`common.provider_errors`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from common.models import ModelCallError, model_errors
from common.settings import get_settings
from common.structured import structured_call
from strategies.with_planner.nodes.assess import Assessment
from tests.integration_tests import recording_server
from tests.integration_tests.grpc_recording_server import GrpcRecordingServer, gemini_grpc_model
from tests.provider_limits import gemini_problems

pytestmark = pytest.mark.integration

EXCHANGE = [
    SystemMessage("Say whether the task is done."),
    HumanMessage("How many WID-1 are in stock?"),
    AIMessage("", tool_calls=[{"name": "get_stock", "args": {"sku": "WID-1"}, "id": "call_1"}]),
    ToolMessage("12 in stock", tool_call_id="call_1", name="get_stock"),
]
"""A task's exchange as the assessor sends it."""

NO_JSON_SCHEMA = "response_json_schema is not supported by this model."
"""What the server says when it refuses structured output by `responseJsonSchema`."""


def _refuses_json_schema(body: dict[str, Any]) -> str | None:
    """Refuse a request asking for structured output by `responseJsonSchema`."""
    return NO_JSON_SCHEMA if "responseJsonSchema" in body.get("generationConfig", {}) else None


def test_a_refused_json_schema_method_is_asked_again_by_function_calling(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(get_settings(), "structured_output_method", "json_schema")
    verdict = {"completed": True, "reason": "12 are in stock."}
    call = {"functionCall": {"name": "Assessment", "args": verdict}}
    reply = {"candidates": [{"content": {"role": "model", "parts": [call]}}]}
    monkeypatch.setattr(recording_server, "GEMINI_REPLY", reply)
    caplog.set_level(logging.WARNING, logger="common.structured")
    with GrpcRecordingServer(refuse=_refuses_json_schema) as server:
        model = gemini_grpc_model(server.url)
        answers = [asyncio.run(structured_call(model, Assessment, EXCHANGE)) for _ in range(2)]
    assert answers == [Assessment(**verdict)] * 2
    bodies = server.bodies()
    assert ["responseJsonSchema" in b.get("generationConfig", {}) for b in bodies] == [
        True,
        False,
        False,
    ]
    forced = [b["toolConfig"]["functionCallingConfig"]["allowedFunctionNames"] for b in bodies[1:]]
    assert forced == [["Assessment"], ["Assessment"]]
    assert [p for b in bodies for p in gemini_problems(b)] == []
    # Its own logger's: a task an earlier test's closed event loop left behind may be reported
    # by asyncio when the garbage collector meets it, in whichever test runs then.
    said = [r.getMessage() for r in caplog.records if r.name == "common.structured"]
    assert len(said) == 1
    assert "refused structured output by json_schema (HTTP 400 INVALID_ARGUMENT" in said[0]
    assert NO_JSON_SCHEMA in said[0]
    assert "asking with function_calling from now on" in said[0]


def test_a_refused_request_ends_in_one_sentence_with_geminis_words() -> None:
    words = (
        "Please ensure that function response turn comes immediately after a function call turn."
    )

    async def assess() -> None:
        async with model_errors("assess", "google_genai:gemini-2.0-flash"):
            await structured_call(model, Assessment, EXCHANGE)

    with GrpcRecordingServer(refuse=lambda body: words) as server:
        model = gemini_grpc_model(server.url)
        with pytest.raises(ModelCallError) as failed:
            asyncio.run(assess())
    assert str(failed.value).startswith(
        "The assess_task node's model 'google_genai:gemini-2.0-flash' at the google_genai API "
        f'refused the request (HTTP 400 INVALID_ARGUMENT: "{words}"); the request the '
        "assess_task node sent is a bug: please report it with this message"
    )
