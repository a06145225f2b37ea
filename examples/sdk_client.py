"""Drive the with_planner graph on a LangGraph API server (`langgraph dev` or Aegra) with the SDK.

Run: python examples/sdk_client.py [URL] 'How many units of WID-1 are in stock, then write a
note titled "stock"' [--config mcp.json] [--model offline:rules] [--approve | --reject]
[--answer TEXT] [--thread ID]

Without a terminal and without --approve / --reject it behaves like `mcp-planner run`: it prints
the calls waiting for approval and how to answer them (`--thread ID --approve`), and exits 3.
Exit codes: 0 answered, 1 the run failed, 3 waiting for approval, 130 Ctrl-C.

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
import sys
from pathlib import Path
from typing import Any

from langgraph_sdk import get_client

GRAPH = "with_planner"
"""The graph id the server serves."""

WAITING = 3
"""Exit code when calls wait for approval and nobody can be asked (as `mcp-planner`)."""


class Waiting(Exception):
    """The run waits for approval and there is no terminal to ask in."""


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
    for interrupt in pending:
        for request in interrupt["value"]["action_requests"]:
            print(f"  {request['name']} {json.dumps(request['args'])}")
    command = " ".join([sys.executable, *argv, "--thread", thread])
    print(f"Approve: {command} --approve\nReject:  {command} --reject")
    print(f"Answer a question: {command} --answer TEXT")
    raise Waiting


async def main(
    url: str,
    request: str,
    context: dict[str, Any],
    presets: dict[str, Any],
    thread: str | None = None,
) -> str:
    """Run `request` to its answer (or answer `thread`'s waiting calls), deciding approvals."""
    async with get_client(url=url) as client:
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
            # One interrupt per task waiting; answer each by the id of the question shown.
            answers = {}
            for interrupt in pending:
                value = interrupt["value"]
                requests, configs = value["action_requests"], value["review_configs"]
                decisions = [decide(r, c, presets) for r, c in zip(requests, configs, strict=True)]
                answers[interrupt["id"]] = {"decisions": decisions}
            # Keyed by id even for one: an answer must not land on a question that replaced it.
            send = {"command": {"resume": answers}}
    values: Any = state["values"]
    messages = values.get("messages") or []
    return str(messages[-1]["content"]) if messages else ""


def _without_thread(argv: list[str]) -> list[str]:
    """`argv` without a `--thread ID` it may hold (the printed commands add their own)."""
    if "--thread" not in argv:
        return argv
    at = argv.index("--thread")
    return argv[:at] + argv[at + 2 :]


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
    return parser.parse_args()


if __name__ == "__main__":
    args = _arguments()
    # This client reads and answers the HITL format (a server may default to agent_inbox).
    run_context: dict[str, Any] = {"interrupt_format": "hitl"}
    if args.config:
        run_context["mcp_config"] = json.loads(args.config.read_text())
    if args.model:
        run_context["model"] = args.model
    decided = "approve" if args.approve else "reject" if args.reject else None
    presets = {"decision": decided, "answer": args.answer}
    try:
        answer = asyncio.run(main(args.url, args.request, run_context, presets, args.thread))
    except Waiting:
        sys.exit(WAITING)
    except KeyboardInterrupt:
        print("Stopped.", file=sys.stderr)
        sys.exit(130)
    print(f"\nAnswer:\n{answer}")
