"""The provider-faithful rules: each refused where the real API answers 400, accepted otherwise."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.provider_rules import DIALECTS, Dialect, check_request

USER = {"role": "user", "content": "hi"}

CLOSED: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "who"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "when": {"type": "string", "format": "date-time"},
    },
    "required": ["name", "tags", "note", "when"],
    "additionalProperties": False,
}
"""A schema inside OpenAI's strict subset."""


def _formatted(schema: dict[str, Any], name: str = "Answer") -> dict[str, Any]:
    """A request asking for a strict structured answer in `schema`."""
    return {
        "messages": [USER],
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": True},
        },
    }


def _tool(name: str, parameters: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """A function tool as langchain-openai sends it."""
    function = {"name": name, "description": "d", "parameters": parameters or CLOSED, **extra}
    return {"type": "function", "function": function}


def _message(body: dict[str, Any], dialect: Dialect = "openai") -> str | None:
    """The refusal's message, or None when the request is accepted."""
    refusal = check_request(body, dialect)
    return refusal.message if refusal else None


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_closed_fully_required_schema_is_accepted(dialect: Dialect) -> None:
    assert check_request(_formatted(CLOSED), dialect) is None


def test_an_open_object_is_refused_with_the_apis_body() -> None:
    schema = copy.deepcopy(CLOSED)
    schema["properties"]["args"] = {
        "anyOf": [{"type": "object", "additionalProperties": True}, {"type": "null"}]
    }
    schema["required"].append("args")
    refusal = check_request(_formatted(schema, "PlannerResult"), "openai")
    assert refusal is not None
    assert refusal.body() == {
        "error": {
            "message": "Invalid schema for response_format 'PlannerResult': In context="
            "('properties', 'args', 'anyOf', '0'), 'additionalProperties' is required to be "
            "supplied and to be false.",
            "type": "invalid_request_error",
            "param": "response_format",
            "code": None,
        }
    }


def test_a_map_of_strings_is_an_open_object() -> None:
    schema = copy.deepcopy(CLOSED)
    schema["properties"]["reasons"] = {"type": "object", "additionalProperties": {"type": "string"}}
    schema["required"].append("reasons")
    assert _message(_formatted(schema)) == (
        "Invalid schema for response_format 'Answer': In context=('properties', 'reasons'), "
        "'additionalProperties' is required to be supplied and to be false."
    )


def test_a_property_left_out_of_required_is_named() -> None:
    schema = copy.deepcopy(CLOSED)
    schema["required"].remove("note")
    assert _message(_formatted(schema)) == (
        "Invalid schema for response_format 'Answer': In context=(), 'required' is required "
        "to be supplied and to be an array including every key in properties. Missing 'note'."
    )


def test_the_root_must_be_an_object() -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    assert _message(_formatted(schema)) == (
        "Invalid schema for response_format 'Answer': schema must be a JSON Schema of "
        "'type: \"object\"', got 'type: \"array\"'."
    )


@pytest.mark.parametrize("keyword", ["allOf", "not", "patternProperties", "propertyNames"])
def test_keywords_outside_the_subset_are_not_permitted(keyword: str) -> None:
    schema = copy.deepcopy(CLOSED)
    schema["properties"]["name"][keyword] = {}
    assert _message(_formatted(schema)) == (
        "Invalid schema for response_format 'Answer': In context=('properties', 'name'), "
        f"'{keyword}' is not permitted."
    )


def test_an_unknown_string_format_is_refused() -> None:
    schema = copy.deepcopy(CLOSED)
    schema["properties"]["when"]["format"] = "uri"
    assert _message(_formatted(schema)) == (
        "Invalid schema for response_format 'Answer': In context=('properties', 'when'), "
        "'uri' is not a valid format."
    )


def test_an_array_needs_items() -> None:
    schema = copy.deepcopy(CLOSED)
    del schema["properties"]["tags"]["items"]
    assert _message(_formatted(schema)) == (
        "Invalid schema for response_format 'Answer': In context=('properties', 'tags'), "
        "array schema missing items."
    )


def test_default_is_refused_by_azure_only() -> None:
    schema = copy.deepcopy(CLOSED)
    schema["properties"]["name"]["default"] = "x"
    assert _message(_formatted(schema), "openai") is None
    assert _message(_formatted(schema), "azure") == (
        "Invalid schema for response_format 'Answer': In context=('properties', 'name'), "
        "'default' is not permitted."
    )


def _nested(levels: int) -> dict[str, Any]:
    """A strict object schema nested `levels` objects deep below the root."""
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {
            "type": "object",
            "properties": {"inner": schema},
            "required": ["inner"],
            "additionalProperties": False,
        }
    return schema


def test_nesting_deeper_than_ten_levels_is_refused() -> None:
    assert _message(_formatted(_nested(10))) is None
    message = _message(_formatted(_nested(12)))
    assert message is not None
    assert message.endswith("schema exceeds the maximum nesting depth of 10 levels.")


def test_definitions_are_checked_where_they_are_declared() -> None:
    schema = copy.deepcopy(CLOSED)
    schema["$defs"] = {"Item": {"type": "object", "properties": {"a": {"type": "string"}}}}
    assert _message(_formatted(schema)) == (
        "Invalid schema for response_format 'Answer': In context=('$defs', 'Item'), "
        "'additionalProperties' is required to be supplied and to be false."
    )


def test_a_non_strict_format_is_not_checked() -> None:
    body = _formatted({"type": "object"})
    body["response_format"]["json_schema"]["strict"] = False
    assert check_request(body, "openai") is None


def test_function_names_must_match_the_pattern() -> None:
    ok = {"messages": [USER], "tools": [_tool("get_stock-2")]}
    assert check_request(ok, "openai") is None
    refusal = check_request({"messages": [USER], "tools": [_tool("x"), _tool("shop.get")]}, "azure")
    assert refusal is not None
    assert (refusal.message, refusal.param, refusal.code) == (
        "Invalid 'tools[1].function.name': string does not match pattern. Expected a string "
        "that matches the pattern '^[a-zA-Z0-9_-]+$'.",
        "tools[1].function.name",
        "invalid_value",
    )


def test_function_names_longer_than_64_are_refused() -> None:
    assert check_request({"messages": [USER], "tools": [_tool("a" * 64)]}, "openai") is None
    refusal = check_request({"messages": [USER], "tools": [_tool("a" * 70)]}, "openai")
    assert refusal is not None
    assert (refusal.message, refusal.code) == (
        "Invalid 'tools[0].function.name': string too long. Expected a string with maximum "
        "length 64, but got a string with length 70 instead.",
        "string_above_max_length",
    )


def test_at_most_128_tools() -> None:
    tools = [_tool(f"t{i}") for i in range(128)]
    assert check_request({"messages": [USER], "tools": tools}, "openai") is None
    refusal = check_request({"messages": [USER], "tools": [*tools, _tool("one_more")]}, "openai")
    assert refusal is not None
    assert (refusal.message, refusal.param, refusal.code) == (
        "Invalid 'tools': array too long. Expected an array with maximum length 128, but got "
        "an array with length 129 instead.",
        "tools",
        "array_above_max_length",
    )


def test_strict_function_parameters_follow_the_strict_subset() -> None:
    open_params = {"type": "object", "properties": {"q": {"type": "string"}}}
    assert check_request({"messages": [USER], "tools": [_tool("f", open_params)]}, "openai") is None
    strict = {"messages": [USER], "tools": [_tool("f", open_params, strict=True)]}
    refusal = check_request(strict, "openai")
    assert refusal is not None
    assert (refusal.message, refusal.param, refusal.code) == (
        "Invalid schema for function 'f': In context=(), 'additionalProperties' is required "
        "to be supplied and to be false.",
        "tools[0].function.parameters",
        "invalid_function_parameters",
    )
    assert check_request({"messages": [USER], "tools": [_tool("f", strict=True)]}, "azure") is None


def test_tool_choice_must_name_a_declared_tool() -> None:
    choice = {"type": "function", "function": {"name": "get_stock"}}
    ok = {"messages": [USER], "tools": [_tool("get_stock")], "tool_choice": choice}
    assert check_request(ok, "openai") is None
    other = {**ok, "tools": [_tool("reorder")]}
    assert _message(other) == "Tool choice 'get_stock' not found in 'tools' parameter."
    assert _message({"messages": [USER], "tool_choice": "auto"}) == (
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."
    )


def test_roles_must_be_known() -> None:
    assert _message({"messages": [{"role": "system", "content": "s"}, USER]}) is None
    assert _message({"messages": [USER, {"role": "bot", "content": "x"}]}) == (
        "'bot' is not one of ['system', 'assistant', 'user', 'function', 'tool', "
        "'developer'] - 'messages.1.role'"
    )


def _call(call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}


def _answer(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "ok"}


def test_a_fully_answered_history_is_accepted() -> None:
    calls = {"role": "assistant", "content": None, "tool_calls": [_call("a"), _call("b")]}
    history = [USER, calls, _answer("a"), _answer("b"), {"role": "assistant", "content": "x"}]
    assert check_request({"messages": history}, "openai") is None


def test_a_tool_message_without_its_call_is_refused() -> None:
    refusal = check_request({"messages": [USER, _answer("a")]}, "openai")
    assert refusal is not None
    assert (refusal.message, refusal.param) == (
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
        "message with 'tool_calls'.",
        "messages.[1].role",
    )


def test_a_tool_message_for_another_call_is_refused() -> None:
    calls = {"role": "assistant", "content": None, "tool_calls": [_call("a")]}
    message = _message({"messages": [USER, calls, _answer("z")]})
    assert message is not None
    assert message.startswith("Invalid parameter: messages with role 'tool'")


def test_an_unanswered_call_is_refused() -> None:
    calls = {"role": "assistant", "content": None, "tool_calls": [_call("a"), _call("b")]}
    refusal = check_request({"messages": [USER, calls, _answer("a"), USER]}, "openai")
    assert refusal is not None
    assert (refusal.message, refusal.param) == (
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        "b",
        "messages.[3].role",
    )
    # The history may not end with the calls unanswered either.
    assert _message({"messages": [USER, calls]}) is not None


def test_function_parameters_must_be_an_object_schema_even_without_strict() -> None:
    typeless = {"$schema": "http://json-schema.org/draft-07/schema#"}
    refusal = check_request(
        {"messages": [USER], "tools": [_tool("create_branch", typeless)]}, "openai"
    )
    assert refusal is not None
    assert (refusal.message, refusal.param, refusal.code) == (
        "Invalid schema for function 'create_branch': schema must be a JSON Schema of "
        "'type: \"object\"', got 'type: \"None\"'.",
        "tools[0].function.parameters",
        "invalid_function_parameters",
    )
    no_parameters = {"type": "function", "function": {"name": "ping", "description": "d"}}
    assert check_request({"messages": [USER], "tools": [no_parameters]}, "openai") is None
