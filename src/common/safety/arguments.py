"""Argument-level destructive intent: a query or command tool handed a destructive payload.

A tool that runs queries or commands is only as safe as what it is asked to run: `run_query`
may read or drop a table. These checks look inside the arguments of such tools for the
statements and commands that change or destroy things. They are deliberately eager: flagging
a harmless call costs a human a click, missing a destructive one cannot be undone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from common.patterns import then_in_segment as _then
from common.safety.wording import name_tokens, with_stems

COMMAND_NAME_TOKENS = frozenset(
    " ".join(
        (
            "query queries sql exec execute run shell bash command commands cmd script scripts",
            "terminal eval statement statements",
        )
    ).split()
)
"""Words in a tool's name that say it runs queries or commands."""
COMMAND_ARG_KEYS = frozenset(
    {"query", "sql", "statement", "command", "cmd", "script", "shell", "code", "bash", "commands"}
)
"""Argument names that carry a query or a command."""
_COMMAND_KEY_TOKENS = (COMMAND_ARG_KEYS - {"query", "code"}) | {"statements", "scripts"}
"""Words that make a compound argument name (`sql_text`, `shellCommand`) a command one.

"query" and "code" are left out: `search_query` and `zip_code` carry neither.
"""


def _is_command_key(key: str) -> bool:
    """Whether an argument (or schema property) name carries a query or a command."""
    return key.lower() in COMMAND_ARG_KEYS or bool(set(name_tokens(key)) & _COMMAND_KEY_TOKENS)


def takes_commands(
    tool_name: str, input_schema: Mapping[str, Any] | None, args: Mapping[str, Any]
) -> bool:
    """Whether the tool runs queries or commands, by its name, its schema or its arguments."""
    if with_stems(name_tokens(tool_name)) & COMMAND_NAME_TOKENS:
        return True
    properties = input_schema.get("properties") if isinstance(input_schema, Mapping) else None
    keys = list(args)
    if isinstance(properties, Mapping):
        keys += list(properties)
    return any(isinstance(k, str) and _is_command_key(k) for k in keys)


# --- patterns ---------------------------------------------------------------------------------
# Every check is linear in the text: a command followed by a flag is found by locating the
# command once per command segment and then searching the flag after it, never by a regex
# with an unbounded gap (which is quadratic on hostile input).

_I = re.IGNORECASE
_STATEMENTS = re.compile(r";")
"""What ends one SQL statement."""

_Check = Callable[[str], bool]
"""A test on one string: does it contain the pattern?"""


def _search(pattern: str) -> _Check:
    """A plain (case-insensitive) pattern search."""
    compiled = re.compile(pattern, _I)
    return lambda text: compiled.search(text) is not None


def _word(word: str) -> _Check:
    """A command word standing alone: `rm`, `/bin/rm`, `$(rm`, but not `--rm` or `perm`."""
    return _search(rf"(?<![\w.\-]){word}(?![\w\-])")


_HTTP_WRITE = r"(?:post|put|delete|patch)\b"
_SHELL: list[tuple[str, _Check]] = [
    (
        "git push --force",
        _then(
            r"\bgit\s+push\b",
            r"\s(?:--force(?:-with-lease|-if-includes)?\b|-[a-z]*f[a-z]*\b|\+\S)",
        ),
    ),
    (
        "git push --delete",
        _then(r"\bgit\s+push\b", r"\s(?:--delete\b|-d\b|--mirror\b|--prune\b|:\S)"),
    ),
    ("git reset --hard", _then(r"\bgit\s+reset\b", r"\s--hard\b")),
    ("git clean -f", _then(r"\bgit\s+clean\b", r"\s(?:-[a-z]*f|--force\b)")),
    ("git branch -D", _then(r"\bgit\s+branch\b", r"\s(?:-[a-z]*d\b|--delete\b)")),
    (
        "git checkout discarding changes",
        _search(r"\bgit\s+(?:checkout\s+(?:-f\b|--force\b|--(?=\s)|\.(?=\s|$))|restore\b)"),
    ),
    ("git stash drop", _search(r"\bgit\s+stash\s+(?:drop|clear)\b")),
    (
        "git history rewrite",
        _search(
            r"\bgit\s+(?:filter-branch|filter-repo|reflog\s+expire|update-ref\s+-d|gc\s+--prune)"
        ),
    ),
    (
        "an HTTP write request",
        _then(
            r"\b(?:curl|wget)\b",
            rf"\s(?:-X\s*|--request[\s=]+|--method[\s=]+)['\"]?{_HTTP_WRITE}",
        ),
    ),
    (
        "curl sending data",
        _then(
            r"\bcurl\b",
            r"\s(?:-[a-z]*d|--data(?:-\w+)?\b|(?-i:-F)|--form\b|--json\b|(?-i:-T)"
            r"|--upload-file\b)",
        ),
    ),
    ("wget sending data", _then(r"\bwget\b", r"\s--(?:post|body)-(?:data|file)\b")),
    ("curl writing a file", _then(r"\bcurl\b", r"\s(?:-o\b|--output\b)")),
    (
        "a pipe into a shell",
        _search(
            r"\|\s*(?:sudo\s+)?(?:sh|bash|zsh|dash|ksh|fish|python[0-9.]*|perl|ruby|node)\b"
            r"|\b(?:sh|bash|zsh|source)\s+<\("
        ),
    ),
    ("sed -i", _then(r"\bsed\b", r"\s(?:-[a-z]*i|--in-place\b)")),
    ("perl -i", _then(r"\bperl\b", r"\s-[a-z]*i")),
    ("find -delete", _then(r"\bfind\b", r"\s-delete\b")),
    ("xargs rm", _then(r"\bxargs\b", r"\s(?:rm|rmdir|shred|unlink|mv|kill)\b")),
    ("crontab -r", _then(r"\bcrontab\b", r"\s-[a-z]*r\b")),
    (
        "systemctl stopping a service",
        _then(r"\bsystemctl\b", r"\s(?:stop|disable|mask|kill|restart|poweroff|reboot|halt)\b"),
    ),
    (
        "a container removal",
        _search(r"\b(?:docker|podman)\s+(?:[\w-]+\s+)?(?:rm|rmi|kill|stop|prune|down)\b"),
    ),
    (
        "kubectl changing the cluster",
        _search(r"\bkubectl\s+(?:delete|drain|replace|patch|apply|scale|cordon)\b"),
    ),
    ("terraform destroy", _search(r"\b(?:terraform|tofu)\s+(?:destroy|apply)\b")),
    ("ln -f", _then(r"\bln\b", r"\s-[a-z]*f")),
]
_SHELL += [
    (f"shell {word}", _word(pattern))
    for word, pattern in [
        ("rm", "rm"),
        ("rmdir", "rmdir"),
        ("unlink", "unlink"),
        ("mv", "mv"),
        ("cp", "cp"),
        ("dd", "dd"),
        ("mkfs", r"mkfs(?:\.\w+)?"),
        ("shred", "shred"),
        ("truncate", "truncate"),
        ("chmod", "chmod"),
        ("chown", "chown"),
        ("chgrp", "chgrp"),
        ("kill", "kill"),
        ("pkill", "pkill"),
        ("killall", "killall"),
        ("shutdown", "shutdown"),
        ("reboot", "reboot"),
        ("halt", "halt"),
        ("poweroff", "poweroff"),
        ("wipefs", "wipefs"),
        ("fdisk", "fdisk"),
        ("tee", "tee"),
        ("del", "del"),
    ]
]

_REDIRECT = re.compile(
    r"(?<![-=<>!])(?:[0-9]|&)?>{1,2}(?![=&>])(?!\s*/dev/(?:null|stdout|stderr|tty)\b)"
)
"""Output redirection `>`, `>>`, `2>`, `&>`; not `2>&1`, `>=`, `->`, `=>` or `> /dev/null`."""

_SQL: list[tuple[str, _Check]] = [
    ("SQL REPLACE INTO", _search(r"\breplace\s+into\b")),
    ("SQL INTO OUTFILE", _search(r"\binto\s+(?:out|dump)file\b")),
    ("SQL LOAD DATA", _search(r"\bload\s+data\b")),
    ("SQL SELECT INTO", _then(r"\bselect\b", r"\binto\b", _STATEMENTS)),
    (
        "a SQL function with side effects",
        _search(
            r"\b(?:pg_terminate_backend|pg_cancel_backend|pg_reload_conf|setval|nextval"
            r"|lo_unlink|lo_import|lo_export|pg_file_write|pg_write_file|dblink_exec"
            r"|pg_drop_\w+|pg_create_\w+)\s*\("
        ),
    ),
    (
        "a database write call",
        _search(
            r"\.(?:delete|update|insert|replace|drop|remove|rename|create|bulkWrite|findOneAnd"
            r"|findAndModify)\w*\s*\("
        ),
    ),
    ("Redis FLUSHALL", _search(r"\bflush(?:all|db)\b")),
]
_SQL += [
    (f"SQL {kw}", _search(rf"\b{kw}\b"))
    for kw in " ".join(
        (
            "DROP DELETE UPDATE INSERT ALTER TRUNCATE MERGE UPSERT GRANT REVOKE CREATE RENAME",
            "COPY CALL EXEC EXECUTE ATTACH DETACH SET REMOVE",
        )
    ).split()
]
_SQL += [
    ("a Redis write", _search(rf"\b{cmd}\b"))
    for cmd in " ".join(
        (
            "HSET HDEL HINCRBY MSET SETEX SETNX GETDEL GETSET EXPIRE PERSIST LPUSH RPUSH LPOP",
            "RPOP LSET LTRIM LREM SADD SREM SPOP ZADD ZREM INCR INCRBY DECR DECRBY APPEND",
        )
    ).split()
]

_CODE: list[tuple[str, _Check]] = [
    (
        "code deleting files",
        _search(
            r"\b(?:os\.(?:remove|unlink|rmdir|removedirs)|shutil\.(?:rmtree|move)|rmtree"
            r"|unlinkSync|rmSync|rmdirSync|fs\.(?:rm|unlink|rmdir)\w*)\b"
        ),
    ),
    (
        "code writing a file",
        _search(
            r"\bopen\s*\([^)]{0,1000}?['\"][rwxabt]*[wxa+][rwxabt+]*['\"]"
            r"|\.write_(?:text|bytes)\s*\(|\bwriteFile(?:Sync)?\b"
        ),
    ),
]

_SQL_START = re.compile(
    r"^(?:\s|;|\(|--[^\n]*(?:\n|$)|/\*.*?\*/|#[^\n]*(?:\n|$))*"
    r"(?:select|with|explain|show|describe|desc|values|pragma|insert|update|delete|merge"
    r"|create|alter|drop|replace|upsert|grant|revoke|truncate\s+table)(?![\w-])",
    re.IGNORECASE | re.DOTALL,
)
_COMMENT_MARKS = re.compile(r"/\*!?\d*|\*/")


def _looks_like_sql(text: str) -> bool:
    """Whether a text starts (after comments and `;`) with a SQL statement keyword."""
    return _SQL_START.match(text) is not None


def _redirects_output(text: str) -> bool:
    """Whether a statement that is not SQL (where `>` compares) redirects output to a file."""
    return any(
        not _looks_like_sql(part) and _REDIRECT.search(part) is not None
        for part in re.split(r";|&&", text)
    )


_SHELL_CHECKS = [*_SHELL, ("output redirection", _redirects_output)]
# SQL-looking text is labelled by its SQL keywords first, anything else by its commands first.
_SQL_FIRST = [*_SQL, *_SHELL_CHECKS, *_CODE]
_SHELL_FIRST = [*_SHELL_CHECKS, *_SQL, *_CODE]


def _scan(text: str) -> str | None:
    """The first destructive pattern in one string, as a short label, or None."""
    # Keep the contents of SQL comments but drop the markers, so `/*!50000DROP*/` is a DROP.
    variants = list(dict.fromkeys((text, _COMMENT_MARKS.sub(" ", text))))
    for label, found in _SQL_FIRST if _looks_like_sql(text) else _SHELL_FIRST:
        if any(found(v) for v in variants):
            return label
    return None


def _strings(value: Any, path: str, depth: int = 0) -> Iterator[tuple[str, str]]:
    """Every string inside an argument value, with where it sits.

    A list of strings is also read as one command line (`["git", "push", "-f"]`).
    """
    if depth > 32:
        return
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _strings(item, f"{path}.{key}", depth + 1)
    elif isinstance(value, list | tuple):
        if value and all(isinstance(item, str) for item in value):
            yield path, " ".join(value)
            return
        for i, item in enumerate(value):
            yield from _strings(item, f"{path}[{i}]", depth + 1)


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
    tool_name: str, input_schema: Mapping[str, Any] | None, args: Mapping[str, Any]
) -> str | None:
    """Why the call's arguments look destructive.

    For every tool: `risky_settings`. For a tool that runs queries or commands, every string
    argument (nested ones included) is also scanned for destructive SQL, shell, git, HTTP and
    file-writing patterns. Returns a short reason such as "argument 'query' contains SQL DROP",
    or None when nothing is found.
    """
    risky = risky_settings(args)
    if risky is not None:
        return risky
    if not takes_commands(tool_name, input_schema, args):
        return None
    for key, value in args.items():
        for path, text in _strings(value, str(key)):
            label = _scan(text)
            if label is not None:
                return f"argument {path!r} contains {label}"
    return None
