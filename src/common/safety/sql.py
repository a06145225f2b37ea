"""SQL arguments read by a parser: a read-only query passes, any other statement is named.

sqlglot splits the text into statements (several dialects, since the database's own is not
known) and each statement's tree is walked: only a SELECT, set operation or VALUES without INTO,
row locks, data-modifying parts or side-effect functions, a DESCRIBE or SHOW, an EXPLAIN without
ANALYZE or a reading PRAGMA is read-only. A string literal is data, so `WHERE name = 'delete'`
passes. A text passes only when every dialect reads it, whole, as read-only statements. Text a
dialect cannot parse, or reads only as bare words (a Redis command, a Mongo call), goes to the
eager patterns, which hold it if they match; bare words that no dialect reads as any statement
it knows (`CLUSTER t`, `CHECKPOINT`) are held as an unknown statement. An argument is never
cleared because parsing failed.

Hand-written here: the list of side-effect functions and of reading PRAGMAs, which no parser
knows (to sqlglot, `setval(...)` is just a function call).
"""

from __future__ import annotations

import logging
import re
from typing import Any, Literal

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from common.safety.code_patterns import scan

DIALECTS: tuple[str | None, ...] = (None, "postgres", "mysql", "sqlite")
"""Dialects every one of which must read a text as read-only for it to pass.

They disagree on comments and strings (`#` starts a comment in MySQL and is an operator in
Postgres; `\\'` ends a Postgres string but not a MySQL one): a text that hides a statement from
one dialect is still read by another.
"""
MAX_PARSED = 20_000
"""Longer texts are read by the eager patterns only (linear in the text), and held when those
find nothing: a text too long to parse is never cleared, or padding would hide any statement."""

READ_ROOTS = (exp.Select, exp.SetOperation, exp.Subquery, exp.Values, exp.Describe, exp.Show)
"""Statements that only read, provided nothing inside them writes."""
WRITE_PARTS: tuple[type[exp.Expr], ...] = (
    exp.DML,
    exp.DDL,
    exp.Drop,
    exp.Alter,
    exp.TruncateTable,
    exp.Command,
    exp.Into,
    exp.Lock,
    exp.Set,
    exp.Grant,
    exp.Revoke,
    exp.Transaction,
    exp.Commit,
    exp.Rollback,
    exp.LoadData,
)
"""Parts that make a reading statement write: a data-modifying CTE, SELECT INTO, FOR UPDATE."""
SIDE_EFFECT_FUNCTIONS = re.compile(
    r"pg_terminate_backend|pg_cancel_backend|pg_reload_conf|pg_rotate_logfile|pg_switch_wal"
    r"|pg_promote|pg_stat_reset\w*|pg_file_\w+|pg_write_\w+|pg_drop_\w+|pg_create_\w+"
    r"|pg_replication_\w+|pg_logical_\w+|setval|nextval|set_config|lo_\w+|dblink\w*"
    r"|query_to_xml\w*|load_extension|writefile|xp_\w+|sys_exec|sys_eval|next_value_for",
    re.IGNORECASE,
)
"""Functions a SELECT can call that change the server (or run another statement)."""
READ_PRAGMAS_WITH_ARGUMENT = frozenset(
    " ".join(
        (
            "table_info table_xinfo table_list index_list index_info index_xinfo",
            "foreign_key_list foreign_key_check integrity_check quick_check",
        )
    ).split()
)
"""SQLite pragmas whose argument names what to read, not a value to set."""
ACTING_PRAGMAS = frozenset({"optimize", "incremental_vacuum", "wal_checkpoint", "shrink_memory"})
"""SQLite pragmas that act when read without an argument."""
READ_COMMANDS = frozenset({"SHOW", "DESCRIBE", "DESC"})
"""Statements some dialects keep as raw commands that only read (`SHOW TABLES`)."""
_PRAGMA = re.compile(r"PRAGMA\s+(?:\w+\.)?(\w+)\s*(.*)", re.IGNORECASE | re.DOTALL)
_ANALYZE = re.compile(r"\banaly[sz]e\b", re.IGNORECASE)
_MYSQL_EXECUTABLE_COMMENT = re.compile(r"/\*!\d*|\*/")
_FIRST_WORD = re.compile(r"(?:\s|;|--[^\n]*|/\*.*?\*/|#[^\n]*)*+([A-Za-z_][\w.]*)", re.DOTALL)
"""The first word after comments; the possessive `*+` never backtracks (linear on any text)."""


class _NoCommandFallbackNotice(logging.Filter):
    """Drops sqlglot's notice that it read a statement as a raw command: we hold those."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Keep every record but that notice."""
        return "Falling back to parsing as a 'Command'" not in record.getMessage()


logging.getLogger("sqlglot").addFilter(_NoCommandFallbackNotice())

_Reading = str | None
"""A statement kind that writes (`SQL DELETE`), or None for read-only."""


def _statement_kind(statement: exp.Expr) -> str:
    """A short name for a statement: `SQL DELETE`, `SQL DROP TABLE`, `SQL VACUUM`."""
    if isinstance(statement, exp.Command):
        return f"SQL {str(statement.this).upper()}"
    key = statement.key.upper()
    if isinstance(statement, exp.Drop | exp.Create | exp.Alter):
        kind = str(statement.args.get("kind") or "").upper()
        return f"SQL {key} {kind}".rstrip()
    return {
        "TRUNCATETABLE": "SQL TRUNCATE",
        "INTO": "SQL SELECT INTO",
        "LOCK": "SQL SELECT FOR UPDATE",
    }.get(key, f"SQL {key}")


def _pragma_reading(statement: exp.Pragma, dialect: str | None) -> _Reading:
    """A PRAGMA reads when it has no argument or its argument names a table or index."""
    match = _PRAGMA.match(statement.sql(dialect=dialect))
    if match is None:
        return "SQL PRAGMA"
    name, rest = match.group(1).lower(), match.group(2).strip()
    if (not rest and name not in ACTING_PRAGMAS) or name in READ_PRAGMAS_WITH_ARGUMENT:
        return None
    return "SQL PRAGMA"


def _function_name(node: exp.Func) -> str:
    """A call's function name: as written for one sqlglot does not know, else its own name."""
    return node.name if isinstance(node, exp.Anonymous) else node.sql_name()


def _reading(statement: exp.Expr, dialect: str | None) -> _Reading:
    """None when one parsed statement only reads, else the kind of what it does."""
    if isinstance(statement, exp.Pragma):
        return _pragma_reading(statement, dialect)
    command = str(statement.this).upper() if isinstance(statement, exp.Command) else ""
    if command == "EXPLAIN":
        return "SQL EXPLAIN ANALYZE" if _ANALYZE.search(str(statement.expression)) else None
    if command in READ_COMMANDS:
        return None
    if not isinstance(statement, READ_ROOTS):
        return _statement_kind(statement)
    for node in statement.walk():
        if isinstance(node, WRITE_PARTS):
            return _statement_kind(node)
        if isinstance(node, exp.Func) and SIDE_EFFECT_FUNCTIONS.fullmatch(_function_name(node)):
            return "a SQL function with side effects"
    return None


BARE_EXPRESSIONS = (exp.Condition, exp.Alias, exp.Identifier, exp.Tuple, exp.Star, exp.Var)
"""What a parser makes of text that is not a statement (`hello`, `db.t.deleteMany({})`)."""


Outcome = Literal["read", "bare", "unparsed"]
"""How one dialect read a text that writes nothing: read-only statements only; something that
is no statement (a bare expression); or not at all (a parse error)."""


def _dialect_reading(text: str, dialect: str | None) -> tuple[Outcome, _Reading]:
    """How one dialect reads the text, and the kind of the first writing statement, if any."""
    try:
        statements = sqlglot.parse(text, read=dialect)
        return _statements_reading(statements, dialect)
    except (SqlglotError, RecursionError, ValueError):
        return "unparsed", None
    except Exception:  # A parser bug on odd input is one more text it cannot read.
        return "unparsed", None


def _statements_reading(statements: list[Any], dialect: str | None) -> tuple[Outcome, _Reading]:
    """How one dialect's parsed statements read, and the first writing one's kind, if any."""
    outcome: Outcome = "read"
    for statement in statements:
        if statement is None or isinstance(statement, exp.Semicolon):
            continue
        if isinstance(statement, BARE_EXPRESSIONS):
            outcome = "bare"
            continue
        kind = _reading(statement, dialect)
        if kind is not None:
            return "read", kind
    return outcome, None


def _not_read(text: str, outcomes: set[Outcome]) -> str | None:
    """The verdict on a text no dialect found writing but not every dialect read as reading.

    The eager patterns decide, as for any text a parser cannot read. If no dialect found even
    one statement it knows (`CLUSTER t`, `CHECKPOINT` are left as bare words), the text is an
    unknown statement and is held: only a known read passes.
    """
    label = scan(text)
    if label is not None or "read" in outcomes or "bare" not in outcomes:
        return label
    word = _FIRST_WORD.match(text)
    name = word.group(1).upper()[:30] if word else "?"
    return f"an unknown SQL statement ({name})"


def sql_intent(text: str) -> str | None:
    """Why a SQL argument's text changes something (`SQL DELETE`), or None for a read-only one.

    A statement any dialect reads as writing is held; the text passes only when every dialect
    reads it, whole, as read-only statements. Anything else goes to `_not_read`.
    """
    if len(text) > MAX_PARSED:
        return scan(text) or f"SQL too long to read whole ({len(text):,} characters)"
    variants = [text]
    if "/*!" in text:
        # MySQL runs the contents of /*! ... */ comments: read them as code too.
        variants.append(_MYSQL_EXECUTABLE_COMMENT.sub(" ", text))
    outcomes: set[Outcome] = set()
    for variant in variants:
        for dialect in DIALECTS:
            outcome, kind = _dialect_reading(variant, dialect)
            if kind is not None:
                return kind
            outcomes.add(outcome)
    return None if outcomes == {"read"} else _not_read(text, outcomes)
