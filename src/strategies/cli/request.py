"""The request `run` was given: the argument, or standard input for `-` (the Unix convention).

`echo 'How many units of WID-1 are in stock' | mcp-planner run -` and a here-doc of several lines
both work. Standard input is then spent: no prompt can read an answer from it, so a run that
needs approval ends as it does without a terminal (the pending calls, the resume command, exit
3), even when the request was typed at a terminal and ended with Ctrl-D.
"""

from __future__ import annotations

import sys
from typing import NoReturn

from strategies.cli.exits import CliProblem

STDIN = "-"
"""The REQUEST that means: read it from standard input."""

EMPTY_REQUEST = (
    "The request is empty: say what you want done, e.g. mcp-planner run "
    "'How many units of WID-1 are in stock'."
)
"""The line for `run ''`: a usage error, so no thread is made for it."""

EMPTY_STDIN = (
    "Standard input held no request (run - reads it from there): pipe one in, e.g. echo "
    "'How many units of WID-1 are in stock' | mcp-planner run -."
)
"""The line for `run -` with nothing on standard input."""

_stdin = {"read": False}
"""Whether the request was read from standard input (then nothing is asked there)."""


def stdin_was_read() -> bool:
    """Whether standard input held the request, so no answer can be asked for on it."""
    return _stdin["read"]


def request_from(given: str) -> str:
    """The request: `given`, or for `-` all of standard input (surrounding blanks removed)."""
    _stdin["read"] = given == STDIN
    if not _stdin["read"]:
        return given
    stdin = sys.stdin
    if stdin is None:
        return ""
    if stdin.isatty():
        from strategies.cli.render import notice

        notice("Type the request, then Ctrl-D on a line of its own (run - reads standard input).")
    raw = getattr(stdin, "buffer", None)
    text = raw.read().decode(stdin.encoding or "utf-8", "replace") if raw else stdin.read()
    return text.strip()


def refuse_empty() -> NoReturn:
    """Refuse an empty request before a thread exists (the graph would save one to say so)."""
    raise CliProblem(EMPTY_STDIN if stdin_was_read() else EMPTY_REQUEST)
