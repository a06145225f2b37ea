"""Argument-level destructive intent: code that changes things, or settings that act.

A tool that runs queries or commands is only as safe as what it is asked to run: `run_query`
may read or drop a table. Each argument is first given a kind (`arg_kinds`): SQL is read by a
parser (`sql`), shell commands and code of unknown language by the eager patterns (`shell`,
`code_patterns`), and free text (a search query, a message, a title) is not read as code at
all. Every tool's arguments are also checked for settings that act whatever the tool is
(`risky_settings`): a safety check switched off, a program to launch, page actions, acting URLs.
The readers of code (the SQL and shell parsers, sqlglot and bashlex, and the eager patterns) are
imported by the first argument of their kind, not with this module, which the graph's nodes
import: together they were more than a tenth of the time importing the graph took.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from common.safety.arg_kinds import ArgumentKind, ToolReading, argument_kind, read_tool
from common.safety.arg_kinds import takes_commands as takes_commands
from common.safety.wording import name_tokens

_Strings = tuple[str, str, list[str]]
"""Where a value sits, the name nearest to it, and its text (a list of strings kept apart)."""


def _strings(value: Any, path: str, key: str, depth: int = 0) -> Iterator[_Strings]:
    """Every string inside an argument value, with where it sits and its nearest name.

    A list of strings stays together (`["git", "push", "-f"]` is one command line).
    """
    if depth > 32:
        return
    if isinstance(value, str):
        yield path, key, [value]
    elif isinstance(value, Mapping):
        for name, item in value.items():
            yield from _strings(item, f"{path}.{name}", str(name), depth + 1)
    elif isinstance(value, list | tuple):
        if value and all(isinstance(item, str) for item in value):
            yield path, key, list(value)
            return
        for i, item in enumerate(value):
            yield from _strings(item, f"{path}[{i}]", key, depth + 1)


def _code_intent(kind: ArgumentKind, parts: list[str]) -> str | None:
    """What a code argument's text does that needs a human, read as its kind says."""
    if kind == "sql":
        from common.safety.sql import sql_intent

        return next((label for part in parts if (label := sql_intent(part)) is not None), None)
    if kind == "shell":
        from common.safety.shell import shell_intent

        return shell_intent(" ".join(parts))
    if kind == "code":
        from common.safety.code_patterns import scan

        return scan(" ".join(parts))
    return None


def _argument_intent(tool: ToolReading, key: str, value: Any) -> str | None:
    """Why one top-level argument's code is destructive, as a reason, or None."""
    for path, nearest, parts in _strings(value, key, key):
        kind = argument_kind(tool, nearest, key)
        label = _code_intent(kind, parts)
        if label is not None:
            return f"argument {path!r} contains {label}"
    return None


SAFETY_SWITCH_TOKENS = frozenset({"dangerous", "unsafe", "insecure"})
"""Words in a boolean argument's name that, set true, lift a safety check (`allowDangerous`)."""
PROGRAM_TOKENS = frozenset({"executable"})
"""Words in an argument's name that make its value a program to run (`executablePath`)."""
ACTION_LIST_TOKENS = frozenset({"actions", "steps"})
"""Words naming a list of things a browser should do (`scrapeOptions.actions`)."""
URL_TOKENS = frozenset(
    {"url", "urls", "uri", "href", "link", "location", "src", "address", "target", "goto"}
    | {"destination", "redirect", "endpoint"}
)
"""Words in an argument's name that make its value a place to go (`url`, `targetHref`)."""
_SAFE_DATA = (
    "data:image/png",
    "data:image/jpeg",
    "data:image/gif",
    "data:image/webp",
    "data:text/plain",
)
"""`data:` URLs that only show something; any other (`text/html`, `text/xml`, svg) can run code."""
_SCRIPT_SCHEMES = ("javascript:", "vbscript:")
"""URL schemes that run code in the page instead of loading one (`javascript:form.submit()`)."""
_ACTION_QUERY_KEYS = frozenset(
    {"action", "op", "do", "cmd", "command", "method", "task", "_method"}
)
"""Query parameters whose value says what a link does (`?action=delete`, `?task=articles.trash`)."""
_TRUE_FLAGS = frozenset({"", "1", "true", "yes", "y", "on", "t"})
"""Values that switch a query flag on (`?unsubscribe=1`); `?order=asc` is a setting, not an act."""


def _as_browser_reads(url: str) -> str:
    """The URL as a browser reads it: tabs and newlines dropped, leading controls stripped."""
    return re.sub(r"[\t\n\r]", "", url).lstrip("".join(map(chr, range(33))))


LINK_ACTIONS = frozenset(
    " ".join(
        (
            "unsubscribe subscribe confirm approve reject decline accept cancel delete remove",
            "destroy logout signout pay checkout vote unfollow follow like activate deactivate",
            "revoke disable enable purchase buy order transfer send trash rollback reboot restart",
            "optout verify",
        )
    ).split()
)
"""Words in a link that does something when followed (`/unsubscribe`, `/orders/3/cancel`); form
pages (`/login`, `/edit`, `/register`) only show something and are not listed."""


def _acting_word(text: str) -> str | None:
    """The first `LINK_ACTIONS` word among the words of a URL part, if any."""
    return next((w for w in name_tokens(text) if w in LINK_ACTIONS), None)


def _acting_segment(path: str) -> str | None:
    """The action a path ends with, as its whole last segment (`/orders/3/cancel`, `/optout`).

    Only the whole segment: a page titled with the word (`/git-checkout`, `How-to-cancel-an-order`,
    `/wiki/Transfer_learning`) is documentation, not an act.
    """
    segments = [seg for seg in unquote(path).split("/") if seg]
    last = segments[-1].lower().removesuffix(".php").removesuffix(".cgi") if segments else ""
    return last if last in LINK_ACTIONS else None


def _url_risk(url: str) -> str | None:
    """Why going to this URL may act, not only show: a script, or a link that names an action.

    A link is acting when its last path segment (or a `#/` route's) is a `LINK_ACTIONS` word
    (`/orders/3/cancel`, `/unsubscribe`), or its query names one as an action
    (`?action=delete`, `?_method=DELETE`) or switches one on (`?confirm=1`): such GET links
    confirm, unsubscribe or pay when followed.
    """
    seen = _as_browser_reads(url)
    lowered = seen.lower()
    if lowered.startswith(_SCRIPT_SCHEMES):
        return "is a script URL (it runs code in the page)"
    if lowered.startswith("data:") and not lowered.startswith(_SAFE_DATA):
        return "is a data: page (it can run code in the page)"
    parts = urlsplit(seen)
    if parts.scheme.lower() not in ("http", "https", ""):
        return None
    route = parts.fragment if parts.fragment.startswith("/") else ""
    verbs = [_acting_segment(parts.path), _acting_segment(route.split("?")[0])]
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        key, value = key.lower(), value.lower()
        if key in _ACTION_QUERY_KEYS:
            verbs.append(_acting_word(value))
        elif key in LINK_ACTIONS and value in _TRUE_FLAGS:
            verbs.append(key)
    verb = next((v for v in verbs if v is not None), None)
    return None if verb is None else f"is a link that acts ({verb!r}) when followed"


PAGE_ACTIONS = frozenset(
    {"click", "write", "type", "press", "fill", "select", "submit", "drag", "upload", "tap"}
    | {"executejavascript", "evaluate"}
)
"""Browser actions whose effect the page decides (a click may buy, a script may post)."""


def _entries(value: Any, path: str, depth: int = 0) -> Iterator[tuple[str, str, Any]]:
    """Every (path, key, value) inside an argument value, nested mappings and lists included."""
    if depth > 32:
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield f"{path}.{key}", str(key), item
            yield from _entries(item, f"{path}.{key}", depth + 1)
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _entries(item, f"{path}[{i}]", depth + 1)


def _page_action(item: Any) -> str | None:
    """The page-changing action an action-list item asks for, if any."""
    if not isinstance(item, Mapping):
        return None
    for key in ("type", "action", "kind"):
        kind = item.get(key)
        if isinstance(kind, str) and kind.lower().replace("_", "") in PAGE_ACTIONS:
            return kind
    return None


def risky_settings(args: Mapping[str, Any]) -> str | None:
    """Why a call's arguments need a human whatever the tool's verdict, or None.

    A safety check switched off (`allowDangerous: true`), a program to launch
    (`executablePath`), page actions whose effect the page decides (click, type, a script), or a
    URL that acts when followed (`javascript:`, `/orders/3/cancel`, `?action=delete`).
    """
    for path, key, value in _entries(dict(args), ""):
        path = path.removeprefix(".")
        words = set(name_tokens(key))
        if value is True and (words & SAFETY_SWITCH_TOKENS or key.lower() == "force"):
            return f"argument {path!r} is true (it lifts a safety check)"
        if words & PROGRAM_TOKENS and isinstance(value, str) and value.strip():
            return f"argument {path!r} names a program to run"
        if words & URL_TOKENS:
            urls = [value] if isinstance(value, str) else value
            for url in urls if isinstance(urls, list | tuple) else ():
                if isinstance(url, str) and (risk := _url_risk(url)) is not None:
                    return f"argument {path!r} {risk}"
        if words & ACTION_LIST_TOKENS and isinstance(value, list | tuple):
            for i, item in enumerate(value):
                action = _page_action(item)
                if action is not None:
                    return f"argument '{path}[{i}]' asks a page to {action}"
    return None


def destructive_intent(
    tool_name: str,
    input_schema: Mapping[str, Any] | None,
    args: Mapping[str, Any],
    *,
    description: str | None = None,
) -> str | None:
    """Why the call's arguments look destructive.

    For every tool: `risky_settings`. Then each argument that is code (see `arg_kinds`; the
    tool's `description` helps tell) is read as its kind: SQL by the parser, shell commands and
    code by the eager patterns; free text is not read as code. Returns a short reason such as
    "argument 'sql' contains SQL DROP TABLE", or None when nothing is found.
    """
    risky = risky_settings(args)
    if risky is not None:
        return risky
    tool = read_tool(tool_name, input_schema, description)
    for key, value in args.items():
        reason = _argument_intent(tool, str(key), value)
        if reason is not None:
            return reason
    return None
