"""Where OpenAI's (and Azure OpenAI's) chat-completions API answers HTTP 400, as a pure check.

`check_request(body, dialect)` returns the `Refusal` the real API would send for a request body
(`{"error": {"message", "type": "invalid_request_error", "param", "code"}}`), or None when
it would take it. The scripted servers (tests/integration_tests/openai_stub.py and
bench/model_server.py) answer with it, so a schema, tool list or history that drifts from what the
providers accept fails the tests and the benches, not the first real deployment.

Standard library only, and no import from the `tests` package: bench/model_server.py loads this
file by path (bench/ never imports the tests package). Hand-written because no library
validates a request against a provider's rules: the rules are the providers' own (documented
limits plus observed refusals), and each message below is worded as the real API words it, in
public reports (the source of each is noted next to it; `{…}` parts are filled in).

Checked, in this order (the first failure answers, as the real API reports one problem):
roles, tool count, tool names, `tool_choice`, function parameters (an object schema; the strict
subset with `strict: true`), the strict
`response_format` schema, then the history's tool messages. Not checked: limits no request of
ours comes near (5000 properties, 1000 enum values, 120 000 schema characters).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

Dialect = Literal["openai", "azure"]
"""Whose rules: OpenAI's API, or Azure OpenAI's (the same, and no `default` in strict schemas)."""

DIALECTS: tuple[Dialect, ...] = ("openai", "azure")
"""Every dialect, for the command-line choice."""

ROLES = ("system", "assistant", "user", "function", "tool", "developer")
"""Message roles the chat-completions API takes."""

MAX_TOOLS = 128
"""Most function tools in one request (OpenAI; "array too long" beyond)."""

MAX_NAME = 64
"""Longest function name."""

NAME_PATTERN = "^[a-zA-Z0-9_-]+$"
"""What a function name may be made of, as the API spells the pattern in its refusal."""

MAX_DEPTH = 10
"""Deepest nesting of a strict schema (OpenAI's structured-outputs guide: 10 levels)."""

UNSUPPORTED_KEYWORDS = frozenset(
    {
        "allOf",
        "not",
        "if",
        "then",
        "else",
        "dependentRequired",
        "dependentSchemas",
        "patternProperties",
        "propertyNames",
        "unevaluatedProperties",
        "unevaluatedItems",
        "contains",
    }
)
"""JSON Schema keywords strict mode refuses (OpenAI's structured-outputs guide, and
"'propertyNames' is not permitted" in can1357/oh-my-pi#209)."""

AZURE_UNSUPPORTED_KEYWORDS = UNSUPPORTED_KEYWORDS | {"default"}
"""Azure also refuses `default` in strict schemas (openai/openai-agents-python#4390)."""

FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
"""String formats strict mode takes (OpenAI's structured-outputs guide)."""

SCHEMA_MAPS = ("properties", "$defs", "definitions")
"""Keywords whose value maps names to subschemas."""


@dataclass(frozen=True)
class Refusal:
    """An HTTP 400 the real API would answer, with its error body's fields."""

    message: str
    """The error message, worded as the real API words it."""
    param: str | None
    """The request field at fault, as the API names it (or None, as it sometimes does)."""
    code: str | None
    """The API's error code (or None)."""

    def body(self) -> dict[str, Any]:
        """The JSON error body the API sends with the 400."""
        return {
            "error": {
                "message": self.message,
                "type": "invalid_request_error",
                "param": self.param,
                "code": self.code,
            }
        }


def check_request(body: dict[str, Any], dialect: Dialect) -> Refusal | None:
    """The refusal the real API (`dialect`) would answer to a chat-completions `body`, or None."""
    tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    checks: tuple[Callable[[], Refusal | None], ...] = (
        lambda: _roles(messages),
        lambda: _tool_count(tools),
        lambda: _tool_names(tools),
        lambda: _tool_choice(body.get("tool_choice"), tools),
        lambda: _function_parameters(tools, dialect),
        lambda: _response_format(body.get("response_format"), dialect),
        lambda: _history(messages),
    )
    for check in checks:
        refusal = check()
        if refusal is not None:
            return refusal
    return None


def _roles(messages: list[dict[str, Any]]) -> Refusal | None:
    """A role the API does not know."""
    for i, message in enumerate(messages):
        role = message.get("role")
        if role not in ROLES:
            # The API's enum refusal: "'' is not one of ['system', 'assistant', 'user',
            # 'function'] - 'messages.21.role'" (lss233/kirara-ai#1028).
            text = f"{role!r} is not one of {list(ROLES)} - 'messages.{i}.role'"
            return Refusal(text, None, None)
    return None


def _tool_count(tools: list[dict[str, Any]]) -> Refusal | None:
    """More tools than one request takes."""
    if len(tools) <= MAX_TOOLS:
        return None
    # vishalmysore/Tools4AI#16, julep-ai/julep#330.
    return Refusal(
        f"Invalid 'tools': array too long. Expected an array with maximum length {MAX_TOOLS}, "
        f"but got an array with length {len(tools)} instead.",
        "tools",
        "array_above_max_length",
    )


def _function(tool: dict[str, Any]) -> dict[str, Any]:
    """A tool's `function` object (empty when it has none)."""
    function = tool.get("function")
    return function if isinstance(function, dict) else {}


def _tool_names(tools: list[dict[str, Any]]) -> Refusal | None:
    """A function name outside `^[a-zA-Z0-9_-]+$` or longer than 64 characters."""
    for i, tool in enumerate(tools):
        name = str(_function(tool).get("name", ""))
        param = f"tools[{i}].function.name"
        if not re.fullmatch(NAME_PATTERN.strip("^$"), name):
            # brekkylab/ailoy#109, run-llama/llama_index#16093.
            return Refusal(
                f"Invalid '{param}': string does not match pattern. Expected a string that "
                f"matches the pattern '{NAME_PATTERN}'.",
                param,
                "invalid_value",
            )
        if len(name) > MAX_NAME:
            # ravitemer/mcphub.nvim#243, use-novamira/novamira#12.
            return Refusal(
                f"Invalid '{param}': string too long. Expected a string with maximum length "
                f"{MAX_NAME}, but got a string with length {len(name)} instead.",
                param,
                "string_above_max_length",
            )
    return None


def _tool_choice(choice: Any, tools: list[dict[str, Any]]) -> Refusal | None:
    """A `tool_choice` without tools, or naming a function no tool declares."""
    if choice is None:
        return None
    if not tools:
        # dotnet/extensions#6276 (param tool_choice).
        return Refusal(
            "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are "
            "specified.",
            "tool_choice",
            None,
        )
    named = choice.get("function") if isinstance(choice, dict) else None
    name = named.get("name") if isinstance(named, dict) else None
    if name is not None and name not in {_function(t).get("name") for t in tools}:
        # vllm-project/vllm#40399, checked there against OpenAI's API.
        return Refusal(f"Tool choice '{name}' not found in 'tools' parameter.", "tool_choice", None)
    return None


def _function_parameters(tools: list[dict[str, Any]], dialect: Dialect) -> Refusal | None:
    """Function parameters that are not an object schema, or (`strict: true`) not strict."""
    for i, tool in enumerate(tools):
        function = _function(tool)
        if "parameters" not in function:
            continue
        parameters = function["parameters"] if isinstance(function["parameters"], dict) else {}
        if function.get("strict") is True:
            problem = strict_schema_problem(parameters, dialect)
        else:
            # Even without strict mode: "Invalid schema for function 'json': schema must be a
            # JSON Schema of 'type: "object"', got 'type: "None"'." (browserbase/stagehand#1159).
            problem = _root_problem(parameters) if parameters.get("type") != "object" else None
        if problem is not None:
            # "Invalid schema for function 'get_room_layout': In context=(...), array schema
            # missing items." with this param and code (modelscope/ms-agent#610).
            return Refusal(
                f"Invalid schema for function '{function.get('name')}': {problem}",
                f"tools[{i}].function.parameters",
                "invalid_function_parameters",
            )
    return None


def _response_format(response_format: Any, dialect: Dialect) -> Refusal | None:
    """A strict `json_schema` response format outside the strict subset."""
    if not isinstance(response_format, dict) or response_format.get("type") != "json_schema":
        return None
    spec = response_format.get("json_schema")
    if not isinstance(spec, dict) or spec.get("strict") is not True:
        return None
    problem = strict_schema_problem(spec.get("schema") or {}, dialect)
    if problem is None:
        return None
    # "Invalid schema for response_format 'json_schema': In context=('properties',
    # 'etymology'), 'additionalProperties' is required to be supplied and to be false."
    # (moeru-ai/xsai#202, from Azure; dottxt-ai/outlines#844, param and code).
    return Refusal(
        f"Invalid schema for response_format '{spec.get('name')}': {problem}",
        "response_format",
        None,
    )


def strict_schema_problem(schema: dict[str, Any], dialect: Dialect) -> str | None:
    """What strict mode refuses in `schema` (the message after "Invalid schema for ...: ")."""
    if schema.get("type") != "object" or "anyOf" in schema:
        return _root_problem(schema)
    unsupported = AZURE_UNSUPPORTED_KEYWORDS if dialect == "azure" else UNSUPPORTED_KEYWORDS
    return _node_problem(schema, (), 0, unsupported)


def _root_problem(schema: dict[str, Any]) -> str:
    """The refusal of a schema whose root is not a plain object."""
    root_type = schema.get("type")
    got = "anyOf" if "anyOf" in schema else root_type if isinstance(root_type, str) else None
    # podly-pure-podcasts/podly_pure_podcasts#89 ('got 'type: "array"''), browserbase/
    # stagehand#1159 (no type: 'got 'type: "None"'').
    return f"schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{got}\"'."


def _context(path: tuple[str, ...]) -> str:
    """The "In context=(...)" prefix the API puts before a problem inside a schema."""
    return f"In context={path!r}, "


def _node_problem(
    node: Any, path: tuple[str, ...], depth: int, unsupported: frozenset[str]
) -> str | None:
    """The first strict-mode problem at `node` or below it (depth-first, in key order)."""
    if not isinstance(node, dict):
        return None
    if depth > MAX_DEPTH:
        # Worded as a strict provider words it: "JSON schema exceeds the maximum nesting depth
        # of 10 levels" (Avick3110/houseCARL#730); OpenAI's own words are not public.
        return f"{_context(path)}schema exceeds the maximum nesting depth of {MAX_DEPTH} levels."
    own = _own_problem(node, unsupported)
    if own is not None:
        return _context(path) + own
    return _children_problem(node, path, depth, unsupported)


def _own_problem(node: dict[str, Any], unsupported: frozenset[str]) -> str | None:
    """A problem with `node`'s own keywords (not its subschemas)."""
    for keyword in node:
        if keyword in unsupported:
            # can1357/oh-my-pi#209: "In context=(...), 'propertyNames' is not permitted."
            return f"'{keyword}' is not permitted."
    fmt = node.get("format")
    if fmt is not None and fmt not in FORMATS:
        # can1357/oh-my-pi#206: "In context=('properties', 'url'), 'uri' is not a valid format."
        return f"'{fmt}' is not a valid format."
    types = node.get("type")
    kinds = set(types) if isinstance(types, list) else {types}
    if "array" in kinds and "items" not in node:
        return "array schema missing items."  # modelscope/ms-agent#610
    if "object" in kinds or "properties" in node:
        if node.get("additionalProperties") is not False:
            # dottxt-ai/outlines#844, moeru-ai/xsai#202.
            return "'additionalProperties' is required to be supplied and to be false."
        listed = node.get("required")
        required: list[Any] = listed if isinstance(listed, list) else []
        missing = [key for key in node.get("properties") or {} if key not in required]
        if missing:
            # vercel/ai#6484, docker/docker-agent#1871.
            return (
                "'required' is required to be supplied and to be an array including every "
                f"key in properties. Missing '{missing[0]}'."
            )
    return None


def _children_problem(
    node: dict[str, Any], path: tuple[str, ...], depth: int, unsupported: frozenset[str]
) -> str | None:
    """The first problem in `node`'s subschemas, each under its context path."""
    children: list[tuple[tuple[str, ...], Any, int]] = []
    for keyword, value in node.items():
        if keyword in SCHEMA_MAPS and isinstance(value, dict):
            # Definitions are not nested where they are declared: their depth starts over.
            step = 0 if keyword != "properties" else 1
            for name, sub in value.items():
                children.append(((*path, keyword, name), sub, depth + step))
        elif keyword == "items" and isinstance(value, dict):
            children.append(((*path, "items"), value, depth + 1))
        elif keyword == "anyOf" and isinstance(value, list):
            for i, sub in enumerate(value):
                children.append(((*path, "anyOf", str(i)), sub, depth))
    for child_path, sub, child_depth in children:
        problem = _node_problem(sub, child_path, child_depth, unsupported)
        if problem is not None:
            return problem
    return None


def _history(messages: list[dict[str, Any]]) -> Refusal | None:
    """A tool message answering no call, or a call left unanswered."""
    pending: list[str] = []
    caller = -1
    for i, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            if message.get("tool_call_id") not in pending:
                # miurla/morphic#136, smarter-sh/smarter#264 (param and code).
                return Refusal(
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'.",
                    f"messages.[{i}].role",
                    None,
                )
            pending.remove(message["tool_call_id"])
            continue
        if pending:
            return _unanswered(pending, i)
        calls = message.get("tool_calls") if role == "assistant" else None
        pending = [str(c.get("id")) for c in calls or [] if isinstance(c, dict)]
        caller = i
    return _unanswered(pending, caller) if pending else None


def _unanswered(ids: list[str], index: int) -> Refusal:
    """The refusal of a history whose assistant calls `ids` got no tool message."""
    # router-for-me/CLIProxyAPI#2798 (param and code), BerriAI/litellm#10083.
    return Refusal(
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        + ", ".join(ids),
        f"messages.[{index}].role",
        None,
    )
