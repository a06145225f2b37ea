"""What is wrong with a person's answer, in plain words rather than the validator's.

An answer to a question (`{"decisions": [...]}`) is typed by a person at a prompt, in a
`--decisions` option or by a client: the error names the decision by its number and the field
by its name ("decision 1: 'remember' must be true or false"), not pydantic's location
(`decisions.0.approve.remember`) and message ("Input should be a valid boolean").
"""

from __future__ import annotations

from typing import Any

from pydantic_core import ErrorDetails

KINDS = frozenset({"approve", "edit", "reject", "respond"})
"""Decision kinds a validator puts in an error's location (a tagged union's tag): not fields."""

_WORDS = {
    "bool_type": "must be true or false",
    "string_type": "must be a string",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "list_type": "must be a list",
    "missing": "is missing",
    "extra_forbidden": "is not a field of this decision",
    "union_tag_not_found": 'has no "type"',
}
"""Plain words for the validator's error types, by type."""


def where(loc: tuple[int | str, ...]) -> str:
    """The place of an error: "decision 2: 'remember'" for ("decisions", 1, "approve", ...)."""
    parts = [p for p in loc if p not in KINDS]
    if len(parts) >= 2 and parts[0] == "decisions" and isinstance(parts[1], int):
        head, rest = f"decision {parts[1] + 1}", parts[2:]
    else:
        head, rest = "the answer", parts
    field = ".".join(str(p) for p in rest)
    return f"{head}: {field!r}" if field else head


def plain(error: ErrorDetails) -> str:
    """One error of an answer in plain words."""
    kind = error["type"]
    ctx: dict[str, Any] = dict(error.get("ctx") or {})
    if kind == "union_tag_invalid":
        tags = ctx.get("expected_tags")
        return f"{where(error['loc'])}: type {ctx.get('tag')!r} is not one of {tags}"
    return f"{where(error['loc'])} {_WORDS.get(kind, '— ' + error['msg'])}"


def problems(errors: list[ErrorDetails]) -> str:
    """Every error of an answer, in plain words, joined."""
    return "; ".join(plain(e) for e in errors)
