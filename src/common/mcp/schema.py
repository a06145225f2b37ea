"""Tool arguments against a tool's input schema: shared by plan validation and the call itself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.types import Tool


def is_template(value: object) -> bool:
    """Whether `value` is a whole `${...}` template, filled in only when the step runs."""
    return isinstance(value, str) and value.strip().startswith("${") and value.strip().endswith("}")


def check_args(tool: Tool, args: Mapping[str, Any]) -> list[str]:
    """Problems of `args` against the tool's live input schema (templated values skip types)."""
    # Imported here: plans import this module while the graph is only being built.
    from jsonschema import Draft202012Validator

    schema = dict(tool.input_schema or {})
    required = [k for k in schema.get("required", []) if k not in args]
    problems = [f"missing required argument {k!r}" for k in required]
    concrete = {k: v for k, v in args.items() if not is_template(v)}
    schema.pop("required", None)
    for error in Draft202012Validator(schema).iter_errors(concrete):
        where = ".".join(str(p) for p in error.absolute_path) or "arguments"
        problems.append(f"{where}: {error.message}")
    return problems
