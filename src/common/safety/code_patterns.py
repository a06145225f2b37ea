"""The eager patterns: destructive SQL, shell, git, HTTP and file-writing text in one string.

These are deliberately eager: flagging a harmless call costs a human a click, missing a
destructive one cannot be undone. They read any code argument whose language is not known, and
they decide whenever a parser cannot read an argument (fail closed: never cleared because
parsing failed). They are hand-written although SQL and shell parsers exist because a parser
needs to know the language, and these must hold a `DROP` in an argument that may be SQL, a shell
line (`psql -c "DROP ..."`) or a Python one-liner alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from common.patterns import then_in_segment as _then

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
    ("a GraphQL mutation", _search(r"(?:^|[\s;{}])mutation\s*(?:\w+\s*)?[({]")),
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
    r"^(?:\s|;|\(|--[^\n]*(?:\n|$)|/\*.*?\*/|#[^\n]*(?:\n|$))*+"
    r"(?:select|with|explain|show|describe|desc|values|pragma|insert|update|delete|merge"
    r"|create|alter|drop|replace|upsert|grant|revoke|truncate\s+table)(?![\w-])",
    re.IGNORECASE | re.DOTALL,
)
"""A SQL statement keyword after comments; the possessive `*+` never backtracks into them, which
on `/**/` repeated was exponential."""
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


def scan(text: str) -> str | None:
    """The first destructive pattern in one string, as a short label, or None."""
    # Keep the contents of SQL comments but drop the markers, so `/*!50000DROP*/` is a DROP.
    variants = list(dict.fromkeys((text, _COMMENT_MARKS.sub(" ", text))))
    for label, found in _SQL_FIRST if _looks_like_sql(text) else _SHELL_FIRST:
        if any(found(v) for v in variants):
            return label
    return None
