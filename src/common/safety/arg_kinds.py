"""What each argument of a call is: SQL, a shell command, program code, or free text.

Only code is read as code. An argument is SQL when its name says so (`sql`, `statement`), its
schema description says SQL, or it is the `query` of a tool that says it runs SQL (by its name,
a query/run verb in its name and SQL or a database in its description, or SQL in the
description of a tool that does not search). It is a shell
command when its name says so (`command`, `cmd`, `shell`, `bash`), and program code when it is
a `code` or `script`. The `query` of a tool that names another query language that can write
(Cypher, GraphQL, a Mongo or Redis query) is code of that language. A `query` of any other tool
(a search, a documentation lookup) is free text, as is every other argument, except on a tool
that runs things by its name or description (`run_query`, `exec`, "executes a shell command"):
there each argument is code whose language is not known, read by the eager patterns as before.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from common.safety.wording import name_tokens, with_stems

_KEY_WORD = re.compile(r"[A-Z]?[a-z]+|[0-9]+")

ArgumentKind = Literal["sql", "shell", "code", "text"]
"""How an argument is read: by the SQL parser, as a shell command, by the eager patterns, or
not at all."""

COMMAND_NAME_TOKENS = frozenset(
    " ".join(
        (
            "query queries sql exec execute run shell bash command commands cmd script scripts",
            "terminal eval statement statements",
        )
    ).split()
)
"""Words in a tool's name that say it runs queries or commands."""


def key_words(key: object) -> list[str]:
    """An argument name's words in lower case (`pageToken`, `page_token` -> page, token).

    Capitals alone are left out (`URLPath` -> path): the shape rules read the words an argument
    is named by, not its acronyms.
    """
    return [w.lower() for w in _KEY_WORD.findall(str(key))]


RUNNER_NAME_TOKENS = COMMAND_NAME_TOKENS - {"query", "queries"}
"""Words in a tool's name that make every argument of it code (`run_query`, `exec`).

A query alone does not: `query-docs` looks up documentation.
"""
SEARCH_NAME_TOKENS = frozenset({"search", "find", "lookup", "grep", "rerank"})
"""Words in a tool's name that make its `query` a search, whatever else the name says."""
COMMAND_ARG_KEYS = frozenset(
    {"query", "sql", "statement", "command", "cmd", "script", "shell", "code", "bash", "commands"}
)
"""Argument names that carry a query or a command."""
_COMMAND_KEY_TOKENS = (COMMAND_ARG_KEYS - {"query", "code"}) | {"statements", "scripts"}
"""Words that make a compound argument name (`sql_text`, `shellCommand`) a command one.

"query" and "code" are left out: `search_query` and `zip_code` carry neither.
"""
SQL_KEY_TOKENS = frozenset({"sql", "statement", "statements"})
"""Words in an argument's name that make it SQL (`sql`, `raw_sql`, `statements`)."""
SHELL_KEY_TOKENS = frozenset({"command", "commands", "cmd", "shell", "bash"})
"""Words in an argument's name that make it a shell command (`command`, `shellCommand`)."""
CODE_KEY_TOKENS = frozenset({"script", "scripts"})
"""Words in an argument's name that make it program code; `code` counts only on its own."""
QUERY_KEY_TOKENS = frozenset({"query", "queries"})
"""Words in an argument's name that make it a query, SQL or search as the tool says."""

_SAYS_SQL = re.compile(r"\bsql\b", re.IGNORECASE)
_SAYS_DATABASE = re.compile(
    r"\b(?:sql|sqlite|postgres(?:ql)?|mysql|mariadb|clickhouse|database|select)\b", re.IGNORECASE
)
_SAYS_QUERY_LANGUAGE = re.compile(
    r"\b(?:cypher|sparql|gremlin|graphql|mongo(?:db)?|redis|aql|n1ql|promql|influxql|kql)\b",
    re.IGNORECASE,
)
"""A query language other than SQL that can write (`MATCH (n) DETACH DELETE n`, a mutation);
search languages (Confluence's CQL, Jira's JQL) only read and are left out."""
_SAYS_IT_RUNS = re.compile(
    r"\s*(?:this tool\s+(?:will\s+)?)?(?:run|runs|execute|executes|evaluate|evaluates)\b"
    r"[^.\n]{0,40}?\b(?:shell|bash|terminal|commands?|scripts?|code|javascript|python|sql)\b",
    re.IGNORECASE,
)
"""A description that opens by saying the tool runs commands or code ("Execute any kubectl
command"); a later sentence telling the reader to run something does not count."""


def _key_words(key: str) -> set[str]:
    """An argument name, whole and split into words (`raw_sql` -> raw_sql, raw, sql)."""
    return {key.lower(), *name_tokens(key)}


def _is_command_key(key: str) -> bool:
    """Whether an argument (or schema property) name carries a query or a command."""
    return key.lower() in COMMAND_ARG_KEYS or bool(set(name_tokens(key)) & _COMMAND_KEY_TOKENS)


def takes_commands(
    tool_name: str, input_schema: Mapping[str, Any] | None, args: Mapping[str, Any]
) -> bool:
    """Whether the tool runs queries or commands, by its name, its schema or its arguments.

    A coarse, tool-wide reading kept for callers; the argument check itself uses
    `argument_kind`, which does not make a search tool's `query` code.
    """
    if with_stems(name_tokens(tool_name)) & COMMAND_NAME_TOKENS:
        return True
    properties = input_schema.get("properties") if isinstance(input_schema, Mapping) else None
    keys = list(args)
    if isinstance(properties, Mapping):
        keys += list(properties)
    return any(isinstance(k, str) and _is_command_key(k) for k in keys)


@dataclass(frozen=True)
class ToolReading:
    """What a tool's name and description say about the arguments it takes."""

    says_sql: bool
    """The tool runs SQL: `sql` in its name, a query/run verb and SQL or a database in its
    description, or SQL in the description of a tool that does not search."""
    runs_things: bool
    """The tool runs commands or code by its name or description: every argument is code."""
    searches: bool
    """The tool's name says it searches: its `query` is free text unless SQL is said."""
    bare_query: bool
    """The tool is named only `query` and says nothing more: its `query` may be anything."""
    other_language: bool
    """The tool's name or description names a query language that can write (Cypher, GraphQL)."""
    property_descriptions: Mapping[str, str]
    """The schema's description of each top-level argument."""


def _descriptions(input_schema: Mapping[str, Any] | None) -> dict[str, str]:
    properties = input_schema.get("properties") if isinstance(input_schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return {}
    return {
        str(key): prop["description"]
        for key, prop in properties.items()
        if isinstance(prop, Mapping) and isinstance(prop.get("description"), str)
    }


def read_tool(
    tool_name: str, input_schema: Mapping[str, Any] | None, description: str | None
) -> ToolReading:
    """Read what a tool's name, description and schema say about its arguments."""
    words = with_stems(name_tokens(tool_name))
    text = description or ""
    verb = bool(words & (COMMAND_NAME_TOKENS - {"sql"}))
    searches = bool(words & SEARCH_NAME_TOKENS)
    return ToolReading(
        says_sql="sql" in words
        or (verb and _SAYS_DATABASE.search(text) is not None)
        or (not searches and _SAYS_SQL.search(text) is not None),
        runs_things=bool(words & RUNNER_NAME_TOKENS) or _SAYS_IT_RUNS.match(text) is not None,
        searches=searches,
        bare_query=bool(words) and words <= QUERY_KEY_TOKENS and not text.strip(),
        other_language=_SAYS_QUERY_LANGUAGE.search(f"{' '.join(words)} {text}") is not None,
        property_descriptions=_descriptions(input_schema),
    )


def argument_kind(tool: ToolReading, key: str, top_level: str | None) -> ArgumentKind:
    """How to read a value under `key` (its nearest name); `top_level` is its argument's name.

    The schema description counts for a top-level argument only: a nested key has none.
    """
    words = _key_words(key)
    described = tool.property_descriptions.get(top_level or "", "") if top_level == key else ""
    if words & SQL_KEY_TOKENS or _SAYS_SQL.search(described):
        return "sql"
    if words & SHELL_KEY_TOKENS:
        return "shell"
    if key.lower() == "code" or words & CODE_KEY_TOKENS:
        return "code"
    if words & QUERY_KEY_TOKENS:
        if tool.says_sql:
            return "sql"
        if tool.other_language or _SAYS_QUERY_LANGUAGE.search(described):
            return "code"
        if (tool.runs_things and not tool.searches) or tool.bare_query:
            return "code"
        return "text"
    return "code" if tool.runs_things else "text"
