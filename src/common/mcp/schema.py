"""Tool arguments against a tool's input schema: shared by plan validation and the call itself."""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.types import Tool

logger = logging.getLogger(__name__)
_preloads: list[threading.Thread] = []


def preload_validator() -> None:
    """Begin importing the JSON Schema validator in a worker thread, once per process.

    A plan's direct steps are checked with it (`check_args`) as soon as the planner model
    answers. Imported then, its import (jsonschema and its format checkers: 0.1-0.2 s on a
    first run) holds up the first tool call; begun while the model is asked, it overlaps the
    wait. Nothing else changes: `check_args` imports it as before (waiting for this import if
    it is still under way, or failing as before if it cannot be imported).
    """
    if _preloads or "jsonschema" in sys.modules:
        return
    thread = threading.Thread(target=_import_validator, name="preload-jsonschema", daemon=True)
    _preloads.append(thread)
    thread.start()


def _import_validator() -> None:
    try:
        import jsonschema  # noqa: F401
    except Exception:  # reported by `check_args`, which imports it again when it is needed
        logger.debug("jsonschema could not be preloaded", exc_info=True)


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
