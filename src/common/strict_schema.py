"""The JSON schemas sent to models for structured answers, and the strict subset they must fit.

Every model-facing structured answer (the planner's, the analyser's, the assessor's) is a
pydantic class; `strict_json_schema` turns one into the exact schema the request carries, once,
and refuses a class that would be refused by a provider. `strict_problems` implements the
documented subset:

- OpenAI, "Structured Outputs: supported schemas"
  (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas): types string,
  number, boolean, integer, object, array, enum and anyOf; the root an object, not anyOf;
  every object `additionalProperties: false` with every property in `required` (optional means
  nullable, e.g. `{"type": ["string", "null"]}`); `$defs`/`$ref` allowed (a `$ref` with sibling
  keywords is not); strings may carry `pattern` and `format` (a fixed list of formats), numbers
  `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`/`multipleOf`, arrays
  `minItems`/`maxItems`; at most 5000 properties, 10 levels of nesting, 1000 enum values and
  120,000 characters of property names, definition names, enum and const values. Keywords
  outside that list (`allOf`, `not`, `oneOf`, `if`/`then`/`else`, `default`, `minLength`,
  `patternProperties`...) are refused: "Invalid schema for response_format ...".
- Azure OpenAI, "Structured outputs: unsupported JSON Schema features"
  (https://learn.microsoft.com/azure/ai-foundry/openai/how-to/structured-outputs): for strings
  `minLength`, `maxLength`, `pattern`, `format`; for numbers `minimum`, `maximum`,
  `multipleOf`; for objects `patternProperties`, `unevaluatedProperties`, `propertyNames`,
  `minProperties`, `maxProperties`; for arrays `unevaluatedItems`, `contains`, `minContains`,
  `maxContains`, `minItems`, `maxItems`, `uniqueItems`. `default` is refused too
  (openai/openai-agents-python#4390), which is why no answer class has a default.
- Gemini, `generationConfig.responseJsonSchema` (the Gemini API reference, GenerationConfig;
  the same text is the docstring of `google.ai.generativelanguage_v1beta.GenerationConfig`):
  "only the following properties are supported": `$id`, `$defs`, `$ref`, `$anchor`, `type`,
  `format`, `title`, `description`, `enum` (strings and numbers), `items`, `prefixItems`,
  `minItems`, `maxItems`, `minimum`, `maximum`, `anyOf`, `oneOf`, `properties`,
  `additionalProperties`, `required`, and `propertyOrdering`; "if `$ref` is set on a
  sub-schema, no other properties, except for those starting as a `$`, may be set"; cyclic
  references "may only be used within non-required properties (nullable properties are not
  sufficient)". langchain-google-genai sends the class's pydantic schema there (json_schema and
  json_mode), which is this module's schema without the closing `additionalProperties: false`:
  checking the schema built here checks that one too. Its default method, function calling,
  converts the same schema into Gemini's OpenAPI `Schema` (checked on the wire by the tests).

The checker is written here, not taken from a library: the one that exists
(`openai.lib._pydantic.to_strict_json_schema`, private) rewrites a schema rather than judging it,
keeps open maps open (the refusal this module exists to prevent) and knows nothing of Azure.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel

Dialect = Literal["openai", "azure", "gemini"]
"""Whose documented subset a schema is checked against."""

DIALECTS: tuple[Dialect, ...] = ("openai", "azure", "gemini")
"""Every dialect a model-facing schema must fit."""

MAX_PROPERTIES = 5000
"""Most object properties in one schema (OpenAI)."""

MAX_NESTING = 10
"""Most levels of object nesting (OpenAI)."""

MAX_ENUM_VALUES = 1000
"""Most enum values across one schema (OpenAI)."""

MAX_NAME_CHARS = 120_000
"""Most characters of property names, definition names, enum and const values (OpenAI)."""

_STRUCTURE = frozenset(
    {"type", "description", "title", "properties", "required", "additionalProperties"}
    | {"items", "anyOf", "enum", "const", "$ref", "$defs", "definitions"}
)
"""Keywords both dialects accept."""

_OPENAI_ONLY = frozenset(
    {"pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
    | {"multipleOf", "minItems", "maxItems"}
)
"""Keywords OpenAI accepts and Azure refuses (Azure lists each as unsupported)."""

OPENAI_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
"""String formats OpenAI accepts."""

GEMINI_KEYWORDS = frozenset(
    {"$id", "$defs", "$ref", "$anchor", "type", "format", "title", "description", "enum"}
    | {"items", "prefixItems", "minItems", "maxItems", "minimum", "maximum", "anyOf", "oneOf"}
    | {"properties", "additionalProperties", "required", "propertyOrdering"}
)
"""Keywords Gemini's `responseJsonSchema` supports (its documented list)."""

_TYPES = frozenset({"string", "number", "boolean", "integer", "object", "array", "null"})


class StrictSchemaError(ValueError):
    """A model-facing answer class whose schema a provider would refuse (a bug, not a setting)."""


def strict_problems(schema: dict[str, Any], dialect: Dialect = "openai") -> list[str]:
    """What in `schema` the dialect's strict structured outputs refuse; [] when it fits."""
    if dialect == "gemini":
        return gemini_problems(schema)
    problems: list[str] = []
    if schema.get("type") != "object" or "anyOf" in schema:
        problems.append("the root must be an object, not anyOf")
    allowed = _STRUCTURE | (_OPENAI_ONLY if dialect == "openai" else frozenset())
    properties = enums = chars = 0
    for path, node, depth in _walk(schema, (), 1):
        where = "/".join(path) or "(root)"
        problems += [
            f"{where}: keyword {key!r} is not supported" for key in node if key not in allowed
        ]
        problems += _node_problems(node, where, dialect)
        if depth > MAX_NESTING and node.get("type") == "object":
            problems.append(f"{where}: nested deeper than {MAX_NESTING} levels")
        names = node.get("properties") or {}
        properties += len(names)
        enums += len(node.get("enum") or [])
        chars += sum(len(n) for n in names) + sum(len(str(v)) for v in node.get("enum") or [])
        chars += len(str(node["const"])) if "const" in node else 0
    chars += sum(len(n) for n in schema.get("$defs") or {})
    if properties > MAX_PROPERTIES:
        problems.append(f"{properties} properties; at most {MAX_PROPERTIES} are allowed")
    if enums > MAX_ENUM_VALUES:
        problems.append(f"{enums} enum values; at most {MAX_ENUM_VALUES} are allowed")
    if chars > MAX_NAME_CHARS:
        problems.append(f"{chars} characters of names and values; at most {MAX_NAME_CHARS}")
    return problems


def _node_problems(node: dict[str, Any], where: str, dialect: Dialect) -> list[str]:
    """The problems of one subschema on its own (its keywords are checked by the caller)."""
    problems: list[str] = []
    if "$ref" in node and len(node) > 1:
        problems.append(f"{where}: $ref with sibling keywords {sorted(set(node) - {'$ref'})}")
    types = node.get("type")
    for t in types if isinstance(types, list) else [types] if types else []:
        if t not in _TYPES:
            problems.append(f"{where}: type {t!r} is not supported")
    if types == "object" or (isinstance(types, list) and "object" in types):
        if node.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties must be supplied and be false")
        missing = sorted(set(node.get("properties") or {}) - set(node.get("required") or []))
        if missing:
            problems.append(f"{where}: every property must be required; not: {missing}")
    fmt = node.get("format")
    if dialect == "openai" and fmt is not None and fmt not in OPENAI_FORMATS:
        problems.append(f"{where}: format {fmt!r} is not supported")
    return problems


def gemini_problems(schema: dict[str, Any]) -> list[str]:
    """What in `schema` Gemini's `responseJsonSchema` does not support; [] when it fits."""
    problems: list[str] = []
    for path, node, _depth in _walk(schema, (), 1):
        where = "/".join(path) or "(root)"
        problems += [
            f"{where}: keyword {key!r} is not supported"
            for key in node
            if key not in GEMINI_KEYWORDS
        ]
        siblings = sorted(k for k in node if not k.startswith("$"))
        if "$ref" in node and siblings:
            problems.append(f"{where}: $ref with sibling keywords {siblings}")
        values = node.get("enum") or []
        if any(isinstance(v, bool) or not isinstance(v, str | int | float) for v in values):
            problems.append(f"{where}: enum values must be strings or numbers")
        types = node.get("type")
        for t in types if isinstance(types, list) else [types] if types else []:
            if t not in _TYPES:
                problems.append(f"{where}: type {t!r} is not supported")
    return problems + _required_cycles(schema)


def _required_cycles(schema: dict[str, Any]) -> list[str]:
    """Each `$ref` that closes a cycle through required properties only (Gemini refuses it)."""
    nodes = {"#": schema} | {
        f"#/{key}/{name}": sub
        for key in ("$defs", "definitions")
        for name, sub in (schema.get(key) or {}).items()
    }
    edges = {
        ref: {r for r, required in _refs(node, True) if required} for ref, node in nodes.items()
    }
    problems: list[str] = []
    done: set[str] = set()

    def visit(ref: str, stack: tuple[str, ...]) -> None:
        for nxt in sorted(edges.get(ref, ())):
            if nxt in stack:
                problems.append(
                    f"{ref}: $ref {nxt!r} closes a cycle through required properties only"
                )
            elif nxt not in done:
                visit(nxt, (*stack, nxt))
        done.add(ref)

    for ref in nodes:
        if ref not in done:
            visit(ref, (ref,))
    return problems


def _refs(node: Any, required: bool) -> Iterator[tuple[str, bool]]:
    """Each `$ref` below `node` (definitions apart); whether only required properties lead there.

    Array items and union branches keep the way's status: a `null` branch makes nothing optional.
    """
    if not isinstance(node, dict):
        return
    if isinstance(node.get("$ref"), str):
        yield node["$ref"], required
    names = set(node.get("required") or [])
    for name, sub in (node.get("properties") or {}).items():
        yield from _refs(sub, required and name in names)
    for key in ("items", "additionalProperties"):
        yield from _refs(node.get(key), required)
    for key in ("anyOf", "oneOf", "prefixItems"):
        for sub in node.get(key) or []:
            yield from _refs(sub, required)


def _walk(
    node: Any, path: tuple[str, ...], depth: int
) -> Iterator[tuple[tuple[str, ...], dict[str, Any], int]]:
    """Every subschema with its path and object nesting depth, `node` first."""
    if not isinstance(node, dict):
        return
    yield path, node, depth
    inner = depth + 1 if node.get("type") == "object" else depth
    for name, sub in (node.get("properties") or {}).items():
        yield from _walk(sub, (*path, "properties", name), inner)
    for key in ("$defs", "definitions"):
        for name, sub in (node.get(key) or {}).items():
            yield from _walk(sub, (*path, key, name), 1)
    if isinstance(node.get("items"), dict):
        yield from _walk(node["items"], (*path, "items"), depth)
    for key in ("anyOf", "oneOf", "prefixItems"):
        for i, sub in enumerate(node.get(key) or []):
            yield from _walk(sub, (*path, key, str(i)), depth)
    if isinstance(node.get("additionalProperties"), dict):
        yield from _walk(node["additionalProperties"], (*path, "additionalProperties"), inner)


def _closed(node: Any) -> Any:
    """`node` with every object that says nothing about extra keys closed to them."""
    if isinstance(node, list):
        return [_closed(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: (v if k in ("enum", "const") else _closed(v)) for k, v in node.items()}
    if out.get("type") == "object" and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


@functools.cache
def _built(model: type[BaseModel]) -> dict[str, Any]:
    schema = _closed(model.model_json_schema())
    problems = [f"{d}: {p}" for d in DIALECTS for p in strict_problems(schema, d)]
    if problems:
        raise StrictSchemaError(
            f"{model.__name__}'s schema is not in the strict subset: {'; '.join(problems)}"
        )
    return schema  # type: ignore[no-any-return]


def strict_json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema sent for `model` (a copy), checked against every dialect; built once.

    Pydantic's schema, with objects that say nothing about extra keys closed to them (pydantic
    ignores extra keys when it reads an answer, so closing them on the wire changes nothing
    we accept). Anything else outside the subset raises `StrictSchemaError`: the class is
    changed, never the schema behind its back, so what is sent and what is validated agree.
    """
    return copy.deepcopy(_built(model))


def response_format(model: type[BaseModel]) -> dict[str, Any]:
    """The `json_schema` part of an OpenAI `response_format` for `model`: name, schema, strict."""
    return {"name": model.__name__, "schema": strict_json_schema(model), "strict": True}
