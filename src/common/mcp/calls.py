"""One `tools/call` on an open session, in either era, up to its result or its server's questions.

A call ends with the tool's result, or stops at the questions its server asks the person
(`common.mcp.asking`): a 2026-07-28 server answers with `InputRequiredResult` (the call is
over; its continuation is a new call with the answers), a 2025 server sends `elicitation/create`
in the middle of the call, which is then held (`Held`) until the answers come back. Either way a
call pending when its session ends fails at once (`CONNECTION_CLOSED`), never at the caller's
timeout, and a call its caller abandons is cancelled (the SDK tells the server).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from mcp import MCPError
from mcp.types import (
    CONNECTION_CLOSED,
    INVALID_PARAMS,
    CallToolResult,
    InputRequiredResult,
    InputResponses,
    TextContent,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from common.mcp.asking import (
    Asking,
    Elicitations,
    Flight,
    Inputs,
    ServerQuestion,
    elicit_result,
    fingerprint,
    question_of,
)
from common.mcp.tasks import OnTask, TaskCreated, poll

if TYPE_CHECKING:
    from mcp import Client
    from mcp.shared.dispatcher import ProgressFnT

logger = logging.getLogger(__name__)
T = TypeVar("T")

STATE_ONLY_DELAYS = (0.05, 0.1, 0.2, 0.25, 0.25, 0.25, 0.25, 0.25)
"""Waits before re-sending a call whose server gave only `request_state` (it is still working):
the SDK driver's backoff, for at most this many rounds."""


class HeldCallLost(Exception):
    """Answers came for a held 2025 call this process no longer holds (a restart, a timeout)."""


@dataclass(eq=False)
class Held:
    """A 2025 call whose server waits for the person's answers."""

    call: asyncio.Future[CallToolResult]
    """The call, still in flight."""
    flight: Flight
    """Its questions and their answers."""
    round: int
    """Rounds of questions asked so far."""


@dataclass(frozen=True)
class TaskHooks:
    """What a call that is or becomes a task needs: the task to poll, or who hears its id."""

    task_id: str | None = None
    """A task the call already became (a re-run after a restart): polled, never sent again."""
    on_task: OnTask | None = None
    """Told the id of the task the call becomes, before it is polled."""


@dataclass(frozen=True)
class Rounds:
    """One call as it is sent: each round of a 2026 one, or a 2025 one that may be held."""

    client: Client
    ended: asyncio.Event
    tool: str
    args: dict[str, Any]
    progress: ProgressFnT | None
    tasks: TaskHooks | None


class Calls:
    """The calls of one session: plain, 2026 rounds, and held 2025 calls by call key."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.elicitations = Elicitations(server)
        """The session's `elicitation_callback`."""
        self.held: dict[str, Held] = {}

    async def call(
        self,
        client: Client,
        ended: asyncio.Event,
        tool: str,
        args: dict[str, Any],
        progress: ProgressFnT | None,
        key: str,
        inputs: Inputs | None,
        tasks: TaskHooks | None = None,
    ) -> CallToolResult | Asking:
        """The call's result, or the questions it stopped at (see the module doc).

        `tasks` polls a task the call already became, or hears the id of the one it becomes.
        """
        modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
        if modern and tasks is not None and tasks.task_id is not None:
            polled = poll(client.session, tasks.task_id, progress=progress)
            return await watched(asyncio.ensure_future(polled), ended, self.server)
        sent = Rounds(client, ended, tool, args, progress, tasks)
        if modern:
            return await self._modern(sent, inputs)
        return await self._legacy(sent, key, inputs)

    async def _modern(self, r: Rounds, inputs: Inputs | None) -> CallToolResult | Asking:
        """Send the call (with answers and state when it goes on) until it ends or asks.

        A server that no longer knows its state (it restarted: the state's key was its
        process's) refuses it; the call is then sent afresh, and questions worded as the ones
        already answered get those answers at once, so the person is not asked twice.
        """
        try:
            return await self._rounds(r, inputs)
        except MCPError as exc:
            if inputs is None or inputs.state is None or exc.code != INVALID_PARAMS:
                raise
            logger.info("%r refused the state of %r (%s): sent afresh", self.server, r.tool, exc)
            fresh = await self._rounds(r, None)
            if isinstance(fresh, CallToolResult):
                return fresh
            again = _given_again(fresh, inputs)
            return fresh if again is None else await self._rounds(r, again)

    async def _rounds(self, r: Rounds, inputs: Inputs | None) -> CallToolResult | Asking:
        """Send the call, then its state while the server has only state to give back.

        A call the server runs as a task (`common.mcp.tasks`) is polled to its end, its id
        told first.
        """
        responses: InputResponses | None = None
        if inputs is not None:
            responses = {k: elicit_result(a) for k, a in inputs.answers.items()}
        state = inputs.state if inputs else None
        asked_round = inputs.round + 1 if inputs else 1
        for delay in (*STATE_ONLY_DELAYS, None):
            sent = r.client.session.call_tool(
                r.tool,
                r.args,
                progress_callback=r.progress,
                input_responses=responses or None,
                request_state=state,
                allow_input_required=True,
                allow_claimed=True,
            )
            result = await watched(asyncio.ensure_future(sent), r.ended, self.server)
            if isinstance(result, TaskCreated):
                return await self._task(r, result)
            if isinstance(result, CallToolResult):
                return result
            if not isinstance(result, InputRequiredResult):
                return _error(f"{self.server!r} answered with a result of an unknown kind.")
            if result.input_requests:
                return _asking(result, asked_round)
            if delay is None:
                break
            # Only state: the server is still at it; send the state back after a while.
            responses, state = None, result.request_state
            await asyncio.sleep(delay)
        return _error(f"{self.server!r} kept answering 'not ready yet'; the call was given up.")

    async def _task(self, r: Rounds, created: TaskCreated) -> CallToolResult:
        """A call the server runs as a task: its id told (to be kept), then polled to its end."""
        if r.tasks is not None and r.tasks.on_task is not None:
            await r.tasks.on_task(created.task_id)
        polled = poll(r.client.session, created.task_id, created.poll_interval_ms, r.progress)
        return await watched(asyncio.ensure_future(polled), r.ended, self.server)

    async def _legacy(self, r: Rounds, key: str, inputs: Inputs | None) -> CallToolResult | Asking:
        """Go on with the held call the answers are for, or send a new one."""
        if inputs is not None and (held := self.held.pop(key, None)) is not None:
            if not held.flight.answer(inputs.answers):
                await abandon(held.call)
                raise HeldCallLost(key)
            held.round = inputs.round + 1
            return await self._follow(held, r.ended, key)
        if inputs is not None and not inputs.resend:
            raise HeldCallLost(key)
        flight = Flight(given=_given(inputs))
        sent = r.client.call_tool(r.tool, r.args, progress_callback=r.progress)
        call = asyncio.ensure_future(sent)
        flights = self.elicitations.flights
        flights.add(flight)
        call.add_done_callback(lambda _: flights.discard(flight))
        return await self._follow(Held(call, flight, 1), r.ended, key)

    async def _follow(self, held: Held, ended: asyncio.Event, key: str) -> CallToolResult | Asking:
        """Wait for the held call's result, or its server's next questions (held again)."""
        question = asyncio.ensure_future(held.flight.asked.get())
        try:
            first = await watched_or_asked(held.call, ended, self.server, question)
        finally:
            question.cancel()
        if isinstance(first, CallToolResult):
            return first
        questions = [first]
        while not held.flight.asked.empty():
            questions.append(held.flight.asked.get_nowait())
        self.held[key] = held
        # A call that ends meanwhile (its server gave up waiting) is no longer held.
        held.call.add_done_callback(lambda _: self.held.pop(key, None))
        return Asking(questions=questions, state=None, round=held.round)


async def watched(call: asyncio.Future[T], ended: asyncio.Event, server: str) -> T:
    """The call's result; MCPError at once if the session ends first (the call is abandoned)."""
    await _race(call, ended, server)
    return call.result()


async def watched_or_asked(
    call: asyncio.Future[T],
    ended: asyncio.Event,
    server: str,
    question: asyncio.Future[ServerQuestion],
) -> T | ServerQuestion:
    """The call's result or its server's first question, whichever comes first (see `watched`).

    A call that asks is not abandoned: it waits, held, for the answer.
    """
    await _race(call, ended, server, question)
    return call.result() if call.done() else question.result()


async def _race(
    call: asyncio.Future[Any],
    ended: asyncio.Event,
    server: str,
    question: asyncio.Future[Any] | None = None,
) -> None:
    """Wait for the call (or the question); abandon it if the session ends or we are cancelled."""
    end = asyncio.ensure_future(ended.wait())
    waits: set[asyncio.Future[Any]] = {call, end}
    if question is not None:
        waits.add(question)
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        await abandon(call)
        raise
    finally:
        end.cancel()
    if call.done() or (question is not None and question.done()):
        return
    await abandon(call)
    raise MCPError(CONNECTION_CLOSED, f"Connection closed: the session with {server!r} ended")


async def abandon(call: asyncio.Future[Any]) -> None:
    """Cancel a request task and wait for it to end; a cancellation of ours still propagates."""
    call.cancel()
    await asyncio.wait({call})
    if not call.cancelled() and call.exception() is not None:
        logger.debug("An abandoned MCP request ended with %r", call.exception())


def _asking(result: InputRequiredResult, asked_round: int) -> Asking | CallToolResult:
    """A 2026 server's questions; any other kind of input request is refused as an error."""
    from mcp.types import ElicitRequest

    requests = result.input_requests or {}
    others = sorted(k for k, r in requests.items() if not isinstance(r, ElicitRequest))
    if others:
        return _error(
            f"The server asked for input this client does not offer ({', '.join(others)})."
        )
    questions = [
        question_of(k, r.params) for k, r in requests.items() if isinstance(r, ElicitRequest)
    ]
    return Asking(questions=questions, state=result.request_state, round=asked_round)


def _given_again(fresh: Asking | CallToolResult, inputs: Inputs) -> Inputs | None:
    """The answers given before, for a fresh round asking the very same questions (else None)."""
    if isinstance(fresh, CallToolResult):
        return None
    known = _given(inputs)
    prints = {q["key"]: fingerprint(q) for q in fresh["questions"]}
    if not prints or any(p not in known for p in prints.values()):
        return None
    answers = {key: known[p] for key, p in prints.items()}
    return Inputs(answers, fresh["state"], fresh["questions"], inputs.round)


def _given(inputs: Inputs | None) -> dict[str, Any]:
    """Answers known in advance for a call sent again, by question fingerprint."""
    if inputs is None:
        return {}
    return {
        fingerprint(q): inputs.answers[q["key"]] for q in inputs.asked if q["key"] in inputs.answers
    }


def _error(text: str) -> CallToolResult:
    """A call's failure as an error result."""
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
