"""An MCP server's question to the person (elicitation), as the graph asks it and reads the answer.

A server's question is asked like an expert's `ask_user` question (`common.safety.questions`), so
every client that answers those answers these: the HITL `respond` decision, Agent Inbox's
Respond, the CLI prompt and `resume --answer`. What differs is the answer's shape:
- a form (form mode): the server's JSON Schema is shown; a one-field form takes the bare value
  (typed by the field: `12` for an integer, `yes` for a boolean, `a, b` for a multi-select),
  a larger one a JSON object; the answer is checked against the schema (`jsonschema`), and a
  wrong one is asked again, saying why;
- a URL (URL mode): the address is shown for the person to open themself, and never fetched
  here; any answer but a decline or cancel says they went there (`accept`);
- decline and cancel are answers too: a rejected question (or `/decline`) declines, a question
  closed without an answer (or `/cancel`) cancels.
The answer is kept as JSON text (`ServerAnswer`), by the call key and the server's question key.
"""

from __future__ import annotations

import json
from typing import Any

from common.mcp.asking import AnswerAction, ServerAnswer, ServerQuestion
from common.safety.approval import ApprovalFormatError
from common.safety.quoting import one_line

DECLINE_WORD = "/decline"
"""A typed answer that declines the server's question."""
CANCEL_WORD = "/cancel"
"""A typed answer that cancels it."""
SHOWN_CHARS = 1000
"""Characters of the server's message shown (a server's text is a stranger's)."""


def question_text(q: ServerQuestion) -> str:
    """The question in words: the server's message, then what an answer looks like."""
    message = one_line(q["message"])[:SHOWN_CHARS].strip()
    if message and not message.endswith((".", "?", "!", ":")):
        message += "."
    ways = f"{DECLINE_WORD} to decline, {CANCEL_WORD} to cancel"
    if q["mode"] == "url":
        return (
            f"{message} Open this address yourself (it is not opened for you): {q['url']}. "
            f"Answer 'done' once you have, or {ways}."
        )
    fields = _fields(q)
    if len(fields) == 1:
        ((name, spec),) = fields.items()
        return f"{message} [{_field_line(name, spec, q)}] Answer with the value, or {ways}."
    listed = "; ".join(_field_line(n, s, q) for n, s in fields.items())
    return f"{message} [{listed}] Answer with a JSON object of these fields, or {ways}."


def _fields(q: ServerQuestion) -> dict[str, dict[str, Any]]:
    """The form's fields by name (the schema's top-level properties)."""
    props = (q["schema"] or {}).get("properties") or {}
    return {str(k): v if isinstance(v, dict) else {} for k, v in props.items()}


def _field_line(name: str, spec: dict[str, Any], q: ServerQuestion) -> str:
    """One field: its name, type, whether required, its choices and description."""
    required = name in ((q["schema"] or {}).get("required") or [])
    kind = str(spec.get("type", "string"))
    choices = spec.get("enum") or (spec.get("items") or {}).get("enum")
    parts = [f"{name}: {kind}{', required' if required else ''}"]
    if choices:
        parts.append(f"one of {', '.join(map(str, choices))}")
    if spec.get("description"):
        parts.append(one_line(str(spec["description"]))[:200])
    return " - ".join(parts)


def answer_of(q: ServerQuestion, action: AnswerAction, text: str = "") -> str:
    """The stored answer (JSON text); ApprovalFormatError saying why a form answer is wrong."""
    word = text.strip().lower()
    if action == "accept" and word in (DECLINE_WORD, CANCEL_WORD):
        action = "decline" if word == DECLINE_WORD else "cancel"
    if action != "accept" or q["mode"] == "url":
        return json.dumps(ServerAnswer(action=action, content=None))
    content = _content(q, text)
    # Imported here: the live graph does not load jsonschema until a form is answered.
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(q["schema"] or {}).iter_errors(content), key=str)
    if errors:
        where = ".".join(map(str, errors[0].absolute_path)) or "the answer"
        raise ApprovalFormatError(
            f"{where}: {errors[0].message}; answer again ({question_text(q)})"
        )
    return json.dumps(ServerAnswer(action="accept", content=content))


def _content(q: ServerQuestion, text: str) -> dict[str, Any]:
    """The form's values from the typed answer (a bare value for a one-field form)."""
    fields = _fields(q)
    stripped = text.strip()
    if len(fields) == 1:
        ((name, spec),) = fields.items()
        return {name: _typed(stripped, spec)}
    try:
        value = json.loads(stripped)
    except json.JSONDecodeError as exc:
        raise ApprovalFormatError(
            f"expected a JSON object of the form's fields ({exc.msg}); answer again"
        ) from exc
    if not isinstance(value, dict):
        raise ApprovalFormatError("expected a JSON object of the form's fields; answer again")
    return value


def _typed(text: str, spec: dict[str, Any]) -> Any:
    """A bare value as the field's type (left as text when it does not read as one)."""
    kind = spec.get("type")
    try:
        if kind == "integer":
            return int(text)
        if kind == "number":
            return float(text)
    except ValueError:
        return text
    if kind == "boolean":
        return {"yes": True, "true": True, "no": False, "false": False}.get(text.lower(), text)
    if kind == "array":
        return [part.strip() for part in text.split(",") if part.strip()]
    return text


def read_answer(stored: str) -> ServerAnswer:
    """A stored answer back as a value (a broken one cancels: never an accept by mistake)."""
    try:
        value = json.loads(stored)
    except json.JSONDecodeError:
        return ServerAnswer(action="cancel", content=None)
    if not isinstance(value, dict) or value.get("action") not in ("accept", "decline", "cancel"):
        return ServerAnswer(action="cancel", content=None)
    content = value.get("content")
    return ServerAnswer(
        action=value["action"], content=content if isinstance(content, dict) else None
    )
