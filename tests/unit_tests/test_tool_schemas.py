"""MCP input schemas as Gemini takes them, and the model's arguments back in the tool's shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from mcp.types import Tool

from common.mcp.schema import check_args
from common.tool_schemas import adapt_specs, gemini_schema, object_schema, restored

CATALOG = json.loads((Path(__file__).parents[1] / "data" / "tool_catalog.json").read_text())
"""Tool lists real MCP servers returned."""

GEMINI_KEYS = frozenset(
    {"type", "description", "enum", "items", "properties", "required", "nullable"}
    | {"minimum", "maximum", "minItems", "maxItems"}
)
"""Keywords the rewrite may leave (all in Gemini's `Schema`)."""


def _problems(schema: Any, where: str = "parameters") -> list[str]:
    """What in a rewritten schema is outside Gemini's subset."""
    problems = [f"{where}.{k}" for k in schema if k not in GEMINI_KEYS]
    kind = schema.get("type")
    if kind not in {"string", "number", "integer", "boolean", "array", "object"}:
        problems.append(f"{where}: type {kind!r}")
    if kind == "array" and "items" not in schema:
        problems.append(f"{where}: array without items")
    if kind == "object" and not schema.get("properties"):
        problems.append(f"{where}: object without properties")
    if any(not isinstance(v, str) for v in schema.get("enum", [])):
        problems.append(f"{where}: enum not all strings")
    for name, sub in (schema.get("properties") or {}).items():
        problems += _problems(sub, f"{where}.{name}")
    if "items" in schema:
        problems += _problems(schema["items"], f"{where}[]")
    return problems


def _catalog() -> list[Tool]:
    """Every recorded tool."""
    return [Tool.model_validate(t) for e in CATALOG["servers"].values() for t in e["tools"]]


def test_every_catalog_schema_is_rewritten_into_geminis_subset() -> None:
    problems = []
    for tool in _catalog():
        schema, _ = gemini_schema(tool.input_schema)
        problems += [f"{tool.name}: {p}" for p in (_problems(schema) if schema else [])]
    assert problems == []


CYCLIC = {
    "type": "object",
    "properties": {
        "side": {"type": "integer", "enum": [1, 2]},
        "meta": {"type": "object", "additionalProperties": True},
        "tags": {"type": "array"},
        "tree": {"$ref": "#/$defs/Node"},
        "when": {"type": ["string", "null"], "format": "date-time"},
    },
    "required": ["side", "meta", "tree"],
    "$defs": {
        "Node": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            },
            "required": ["name"],
        }
    },
}
"""A schema with an integer enum, an open object, an array without items and a `$ref` cycle."""


def test_refs_are_inlined_with_a_bound_and_unsupported_shapes_become_strings() -> None:
    schema, restore = gemini_schema(CYCLIC)
    assert "$ref" not in json.dumps(schema)
    props = schema["properties"]
    assert props["side"] == {"type": "string", "enum": ["1", "2"]}
    assert props["meta"]["type"] == "string"
    assert props["tags"] == {"type": "array", "items": {"type": "string"}}
    assert props["when"] == {"type": "string", "nullable": True}
    assert schema["required"] == ["side", "meta", "tree"]
    depth, node = 0, props["tree"]
    while node["type"] == "object":
        depth, node = depth + 1, node["properties"]["kids"]["items"]
    assert depth == 3
    assert node["type"] == "string"
    assert ("tree", "kids", "*", "kids", "*", "kids", "*") in restore.decode


def test_the_models_arguments_come_back_in_the_tools_shape_and_pass_its_live_schema() -> None:
    tool = Tool(name="plant", inputSchema=CYCLIC)
    _, restore = gemini_schema(CYCLIC)
    wrote = {"side": "2", "meta": '{"a": 1}', "tree": {"name": "r", "kids": [{"name": "k"}]}}
    assert check_args(tool, wrote) != []
    args = restore.args(wrote)
    assert args == {"side": 2, "meta": {"a": 1}, "tree": {"name": "r", "kids": [{"name": "k"}]}}
    assert check_args(tool, args) == []


def test_a_bad_value_is_left_for_the_live_schema_to_refuse() -> None:
    tool = Tool(name="plant", inputSchema=CYCLIC)
    _, restore = gemini_schema(CYCLIC)
    args = restore.args({"side": "3", "meta": "not json", "tree": {"name": "r"}})
    assert args["side"] == "3"
    assert any("meta" in p for p in check_args(tool, args))


def test_a_reply_is_restored_by_bound_name_and_keeps_its_provider_fields() -> None:
    spec = {"type": "function", "function": {"name": "plant", "parameters": CYCLIC}}
    adapted, restores = adapt_specs("gemini", [spec])
    assert adapted[0]["function"]["parameters"]["properties"]["side"]["enum"] == ["1", "2"]
    call = {"name": "plant", "args": {"side": "1", "meta": "{}", "tree": {"name": "r"}}, "id": "c"}
    reply = AIMessage("", tool_calls=[call], additional_kwargs={"raw": "kept"})
    back = restored(reply, restores)
    assert isinstance(back, AIMessage)
    assert back.tool_calls[0]["args"] == {"side": 1, "meta": {}, "tree": {"name": "r"}}
    assert back.additional_kwargs == {"raw": "kept"}


@pytest.mark.parametrize("schema", [None, {}, {"type": "object"}, {"properties": {}}])
def test_a_tool_without_arguments_declares_no_parameters_to_gemini(schema: Any) -> None:
    assert gemini_schema(schema)[0] == {}
    assert object_schema(schema)["type"] == "object"


def test_other_providers_get_the_schema_as_it_is_with_an_object_root() -> None:
    spec = {"type": "function", "function": {"name": "plant", "parameters": CYCLIC}}
    adapted, restores = adapt_specs("json_schema", [spec])
    assert adapted[0]["function"]["parameters"] == CYCLIC
    assert restores == {}
