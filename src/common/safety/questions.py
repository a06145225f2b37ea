"""Questions to the user (`ask_user`) in LangChain's HITL format and in Agent Inbox's.

hitl: one interrupt for all the questions of a stop, as HumanInTheLoopMiddleware asks an
ask-user style tool: `{"action_requests": [{"name": "ask_user", "args": {"question"},
"description"}], "review_configs": [{"action_name": "ask_user", "allowed_decisions": ["respond",
"reject"]}]}`, answered `{"decisions": [{"type": "respond", "message": "<answer>"} | {"type":
"reject", "message": "<why not>"}]}`, one per question in order (reject declines to answer).
agent_inbox: one question per interrupt, `[{"action_request": {"action": "ask_user", "args":
{"question"}}, "config": {"allow_respond": true, the others false}, "description"}]`, answered
`[{"type": "response", "args": "<answer>"}]` as Agent Inbox sends it (or the hitl answer).
A plain non-empty string is still read as the answer to a single question (older clients).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Annotated, Any, Literal, NotRequired, TypedDict

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from common.safety.approval import (
    ApprovalFormatError,
    Refused,
    Vet,
    ask_until_valid,
    check_count,
    echo,
    is_resolved,
    refused_for,
    unusable,
    validated,
)
from common.safety.quoting import markdown_text, one_line

if TYPE_CHECKING:
    from common.mcp.asking import ServerQuestion

ASK_USER = "ask_user"
"""The control tool an expert's orchestrator calls to ask the user a question."""

QUESTION_DECISIONS: tuple[str, ...] = ("respond", "reject")
"""What may be answered to a question in the hitl format: an answer, or declining to give one."""

CLOSED_QUESTION = "(The user closed the question without answering it.)"
"""The answer passed on when a question was marked as resolved instead of answered."""

DECLINED = "(The user declined to answer{reason}.)"
"""The answer passed on when the user rejected the question; `reason` is theirs, if given."""

QUESTION_EXPECTED = (
    'Expected {"decisions": [{"type": "respond", "message": "<your answer>"} | '
    '{"type": "reject", "message": "<why not>"}]}, one per question in order'
)
"""What a hitl answer to questions must look like, as every format error says."""

INBOX_QUESTION_EXPECTED = 'Expected [{"type": "response", "args": "<your answer>"}]'
"""What an Agent Inbox answer to a question must look like."""


class PendingQuestion(TypedDict):
    """A question an expert's task asks the user, as the graph asks it."""

    id: str
    """The id it is asked under (its task and call key)."""
    expert: str
    """The expert whose task asks."""
    task_id: str
    """The task that waits for the answer."""
    question: str
    """The question, as the orchestrator wrote it (a server's, as `server_questions` words it)."""
    form: NotRequired[ServerQuestion]
    """An MCP server's question (elicitation): its answer is read against it."""


def describe(q: PendingQuestion, markdown: bool = False) -> str:
    """The question with who asks it, on one line, for the request's description.

    The question is the model's text (a tool result may have steered it): quoted so that it
    cannot start lines of its own, as approval questions quote arguments.
    """
    quote = markdown_text if markdown else one_line
    return f"Expert {q['expert']!r} asks (task {q['task_id']}): {quote(q['question'])}"


def hitl_question_request(
    questions: list[PendingQuestion], error: str | None = None
) -> dict[str, Any]:
    """The interrupt value asking `questions` (HumanInTheLoopMiddleware's format)."""
    request: dict[str, Any] = {
        "action_requests": [
            {"name": ASK_USER, "args": _args(q), "description": describe(q)} for q in questions
        ],
        "review_configs": [
            {"action_name": ASK_USER, "allowed_decisions": list(QUESTION_DECISIONS)}
            for _ in questions
        ],
    }
    if error:
        request["error"] = error
    return request


def inbox_question_request(q: PendingQuestion, error: str | None = None) -> list[dict[str, Any]]:
    """The interrupt value asking one question, in the Agent Inbox format (Respond only)."""
    description = f"{describe(q, markdown=True)}\n\nAnswer with Respond."
    if error:
        description = f"**{error}**\n\n{description}"
    return [
        {
            "action_request": {"action": ASK_USER, "args": _args(q)},
            "config": {
                "allow_accept": False,
                "allow_edit": False,
                "allow_respond": True,
                "allow_ignore": False,
            },
            "description": description,
        }
    ]


def _args(q: PendingQuestion) -> dict[str, Any]:
    """The question's arguments as clients see them: a server's form schema or URL too."""
    form = q.get("form")
    if form is None:
        return {"question": q["question"]}
    extra = {"requested_schema": form["schema"]} if form["mode"] == "form" else {"url": form["url"]}
    return {"question": q["question"], **extra}


def is_question_request(value: Any) -> bool:
    """Whether an interrupt value asks questions (either format), not for approval."""
    if isinstance(value, dict) and isinstance(value.get("action_requests"), list):
        requests = value["action_requests"]
        return bool(requests) and all(
            isinstance(r, dict) and r.get("name") == ASK_USER for r in requests
        )
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict):
        request = value[0].get("action_request")
        return isinstance(request, dict) and request.get("action") == ASK_USER
    return False


def questions_in(value: Any) -> list[str]:
    """The questions an interrupt value asks (either format; empty when it asks none)."""
    if not is_question_request(value):
        return []
    if isinstance(value, dict):
        return [str(r.get("args", {}).get("question", "")) for r in value["action_requests"]]
    return [str(value[0]["action_request"].get("args", {}).get("question", ""))]


class _Respond(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["respond"]
    message: str


class _Decline(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["reject"]
    message: str = ""


class _Answers(BaseModel):
    model_config = ConfigDict(extra="forbid")
    decisions: list[Annotated[_Respond | _Decline, Field(discriminator="type")]]


_ANSWERS = TypeAdapter(_Answers)


class _InboxResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["response"]
    args: Any = None


def parse_answers(value: Any, expected: int) -> list[str]:
    """The text of each answer a hitl resume value gives; ApprovalFormatError saying why not."""
    if is_resolved(value):
        return [CLOSED_QUESTION] * expected
    if (reason := unusable(value)) is not None:
        raise ApprovalFormatError(f"{reason} {QUESTION_EXPECTED}.")
    if isinstance(value, str):
        if expected != 1:
            raise ApprovalFormatError(
                f"one text answers one question; {expected} are asked. {QUESTION_EXPECTED}."
            )
        return [_text(value, "the answer")]
    parsed = validated(_ANSWERS, value, QUESTION_EXPECTED)
    check_count(len(parsed.decisions), expected, "question")
    return [_answer_text(d) for d in parsed.decisions]


def _answer_text(decision: _Respond | _Decline) -> str:
    """What the expert is told for one decision."""
    if isinstance(decision, _Respond):
        return _text(decision.message, "a respond decision's message")
    reason = decision.message.strip()
    return DECLINED.format(reason=f": {reason}" if reason else "")


def _text(value: str, what: str) -> str:
    """`value` stripped; ApprovalFormatError when nothing is left."""
    if not value.strip():
        raise ApprovalFormatError(
            f"{what} is empty: write the answer, or reject the question to decline it."
        )
    return value.strip()


def parse_inbox_answer(value: Any) -> str:
    """The answer an Agent Inbox resume value gives to one question (a hitl one is read too)."""
    if is_resolved(value) or isinstance(value, str) or unusable(value) is not None:
        return parse_answers(value, 1)[0]
    if isinstance(value, dict) and "decisions" in value:
        return parse_answers(value, 1)[0]
    item = value[0] if isinstance(value, list) and len(value) == 1 else value
    try:
        answer = _InboxResponse.model_validate(item)
    except ValidationError as exc:
        raise ApprovalFormatError(
            f"{INBOX_QUESTION_EXPECTED} (a question is answered with Respond); got {echo(value)}."
        ) from exc
    if not isinstance(answer.args, str):
        raise ApprovalFormatError(
            f"a response needs the answer as text; got {echo(answer.args)}. "
            f"{INBOX_QUESTION_EXPECTED}."
        )
    return _text(answer.args, "the response")


def _inbox_answer(value: Any) -> str:
    """`parse_inbox_answer`, for `ask_until_valid`."""
    return parse_inbox_answer(value)


def ask_questions(
    questions: list[PendingQuestion],
    interrupt_format: str,
    refused: Refused | None = None,
    vet: Vet | None = None,
) -> dict[str, str]:
    """Interrupt until every question has a usable answer; the answers' text, by question id.

    A refused answer is not used: the same question is asked again, saying why (and
    `refused` is told); `vet` refuses an answer by someone who may not give it. A server's
    question gets its answer as `server_questions` stores it (checked against its form).
    """
    if not questions:
        return {}
    if interrupt_format == "agent_inbox":
        return {
            q["id"]: ask_until_valid(
                partial(inbox_question_request, q),
                partial(_inbox_answer_for, q=q),
                refused_for(refused, [q["id"]]),
                vet,
            )
            for q in questions
        }
    texts = ask_until_valid(
        partial(hitl_question_request, questions),
        partial(_answers_for, questions=questions),
        refused_for(refused, [q["id"] for q in questions]),
        vet,
    )
    return {q["id"]: text for q, text in zip(questions, texts, strict=True)}


def _answers_for(value: Any, questions: list[PendingQuestion]) -> list[str]:
    """Each question's answer from a hitl resume value, a server's read against its form."""
    if any("form" in q for q in questions) and is_resolved(value):
        return [_closed(q) for q in questions]
    texts = parse_answers(value, len(questions))
    if not any("form" in q for q in questions) or isinstance(value, str):
        return [_server_answer(q, t, "accept") for q, t in zip(questions, texts, strict=True)]
    decisions = _ANSWERS.validate_python(value).decisions
    return [
        _server_answer(q, t, "decline" if isinstance(d, _Decline) else "accept")
        for q, t, d in zip(questions, texts, decisions, strict=True)
    ]


def _inbox_answer_for(value: Any, q: PendingQuestion) -> str:
    """`parse_inbox_answer` for one question, a server's read against its form."""
    if "form" in q and is_resolved(value):
        return _closed(q)
    return _server_answer(q, parse_inbox_answer(value), "accept")


def _server_answer(q: PendingQuestion, text: str, action: Literal["accept", "decline"]) -> str:
    """The answer as stored: the text for an expert's question, JSON for a server's."""
    form = q.get("form")
    if form is None:
        return text
    # Imported here: the CLI reads question requests without loading the MCP layer.
    from common.safety.server_questions import answer_of

    return answer_of(form, action, text)


def _closed(q: PendingQuestion) -> str:
    """The answer of a question closed without one."""
    form = q.get("form")
    if form is None:
        return CLOSED_QUESTION
    from common.safety.server_questions import answer_of

    return answer_of(form, "cancel")
