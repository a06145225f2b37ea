"""The commands on a LangGraph API server (`langgraph dev`, Aegra): the thread lives there.

Only SDK calls both servers answer the same way: interrupts are read from the state's tasks
(Aegra leaves `threads.get()["interrupts"]` empty), runs are streamed with updates and custom
events, and approvals are asked, parsed and shown by the same code as in-process.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from langchain_core.messages import convert_to_messages
from langgraph.types import Interrupt
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient
from langgraph_sdk.errors import (
    ConflictError,
    NotFoundError,
    UnprocessableEntityError,
)
from langgraph_sdk.schema import StreamMode

from common.messages import last_request
from common.safety.policy import parse_approval_mode
from strategies.cli.answers import (
    Preset,
    already_answered,
    answered_ids,
    check_unanswered,
    pending_of,
    preset_values,
)
from strategies.cli.drive import (
    answer_here,
    resume_command,
    show_guard_stats,
    show_progress,
    still_waiting,
)
from strategies.cli.exits import CliProblem, one_line
from strategies.cli.outcome import Outcome, finished, model_failed, waiting
from strategies.cli.records import status_of
from strategies.cli.setup import read_mcp_config

ASSISTANT = "with_planner"
"""The graph id both servers serve (langgraph.json, aegra.json)."""

STATE_READS = 8
"""Thread states `threads` reads at once (one request per thread, on both servers)."""

THREAD_STATUS = {"idle": "done", "busy": "running", "error": "failed"}
"""A server thread's status in `threads`' words; an interrupted one is read from its state."""

PROBE_TIMEOUT_S = 10.0
"""How long the first contact with the server may take before it counts as unreachable."""

STREAM_MODES: list[StreamMode] = ["updates", "custom"]
"""What a run streams back: node updates for progress, custom events for the plan board."""


def server_url(url: str) -> str:
    """The --server value as a base URL; one line when it is not an http(s) URL."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- reading it validates the port
    except ValueError as exc:
        raise CliProblem(f"--server {url!r} is not a URL: {exc}.") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise CliProblem(
            f"--server {url!r} is not a server URL: give one like http://127.0.0.1:2024."
        )
    return url.rstrip("/")


def server_context(model: str | None, mode: str | None, config: Path | None) -> dict[str, Any]:
    """The run's context from the options; the server fills in the rest from its settings.

    Checked here, before anything is sent: the mode's exact spelling and the MCP config file
    (sent as `mcp_config`). The model is loaded, and so checked, by the server.
    """
    # The CLI answers approvals in the HITL format, whatever the server's INTERRUPT_FORMAT.
    context: dict[str, Any] = {"interrupt_format": "hitl"}
    if mode is not None:
        context["approval_mode"] = parse_approval_mode(mode, "--mode")
    if model is not None:
        context["model"] = model
    if config is not None:
        context["mcp_config"], _ = read_mcp_config(config)
    return context


def new_thread_id() -> str:
    """A thread id both servers accept (langgraph dev takes UUIDs only)."""
    return str(uuid.uuid4())


TOKEN_SETTING = "--token or MCP_PLANNER_TOKEN"
"""Where a bearer token for the server comes from, as the 401 and 403 lines name it."""

KEY_SETTING = "MCP_PLANNER_API_KEY"
"""Where an API key for the server comes from (never an argument: `ps` would show it)."""

BOTH_GIVEN = (
    f"Both a bearer token ({TOKEN_SETTING}) and an API key ({KEY_SETTING}) are set: the "
    "server would take only one of them, so keep the one you mean and unset the other."
)
"""The line when a token and an API key are both given."""


def token_for(flag: str | None) -> str | None:
    """The bearer token to send: `--token`, else MCP_PLANNER_TOKEN, else none."""
    if flag:
        return flag
    from strategies.cli.setup import settings

    kept = settings().mcp_planner_token
    return kept.get_secret_value() if kept is not None else None


def credentials(token: str | None) -> tuple[str | None, dict[str, str] | None]:
    """The API key (sent as `x-api-key`) and the headers (`Authorization: Bearer`) to send.

    The key is read from MCP_PLANNER_API_KEY (environment or `.env`) only; a token and a key
    both given are refused, one line, before anything is sent. Without a key it is None, which
    keeps the SDK from sending LANGSMITH_API_KEY (or LANGGRAPH_, LANGCHAIN_) as one: a tracing
    key is not this server's, and a server with API keys would refuse the token beside it.
    """
    from strategies.cli.setup import settings

    kept = settings().mcp_planner_api_key
    key = kept.get_secret_value() if kept is not None else None
    if key and token:
        raise CliProblem(BOTH_GIVEN)
    return (key or None), ({"Authorization": f"Bearer {token}"} if token else None)


def server_sentence(response: httpx.Response) -> str | None:
    """The server's own sentence for a refusal, when it gave one.

    `langgraph dev` puts it in the JSON body's `detail`, Aegra in its `message`. This project's
    auth handlers say why in one sentence (an expired token, a context field a client may not
    set); LangGraph's bare "Forbidden" says nothing and is not a sentence.
    """
    try:
        body = response.json()
        said = body.get("detail") or body.get("message")
    except (ValueError, AttributeError):
        return None
    if not isinstance(said, str) or len(said.split()) < 3:
        return None
    return " ".join(said.split())


def _sent(response: httpx.Response) -> str | None:
    """Which credential the refused request carried: "token", "key", or None."""
    try:
        headers = response.request.headers
    except RuntimeError:  # a response built without its request
        return None
    if "x-api-key" in headers:
        return "key"
    return "token" if "authorization" in headers else None


def refusal_line(url: str, exc: httpx.HTTPStatusError) -> str:
    """One line for a refused request: the server's sentence, else one naming the setting."""
    status, sent = exc.response.status_code, _sent(exc.response)
    said = server_sentence(exc.response)
    setting = f"an API key ({KEY_SETTING})" if sent == "key" else f"a token ({TOKEN_SETTING})"
    if status == 401 and said is not None and sent is not None:
        what = "API key" if sent == "key" else "token"
        return f"The server at {url} refused the {what} (401): {said}"
    if status == 401 and said is not None:
        return (
            f"The server at {url} asks who you are (401): {said} Send a token with "
            f"{TOKEN_SETTING}, or an API key with {KEY_SETTING}."
        )
    if status == 401:
        return (
            f"The server at {url} asks who you are (401 Unauthorized): give a valid token with "
            f"{TOKEN_SETTING}, or an API key with {KEY_SETTING}."
        )
    if status == 403 and said is not None:
        return f"The server at {url} refused the request (403): {said}"
    if status == 403:
        return (
            f"The server at {url} refused this to your credentials (403 Forbidden): use "
            f"{setting} of a user allowed to do it."
        )
    return f"The server at {url} refused the request: {one_line(exc)}"


NOT_SERVED = (
    "The server at {url} does not serve the {graph} graph: is your langgraph dev on another "
    "port? Its log says 'using port N instead'."
)
"""The line for a server that is not this project's (`langgraph dev` moves off a taken port)."""


async def check_serves_graph(client: LangGraphClient, url: str) -> None:
    """Refuse, in one line, a server at `url` that does not serve ASSISTANT.

    Another project's server (or any other program) may hold the port the commands name:
    `langgraph dev` moves to a free one with one log line when its own is taken. A refused
    credential (401, 403) is the server's to say, so it is passed on.
    """
    problem = CliProblem(NOT_SERVED.format(url=url, graph=ASSISTANT))
    try:
        found = await client.assistants.search(graph_id=ASSISTANT, limit=1)
    except httpx.HTTPStatusError as exc:
        if exc.response.status_code in (404, 405):  # no such route: not a LangGraph API
            raise problem from exc
        raise
    except ValueError as exc:  # an answer that is not JSON: not a LangGraph API either
        raise problem from exc
    if not found:
        raise problem


@asynccontextmanager
async def connect(url: str, token: str | None = None) -> AsyncIterator[LangGraphClient]:
    """A client for the server at `url` sending `token` (or the API key); failures are one line."""
    key, headers = credentials(token)
    try:
        # The SDK retries a refused connection for about 9 s; a server that is not running
        # is told at once. Any HTTP answer, even an error status, means something listens.
        async with httpx.AsyncClient(timeout=PROBE_TIMEOUT_S) as probe:
            await probe.get(f"{url}/ok")
        async with get_client(url=url, api_key=key, headers=headers) as client:
            await check_serves_graph(client, url)
            yield client
    except httpx.TransportError as exc:
        raise CliProblem(unreachable_line(url, exc)) from exc
    except httpx.HTTPStatusError as exc:  # the SDK's APIStatusError, or httpx's own
        # Refused requests (auth, a server error): nothing ran for this command.
        raise CliProblem(refusal_line(url, exc)) from exc


def unreachable_line(url: str, exc: httpx.TransportError) -> str:
    """Why the server at `url` could not be reached; an https URL on a plain-HTTP server says so."""
    if url.startswith("https://") and "WRONG_VERSION_NUMBER" in str(exc):
        # TLS met a server that answered in plain HTTP: the scheme is wrong, not the server.
        plain = "http://" + url.removeprefix("https://")
        return f"The server at {url} answers plain HTTP, not HTTPS: use --server {plain}."
    return f"Cannot reach the server at {url}: {one_line(exc)}; is it running?"


def interrupts_of(state: dict[str, Any]) -> list[Interrupt]:
    """What the thread waits on, from its state's tasks (the same on both servers)."""
    return [
        Interrupt(value=i["value"], id=i["id"])
        for task in state.get("tasks") or []
        for i in task.get("interrupts") or []
    ]


async def _state(client: LangGraphClient, url: str, thread: str) -> dict[str, Any]:
    """The thread's state; one line when the server has no such thread."""
    try:
        return dict(await client.threads.get_state(thread))
    except (NotFoundError, UnprocessableEntityError) as exc:
        raise _no_thread(thread, url) from exc


APPROVALS = "/approvals/{thread}"
"""Aegra's approvals routes (`common.served.aegra`): there, an approver
reaches another user's question only through them."""


@dataclass
class Reach:
    """How this client reaches a thread: as its owner, or as an approver through the routes."""

    client: LangGraphClient
    """The SDK client (its token is the caller's)."""
    url: str
    """The server's base URL."""
    thread: str
    """The thread's id."""
    approver: bool = False
    """Whether the thread is reached through Aegra's approvals routes."""

    async def state(self) -> dict[str, Any]:
        """The thread's state; on Aegra, another user's through the approvals routes."""
        if self.approver:
            return dict(await self.client.http.get(f"{APPROVALS.format(thread=self.thread)}/state"))
        try:
            return dict(await self.client.threads.get_state(self.thread))
        except (NotFoundError, UnprocessableEntityError) as exc:
            try:
                found = await self.client.http.get(f"{APPROVALS.format(thread=self.thread)}/state")
            except NotFoundError:
                raise _no_thread(self.thread, self.url) from exc
            self.approver = True
            return dict(found)


def _no_thread(thread: str, url: str) -> CliProblem:
    """The one line for a thread the server does not show the caller."""
    return CliProblem(
        f"No thread {thread!r} on the server at {url} "
        f"(mcp-planner threads --server {url} lists them)."
    )


def _values(state: dict[str, Any]) -> dict[str, Any]:
    """The state's values with its messages as message objects, as in-process code reads them."""
    values = dict(state.get("values") or {})
    values["messages"] = convert_to_messages(values.get("messages") or [])
    return values


async def run_remote(
    url: str,
    request: str,
    thread: str,
    existing: bool,
    context: dict[str, Any],
    hint: str,
    token: str | None = None,
) -> Outcome:
    """Run one request on a new thread `thread` (or the `existing` one) on the server."""
    async with connect(url, token) as client:
        if existing:
            pending = interrupts_of(await _state(client, url, thread))
            if pending:
                raise still_waiting(
                    thread, len(pending), f"mcp-planner resume {thread} --server {url}"
                )
        else:
            await client.threads.create(thread_id=thread)
        payload = {"messages": [{"role": "user", "content": request}]}
        return await _drive(Reach(client, url, thread), context, hint, {"input": payload})


async def resume_remote(
    url: str,
    thread: str,
    context: dict[str, Any],
    hint: str,
    preset: Preset | None,
    token: str | None = None,
) -> Outcome:
    """Answer the thread's pending approval (preset or asked), or continue a stopped run."""
    async with connect(url, token) as client:
        where = Reach(client, url, thread)
        state = await where.state()
        pending = interrupts_of(state)
        if preset is not None:
            command = resume_command(
                pending, preset_values(preset, pending, thread, _values(state))
            )
        elif pending:
            answered = answer_here(pending)
            if answered is None:
                return waiting(thread, pending_of(pending), _plan(state), hint)
            command = answered
        elif where.approver:
            # An approver answers questions; continuing another user's run is the owner's.
            raise CliProblem(
                f"Thread {thread!r} on the server at {url} is another user's and waits on no "
                "question: there is nothing for you to answer."
            )
        elif not state.get("next"):
            return finished(thread, _values(state))
        else:
            return await _drive(where, context, hint, {"input": None})
        return await _drive(where, context, hint, {"command": _sdk(command)})


def _sdk(command: Any) -> dict[str, Any]:
    """A LangGraph resume Command as the SDK sends it."""
    return {"resume": command.resume}


def _plan(state: dict[str, Any]) -> list[Any]:
    return list((state.get("values") or {}).get("plan") or [])


async def _drive(where: Reach, context: dict[str, Any], hint: str, send: dict[str, Any]) -> Outcome:
    """Stream runs on the thread, asking in the terminal at each interrupt, until it ends."""
    thread = where.thread
    while True:
        state = await where.state()
        ids = answered_ids(send)
        # Another client may have answered while this one was asking (or on its way).
        check_unanswered(ids, interrupts_of(state), _values(state), hint)
        if where.approver:
            failure, shown = await _answer_as_approver(where, context, send)
        else:
            failure, shown = await _stream(
                where.client, where.url, thread, context, send, _plan(state)
            )
        if ids and failure is None and not shown:
            raise already_answered(ids, _values(await where.state()), hint)
        if failure is not None:
            # The thread stays at its last step on the server; resuming retries it.
            line = f"{failure.rstrip('.')}; the thread is kept: `{hint}` continues it"
            return model_failed(thread, line, hint)
        state = await where.state()
        pending = interrupts_of(state)
        if not pending:
            break
        answered = answer_here(pending)
        if answered is None:
            return waiting(thread, pending_of(pending), _plan(state), hint)
        send = {"command": _sdk(answered)}
    values = _values(state)
    show_guard_stats(values)
    return finished(thread, values)


async def _stream(
    client: LangGraphClient,
    url: str,
    thread: str,
    context: dict[str, Any],
    send: dict[str, Any],
    plan: list[Any],
) -> tuple[str | None, int]:
    """Stream one run and show its progress: the run's error line if it failed, and its parts.

    The count of parts shown: none means the run did nothing.
    """
    errors: list[str] = []

    async def parts() -> AsyncIterator[tuple[str, Any]]:
        async for part in client.runs.stream(
            thread,
            ASSISTANT,
            context=context or None,
            stream_mode=STREAM_MODES,
            stream_subgraphs=True,
            **send,
        ):
            # Subgraph parts are named "custom|run_task:<id>"; in-process they share the mode.
            mode = part.event.split("|", 1)[0]
            if mode == "error":
                errors.append(_error_line(part.data))
            elif mode in STREAM_MODES:
                yield mode, part.data

    try:
        shown = await show_progress(parts(), plan)
    except ConflictError as exc:
        raise CliProblem(
            f"Thread {thread!r} is busy with another run on the server at {url}: wait until it "
            "ends, then try again."
        ) from exc
    except httpx.TransportError as exc:
        lost = f"Lost the connection to the server at {url}: {one_line(exc)}"
        return f"{lost} (the run may go on there)", 0
    return (errors[0] if errors else None), shown


async def _answer_as_approver(
    where: Reach, context: dict[str, Any], send: dict[str, Any]
) -> tuple[str | None, int]:
    """Send an approver's answer through Aegra's approvals routes and wait for its run.

    The run is the approver's own, so it is joined like any other; its progress is not
    streamed (the answer's outcome is read from the thread afterwards). Returns the run's
    error line if it failed, and 1 (the answer ran).
    """
    body: dict[str, Any] = {"assistant_id": ASSISTANT, **send}
    if context:
        body["context"] = context
    try:
        run = await where.client.http.post(
            f"{APPROVALS.format(thread=where.thread)}/runs", json=body
        )
        await where.client.runs.join(where.thread, run["run_id"])
        done = await where.client.runs.get(where.thread, run["run_id"])
    except ConflictError as exc:
        raise CliProblem(
            f"Thread {where.thread!r} is busy with another run on the server at {where.url}: "
            "wait until it ends, then try again."
        ) from exc
    if done.get("status") == "error":
        return "The run failed on the server.", 1
    return None, 1


def _error_line(data: Any) -> str:
    """The one line a run's error event says."""
    if isinstance(data, dict):
        text = data.get("message") or data.get("error") or data
        return f"The run failed on the server: {one_line(Exception(text))}"
    return f"The run failed on the server: {one_line(Exception(data))}"


async def list_remote_threads(url: str, token: str | None = None) -> list[dict[str, Any]]:
    """The server's threads with their last question, status and last update, newest first."""
    rows: list[dict[str, Any]] = []
    lanes = asyncio.Semaphore(STATE_READS)
    async with connect(url, token) as client:
        offset, page = 0, 100
        while True:
            found = await client.threads.search(
                limit=page, offset=offset, sort_by="updated_at", sort_order="desc"
            )
            rows += await asyncio.gather(*(_row(client, url, dict(t), lanes) for t in found))
            if len(found) < page:
                return rows
            offset += page


async def _row(
    client: LangGraphClient, url: str, thread: dict[str, Any], lanes: asyncio.Semaphore
) -> dict[str, Any]:
    """One thread as `mcp-planner threads` lists it.

    The search result says most of it; the state is read (one request each, served one at a
    time) only to tell an approval from a question, or when the search left the values out.
    """
    status = THREAD_STATUS.get(str(thread.get("status")))
    state = {"values": thread.get("values")}
    if status is None or not isinstance(state["values"], dict):
        async with lanes:
            state = await _state(client, url, str(thread["thread_id"]))
    if status is None:
        waits_on = [i.value for i in interrupts_of(state)]
        status = status_of(bool(state.get("next")), waits_on)
    values = _values(state)
    return {
        "thread_id": str(thread["thread_id"]),
        "last_question": last_request(values["messages"]),
        "status": status,
        "updated": str(thread.get("updated_at") or ""),
    }
