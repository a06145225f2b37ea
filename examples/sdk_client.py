"""Drive the with_planner graph on a LangGraph API server (`langgraph dev` or Aegra) with the SDK.

Run: python examples/sdk_client.py [URL] 'How many units of WID-1 are in stock, then write a
note titled "stock"' [--config mcp.json] [--model offline:rules] [--approve | --reject]
[--answer TEXT] [--thread ID] [--token TOKEN]

Without a terminal and without --approve / --reject it behaves like `mcp-planner run`: it prints
the calls waiting for approval and the commands that answer them (shell-quoted, to paste as
they are), and exits 3. A server with auth wants a bearer token (--token, or the environment
variable MCP_PLANNER_TOKEN) or an API key (the environment variable MCP_PLANNER_API_KEY, sent as
x-api-key; never an argument), never printed; a refusal prints the server's own sentence. Exit
codes: 0 answered, 1 the run failed, 2 the server cannot be reached, refused the credentials
or does not serve the with_planner graph, 3 waiting for approval, 130 Ctrl-C.

It streams the run (node updates and the plan's custom events), shows the approval request the
run stops at, asks in the terminal (or takes --approve / --reject), resumes and prints the
answer. A question to the user (an `ask_user` request whose review config allows `respond`) is
answered with `{"type": "respond", "message": ...}` (or --answer). It uses only calls that
work the same on both servers: interrupts are read from the thread state's tasks, never from
`threads.get()["interrupts"]` (empty on Aegra).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import httpx
from langgraph_sdk import get_client

GRAPH = "with_planner"
"""The graph id the server serves."""

WAITING = 3
"""Exit code when calls wait for approval and nobody can be asked (as `mcp-planner`)."""

UNREACHABLE = 2
"""Exit code when the server cannot be reached or refuses the credentials (as `mcp-planner`)."""

USAGE = 2
"""Exit code for a mistake in the command (as `mcp-planner`): nothing was sent."""

TOKEN_ENV = "MCP_PLANNER_TOKEN"
"""The environment variable holding the bearer token (`--token` wins)."""

KEY_ENV = "MCP_PLANNER_API_KEY"
"""The environment variable holding an API key (an argument would show in `ps`)."""


NOT_SERVED = (
    "The server at {url} does not serve the {graph} graph: is your langgraph dev on another "
    "port? Its log says 'using port N instead'."
)
"""The line for a server that is not this project's (`langgraph dev` moves off a taken port)."""


class Waiting(Exception):
    """The run waits for approval and there is no terminal to ask in."""


class NotServed(Exception):
    """The server at the URL does not serve GRAPH: another project's, or not LangGraph at all."""


async def reachable(url: str) -> None:
    """Return if something answers at `url`; else httpx's TransportError, at once.

    The SDK retries a refused connection for seconds; a server that is down is told at once.
    """
    async with httpx.AsyncClient(timeout=10) as probe:
        await probe.get(f"{url.rstrip('/')}/ok")


async def check_serves_graph(client: Any) -> None:
    """Raise NotServed unless the server lists an assistant of GRAPH (refusals pass on)."""
    try:
        found = await client.assistants.search(graph_id=GRAPH, limit=1)
    except httpx.HTTPStatusError as exc:
        if exc.response.status_code in (404, 405):  # no such route: not a LangGraph API
            raise NotServed from exc
        raise
    except ValueError as exc:  # an answer that is not JSON
        raise NotServed from exc
    if not found:
        raise NotServed


def headers_for(token: str | None) -> dict[str, str] | None:
    """The headers that carry a bearer token, or None without one."""
    return {"Authorization": f"Bearer {token}"} if token else None


def said(response: httpx.Response) -> str | None:
    """The server's own one-sentence reason, when it gave one.

    `langgraph dev` puts it in the JSON body's `detail`, Aegra in its `message`.
    """
    try:
        body = response.json()
        reason = body.get("detail") or body.get("message")
    except (ValueError, AttributeError):
        return None
    return " ".join(reason.split()) if isinstance(reason, str) and " " in reason.strip() else None


def refused(url: str, exc: httpx.HTTPStatusError, thread: str | None = None) -> str:
    """One line for a request the server refused: its own reason, else the token setting."""
    status = exc.response.status_code
    reason = said(exc.response)
    if status == 404 and thread:
        # Another user's thread is a 404 too: the server does not say it exists.
        return (
            f"The server at {url} has no thread {thread} for your token (404): check the "
            "--thread id, or leave --thread out to start a new run."
        )
    if status in (401, 403) and reason is not None:
        # The server says what is wrong (an expired token, an unknown key, a context field it
        # keeps for its operator): that sentence is what to act on.
        return f"The server at {url} refused the request ({status}): {reason}"
    if status == 401:
        return (
            f"The server at {url} asks who you are (401): give a token with --token or "
            f"{TOKEN_ENV}, or an API key with {KEY_ENV}."
        )
    if status == 403:
        return (
            f"The server at {url} refused this to your credentials (403): use a token (--token "
            f"or {TOKEN_ENV}) or an API key ({KEY_ENV}) of a user allowed to do it."
        )
    return f"The server at {url} refused the request ({status}): {exc}"


def show(event: str, data: Any) -> None:
    """Print one streamed part: the plan, each task's start and end, tool results, nodes."""
    if event.startswith("custom"):
        kind = data.get("event")
        if kind == "plan":
            for task in data["plan"]:
                print(f"plan: {task['id']} [{task['expert']}] {task['task']}")
        elif kind == "task_start":
            print(f"task {data['task_id']} started on {data['expert']}")
        elif kind == "task_end":
            print(f"task {data['task_id']} {data['status']}")
        elif kind == "tool_result":
            print(f"  {data['tool']} -> {' '.join(str(data['content']).split())[:120]}")
        elif kind == "notice":
            print(f"notice: {data['text']}")
    elif event.startswith("updates"):
        # The run stopping at an approval is an update too; the state says what it waits on.
        nodes = [node for node in data if node != "__interrupt__"]
        if nodes:
            print("· " + ", ".join(nodes))
    elif event == "error":
        print(f"The run failed on the server: {data}", file=sys.stderr)
        raise SystemExit(1)


def respond(request: dict[str, Any], preset: str | None) -> dict[str, Any]:
    """The answer to a question to the user: the preset, or asked in the terminal."""
    print(f"\nQuestion: {request['args']['question']}")
    if preset is None and not sys.stdin.isatty():
        raise Waiting  # --approve answers approvals only; a question needs --answer
    return {"type": "respond", "message": preset or input("your answer: ").strip()}


def decide(
    request: dict[str, Any], config: dict[str, Any], presets: dict[str, Any]
) -> dict[str, Any]:
    """One decision for one action request: the preset, or asked in the terminal."""
    allowed = config["allowed_decisions"]
    if "respond" in allowed:
        return respond(request, presets.get("answer"))
    preset = presets.get("decision")
    print(f"\nApproval needed: {request['name']} {json.dumps(request['args'])}")
    print(f"  {request['description']}")
    print(f"  allowed: {', '.join(allowed)}")
    # "remember": true in the review config offers "don't ask again" for this tool.
    choices = "approve/always/reject" if config.get("remember") else "approve/reject"
    answer = preset or input(f"approve or reject? [{choices}] ").strip().lower()
    if answer == "always" and config.get("remember") and "approve" in allowed:
        return {"type": "approve", "remember": True}
    if answer.startswith("a") and "approve" in allowed:
        return {"type": "approve"}
    return {"type": "reject", "message": "declined from the SDK example"}


def interrupts_of(state: dict[str, Any]) -> list[dict[str, Any]]:
    """What the thread waits on, from its state's tasks (works on both servers)."""
    return [i for task in state.get("tasks") or [] for i in task.get("interrupts") or []]


def wait_here(thread: str, pending: list[dict[str, Any]], argv: list[str]) -> None:
    """Print the calls waiting on `thread` and the commands that answer them; raise Waiting."""
    print(f"\nWaiting on thread {thread} (no terminal to ask in). Waiting for your answer:")
    kinds = set()
    for interrupt in pending:
        value = interrupt["value"]
        for request, config in zip(value["action_requests"], value["review_configs"], strict=True):
            kinds.add("question" if "respond" in config["allowed_decisions"] else "approval")
            print(f"  {request['name']} {json.dumps(request['args'])}")
    # Shell-quoted, so each command can be pasted as it is printed.
    command = [sys.executable, *argv, "--thread", thread]
    if "approval" in kinds:
        print(f"Approve: {shlex.join([*command, '--approve'])}")
        print(f"Reject:  {shlex.join([*command, '--reject'])}")
    if "question" in kinds:
        print(f"Answer the question: {shlex.join([*command, '--answer', 'TEXT'])}")
    if any(arg == "--token" or arg.startswith("--token=") for arg in sys.argv):
        print(f"(The token is not printed: add --token again, or set {TOKEN_ENV}.)")
    raise Waiting


def answers_to(pending: list[dict[str, Any]], presets: dict[str, Any]) -> dict[str, Any]:
    """One answer per waiting interrupt (one per task), by the id of the question shown."""
    answers = {}
    for interrupt in pending:
        value = interrupt["value"]
        requests, configs = value["action_requests"], value["review_configs"]
        decisions = [decide(r, c, presets) for r, c in zip(requests, configs, strict=True)]
        answers[interrupt["id"]] = {"decisions": decisions}
    return answers


async def main(
    url: str,
    request: str,
    context: dict[str, Any],
    presets: dict[str, Any],
    thread: str | None = None,
    token: str | None = None,
    key: str | None = None,
) -> str:
    """Run `request` to its answer (or answer `thread`'s waiting calls), deciding approvals."""
    await reachable(url)
    # api_key None when there is none: the SDK would otherwise send LANGSMITH_API_KEY (a
    # tracing key, not this server's) as x-api-key, and a server with API keys refuse it.
    async with get_client(url=url, api_key=key, headers=headers_for(token)) as client:
        await check_serves_graph(client)
        send: dict[str, Any] = {"input": {"messages": [{"role": "user", "content": request}]}}
        if thread is None:
            thread = (await client.threads.create())["thread_id"]
        else:
            send = {}
        print(f"thread {thread}")
        while True:
            if send:
                async for part in client.runs.stream(
                    thread,
                    GRAPH,
                    context=context,
                    stream_mode=["updates", "custom"],
                    stream_subgraphs=True,
                    **send,
                ):
                    show(part.event, part.data)
            state = await client.threads.get_state(thread)
            pending = interrupts_of(dict(state))
            if not pending:
                break
            unanswered = presets.get("decision") is None and presets.get("answer") is None
            if unanswered and not sys.stdin.isatty():
                wait_here(thread, pending, _without_thread(sys.argv))
            # Keyed by id even for one: an answer must not land on a question that replaced it.
            send = {"command": {"resume": answers_to(pending, presets)}}
    values: Any = state["values"]
    messages = values.get("messages") or []
    return str(messages[-1]["content"]) if messages else ""


def _without_thread(argv: list[str]) -> list[str]:
    """`argv` without `--thread ID` and `--token TOKEN` (the printed commands never show it)."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in ("--thread", "--token"):
            skip = True
        elif not arg.startswith(("--thread=", "--token=")):
            kept.append(arg)
    return kept


def mcp_config(path: Path) -> Any:
    """The MCP config document at `path`; one line and exit 2 when it cannot be read."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        problem = f"Cannot read the MCP config file {str(path)!r}: {exc.strerror}; check --config."
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        problem = f"The MCP config file {str(path)!r} is not valid JSON: {exc}; fix it."
    print(problem, file=sys.stderr)
    sys.exit(USAGE)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", nargs="?", default="http://127.0.0.1:2024", help="server URL")
    parser.add_argument("request", help="what you want done")
    parser.add_argument("--config", type=Path, help="MCP config file sent as mcp_config")
    parser.add_argument("--model", help="model for every node, e.g. offline:rules")
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument("--approve", action="store_true", help="approve every request")
    choice.add_argument("--reject", action="store_true", help="reject every request")
    parser.add_argument("--answer", help="the answer to any question the run asks")
    parser.add_argument("--thread", help="answer the calls this waiting thread holds")
    parser.add_argument(
        "--token", help=f"bearer token for a server with auth (default {TOKEN_ENV})"
    )
    return parser.parse_args()


if __name__ == "__main__":
    args = _arguments()
    # This client reads and answers the HITL format (a server may default to agent_inbox).
    run_context: dict[str, Any] = {"interrupt_format": "hitl"}
    if args.config:
        run_context["mcp_config"] = mcp_config(args.config)
    if args.model:
        run_context["model"] = args.model
    decided = "approve" if args.approve else "reject" if args.reject else None
    presets = {"decision": decided, "answer": args.answer}
    token = args.token or os.environ.get(TOKEN_ENV) or None
    key = os.environ.get(KEY_ENV) or None
    if token and key:
        print(
            f"Both a token (--token or {TOKEN_ENV}) and an API key ({KEY_ENV}) are set: keep "
            "the one you mean and unset the other.",
            file=sys.stderr,
        )
        sys.exit(USAGE)
    try:
        answer = asyncio.run(
            main(args.url, args.request, run_context, presets, args.thread, token, key)
        )
    except Waiting:
        sys.exit(WAITING)
    except NotServed:
        print(NOT_SERVED.format(url=args.url.rstrip("/"), graph=GRAPH), file=sys.stderr)
        sys.exit(UNREACHABLE)
    except httpx.TransportError as exc:
        print(f"Cannot reach the server at {args.url}: {exc}; is it running?", file=sys.stderr)
        sys.exit(UNREACHABLE)
    except httpx.HTTPStatusError as exc:  # the SDK's APIStatusError, or httpx's own
        print(refused(args.url, exc, args.thread), file=sys.stderr)
        sys.exit(UNREACHABLE)
    except KeyboardInterrupt:
        print("Stopped.", file=sys.stderr)
        sys.exit(130)
    print(f"\nAnswer:\n{answer}")
