"""A tool's definition as a question showed it, and what changed in it since.

An approval (one-off or remembered) is given for a tool as the person saw it: its name,
description, input schema and annotations. A question keeps that definition (`seen_of`) with
the call; just before the call runs it is compared with the server's current one, digest
against digest (`tool_digest`, which remembered approvals keep too), and a changed definition
is asked about again, saying what changed (`what_changed`): the old and new description, the input
properties added, removed or changed, the annotations that differ. Every value a server wrote
is quoted as escaped JSON on one line, so a description cannot end the quoting and write
lines of the question.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from common.safety.approval import DefinitionSeen
from common.safety.quoting import one_line

if TYPE_CHECKING:
    from mcp.types import Tool

DESCRIPTION_CHARS = 300
"""How much of a description a question keeps to say how it changed."""
SHOWN_CHARS = 160
"""How much of an old or new description the reason quotes."""
PART_NAMES = {"description": "description", "schema": "input schema", "annotations": "annotations"}
"""The parts of a definition that may change, as the reason names them."""


def tool_parts(tool: Tool) -> dict[str, str]:
    """A digest of each part of a tool's definition (name included), from canonical JSON."""
    hints = tool.annotations
    # The wire's names (readOnlyHint): the mcp 2.x SDK names its fields in snake case, and a
    # digest must not change with the SDK, or every remembered approval would be voided.
    annotations = (
        hints.model_dump(mode="json", exclude_none=True, by_alias=True) if hints is not None else {}
    )
    return {
        "name": sha256(canonical(tool.name)),
        "description": sha256(canonical(tool.description or "")),
        "schema": sha256(canonical(tool.input_schema or {})),
        "annotations": sha256(canonical(annotations)),
    }


def tool_digest(tool: Tool) -> str:
    """The digest of a tool's definition: name, description, input schema and annotations."""
    return sha256(canonical(tool_parts(tool)))


def seen_of(tool: Tool) -> DefinitionSeen:
    """The definition of `tool` as a question shows it: digests, and enough to describe changes."""
    schema = tool.input_schema or {}
    props = schema.get("properties")
    properties = props if isinstance(props, dict) else {}
    hints = tool.annotations
    return DefinitionSeen(
        digest=tool_digest(tool),
        parts=tool_parts(tool),
        description=(tool.description or "")[:DESCRIPTION_CHARS],
        properties={str(k): _short_digest(v) for k, v in properties.items()},
        annotations=hints.model_dump(mode="json", exclude_none=True, by_alias=True)
        if hints
        else {},
    )


def unchanged(seen: DefinitionSeen, tool: Tool) -> bool:
    """Whether `tool` is still the definition the question showed."""
    return seen.get("digest") == tool_digest(tool)


def what_changed(before: Mapping[str, Any], tool: Tool) -> str:
    """What differs between the definition shown and `tool`, in one line, values quoted."""
    now = seen_of(tool)
    kept = before.get("parts") or {}
    parts = [p for p in PART_NAMES if kept.get(p) != now["parts"][p]]
    if not parts:
        return "its definition changed"
    return "; ".join(_part_change(p, before, now) for p in parts)


def _part_change(part: str, before: Mapping[str, Any], now: DefinitionSeen) -> str:
    """One changed part, said as precisely as what the question kept allows."""
    if part == "description":
        return (
            f"description was {_quoted(before.get('description', ''))}, "
            f"now {_quoted(now['description'])}"
        )
    if part == "schema":
        return "input schema " + _property_changes(before.get("properties"), now["properties"])
    old, new = before.get("annotations"), now["annotations"]
    if old is None:
        return "annotations changed"
    hints = sorted(k for k in {*old, *new} if old.get(k) != new.get(k))
    said = ", ".join(f"{k} {_value(old.get(k))} -> {_value(new.get(k))}" for k in hints)
    return f"annotations {said}" if said else "annotations changed"


def _property_changes(old: dict[str, str] | None, new: dict[str, str]) -> str:
    if old is None:
        return "changed"
    added = sorted(set(new) - set(old))
    removed = sorted(set(old) - set(new))
    changed = sorted(k for k in set(old) & set(new) if old[k] != new[k])
    said = [
        f"{verb} {', '.join(_quoted(n) for n in names)}"
        for verb, names in (("added", added), ("removed", removed), ("changed", changed))
        if names
    ]
    return "; ".join(said) if said else "changed (same arguments)"


def _value(value: Any) -> str:
    return "absent" if value is None else one_line(json.dumps(value, ensure_ascii=False))


def _quoted(text: str) -> str:
    """`text` as escaped JSON on one line: no quote or line break in it ends the quoting."""
    cut = text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"
    return one_line(json.dumps(cut, ensure_ascii=False))


def _short_digest(value: Any) -> str:
    return sha256(canonical(value))[:16]


def canonical(value: Any) -> str:
    """JSON with sorted keys and no spaces: the same definition always gives the same text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256(text: str) -> str:
    """The hex SHA-256 of `text` (UTF-8)."""
    return hashlib.sha256(text.encode()).hexdigest()
