"""MCP tool input schemas as each provider family accepts function parameters, and back.

MCP servers describe a tool's input in full JSON Schema (`$ref`/`$defs`, open objects, type
lists, `oneOf`, `const`, untyped properties, integer enums). The providers take less:
- OpenAI and Azure (non-strict function parameters), Anthropic (`input_schema`) and Ollama take
  JSON Schema whose root is an object: `object_schema` gives a root without a `type` one.
- Gemini takes an OpenAPI subset (its `Schema`: type, description, enum of strings, items,
  properties, required, nullable, ...), refuses `$ref`, arrays without `items`, objects without
  `properties` and untyped values, and langchain-google-genai fails before sending on an enum
  that is not all strings. `gemini_schema` rewrites a schema into that subset.

What the Gemini rewrite loses, and why nothing is lost at execution: every call is checked
against the tool's REAL live schema before it runs (`common.mcp.schema.check_args`), so a
dropped constraint (`pattern`, bounds, `const`, `additionalProperties: false`, an `anyOf`
branch other than the first) is still enforced there, and a call that breaks it is refused with
the reason, which the model is shown. Shapes Gemini cannot express are sent as strings and
restored on the way back (`Restore`): an open object (no `properties`) or a `$ref` cycle deeper
than `MAX_REF_DEPTH` becomes a JSON-encoded string the model fills and we decode; a non-string
enum becomes the strings of its values, mapped back to the values. An untyped value (any JSON)
is sent as a string and passed on as the model wrote it (the live schema accepts anything).
Only the first non-null branch of an `anyOf`/`oneOf` (or type list) is offered, and nested
optional properties may come back required (langchain-google-genai's conversion).

Hand-written: langchain-google-genai converts what it can and drops the rest (an untyped
property loses its type, `additionalProperties` makes an object without properties), and no
well-kept library maps JSON Schema to Gemini's subset with a way back for the arguments.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage

Family = Literal["json_schema", "gemini"]
"""How a provider takes function parameters: JSON Schema with an object root, or Gemini's."""

MAX_REF_DEPTH = 3
"""How many times one `$ref` is inlined inside itself before the rest is a JSON string."""

GEMINI_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object"})
"""JSON Schema types Gemini's `Schema` has (no `null`: that is `nullable`)."""

GEMINI_KEEP = ("description", "minimum", "maximum", "minItems", "maxItems")
"""Keywords copied as they are into a Gemini schema (the rest is checked after the call)."""

JSON_TEXT = "A JSON object, written as a string."
"""What a value sent to Gemini as a JSON-encoded string is described as."""

Path = tuple[str, ...]
"""Where a value sits in a call's arguments: property names, `*` for any array item."""


def object_schema(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """A tool's input schema as the object schema providers require of function parameters.

    Some servers (GitLab's, for one) list an input schema with no `type`; OpenAI and Anthropic
    refuse such parameters ("schema must be a JSON Schema of 'type: "object"'"), though MCP
    input schemas always describe an object.
    """
    if not schema:
        return {"type": "object", "properties": {}}
    if "type" not in schema:
        return {"properties": {}, **schema, "type": "object"}
    return dict(schema)


@dataclass
class Restore:
    """How to turn a call's arguments, as the model wrote them, back into the tool's shape."""

    decode: set[Path] = field(default_factory=set)
    """Paths whose value was sent as a JSON-encoded string."""
    enums: dict[Path, list[Any]] = field(default_factory=dict)
    """Paths whose enum was sent as strings: the original values."""

    def args(self, args: dict[str, Any]) -> dict[str, Any]:
        """`args` with encoded values decoded and enum strings mapped back to their values."""
        restored = _restore(args, (), self)
        return restored if isinstance(restored, dict) else args


def _restore(value: Any, path: Path, restore: Restore) -> Any:
    """`value` at `path`, restored (anything that does not decode is left for validation)."""
    if path in restore.decode and isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    if path in restore.enums and isinstance(value, str):
        return next((v for v in restore.enums[path] if str(v) == value), value)
    if isinstance(value, dict):
        return {k: _restore(v, (*path, k), restore) for k, v in value.items()}
    if isinstance(value, list):
        return [_restore(v, (*path, "*"), restore) for v in value]
    return value


def gemini_schema(schema: Mapping[str, Any] | None) -> tuple[dict[str, Any], Restore]:
    """A tool's input schema in Gemini's subset (empty without arguments), and the way back."""
    root = object_schema(schema)
    restore = Restore()
    converted = _Gemini(root.get("$defs") or root.get("definitions") or {}, restore).node(
        root, (), ()
    )
    if converted.get("type") != "object" or not converted.get("properties"):
        return {}, restore
    return converted, restore


@dataclass
class _Gemini:
    """One schema's rewrite: its definitions, and what the arguments need on the way back."""

    defs: Mapping[str, Any]
    restore: Restore

    def node(self, schema: Any, path: Path, refs: tuple[str, ...]) -> dict[str, Any]:
        """One (sub)schema at `path` as a Gemini schema; `refs` are the `$ref`s being inlined."""
        if not isinstance(schema, Mapping):
            return {"type": "string"}
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target = self.defs.get(ref.rsplit("/", 1)[-1])
            if target is None or refs.count(ref) >= MAX_REF_DEPTH:
                return self._encoded(schema, path)
            merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
            return self.node(merged, path, (*refs, ref))
        branch, nullable = _one_branch(schema)
        if branch is not schema:
            out = self.node(branch, path, refs)
            if schema.get("description") and "description" not in out:
                out["description"] = schema["description"]
            return {**out, "nullable": True} if nullable else out
        return self._typed(schema, path, refs)

    def _typed(
        self, schema: Mapping[str, Any], path: Path, refs: tuple[str, ...]
    ) -> dict[str, Any]:
        """A schema with one type (or none, or only an enum or const) as a Gemini schema."""
        out: dict[str, Any] = {k: schema[k] for k in GEMINI_KEEP if k in schema}
        values = _enum(schema)
        kind = schema.get("type")
        if values is not None:
            if not all(isinstance(v, str) for v in values):
                self.restore.enums[path] = list(values)
            return {**out, "type": "string", "enum": [str(v) for v in values]}
        if kind == "object" or (kind is None and "properties" in schema):
            return self._object(schema, out, path, refs)
        if kind == "array":
            items = schema.get("items")
            return {**out, "type": "array", "items": self.node(items or {}, (*path, "*"), refs)}
        if kind in GEMINI_TYPES:
            return {**out, "type": kind}
        # Untyped (any JSON value): offered as text, which the live schema accepts.
        return {**out, "type": "string"}

    def _object(
        self, schema: Mapping[str, Any], out: dict[str, Any], path: Path, refs: tuple[str, ...]
    ) -> dict[str, Any]:
        """An object schema: its properties converted, or a JSON string when it has none."""
        properties = schema.get("properties") or {}
        if not properties:
            return self._encoded(schema, path)
        converted = {name: self.node(sub, (*path, name), refs) for name, sub in properties.items()}
        required = [r for r in schema.get("required") or [] if r in converted]
        return {**out, "type": "object", "properties": converted, "required": required}

    def _encoded(self, schema: Mapping[str, Any], path: Path) -> dict[str, Any]:
        """A value Gemini cannot describe, asked for as a JSON-encoded string."""
        self.restore.decode.add(path)
        said = schema.get("description")
        return {"type": "string", "description": f"{said} ({JSON_TEXT})" if said else JSON_TEXT}


def _enum(schema: Mapping[str, Any]) -> Sequence[Any] | None:
    """The values a schema allows when it lists them (`enum`, or `const` as one value)."""
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return [v for v in schema["enum"] if v is not None] or None
    if "const" in schema and schema["const"] is not None:
        return [schema["const"]]
    return None


def _one_branch(schema: Mapping[str, Any]) -> tuple[Mapping[str, Any], bool]:
    """The one branch of a union offered to Gemini, and whether null was allowed.

    `schema` itself when it is not a union. A type list, `anyOf`, `oneOf` or `allOf` gives its
    first non-null branch; the branch inherits the union's description.
    """
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        rest = {k: v for k, v in schema.items() if k != "type"}
        return {**rest, **({"type": kinds[0]} if kinds else {})}, "null" in kind
    for key in ("anyOf", "oneOf", "allOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            real = [b for b in branches if not (isinstance(b, Mapping) and b.get("type") == "null")]
            rest = {k: v for k, v in schema.items() if k != key}
            first = real[0] if real and isinstance(real[0], Mapping) else {}
            return {**rest, **first}, len(real) < len(branches)
    return schema, False


def family_of(model: object) -> Family:
    """How `model`'s provider takes function parameters (by its LangChain integration)."""
    if type(model).__module__.startswith("langchain_google_genai"):
        return "gemini"
    return "json_schema"


def adapt_specs(
    family: Family, specs: Sequence[dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, Restore]]:
    """OpenAI-style function specs with parameters `family` accepts, and each one's way back."""
    adapted: list[dict[str, Any]] = []
    restores: dict[str, Restore] = {}
    for spec in specs:
        function = dict(spec["function"])
        if family == "gemini":
            function["parameters"], restore = gemini_schema(function.get("parameters"))
            if restore.decode or restore.enums:
                restores[function["name"]] = restore
        else:
            function["parameters"] = object_schema(function.get("parameters"))
        adapted.append({**spec, "function": function})
    return adapted, restores


def restored(message: BaseMessage, restores: Mapping[str, Restore]) -> BaseMessage:
    """`message` with each tool call's arguments restored to its tool's shape."""
    if not restores or not isinstance(message, AIMessage) or not message.tool_calls:
        return message
    calls = [
        {**c, "args": restores[c["name"]].args(c["args"])} if c["name"] in restores else c
        for c in message.tool_calls
    ]
    return message.model_copy(update={"tool_calls": calls})
