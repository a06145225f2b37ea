"""Questions asked in a terminal: approvals, edits, answers. Ctrl-C at any of them stops cleanly."""

from __future__ import annotations

import json
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.markup import escape
from rich.prompt import Prompt

from common.safety.questions import is_question_request
from common.safety.quoting import one_line
from strategies.cli.answers import answer_value, questions_of
from strategies.cli.render import out, panel, problem
from strategies.cli.request import stdin_was_read


class Stopped(Exception):
    """The user pressed Ctrl-C (or closed the input) at a prompt: nothing was answered."""


def stdin_is_terminal() -> bool:
    """Whether a person can answer prompts: not once `run -` read the request (tests patch it)."""
    return not stdin_was_read() and sys.stdin is not None and sys.stdin.isatty()


@contextmanager
def _ctrl_c_raises() -> Iterator[None]:
    # Under asyncio.run a first Ctrl-C only cancels the main task, which a blocking prompt
    # never notices; while a prompt waits, Ctrl-C raises at once instead.
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def ask(question: str, **options: Any) -> str:
    """Prompt.ask on the main output; Ctrl-C or end of input raises Stopped."""
    try:
        with _ctrl_c_raises():
            return str(Prompt.ask(question, console=out, **options))
    except (KeyboardInterrupt, EOFError) as exc:
        raise Stopped from exc


def ask_turn() -> str | None:
    """The next chat message; None when the input ends (Ctrl-D), Stopped on Ctrl-C."""
    try:
        with _ctrl_c_raises():
            return str(Prompt.ask("[bold]you[/]", console=out))
    except EOFError:
        return None
    except KeyboardInterrupt as exc:
        raise Stopped from exc


def _ask_args(current: dict[str, Any]) -> dict[str, Any]:
    """New arguments as a JSON object, asked again until they parse."""
    while True:
        raw = ask("new args as JSON", default=json.dumps(current))
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            problem(f"Not valid JSON ({exc}); try again.")
            continue
        if isinstance(value, dict):
            return value
        problem('The args must be a JSON object, like {"title": "x"}; try again.')


REMEMBER_CHOICE = "approve / t = approve, don't ask again for this tool / edit / reject"
"""The approval prompt when the request offers to remember the approval."""


def ask_approval(value: dict[str, Any]) -> dict[str, Any]:
    """One decision per action request, asked in order.

    Where the request offers it (`"remember": true` in the review config), `t` approves and
    remembers: the tool is not asked about again while its definition stays the same.
    """
    if value.get("error"):
        problem(str(value["error"]))
    decisions: list[dict[str, Any]] = []
    configs = value.get("review_configs") or []
    for i, req in enumerate(value["action_requests"]):
        config = configs[i] if i < len(configs) and isinstance(configs[i], dict) else {}
        # One line of description and escaped JSON: nothing in an argument can start a line;
        # the title is markup, so the tool's name is escaped there.
        body = f"{one_line(str(req['description']))}\n\nargs: {json.dumps(req['args'], indent=2)}"
        out.print(panel(body, f"Approve {escape(one_line(str(req['name'])))}?", "yellow"))
        if config.get("remember") is True:
            choice = ask(REMEMBER_CHOICE, choices=["a", "t", "e", "r"], default="r")
        else:
            choice = ask("approve / edit / reject", choices=["a", "e", "r"], default="r")
        if choice == "t":
            decisions.append({"type": "approve", "remember": True})
        elif choice == "a":
            decisions.append({"type": "approve"})
        elif choice == "e":
            args = _ask_args(req["args"])
            decisions.append({"type": "edit", "edited_action": {"name": req["name"], "args": args}})
        else:
            decisions.append({"type": "reject", "message": ask("reason (optional)", default="")})
    return {"decisions": decisions}


def ask_in_terminal(value: Any) -> Any:
    """The answer to one interrupt: an approval, a question for the user, anything else."""
    if is_question_request(value) or (isinstance(value, dict) and value.get("type") == "ask_user"):
        return ask_questions(value)
    if isinstance(value, dict) and "action_requests" in value:
        return ask_approval(value)
    return ask(escape(f"The run asks: {value!r}"))


def ask_questions(value: Any) -> Any:
    """The answers to an interrupt's questions, in the format it asks in."""
    if error := (value.get("error") if isinstance(value, dict) else None):
        problem(str(error))
    answers = [ask(f"[bold]{escape(one_line(q))}[/]") for q in questions_of(value)]
    return answer_value(value, answers)
