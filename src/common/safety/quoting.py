"""Untrusted text (a call's arguments, reasons quoting them) shown inside an approval question.

A question is only worth what the person reads in it, so nothing in an argument may end its
quoting and write lines of its own ("Why approval: read-only lookup"). Three renderings:
`one_line` for plain text (every line break, control, format or separator character shown as
its escape, so text can neither start a new line nor reorder itself), `code_span` for Markdown
inline code (a backtick fence longer than any backtick run inside, per CommonMark's code-span
rule, around one line) and `markdown_text` for Markdown prose (one line, with the characters
that start Markdown constructs backslash-escaped). Hand-written: Markdown libraries render or
parse Markdown; none builds a code span for arbitrary text.
"""

from __future__ import annotations

import re

MARKDOWN_SPECIALS = "\\`*_[]<>|~#!"
"""ASCII punctuation that opens a Markdown construct inline; CommonMark lets each be escaped."""

_BACKTICKS = re.compile(r"`+")


def _shown(char: str) -> str:
    """`char` as it may appear on one line: itself when printable, else its escape."""
    if char == " " or char.isprintable():
        return char
    return char.encode("unicode_escape").decode("ascii")


def one_line(text: str) -> str:
    """`text` on one line: line breaks, controls and invisible characters written as escapes."""
    if text.isprintable():  # every character shown as itself: the common case, in C
        return text
    return "".join(_shown(c) for c in text)


def code_span(text: str) -> str:
    """`text` as Markdown inline code that nothing inside it can close."""
    content = one_line(text)
    longest = max((len(run) for run in _BACKTICKS.findall(content)), default=0)
    fence = "`" * (longest + 1)
    # CommonMark strips one space from each side; needed when the content touches a backtick.
    if content.startswith(("`", " ")) or content.endswith(("`", " ")):
        content = f" {content} "
    return f"{fence}{content}{fence}"


def markdown_text(text: str) -> str:
    """`text` as one line of Markdown prose that renders as exactly these characters."""
    return "".join(f"\\{c}" if c in MARKDOWN_SPECIALS else c for c in one_line(text))
