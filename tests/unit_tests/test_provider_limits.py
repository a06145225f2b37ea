"""The request checker names what Gemini refuses: a drifting schema or history fails the tests."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.provider_limits import gemini_problems

STEP: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "after": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["id", "after"],
    "additionalProperties": False,
}
"""A plan step, as a definition."""

STRUCTURED: dict[str, Any] = {
    "contents": [{"role": "user", "parts": [{"text": "Plan."}]}],
    "generationConfig": {
        "responseMimeType": "application/json",
        "responseJsonSchema": {
            "type": "object",
            "properties": {
                "plan": {"type": "array", "items": {"$ref": "#/$defs/Step"}},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "title": "Note"},
                "decision": {"type": "string", "enum": ["continue", "replace"]},
            },
            "required": ["plan", "note", "decision"],
            "additionalProperties": False,
            "$defs": {"Step": STEP},
        },
    },
}
"""A json_schema request as langchain-google-genai sends it, within Gemini's subset."""

CALLED: dict[str, Any] = {
    "contents": [
        {"role": "user", "parts": [{"text": "How many WID-1?"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "get_stock", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "get_stock", "response": {}}}]},
    ],
    "tools": [
        {
            "functionDeclarations": [
                {
                    "name": "Assessment",
                    "description": "The verdict.",
                    "parameters": {
                        "type": 6,
                        "properties": {"completed": {"type": 4}},
                        "required": ["completed"],
                    },
                }
            ]
        }
    ],
    "toolConfig": {"functionCallingConfig": {"mode": 2, "allowedFunctionNames": ["Assessment"]}},
}
"""A forced function call after a tool exchange, as the assessor sends it, as Gemini takes it."""


def _schema(body: dict[str, Any]) -> dict[str, Any]:
    """The response JSON schema in `body`."""
    return body["generationConfig"]["responseJsonSchema"]  # type: ignore[no-any-return]


def test_requests_gemini_takes_have_no_problems() -> None:
    assert gemini_problems(STRUCTURED) == []
    assert gemini_problems(CALLED) == []
    named = copy.deepcopy(CALLED)
    named["tools"][0]["functionDeclarations"][0]["parameters"]["type"] = "OBJECT"
    named["toolConfig"]["functionCallingConfig"]["mode"] = "ANY"
    assert gemini_problems(named) == []


def test_a_ref_with_a_sibling_in_the_response_schema_is_named() -> None:
    body = copy.deepcopy(STRUCTURED)
    _schema(body)["properties"]["plan"]["items"]["description"] = "The steps."
    assert gemini_problems(body) == [
        "generation_config.response_json_schema: properties/plan/items: "
        "$ref with sibling keywords ['description']"
    ]


def test_a_cycle_through_required_properties_is_named_and_an_optional_one_is_not() -> None:
    body = copy.deepcopy(STRUCTURED)
    step = _schema(body)["$defs"]["Step"]
    step["properties"]["then"] = {"anyOf": [{"$ref": "#/$defs/Step"}, {"type": "null"}]}
    step["required"].append("then")
    assert gemini_problems(body) == [
        "generation_config.response_json_schema: #/$defs/Step: $ref '#/$defs/Step' closes a "
        "cycle through required properties only"
    ]
    step["required"].remove("then")
    assert gemini_problems(body) == []


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"const": "replace"}, "keyword 'const' is not supported"),
        ({"pattern": "^[a-z]+$"}, "keyword 'pattern' is not supported"),
        ({"default": "replace"}, "keyword 'default' is not supported"),
        ({"enum": [True, False], "type": "boolean"}, "enum values must be strings or numbers"),
    ],
)
def test_a_keyword_outside_the_response_schema_subset_is_named(
    change: dict[str, Any], problem: str
) -> None:
    body = copy.deepcopy(STRUCTURED)
    _schema(body)["properties"]["decision"].update(change)
    assert gemini_problems(body) == [
        f"generation_config.response_json_schema: properties/decision: {problem}"
    ]


def test_a_response_schema_needs_the_json_mime_type() -> None:
    body = copy.deepcopy(STRUCTURED)
    del body["generationConfig"]["responseMimeType"]
    assert gemini_problems(body) == [
        "generation_config.response_json_schema: response_mime_type 'application/json' is required"
    ]


def test_an_object_without_properties_in_function_parameters_is_named() -> None:
    body = copy.deepcopy(CALLED)
    parameters = body["tools"][0]["functionDeclarations"][0]["parameters"]
    parameters["properties"]["meta"] = {"type": 6}
    assert gemini_problems(body) == [
        "tools[0].function_declarations[0].parameters.properties[meta].properties: "
        "should be non-empty for OBJECT type"
    ]


def test_a_forced_function_must_be_declared_and_forced_in_mode_any() -> None:
    body = copy.deepcopy(CALLED)
    body["toolConfig"]["functionCallingConfig"] = {"mode": 1, "allowedFunctionNames": ["Verdict"]}
    assert gemini_problems(body) == [
        "tool_config.function_calling_config.allowed_function_names: should only be set when "
        "the mode is ANY or VALIDATED (got AUTO)",
        "tool_config.function_calling_config.allowed_function_names: no function declaration "
        "is named 'Verdict'",
    ]


def test_a_function_response_without_its_call_turn_is_named() -> None:
    body = copy.deepcopy(CALLED)
    del body["contents"][1]
    assert gemini_problems(body) == [
        "contents[1]: Please ensure that function response turn comes immediately after a "
        "function call turn."
    ]


def test_a_call_turn_answered_by_fewer_responses_is_named() -> None:
    body = copy.deepcopy(CALLED)
    call = {"functionCall": {"name": "get_price", "args": {}}}
    body["contents"][1]["parts"].append(call)
    assert gemini_problems(body) == [
        "contents[2]: Please ensure that the number of function response parts is equal to the "
        "number of function call parts of the function call turn."
    ]


def test_a_call_turn_first_or_after_a_model_turn_is_named() -> None:
    body = copy.deepcopy(CALLED)
    body["contents"][0] = {"role": "model", "parts": [{"text": "Let me look."}]}
    assert gemini_problems(body) == [
        "contents[1]: Please ensure that function call turn comes immediately after a user "
        "turn or after a function response turn."
    ]
