"""What Anthropic, Gemini, Ollama and OpenAI-compatible servers refuse in a request body.

Each `*_problems(body)` lists, one sentence each, what in a request body (as the provider's
LangChain integration put it on the wire) breaks that provider's documented limits; empty when
nothing does. Hand-written for the same reason as `tests.provider_rules`: no library holds the
providers' rules. JSON Schema validity itself is checked with `jsonschema`.

Sources: Anthropic's tool-use guide (tool names `^[a-zA-Z0-9_-]{1,64}$`, tool blocks only
in a request that defines the tools, "tools.7.custom.name:
String should match pattern '^[a-zA-Z0-9_-]{1,64}$'" in apify/tester-mcp-client#11; an
`input_schema` of type object, valid under JSON Schema draft 2020-12); Gemini's function
calling guide and its refusals ("Invalid function name. Must start with a letter or an
underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.) or dashes (-), with
a maximum length of 64." in google-gemini/gemini-cli#2966; "properties: should be non-empty
for OBJECT type" in browser-use/browser-use#7; "items: missing field" in cline/cline#7926; an
empty type, "Invalid value at '...properties[11].value.any_of[0].type'", in
zereight/gitlab-mcp#166), its `Schema` being an OpenAPI subset with no `$ref`/`$defs`;
Gemini's API reference for the rest: `GenerationConfig.response_json_schema` ("only the
following properties are supported", checked as `common.strict_schema`'s gemini dialect; it
needs `response_mime_type` application/json and excludes `response_schema`),
`FunctionDeclaration.parameters_json_schema` (exclusive with `parameters`) and
`FunctionCallingConfig.allowed_function_names` ("should only be set when the Mode is ANY or
VALIDATED", naming declared functions); the turn order Gemini answers with HTTP 400: "Please
ensure that function call turn comes immediately after a user turn or after a function
response turn." (google-gemini/gemini-cli#11814), "Please ensure that function response turn
comes immediately after a function call turn." (langchain-ai/langchain#27799) and "Please
ensure that the number of function response parts is equal to the number of function call
parts of the function call turn." (microsoft/vscode#299295). Ollama's /api/chat
documentation (`format` is "json" or a JSON schema, `tools` are function definitions whose
`parameters` are an object schema); vLLM and LM Studio compile the OpenAI request's JSON
schemas, which must therefore be valid JSON Schema.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from common.strict_schema import strict_problems

ANTHROPIC_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
"""Anthropic's tool-name rule."""

GEMINI_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$")
"""Gemini's function-name rule: a letter or underscore first, then letters, digits, _ . -."""

GEMINI_TYPES = {1: "STRING", 2: "NUMBER", 3: "INTEGER", 4: "BOOLEAN", 5: "ARRAY", 6: "OBJECT"}
"""Gemini's schema types as the REST transport encodes them (enum numbers; 0 is unspecified)."""

GEMINI_MODES = {1: "AUTO", 2: "ANY", 3: "NONE", 4: "VALIDATED"}
"""Gemini's function calling modes, by enum number (0 is unspecified)."""

GEMINI_FIELDS = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
        "maximum",
    }
)
"""The fields of Gemini's `Schema` (the OpenAPI subset function declarations take)."""


def _schema_invalid(schema: Any) -> str | None:
    """Why `schema` is not valid JSON Schema (draft 2020-12), or None."""
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return str(exc.message)
    return None


def anthropic_problems(body: dict[str, Any]) -> list[str]:
    """What Anthropic's Messages API refuses in `body`'s tools and tool choice."""
    problems: list[str] = []
    names = set()
    for i, tool in enumerate(body.get("tools") or []):
        name = str(tool.get("name", ""))
        names.add(name)
        if not ANTHROPIC_NAME.match(name):
            problems.append(
                f"tools.{i}.custom.name: String should match pattern '{ANTHROPIC_NAME.pattern}'"
                f" (got {name!r})"
            )
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            problems.append(f"tools.{i}.custom.input_schema.type: Input should be 'object'")
        elif (why := _schema_invalid(schema)) is not None:
            problems.append(f"tools.{i}.custom.input_schema: JSON schema is invalid ({why})")
    choice = body.get("tool_choice") or {}
    if choice.get("type") == "tool" and choice.get("name") not in names:
        problems.append(f"tool_choice.name: no tool named {choice.get('name')!r}")
    return problems + _anthropic_tool_blocks(body, names)


def _anthropic_tool_blocks(body: dict[str, Any], names: set[str]) -> list[str]:
    """Tool-use and tool-result blocks in a request whose tools do not include theirs.

    Anthropic: "Requests which include `tool_use` or `tool_result` blocks must define tools."
    (Bedrock: "The toolConfig field must be defined when using toolUse and toolResult content
    blocks."). A `tool_use` of a tool the request does not define is held to the same rule
    here, stricter than the documentation says, so no request relies on it.
    """
    problems: list[str] = []
    for i, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "tool_result" and not names:
                problems.append(
                    f"messages.{i}: Requests which include `tool_use` or `tool_result` blocks "
                    "must define tools."
                )
            elif kind == "tool_use" and block.get("name") not in names:
                problems.append(
                    f"messages.{i}: Requests which include `tool_use` or `tool_result` blocks "
                    f"must define tools (no tool named {block.get('name')!r})."
                )
    return problems


def _declarations(body: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each function declaration of a generateContent body, with its request path."""
    for t, tool in enumerate(body.get("tools") or []):
        for d, declaration in enumerate(tool.get("functionDeclarations") or []):
            yield f"tools[{t}].function_declarations[{d}]", declaration


def _enum_name(value: Any, names: dict[int, str]) -> str | None:
    """An enum field as its name: the REST transport sends numbers, JSON may send the name."""
    if isinstance(value, int) and not isinstance(value, bool):
        return names.get(value)
    return value if value in names.values() else None


def gemini_problems(body: dict[str, Any]) -> list[str]:
    """What Gemini refuses in a generateContent body (REST JSON; a gRPC request converted to it).

    Function declarations (names, `parameters` in its OpenAPI `Schema`, `parametersJsonSchema`
    in its JSON Schema subset), the structured-output fields of `generationConfig`, the forced
    function of `toolConfig`, and the order of function call and response turns.
    """
    problems: list[str] = []
    names: set[str] = set()
    for where, declaration in _declarations(body):
        name = str(declaration.get("name", ""))
        names.add(name)
        if not GEMINI_NAME.match(name):
            problems.append(
                f"{where}.name: Invalid function name. Must start with a letter or an "
                "underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.) or "
                f"dashes (-), with a maximum length of 64. (got {name!r})"
            )
        if "parameters" in declaration and "parametersJsonSchema" in declaration:
            problems.append(f"{where}: parameters and parameters_json_schema are exclusive")
        if "parameters" in declaration:
            problems += _gemini_schema(declaration["parameters"], f"{where}.parameters")
        if "parametersJsonSchema" in declaration:
            schema = declaration["parametersJsonSchema"]
            problems += _gemini_json_schema(schema, f"{where}.parameters_json_schema")
    return (
        problems
        + _gemini_output(body.get("generationConfig") or {})
        + _gemini_forced(body.get("toolConfig") or {}, names)
        + _gemini_turns(body.get("contents") or [])
    )


def _gemini_output(config: dict[str, Any]) -> list[str]:
    """What Gemini refuses in `generationConfig`'s response schema fields."""
    where = "generation_config"
    problems: list[str] = []
    for field, key in (
        ("response_json_schema", "responseJsonSchema"),
        ("response_schema", "responseSchema"),
    ):
        if key in config and config.get("responseMimeType") != "application/json":
            problems.append(f"{where}.{field}: response_mime_type 'application/json' is required")
    if "responseJsonSchema" in config:
        if "responseSchema" in config:
            problems.append(f"{where}.response_schema: must be omitted with response_json_schema")
        problems += _gemini_json_schema(
            config["responseJsonSchema"], f"{where}.response_json_schema"
        )
    if "responseSchema" in config:
        problems += _gemini_schema(config["responseSchema"], f"{where}.response_schema")
    return problems


def _gemini_json_schema(schema: Any, where: str) -> list[str]:
    """What is outside Gemini's JSON Schema subset (`common.strict_schema`'s gemini dialect)."""
    if not isinstance(schema, dict):
        return [f"{where}: not a JSON schema object"]
    problems = [f"{where}: {p}" for p in strict_problems(schema, "gemini")]
    if (why := _schema_invalid(schema)) is not None:
        problems.append(f"{where}: invalid JSON schema ({why})")
    return problems


def _gemini_forced(tool_config: dict[str, Any], names: set[str]) -> list[str]:
    """What Gemini refuses in `toolConfig.functionCallingConfig`: allowed names and their mode."""
    config = tool_config.get("functionCallingConfig") or {}
    allowed = config.get("allowedFunctionNames") or []
    mode = _enum_name(config.get("mode", 0), GEMINI_MODES)
    where = "tool_config.function_calling_config"
    problems: list[str] = []
    if allowed and mode not in ("ANY", "VALIDATED"):
        problems.append(
            f"{where}.allowed_function_names: should only be set when the mode is ANY or "
            f"VALIDATED (got {mode})"
        )
    problems += [
        f"{where}.allowed_function_names: no function declaration is named {name!r}"
        for name in allowed
        if name not in names
    ]
    return problems


def _parts(content: dict[str, Any], kind: str) -> int:
    """How many parts of `kind` (functionCall, functionResponse) a content has."""
    return sum(1 for part in content.get("parts") or [] if kind in part)


def _gemini_turns(contents: list[dict[str, Any]]) -> list[str]:
    """Function call and response turns out of the order Gemini takes (its 400 messages)."""
    problems: list[str] = []
    for i, content in enumerate(contents):
        before = contents[i - 1] if i else None
        calls, answers = _parts(content, "functionCall"), _parts(content, "functionResponse")
        if calls and (before is None or before.get("role") != "user"):
            problems.append(
                f"contents[{i}]: Please ensure that function call turn comes immediately after "
                "a user turn or after a function response turn."
            )
        if answers and (before is None or not _parts(before, "functionCall")):
            problems.append(
                f"contents[{i}]: Please ensure that function response turn comes immediately "
                "after a function call turn."
            )
        elif answers and before is not None and answers != _parts(before, "functionCall"):
            problems.append(
                f"contents[{i}]: Please ensure that the number of function response parts is "
                "equal to the number of function call parts of the function call turn."
            )
    return problems


def _gemini_schema(schema: Any, where: str) -> list[str]:
    """What Gemini refuses (or what was lost) in one `Schema` and below it."""
    if not isinstance(schema, dict):
        return [f"{where}: not a schema object"]
    problems = [f"{where}.{key}: unknown field" for key in schema if key not in GEMINI_FIELDS]
    kind = _enum_name(schema.get("type", 0), GEMINI_TYPES)
    if kind is None and "anyOf" not in schema:
        problems.append(f"{where}.type: Invalid value (unspecified: the source shape was lost)")
    if kind == "OBJECT" and not schema.get("properties"):
        problems.append(f"{where}.properties: should be non-empty for OBJECT type")
    if kind == "ARRAY" and "items" not in schema:
        problems.append(f"{where}.items: missing field")
    for name, sub in (schema.get("properties") or {}).items():
        problems += _gemini_schema(sub, f"{where}.properties[{name}]")
    if isinstance(schema.get("items"), dict):
        problems += _gemini_schema(schema["items"], f"{where}.items")
    for i, sub in enumerate(schema.get("anyOf") or []):
        problems += _gemini_schema(sub, f"{where}.anyOf[{i}]")
    return problems


def ollama_problems(body: dict[str, Any]) -> list[str]:
    """What Ollama's /api/chat refuses in `body`'s `format` and `tools`."""
    problems: list[str] = []
    fmt = body.get("format")
    if isinstance(fmt, dict):
        if fmt.get("type") != "object":
            problems.append("format: a JSON schema of type object is expected")
        if (why := _schema_invalid(fmt)) is not None:
            problems.append(f"format: invalid JSON schema ({why})")
    elif fmt not in (None, "", "json"):
        problems.append(f"format: {fmt!r} is neither 'json' nor a JSON schema")
    for i, tool in enumerate(body.get("tools") or []):
        function = tool.get("function") or {}
        if tool.get("type") != "function" or not function.get("name"):
            problems.append(f"tools[{i}]: a function tool with a name is expected")
        parameters = function.get("parameters") or {}
        if parameters.get("type") != "object":
            problems.append(f"tools[{i}].function.parameters: type object is expected")
        elif (why := _schema_invalid(parameters)) is not None:
            problems.append(f"tools[{i}].function.parameters: invalid JSON schema ({why})")
    return problems


def compatible_problems(body: dict[str, Any]) -> list[str]:
    """What an OpenAI-compatible server that compiles schemas (vLLM, LM Studio) refuses."""
    problems: list[str] = []
    response_format = body.get("response_format") or {}
    spec = response_format.get("json_schema") or {}
    if "schema" in spec and (why := _schema_invalid(spec["schema"])) is not None:
        problems.append(f"response_format.json_schema.schema: invalid JSON schema ({why})")
    for i, tool in enumerate(body.get("tools") or []):
        parameters = (tool.get("function") or {}).get("parameters") or {}
        if (why := _schema_invalid(parameters)) is not None:
            problems.append(f"tools[{i}].function.parameters: invalid JSON schema ({why})")
    return problems
