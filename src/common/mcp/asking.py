"""A server's questions to the person during a call (MCP elicitation), in both protocol eras.

The 2026-07-28 revision asks by answering the call with an `InputRequiredResult`: the server's
`input_requests` (here: elicitations, form or URL mode) and an opaque `request_state`. The call
is over; the client asks the person and sends the call again with `input_responses` and the
same `request_state`. That retry is the continuation, so it can wait for a person for as long
as the server's state lives, across a restart of the planner: the state is kept in the
checkpoint (the call's question) and the call ledger (`common.safety.execution`).

The 2025 revisions ask with `elicitation/create`, a request from the server in the middle of the
call, which waits for the answer. Such a call is held (`Flight`): the question is handed to the
caller as if the call had ended with it, while the call itself waits, up to `HOLD_S`, for the
answer the caller brings back later in the same process (`Held.answer`). A held call lost to a
restart cannot be continued: a reversible call is sent again with its answers given in advance
(the same question gets the same answer at once); an irreversible one is not sent again.
2025 requests carry no link to the call they belong to: a question is the call's only when that
call is the one in flight on the session; with several in flight it is cancelled (logged).

The SDK's own driver (`Client.call_tool`) answers input requests through its callbacks within
one call, which cannot wait for a graph interrupt; we drive the rounds ourselves, as its
docstring suggests for state kept across restarts.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from typing_extensions import TypedDict

if TYPE_CHECKING:
    from mcp.types import ElicitRequestParams, ElicitResult, ErrorData

logger = logging.getLogger(__name__)

HOLD_S = 900.0
"""How long a 2025 call waits for the person's answer before it is told "cancel"."""
MAX_ROUNDS = 5
"""Rounds of questions one call may ask before it is given up (a server asking forever)."""

AnswerAction = Literal["accept", "decline", "cancel"]
"""The person's action on a question, as MCP names it."""


class ServerQuestion(TypedDict):
    """One question a server asks during a call, as the graph shows it."""

    key: str
    """The server's key for it (2026), or its order in the call (2025)."""
    mode: Literal["form", "url"]
    """A form to fill in, or a URL the person opens themself."""
    message: str
    """The server's text."""
    schema: dict[str, Any] | None
    """The form's JSON Schema (form mode)."""
    url: str | None
    """The address to open (URL mode); never fetched by the planner."""


class ServerAnswer(TypedDict):
    """The person's answer to one server question."""

    action: AnswerAction
    """accept, decline or cancel."""
    content: dict[str, Any] | None
    """The form's values (an accepted form only)."""


class Asking(TypedDict):
    """A call that stopped at the server's questions: what to ask, and how to go on."""

    questions: list[ServerQuestion]
    """What the server asks, in order."""
    state: str | None
    """The 2026 `request_state` to send back with the answers (None: a held 2025 call)."""
    round: int
    """Rounds asked so far in this call (bounded by MAX_ROUNDS)."""


@dataclass(frozen=True)
class Inputs:
    """The answers a call goes on with, and the state its server gave with the questions."""

    answers: dict[str, ServerAnswer]
    """By question key."""
    state: str | None
    """The 2026 `request_state`, sent back as it came."""
    asked: list[ServerQuestion] = field(default_factory=list)
    """The questions answered (a call sent again knows them by their wording)."""
    round: int = 1
    """The round these answers end."""
    resend: bool = False
    """Whether a held call that was lost may be sent again (a reversible one only)."""


def question_of(key: str, params: ElicitRequestParams) -> ServerQuestion:
    """An SDK elicitation request as the graph's question."""
    from mcp.types import ElicitRequestURLParams

    if isinstance(params, ElicitRequestURLParams):
        return ServerQuestion(
            key=key, mode="url", message=params.message, schema=None, url=params.url
        )
    return ServerQuestion(
        key=key, mode="form", message=params.message, schema=dict(params.requested_schema), url=None
    )


def elicit_result(answer: ServerAnswer) -> ElicitResult:
    """The person's answer as the SDK's `ElicitResult` (content only on an accepted form)."""
    from mcp.types import ElicitResult

    content = answer["content"] if answer["action"] == "accept" else None
    return ElicitResult(action=answer["action"], content=content)


def fingerprint(q: ServerQuestion) -> str:
    """What makes two askings the same question (a call sent again asks it again)."""
    return json.dumps([q["mode"], q["message"], q["schema"], q["url"]], sort_keys=True)


CANCEL = ServerAnswer(action="cancel", content=None)
"""The answer to a question nobody can be asked."""


@dataclass(eq=False)
class Flight:
    """A 2025 call in flight on a session: the questions its server asks, and their answers."""

    given: dict[str, ServerAnswer] = field(default_factory=dict)
    """Answers known in advance, by question fingerprint (a call sent again after a restart)."""
    asked: asyncio.Queue[ServerQuestion] = field(default_factory=asyncio.Queue)
    """Questions not yet handed to the caller."""
    waiting: dict[str, asyncio.Future[ServerAnswer]] = field(default_factory=dict)
    """The server's pending questions, by key."""
    count: int = 0
    """Questions asked so far (their keys)."""

    async def ask(self, params: ElicitRequestParams) -> ElicitResult:
        """The server's question: answered at once if known, else held for the caller."""
        self.count += 1
        question = question_of(f"q{self.count}", params)
        known = self.given.get(fingerprint(question))
        if known is not None:
            return elicit_result(known)
        answer: asyncio.Future[ServerAnswer] = asyncio.get_running_loop().create_future()
        self.waiting[question["key"]] = answer
        self.asked.put_nowait(question)
        try:
            async with asyncio.timeout(HOLD_S):
                return elicit_result(await answer)
        except TimeoutError:
            logger.info("nobody answered %r within %gs: cancelled", question["message"], HOLD_S)
            return elicit_result(CANCEL)
        finally:
            self.waiting.pop(question["key"], None)

    def answer(self, answers: dict[str, ServerAnswer]) -> bool:
        """Give the held questions their answers; False when one of them no longer waits."""
        pending = [self.waiting.get(key) for key in answers]
        if not answers or any(f is None or f.done() for f in pending):
            return False
        for key, answer in answers.items():
            self.waiting[key].set_result(answer)
        return True


class Elicitations:
    """The session's `elicitation_callback`: each 2025 question goes to the call it belongs to."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.flights: set[Flight] = set()

    async def __call__(self, context: Any, params: ElicitRequestParams) -> ElicitResult | ErrorData:
        """Hand the question to the one call in flight, or cancel it when that is unclear."""
        if len(self.flights) != 1:
            logger.warning(
                "%r asked %r with %d calls in flight: cancelled (2025 questions do not say "
                "which call asks)",
                self.server,
                params.message,
                len(self.flights),
            )
            return elicit_result(CANCEL)
        (flight,) = self.flights
        return await flight.ask(params)


def may_continue(asking: Asking) -> bool:
    """Whether a call may be asked one more round of questions."""
    return asking["round"] < MAX_ROUNDS
