"""Approval requests and answers in the Agent Inbox format (LangChain's Agent Chat UI).

Agent Chat UI renders an interrupt whose value is `[{"action_request": {"action", "args"},
"config": {"allow_accept", "allow_edit", "allow_respond", "allow_ignore"}, "description"}]` as
a card with Accept / Edit / Respond / Ignore, and answers only the first element: so one pending
call is asked per interrupt. Its answers are read strictly here: `accept` approves the call as
proposed, `edit` runs the edited arguments (the text boxes send strings, converted back to the
types the tool's input schema declares; the call is then re-checked like any edit), `response`
and `ignore` reject it (the text is the reason). Anything else is refused with one sentence and
the same call is asked again. Agent Inbox has no "don't ask again" answer: a client that
offers one sends the hitl answer `{"decisions": [{"type": "approve", "remember": true}]}`,
which is read here too. langgraph's own `HumanInterrupt` types describe this shape, but
nothing in LangChain reads the answers, hence this module.
"""

from __future__ import annotations

import json
import math
import re
from functools import partial
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, ValidationError

from common.safety.approval import (
    RESOLVED_REASON,
    ApprovalFormatError,
    ApproveDecision,
    Decision,
    EditDecision,
    EditedAction,
    PendingCall,
    Refused,
    RejectDecision,
    Vet,
    as_answered,
    ask_until_valid,
    check_answer,
    echo,
    expiry_of,
    is_resolved,
    parse_decisions,
    refused_for,
    unusable,
)
from common.safety.quoting import code_span, markdown_text

InterruptFormat = Literal["hitl", "agent_inbox"]
"""How approval questions are asked: HumanInTheLoopMiddleware's format, or Agent Inbox's."""

INTERRUPT_FORMATS: tuple[str, ...] = get_args(InterruptFormat)
"""The allowed interrupt formats, in the order they are documented."""

IGNORED = "ignored in the inbox"
"""The reason a call answered with Ignore was not run."""

INBOX_EXPECTED = (
    'Expected [{"type": "accept"} | {"type": "edit", "args": {"action": ..., "args": {...}}} | '
    '{"type": "response", "args": "<why not>"} | {"type": "ignore"}]'
)
"""What an Agent Inbox answer must look like, as every format error says."""


class InterruptFormatError(ValueError):
    """An interrupt format outside the closed set; the message is one sentence naming it."""


def parse_interrupt_format(value: object, source: str = "interrupt_format") -> InterruptFormat:
    """`value` as an InterruptFormat, or InterruptFormatError: exact values only."""
    if type(value) is str and value in INTERRUPT_FORMATS:
        return value  # type: ignore[return-value]
    raise InterruptFormatError(
        f"{source} {echo(value)} is not an interrupt format: use one of "
        f"{', '.join(INTERRUPT_FORMATS)}."
    )


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["accept", "edit", "response", "ignore"]
    args: Any = None


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: str
    args: dict[str, Any]


def inbox_request(call: PendingCall, error: str | None = None) -> list[dict[str, Any]]:
    """The interrupt value asking about one call, in the Agent Inbox format."""
    description = (
        f"**{markdown_text(call['expert'])}** wants to run {code_span(call['name'])}, which "
        f"cannot be undone: {markdown_text(call['reason'])}.\n\nAccept runs it as shown; Edit "
        "runs it with your changes; Respond declines it and tells the assistant why; Ignore "
        "declines it."
    )
    if "answerers" in call:
        description += f"\n\n{markdown_text(call['answerers'])}"
    if error:
        description = f"**{markdown_text(error)}**\n\n{description}"
    return [
        {
            "action_request": {"action": call["name"], "args": call["args"]},
            "config": {
                "allow_accept": True,
                "allow_edit": True,
                "allow_respond": True,
                "allow_ignore": True,
            },
            "description": description,
        }
    ]


def parse_inbox_answer(
    value: Any, call: PendingCall, schema: dict[str, Any] | None = None
) -> Decision:
    """The decision an answer gives on `call`; ApprovalFormatError saying what is wrong.

    A `{"decisions": [...]}` answer (the other format) with one decision is accepted too.
    """
    if is_resolved(value):
        return RejectDecision(type="reject", message=RESOLVED_REASON)
    if (late := expiry_of(value)) is not None:
        return RejectDecision(type="reject", message=late)
    if (reason := unusable(value)) is not None:
        raise ApprovalFormatError(f"{reason} {INBOX_EXPECTED}.")
    if isinstance(value, dict) and "decisions" in value:
        return check_answer(parse_decisions(value, 1), [call])[0]
    if not (isinstance(value, list) and len(value) == 1):
        raise ApprovalFormatError(f"{INBOX_EXPECTED}, one answer in a list; got {echo(value)}.")
    try:
        answer = _Answer.model_validate(value[0])
    except ValidationError as exc:
        raise ApprovalFormatError(f"{INBOX_EXPECTED}; got {echo(value)}.") from exc
    if answer.type == "accept":
        _check_accept(answer.args, call)
        return ApproveDecision(type="approve")
    if answer.type == "edit":
        return _edit(answer.args, call, schema)
    if answer.type == "response":
        if not (isinstance(answer.args, str) and answer.args.strip()):
            raise ApprovalFormatError(
                "a response needs the text of why not (a non-empty string); "
                f"got {echo(answer.args)}."
            )
        return RejectDecision(type="reject", message=answer.args.strip())
    return RejectDecision(type="reject", message=IGNORED)


def _check_accept(args: Any, call: PendingCall) -> None:
    """An accept runs the call as proposed: it may repeat it, never change it."""
    if args is None:
        return
    proposed = {"action": call["name"], "args": call["args"]}
    if args != proposed:
        raise ApprovalFormatError(
            f"accept must carry the proposed call unchanged (or nothing); got {echo(args)}. "
            "Send an edit to change it."
        )


def _edit(args: Any, call: PendingCall, schema: dict[str, Any] | None) -> EditDecision:
    """An edit of `call`: the same tool, its arguments typed by the tool's input schema."""
    try:
        action = _Action.model_validate(args)
    except ValidationError as exc:
        raise ApprovalFormatError(
            f'an edit needs {{"action": {call["name"]!r}, "args": {{...}}}}; got {echo(args)}.'
        ) from exc
    if action.action != call["name"]:
        raise ApprovalFormatError(
            f"an edit may change the arguments, not the tool: {call['name']!r} was asked "
            f"about, the edit names {echo(action.action)}."
        )
    typed = typed_args(action.args, schema or {}, call["args"])
    return EditDecision(type="edit", edited_action=EditedAction(name=call["name"], args=typed))


_INTEGER = re.compile(r"[+-]?\d+")


def typed_args(
    args: dict[str, Any], schema: dict[str, Any], proposed: dict[str, Any]
) -> dict[str, Any]:
    """`args` with each string converted to the JSON type the schema declares for its key.

    A text box always sends a string. Where the schema declares no type, a string that replaces
    a non-string proposed value is read as JSON. A string that cannot be read as the declared
    type is refused (ApprovalFormatError); other values are kept for the schema check.
    """
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    typed: dict[str, Any] = {}
    for key, value in args.items():
        types = _declared_types((properties or {}).get(key))
        if not types and key in proposed and not isinstance(proposed[key], str):
            types = ["json"]
        typed[key] = _convert(key, value, types) if isinstance(value, str) else value
    return typed


def _declared_types(prop: Any) -> list[str]:
    """The JSON types a property schema allows (`type`, a list of types, or `anyOf`/`oneOf`)."""
    if not isinstance(prop, dict):
        return []
    declared = prop.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    found: list[str] = []
    for key in ("anyOf", "oneOf"):
        for option in prop.get(key) or []:
            found += _declared_types(option)
    return found


def _convert(key: str, text: str, types: list[str]) -> Any:
    """`text` as the first of `types` it reads as; the string itself when a string is allowed."""
    if not types or "string" in types:
        return text
    stripped = text.strip()
    for kind in types:
        if kind == "integer" and _INTEGER.fullmatch(stripped):
            return int(stripped)
        if kind == "number":
            number = _number(stripped)
            if number is not None:
                return number
        if kind == "boolean" and stripped in ("true", "false"):
            return stripped == "true"
        if kind == "null" and stripped == "null":
            return None
        if kind in ("object", "array", "json"):
            parsed = _json(stripped)
            wanted = {"object": dict, "array": list}.get(kind)
            if parsed is not _NOT_JSON and (wanted is None or isinstance(parsed, wanted)):
                return parsed
    raise ApprovalFormatError(
        f"edit: {key} {echo(text)} is not a valid {' or '.join(_NAMES.get(t, t) for t in types)}."
    )


_NAMES = {
    "integer": "whole number",
    "number": "number",
    "boolean": "boolean (true or false)",
    "object": "JSON object",
    "array": "JSON list",
    "json": "JSON value",
}
_NOT_JSON = object()


def _number(text: str) -> int | float | None:
    """`text` as a finite JSON number (whole numbers stay int), or None."""
    number = _json(text)
    if type(number) is int or (type(number) is float and math.isfinite(number)):
        return number
    return None


def _json(text: str) -> Any:
    """`text` parsed as JSON, or `_NOT_JSON`."""
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return _NOT_JSON


def ask_one_by_one(
    pending: list[PendingCall],
    schemas: dict[str, dict[str, Any]] | None = None,
    refused: Refused | None = None,
    vet: Vet | None = None,
) -> dict[str, Decision]:
    """Interrupt once per call (Agent Inbox answers one) until each has a valid decision.

    `schemas` maps a call id to its tool's input schema, for typing edited arguments;
    `refused` is told of each answer that was not used.
    """
    schemas = schemas or {}
    return {
        call["id"]: as_answered(
            ask_until_valid(
                partial(inbox_request, call),
                partial(_answer_on, call=call, schema=schemas.get(call["id"])),
                refused_for(refused, [call["id"]]),
                vet,
            ),
            call,
        )
        for call in pending
    }


def _answer_on(value: Any, call: PendingCall, schema: dict[str, Any] | None) -> Decision:
    """`parse_inbox_answer` with the value first, for `ask_until_valid`."""
    return parse_inbox_answer(value, call, schema)
