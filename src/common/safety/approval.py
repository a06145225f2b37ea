"""Approval requests and decisions in LangChain's HumanInTheLoopMiddleware format."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Annotated, Any, Literal, NotRequired, TypedDict, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictBool, TypeAdapter, ValidationError

from common.safety.answer_words import problems
from common.safety.quoting import one_line
from common.served.approvers import Author, unstamped

DecisionType = Literal["approve", "edit", "reject"]
"""What a reviewer may answer for one action."""


class DefinitionSeen(TypedDict):
    """A tool's definition as a question showed it, to check and compare just before the call."""

    digest: str
    """Digest of the whole definition (`common.safety.definitions.tool_digest`)."""
    parts: dict[str, str]
    """Digest of each part (name, description, schema, annotations)."""
    description: str
    """The start of the description, to say how it changed."""
    properties: dict[str, str]
    """Each input property's name and a short digest of its schema."""
    annotations: dict[str, Any]
    """The tool's annotations (hints) as the server gave them."""


class RememberOffer(TypedDict):
    """What approving a call with `remember` would keep (see `common.safety.trust`)."""

    server: str
    """Digest of the server's identity (command, args and cwd, or URL)."""
    identity: str
    """The server's identity as shown to people (no query, password or known secret)."""
    digest: str
    """Digest of the tool's definition (name, description, input schema, annotations)."""
    parts: dict[str, str]
    """Digest of each part of the definition, to say which one changed later."""
    summary: str
    """The start of the tool's description, to show what was trusted."""
    definition: NotRequired[DefinitionSeen]
    """The definition trusted, to say later what changed (absent in entries kept before)."""


class PendingCall(TypedDict):
    """A tool call waiting for a human, with what the reviewer needs to judge it."""

    id: str
    """The tool call id from the model's message."""
    expert: str
    """Expert (MCP server) that would run it."""
    name: str
    """Tool name."""
    args: dict[str, Any]
    """Arguments, exactly as they would be sent."""
    reason: str
    """Why the call is considered irreversible."""
    remember: NotRequired[RememberOffer]
    """Present when the reviewer may approve it and not be asked again for this tool."""
    held: NotRequired[str]
    """Present on a reviewer's edit asked about again: its own hold, which approving accepts."""
    definition: NotRequired[DefinitionSeen]
    """The tool's definition when the question was asked: an answer holds for this one only."""
    answerers: NotRequired[str]
    """Present when the question says who may answer it and until when."""


class EditedAction(BaseModel):
    """The call a reviewer wants run instead."""

    model_config = ConfigDict(extra="forbid")
    name: str
    """Tool name."""
    args: dict[str, Any]
    """Arguments."""


class ApproveDecision(BaseModel):
    """Run the call as proposed."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["approve"]
    """Decision kind."""
    remember: StrictBool = False
    """Also do not ask again for this tool on this server while its definition is unchanged.

    Only where the request offers it (its review config has `"remember": true`); only on an
    approve: an edit is the reviewer's own one-off call, a reject remembers nothing.
    """


class EditDecision(BaseModel):
    """Run an edited call instead."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["edit"]
    """Decision kind."""
    edited_action: EditedAction
    """The call to run."""


class ReviewedEdit(EditDecision):
    """An edit approved after it was asked about again for a hold of its own (never parsed)."""

    held: str
    """The hold the reviewer was shown for these exact arguments: not asked about again."""


class RejectDecision(BaseModel):
    """Do not run the call."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["reject"]
    """Decision kind."""
    message: str = ""
    """Why, passed on to the model."""


Decision = ApproveDecision | EditDecision | RejectDecision
"""One reviewer decision."""


class EditedActionRecord(TypedDict):
    """An edited call as plain data."""

    name: str
    """Tool name."""
    args: dict[str, Any]
    """Arguments."""


class ApproveRecord(TypedDict):
    """An approve decision as plain data."""

    type: Literal["approve"]
    """Decision kind."""
    remember: NotRequired[bool]
    """Present (true) when the reviewer chose not to be asked again for this tool."""
    definition: NotRequired[DefinitionSeen]
    """The tool's definition the reviewer saw; the call runs only while it is unchanged."""


class EditRecord(TypedDict):
    """An edit decision as plain data."""

    type: Literal["edit"]
    """Decision kind."""
    edited_action: EditedActionRecord
    """The call to run."""
    held: NotRequired[str]
    """Present when the reviewer approved the edit after being shown this hold of its own."""
    definition: NotRequired[DefinitionSeen]
    """The tool's definition the reviewer saw; the edit runs only while it is unchanged."""


class RejectRecord(TypedDict):
    """A reject decision as plain data."""

    type: Literal["reject"]
    """Decision kind."""
    message: str
    """Why, passed on to the model."""


DecisionRecord = ApproveRecord | EditRecord | RejectRecord
"""A decision as it is kept in graph state (JSON data, e.g. `{"type": "approve"}`)."""


def record_of(decision: Decision, seen: DefinitionSeen | None = None) -> DecisionRecord:
    """A decision as plain data, to keep in graph state until the call runs.

    `seen` is the tool's definition the question showed: an approve or an edit keeps it, so
    the call runs only if the definition is still that one (a reject needs no such check).
    """
    if isinstance(decision, RejectDecision):
        return RejectRecord(type="reject", message=decision.message)
    record: DecisionRecord
    if isinstance(decision, EditDecision):
        action = decision.edited_action
        record = EditRecord(
            type="edit", edited_action=EditedActionRecord(name=action.name, args=action.args)
        )
        if isinstance(decision, ReviewedEdit):
            record["held"] = decision.held
    else:
        record = ApproveRecord(type="approve")
        if decision.remember:
            record["remember"] = True
    if seen is not None:
        record["definition"] = seen
    return record


def decision_of(record: DecisionRecord) -> Decision:
    """The decision a record keeps (the inverse of `record_of`)."""
    if record["type"] == "edit":
        action = record["edited_action"]
        edited = EditedAction(name=action["name"], args=action["args"])
        if "held" in record:
            return ReviewedEdit(type="edit", edited_action=edited, held=record["held"])
        return EditDecision(type="edit", edited_action=edited)
    if record["type"] == "reject":
        return RejectDecision(type="reject", message=record["message"])
    return ApproveDecision(type="approve", remember=record.get("remember") is True)


class _Resume(BaseModel):
    model_config = ConfigDict(extra="forbid")
    decisions: list[Annotated[Decision, Field(discriminator="type")]]


_RESUME = TypeAdapter(_Resume)
_V = TypeVar("_V")


class ApprovalFormatError(ValueError):
    """A resume value that is not `{"decisions": [...]}` with one valid decision per request."""


REFUSED_ANSWER = "Your last answer was not used, nothing ran: "
"""How the error of a question asked again begins, whatever was wrong with the answer."""

NOT_USED = "answer_not_used"
"""Key of the stand-in value a resume is replaced by when it cannot reach a node as it is."""

ECHO_CHARS = 200
"""How much of a bad answer an error repeats: enough to recognise it, never the whole value."""

MAX_ANSWER_CHARS = 50_000
"""Longest answer (as JSON text) a node uses; a longer one is refused, not kept in the thread."""


RESOLVED = "resolved_without_answer"
"""Key of the stand-in a "mark as resolved" (jump to the end) is replaced by while asking."""

RESOLVED_REASON = "the request was marked as resolved without a decision, so it was not run"
"""Why a call whose question was closed without an answer did not run."""


def resolved_without_answer() -> dict[str, bool]:
    """The stand-in resume value of a question closed without an answer (a decline)."""
    return {RESOLVED: True}


def is_resolved(value: Any) -> bool:
    """Whether `value` is the stand-in of a question closed without an answer."""
    return isinstance(value, dict) and value == {RESOLVED: True}


EXPIRED = "question_expired"
"""Key of the stand-in a late answer is replaced by: every call of the question is declined."""


def expired_answer(reason: str) -> dict[str, str]:
    """The stand-in of an answer that came after its question expired (a decline, saying why)."""
    return {EXPIRED: reason}


def expiry_of(value: Any) -> str | None:
    """Why a call was not run, when `value` is the stand-in of a late answer; else None."""
    if isinstance(value, dict) and set(value) == {EXPIRED}:
        reason = value[EXPIRED]
        return reason if isinstance(reason, str) else None
    return None


def not_used(reason: str) -> dict[str, str]:
    """The stand-in resume value for an answer the graph refuses before any node sees it."""
    return {NOT_USED: reason}


def echo(value: Any) -> str:
    """`value` as the error repeats it: its repr, cut to `ECHO_CHARS` with the length named."""
    text = repr(value)
    if len(text) <= ECHO_CHARS:
        return text
    return f"{text[:ECHO_CHARS]}… ({len(text)} characters)"


def unusable(value: Any) -> str | None:
    """Why a resume value cannot be used whatever the question, or None if it may be read."""
    if value is None:
        return "the answer was empty (None)."
    if isinstance(value, dict) and set(value) == {NOT_USED}:
        return str(value[NOT_USED])
    size = answer_chars(value)
    if size > MAX_ANSWER_CHARS:
        return (
            f"the answer is {size} characters long; at most {MAX_ANSWER_CHARS} are accepted. "
            f"It began {echo(value)}."
        )
    return None


def answer_chars(value: Any) -> int:
    """The size of an answer as JSON text (its repr when it is not JSON)."""
    try:
        return len(json.dumps(value, default=repr))
    except (TypeError, ValueError):
        return len(repr(value))


EXPECTED = (
    'Expected {"decisions": [{"type": "approve"} | {"type": "approve", "remember": true} | '
    '{"type": "edit", "edited_action": '
    '{"name": ..., "args": {...}}} | {"type": "reject", "message": ...}]}'
)
"""What an approval answer must look like, as every format error says."""


REMEMBER_HINT = (
    " You may approve it with remember, and not be asked again for this tool on this server "
    "while its definition stays the same."
)
"""Added to the description of a call whose approval may be remembered."""


def build_approval_request(calls: list[PendingCall], error: str | None = None) -> dict[str, Any]:
    """The interrupt value asking a human about `calls` (HumanInTheLoopMiddleware's format)."""
    request: dict[str, Any] = {
        "action_requests": [
            {
                "name": c["name"],
                "args": c["args"],
                "description": (
                    f"Expert {c['expert']!r} wants to run {c['name']!r}, which is considered "
                    f"irreversible: {one_line(c['reason'])}."
                    + (REMEMBER_HINT if "remember" in c else "")
                    + (f" {one_line(c['answerers'])}" if "answerers" in c else "")
                ),
            }
            for c in calls
        ],
        "review_configs": [review_config(c) for c in calls],
    }
    if error:
        request["error"] = error
    return request


def review_config(call: PendingCall) -> dict[str, Any]:
    """What a reviewer may answer on `call`; `"remember": true` offers "don't ask again"."""
    config: dict[str, Any] = {
        "action_name": call["name"],
        "allowed_decisions": ["approve", "edit", "reject"],
    }
    if "remember" in call:
        config["remember"] = True
    return config


def check_remember(decisions: list[Decision], calls: list[PendingCall]) -> list[Decision]:
    """`decisions`, or ApprovalFormatError when one remembers a call that does not offer it."""
    for number, (decision, call) in enumerate(zip(decisions, calls, strict=True), start=1):
        if isinstance(decision, ApproveDecision) and decision.remember and "remember" not in call:
            raise ApprovalFormatError(
                f"decision {number} ({call['name']!r}) asks to remember an approval the request "
                'does not offer (no "remember": true in its review config): a hold by the '
                "call's arguments or by data leaving is decided per call; approve it without "
                "remember."
            )
    return decisions


def check_edits(decisions: list[Decision], calls: list[PendingCall]) -> list[Decision]:
    """`decisions`, or ApprovalFormatError when an edit names another tool than its call's.

    An edit changes the arguments of the call the reviewer was shown, never the call itself:
    `{"name": "delete_note"}` in the edit of a `write_note` question would run a call nobody was
    asked about. (The server is not part of an edit: `edited_action` has no such field.)
    """
    for number, (decision, call) in enumerate(zip(decisions, calls, strict=True), start=1):
        if isinstance(decision, EditDecision) and decision.edited_action.name != call["name"]:
            raise ApprovalFormatError(
                f"decision {number} edits {call['name']!r} into "
                f"{echo(decision.edited_action.name)}: an edit may change the arguments, not the "
                "tool; reject this call and ask for the other one instead."
            )
    return decisions


def check_answer(decisions: list[Decision], calls: list[PendingCall]) -> list[Decision]:
    """`decisions` checked against the calls they answer: remember where offered, edits in kind."""
    return check_edits(check_remember(decisions, calls), calls)


def as_answered(decision: Decision, call: PendingCall) -> Decision:
    """The decision as it runs: approving an edit asked about again runs that edit as shown."""
    if "held" in call and isinstance(decision, ApproveDecision):
        edited = EditedAction(name=call["name"], args=call["args"])
        return ReviewedEdit(type="edit", edited_action=edited, held=call["held"])
    return decision


def parse_decisions(value: Any, expected: int) -> list[Decision]:
    """Validate a resume value; the error says exactly what is wrong and what is expected."""
    if is_resolved(value):
        return [RejectDecision(type="reject", message=RESOLVED_REASON) for _ in range(expected)]
    if (late := expiry_of(value)) is not None:
        return [RejectDecision(type="reject", message=late) for _ in range(expected)]
    if (reason := unusable(value)) is not None:
        raise ApprovalFormatError(f"{reason} {EXPECTED}.")
    parsed: _Resume = validated(_RESUME, value, EXPECTED)
    check_count(len(parsed.decisions), expected, "action request")
    return parsed.decisions


def validated(adapter: TypeAdapter[_V], value: Any, expected: str) -> _V:
    """`value` read by `adapter`, or ApprovalFormatError saying what is wrong and what fits."""
    try:
        return adapter.validate_python(value)
    except ValidationError as exc:
        said = problems(exc.errors(include_url=False))
        raise ApprovalFormatError(f"{expected}; got {echo(value)} ({said[:ECHO_CHARS]})") from exc


def check_count(found: int, expected: int, per: str) -> None:
    """ApprovalFormatError unless an answer has one decision per `per`, in order."""
    if found != expected:
        raise ApprovalFormatError(
            f"Expected {expected} decision(s), one per {per} in order; got {found}."
        )


_T = TypeVar("_T")

Refused = Callable[[list[str], str, Any], None]
"""Told of each refused answer: the ids it was for, why it was refused, and the answer."""


Vet = Callable[[Any, Author | None], Any]
"""Reads an answer with its author: the answer to parse (or a stand-in), or ApprovalFormatError."""


def ask_until_valid(
    request: Callable[[str | None], Any],
    parse: Callable[[Any], _T],
    refused: Callable[[str, Any], None] | None = None,
    vet: Vet | None = None,
) -> _T:
    """Interrupt with `request(error)` until `parse` accepts the answer; its result.

    A malformed answer (ApprovalFormatError) is not used: the same question is asked again,
    saying what was wrong; `refused` (the audit trail) is told why, with the answer. `vet`
    sees each answer with its author first (`common.served.approvers`): a wrong person's answer
    is refused the same way.
    """
    # Imported here: the CLI reads answers with this module, and its --help must not load LangGraph.
    from langgraph.types import interrupt

    error: str | None = None
    while True:
        raw = interrupt(request(error))
        value, author = unstamped(raw)
        try:
            return parse(vet(value, author) if vet is not None else value)
        except ApprovalFormatError as exc:
            error = f"{REFUSED_ANSWER}{exc}"
            if refused is not None:
                # With its author stamp, if any: the audit trail records who was refused.
                refused(str(exc), raw)


def refused_for(refused: Refused | None, ids: list[str]) -> Callable[[str, Any], None] | None:
    """`refused` told the ids a question was asked for (None stays None)."""
    if refused is None:
        return None
    return lambda why, value: refused(ids, why, value)


def ask_for_approval(
    pending: list[PendingCall], refused: Refused | None = None, vet: Vet | None = None
) -> dict[str, Decision]:
    """Interrupt until the human sends one valid decision per pending call, by call id.

    A malformed answer is not used: the same request is asked again, saying what was wrong.
    """
    decisions = ask_until_valid(
        lambda error: build_approval_request(pending, error),
        lambda value: check_answer(parse_decisions(value, len(pending)), pending),
        refused_for(refused, [p["id"] for p in pending]),
        vet,
    )
    return {p["id"]: as_answered(d, p) for p, d in zip(pending, decisions, strict=True)}


_APPROVAL = re.compile(
    r"^\s*(?:yes|y|ok|okay|sure|go ahead|go for it|approved?|proceed|do it|confirm(?:ed)?|"
    r"run (?:it|them|those)|execute (?:it|them|those))\b[\s,.!]*(?:please|now|thanks?)?[\s.!]*$",
    re.IGNORECASE,
)


def approval_from_message(text: str, expected: int) -> list[Decision] | None:
    """Decisions a chat message gives on `expected` held-back calls, or None if it gives none.

    "go ahead"-style messages approve every call; a JSON `{"decisions": [...]}` message decides
    call by call (and raises ApprovalFormatError when malformed). Anything else is not an answer.
    """
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            value = json.loads(stripped)
        except json.JSONDecodeError:
            return None
        if isinstance(value, dict) and "decisions" in value:
            return _once(parse_decisions(value, expected))
        return None
    if _APPROVAL.match(stripped):
        return [ApproveDecision(type="approve") for _ in range(expected)]
    return None


def _once(decisions: list[Decision]) -> list[Decision]:
    """Decisions given in a message; `remember` is answered at an approval question only."""
    if any(isinstance(d, ApproveDecision) and d.remember for d in decisions):
        raise ApprovalFormatError(
            "remember is offered at an approval question (interrupt mode), not in a message: "
            "a message approves these held calls once; send it without remember."
        )
    return decisions
