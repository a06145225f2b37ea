"""Shell arguments: the eager patterns, minus quoted text that a printing command only shows.

A command argument keeps every eager check (`rm` anywhere, `$(rm …)`, backticks, `bash -c '…'`,
`eval`, `xargs rm`, `find -exec rm`, pipes into a shell): a regex over the whole text cannot
miss a command hidden in a substitution, where a parse-then-judge reading could. bashlex only
narrows one thing: a quoted literal handed to `echo`, `printf` or `grep` (`grep -r 'rm' .`,
`echo "DROP TABLE"`) is data, so it is blanked before the patterns run. Blanking happens only
where that text cannot reach anything that runs it: a top-level command, not inside a
substitution or a compound command, and not feeding a pipe; the quotes hold no `$`, backtick or
backslash; nothing in the text defines a function, an alias, a variable or PATH (which could make
`echo` run something else); and redirections stay visible. Anything bashlex cannot parse is
scanned as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import bashlex
from bashlex import ast

from common.safety.code_patterns import scan

PRINTING_COMMANDS = frozenset({"echo", "printf", "grep", "egrep", "fgrep"})
"""Commands whose quoted arguments are only shown or matched, never run.

Searchers that can start a program (`rg --pre`, `git grep -O`, `ack --pager`) are left out.
"""
MAX_PARSED = 10_000
"""Longer commands are scanned as written: the patterns are linear, the parser is not."""
_UNSAFE_IN_QUOTES = frozenset("$`\\\"'")
_REDEFINES = re.compile(
    r"\b(?:alias|function|enable|builtin|hash|source|export|declare|typeset|readonly|local|eval"
    r"|PATH|BASH_ENV|ENV|IFS)\b|(?:^|[\s;&|])\.\s"
)
"""Words that can make `echo` or `grep` run something else (a function or alias of that name,
another PATH): any of them in the text, and nothing is blanked."""


class _Definitions(ast.nodevisitor):  # type: ignore[misc]
    """Finds function definitions and variable assignments anywhere in a parsed command."""

    def __init__(self) -> None:
        self.found = False

    def visitfunction(self, n: Any, name: Any, body: Any, parts: Any) -> None:
        """A function definition (it may be named `echo`)."""
        self.found = True

    def visitassignment(self, n: Any, word: Any) -> None:
        """An assignment (it may set PATH for a command)."""
        self.found = True


def _may_redefine(text: str, trees: list[Any]) -> bool:
    """Whether the command may change what a printing command's name runs."""
    if _REDEFINES.search(text):
        return True
    visitor = _Definitions()
    for tree in trees:
        visitor.visit(tree)
    return visitor.found


def _commands(node: Any) -> Iterator[Any]:
    """The commands whose output nobody runs: top-level ones and the last of each pipeline."""
    kind = getattr(node, "kind", "")
    if kind == "command":
        yield node
    elif kind == "list":
        for part in node.parts:
            yield from _commands(part)
    elif kind == "pipeline":
        commands = [part for part in node.parts if getattr(part, "kind", "") == "command"]
        if commands:
            yield commands[-1]


def _data_spans(text: str, command: Any) -> Iterator[tuple[int, int]]:
    """Where a printing command's quoted literal arguments sit (inside the quotes)."""
    words = list(command.parts)
    if not words or getattr(words[0], "kind", "") != "word":
        return
    if text[slice(*words[0].pos)] not in PRINTING_COMMANDS:
        return
    for word in words[1:]:
        if getattr(word, "kind", "") != "word" or getattr(word, "parts", None):
            continue
        start, end = word.pos
        source = text[start:end]
        quoted = len(source) >= 2 and source[0] in "'\"" and source.endswith(source[0])
        if quoted and not _UNSAFE_IN_QUOTES & set(source[1:-1]):
            yield start + 1, end - 1


def data_blanked(text: str) -> str:
    """The command with what printing commands only show blanked out, or as written."""
    if len(text) > MAX_PARSED:
        return text
    try:
        trees = bashlex.parse(text)
    except Exception:  # bashlex raises many kinds; any of them means: scan as written.
        return text
    if _may_redefine(text, trees):
        return text
    chars = list(text)
    for tree in trees:
        for command in _commands(tree):
            for start, end in _data_spans(text, command):
                chars[start:end] = " " * (end - start)
    return "".join(chars)


def shell_intent(text: str) -> str | None:
    """Why a shell command changes something (`shell rm`), or None; eager, see the module."""
    return scan(data_blanked(text))
