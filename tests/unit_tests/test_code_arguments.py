"""Arguments are read as code only where they are code: SQL by a parser, shell eagerly, text not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.types import Tool

from common.mcp.config import ServerConfig
from common.safety.arg_kinds import argument_kind, read_tool
from common.safety.arguments import destructive_intent
from common.safety.classify import ToolVerdict
from common.safety.gate import Gate
from common.safety.sql import MAX_PARSED

CATALOG = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "tool_catalog.json").read_text()
)
SERVERS: dict[str, Any] = CATALOG["servers"]


def _catalog_tool(server: str, name: str) -> dict[str, Any]:
    return next(t for t in SERVERS[server]["tools"] if t["name"] == name)


def _schema(**described: str) -> dict[str, Any]:
    properties = {key: {"type": "string", "description": text} for key, text in described.items()}
    return {"type": "object", "properties": properties}


POSTGRES_QUERY = ("query", {"sql": {"type": "string"}}, "Run a read-only SQL query")
"""The reference Postgres server's one tool."""


def _postgres(sql: str) -> str | None:
    name, properties, description = POSTGRES_QUERY
    schema = {"type": "object", "properties": properties}
    return destructive_intent(name, schema, {"sql": sql}, description=description)


# --- free text is not code -----------------------------------------------------------------------

FREE_TEXT_CALLS = [
    ("search_emails", _schema(query="Gmail search query"), {"query": "delete"}, "Search emails"),
    ("search_files", _schema(query="What to look for"), {"query": "copy of the budget"}, None),
    ("search", _schema(query="Search query"), {"query": "drop table of contents"}, None),
    (
        "search_issues",
        _schema(q="GitHub issues search syntax"),
        {"q": "delete button broken"},
        None,
    ),
    ("search_code", _schema(q="Search query"), {"q": "rm -rf in a Makefile"}, "Search code"),
    ("web_search", None, {"query": "how to truncate table in postgres; drop index"}, None),
    ("search_emails", None, {"query": "from:boss update; insert the figures"}, None),
    ("send_message", None, {"text": "please DELETE FROM the list"}, None),
]


@pytest.mark.parametrize(("name", "schema", "args", "description"), FREE_TEXT_CALLS)
def test_free_text_is_never_read_as_code(
    name: str, schema: dict[str, Any] | None, args: dict[str, Any], description: str | None
) -> None:
    assert destructive_intent(name, schema, args, description=description) is None


@pytest.mark.parametrize(
    ("server", "tool", "query"),
    [
        ("brave-search", "brave_web_search", "delete my account instructions"),
        ("tavily", "tavily_search", "UPDATE: drop in prices; rm -rf explained"),
        ("context7", "query-docs", "how to DELETE FROM a table with a join"),
        ("memory", "search_nodes", "copy of the budget"),
        ("atlassian", "confluence_search", "delete page"),
        ("github", "search_repositories", "drop table language:sql"),
    ],
)
def test_catalog_search_queries_are_free_text(server: str, tool: str, query: str) -> None:
    t = _catalog_tool(server, tool)
    args = {"query": query, "libraryId": "/x/y"} if tool == "query-docs" else {"query": query}
    reason = destructive_intent(tool, t["inputSchema"], args, description=t.get("description"))
    assert reason is None


def test_risky_settings_still_apply_to_a_search_tool() -> None:
    args = {"query": "desks", "scrapeOptions": {"actions": [{"type": "click"}]}}
    assert destructive_intent("firecrawl_search", None, args) is not None


# --- SQL: read by the parser ---------------------------------------------------------------------

HELD_SQL = [
    ("DELETE FROM t", "SQL DELETE"),
    ("WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d", "SQL DELETE"),
    ("SELECT 1; DROP TABLE t", "SQL DROP TABLE"),
    ("COMMIT; DROP TABLE users", "SQL COMMIT"),
    ("SELECT setval('s', 1)", "a SQL function with side effects"),
    ("SELECT pg_catalog.pg_terminate_backend(42)", "a SQL function with side effects"),
    ("SELECT dblink('c', 'DELETE FROM t')", "a SQL function with side effects"),
    ("select * into new from t", "SQL SELECT INTO"),
    ("SELECT * INTO OUTFILE '/tmp/x' FROM t", "SQL INTO OUTFILE"),
    ("/*!50000DROP*/ TABLE t", "SQL DROP TABLE"),
    ("SELECT 1 /*!50000; DROP TABLE t*/", "SQL DROP TABLE"),
    ("DELETE FROM WHERE ((", "SQL DELETE"),
    ("MATCH (n) DETACH DELETE n", "SQL DELETE"),
    ("SELECT 1 # 2; DROP TABLE t", "SQL DROP TABLE"),
    ("SELECT 'a\\'; DROP TABLE t; --'", "SQL DROP TABLE"),
    ("SELECT * FROM t FOR UPDATE", "SQL SELECT FOR UPDATE"),
    ("EXPLAIN ANALYZE DELETE FROM t", "SQL EXPLAIN ANALYZE"),
    ("PRAGMA journal_mode=WAL", "SQL PRAGMA"),
    ("PRAGMA user_version(3)", "SQL PRAGMA"),
    ("TRUNCATE t", "SQL TRUNCATE"),
    ("ALTER TABLE t ADD COLUMN x int", "SQL ALTER TABLE"),
    ("CREATE INDEX i ON t (a)", "SQL CREATE INDEX"),
    ("UPDATE t SET a = 1", "SQL UPDATE"),
    ("INSERT INTO t VALUES (1)", "SQL INSERT"),
    ("COPY t TO '/tmp/x'", "SQL COPY"),
    ("CALL p()", "SQL CALL"),
    ("VACUUM", "SQL VACUUM"),
    ("SET search_path = evil", "SQL SET"),
    ("GRANT ALL ON t TO bob", "SQL GRANT"),
    ("ATTACH DATABASE 'x' AS y", "SQL ATTACH"),
    ("FLUSHALL", "Redis FLUSHALL"),
    ("HSET k f v", "a Redis write"),
    ("db.users.deleteMany({})", "a database write call"),
]


@pytest.mark.parametrize(("sql", "label"), HELD_SQL)
def test_writing_sql_is_held_with_its_kind(sql: str, label: str) -> None:
    assert _postgres(sql) == f"argument 'sql' contains {label}"


READ_SQL = [
    "SELECT * FROM t WHERE name = 'delete'",
    "SELECT * FROM users",
    "SELECT upper(nextval) FROM t",
    "select count(*) from deleted_items",
    "SELECT data->>'b', a::int FROM t WHERE a > 5 LIMIT 5",
    "WITH x AS (SELECT 1 AS a) SELECT a FROM x",
    "(SELECT 1) UNION (SELECT 2)",
    "SELECT * FROM t; -- delete later",
    "EXPLAIN SELECT * FROM t",
    "SHOW TABLES",
    "DESCRIBE t",
    "PRAGMA table_info(t)",
    "VALUES (1)",
    "",
]


@pytest.mark.parametrize("sql", READ_SQL)
def test_read_only_sql_passes(sql: str) -> None:
    assert _postgres(sql) is None


@pytest.mark.parametrize(
    ("sql", "word"),
    [("CLUSTER t", "CLUSTER"), ("-- c\nCHECKPOINT", "CHECKPOINT"), ("list notes", "LIST")],
)
def test_a_statement_no_dialect_knows_is_held(sql: str, word: str) -> None:
    """Only a known read passes: what every dialect leaves as bare words may act."""
    assert _postgres(sql) == f"argument 'sql' contains an unknown SQL statement ({word})"


_TOO_LONG = "argument 'sql' contains SQL too long to read whole ({} characters)"


@pytest.mark.parametrize(
    ("text", "as_sql"),
    [
        ("/**/" * 5_000 + "1", _TOO_LONG.format("20,001")),
        ("/* a */ " * 2_500 + "1", _TOO_LONG.format("20,001")),
        ("(" * 10_000 + "1", None),
        ("$(" * 3_000, None),
        ("x; " * 3_000, "argument 'sql' contains an unknown SQL statement (X)"),
        ("echo 'a' " * 1_000, None),
        ("SELECT 1 UNION " * 1_300 + "SELECT 1", None),
    ],
)
def test_hostile_code_is_read_to_its_usual_verdict(text: str, as_sql: str | None) -> None:
    # Read to a verdict, with no RecursionError (the first two are past sqlglot's 20,000
    # characters: held, since the patterns alone cannot clear a text). Their time, n against
    # 8n, is measured by bench/bench_hostile.py, not here: no test may depend on machine speed.
    assert _postgres(text) == as_sql
    assert destructive_intent("execute_command", None, {"command": text}) is None


def test_a_database_tools_own_shapes_are_sql() -> None:
    for server, tool, key in [
        ("sqlite", "read_query", "query"),
        ("sqlite", "write_query", "query"),
        ("supabase", "execute_sql", "query"),
        ("supabase", "query_logs", "sql"),
        ("postgres", "query", "sql"),
    ]:
        t = _catalog_tool(server, tool)
        reading = read_tool(tool, t["inputSchema"], t.get("description"))
        assert argument_kind(reading, key, key) == "sql", (server, tool)
        args = {key: "SELECT * FROM notes WHERE title = 'drop'"}
        reason = destructive_intent(tool, t["inputSchema"], args, description=t.get("description"))
        assert reason is None, (server, tool)


def test_a_sql_name_or_schema_makes_an_argument_sql() -> None:
    assert destructive_intent("run_query", None, {"sql": "DELETE FROM t"}) == (
        "argument 'sql' contains SQL DELETE"
    )
    schema = _schema(body="The SQL statement to run")
    assert destructive_intent("frobnicate", schema, {"body": "DROP VIEW v"}) == (
        "argument 'body' contains SQL DROP VIEW"
    )
    assert destructive_intent("frobnicate", schema, {"body": "SELECT 'drop'"}) is None


def test_a_tool_described_as_running_sql_takes_sql_unless_it_searches() -> None:
    said = "Reads rows from the warehouse with a SQL query"
    assert destructive_intent("read_rows", None, {"query": "DELETE FROM t"}, description=said) == (
        "argument 'query' contains SQL DELETE"
    )
    docs = "Search the SQL documentation"
    assert destructive_intent("search_docs", None, {"query": "delete"}, description=docs) is None


def test_a_query_in_another_language_that_can_write_is_code() -> None:
    cypher = "Execute a Cypher read query against the neo4j database"
    args = {"query": "MATCH (n) DETACH DELETE n"}
    reason = destructive_intent("read_neo4j_cypher", None, args, description=cypher)
    assert reason == "argument 'query' contains SQL DELETE"
    args = {"query": "MATCH (n) RETURN n LIMIT 5"}
    assert destructive_intent("read_neo4j_cypher", None, args, description=cypher) is None
    mutation = {"query": "mutation { deleteUser(id: 1) { id } }"}
    assert destructive_intent("graphql", None, mutation) == (
        "argument 'query' contains a GraphQL mutation"
    )
    assert destructive_intent("graphql", None, {"query": "query { users { id } }"}) is None
    cql = "Search Confluence content using simple terms or CQL."
    args = {"query": "delete page"}
    assert destructive_intent("confluence_search", None, args, description=cql) is None


def test_a_query_tool_that_says_nothing_keeps_the_eager_patterns() -> None:
    """Undescribed `run_query(query)` may be SQL or a command: the patterns read it, as before."""
    assert destructive_intent("run_query", None, {"query": "rm -rf /tmp/x"}) is not None
    text = "SELECT * FROM t WHERE name = 'update'"
    assert destructive_intent("run_query", None, {"query": text}) is not None
    said = "Run a SQL statement against the shop database"
    assert destructive_intent("run_query", None, {"query": text}, description=said) is None


def test_very_long_sql_is_held_never_cleared_unread() -> None:
    """Padding past the parser's limit must not hide a statement the patterns do not know."""
    padded = "CLUSTER t" + " " * MAX_PARSED
    assert _postgres("CLUSTER t") == "argument 'sql' contains an unknown SQL statement (CLUSTER)"
    assert _postgres(padded) == _TOO_LONG.format(f"{len(padded):,}")
    long_read = "SELECT 1" + " " * MAX_PARSED
    assert _postgres(long_read) == _TOO_LONG.format(f"{len(long_read):,}")
    assert _postgres(long_read + "; DELETE FROM t") == "argument 'sql' contains SQL DELETE"


def test_a_list_of_statements_is_read_one_by_one() -> None:
    schema = _schema(statements="SQL statements")
    args = {"statements": ["SELECT 1", "SELECT * FROM t WHERE a = 'drop'"]}
    assert destructive_intent("batch", schema, args) is None
    args = {"statements": ["SELECT 1", "DROP TABLE t"]}
    assert destructive_intent("batch", schema, args) == (
        "argument 'statements' contains SQL DROP TABLE"
    )


# --- shell: eager, quoted data of printing commands blanked --------------------------------------

HELD_COMMANDS = [
    ("rm -rf /tmp/x", "shell rm"),
    ("echo hi && rm x", "shell rm"),
    ("$(rm x)", "shell rm"),
    ("`rm x`", "shell rm"),
    ("bash -c 'rm x'", "shell rm"),
    ("eval 'rm x'", "shell rm"),
    ('echo "$(rm x)"', "shell rm"),
    ("echo `rm x`", "shell rm"),
    ("echo 'rm -rf /' | sh", "a pipe into a shell"),
    ("echo 'DROP TABLE t' | psql", "SQL DROP"),
    ("{ echo 'rm x'; } | sh", "a pipe into a shell"),
    ("echo 'rm x' > run.sh && sh run.sh", "output redirection"),
    ("grep -l 'x' * | xargs rm", "xargs rm"),
    ("find . -exec rm {} \\;", "shell rm"),
    ("grep -r rm .", "shell rm"),
    ("psql -c 'DROP TABLE t'", "SQL DROP"),
    ("ssh host 'rm x'", "shell rm"),
    ("rg --pre 'rm -rf' x", "shell rm"),
    ("echo() { sh -c \"$1\"; }; echo 'rm x'", "shell rm"),
    ("alias echo='sh -c'; echo 'rm x'", "shell rm"),
    ("export PATH=/tmp/e:$PATH; grep 'rm -rf /' f", "shell rm"),
    ("X=1; grep 'rm' f", "shell rm"),
    (". ./env; grep 'rm' f", "shell rm"),
]


@pytest.mark.parametrize(("command", "label"), HELD_COMMANDS)
def test_shell_commands_are_read_eagerly(command: str, label: str) -> None:
    args = {"command": command}
    assert destructive_intent("execute_command", None, args) == (
        f"argument 'command' contains {label}"
    )


@pytest.mark.parametrize(
    "command",
    [
        "grep -r 'rm' .",
        'grep -rn "DROP TABLE" migrations/',
        "cat app.log | grep 'DELETE FROM'",
        "echo 'cleanup: rm old files'",
        "printf '%s\\n' 'truncate'",
        "ls && echo 'delete done'",
    ],
)
def test_quoted_text_a_printing_command_only_shows_is_data(command: str) -> None:
    assert destructive_intent("execute_command", None, {"command": command}) is None


def test_kubernetes_exec_reads_its_command_array() -> None:
    t = _catalog_tool("kubernetes", "exec_in_pod")
    args = {"name": "web", "command": ["sh", "-c", "rm -rf /data"]}
    reason = destructive_intent(t["name"], t["inputSchema"], args, description=t["description"])
    assert reason == "argument 'command' contains shell rm"


# --- the gate reads the tool's description -------------------------------------------------------


def test_the_gate_passes_the_tools_description() -> None:
    verdict: ToolVerdict = {
        "server": "db",
        "tool": "run_query",
        "irreversible": False,
        "reason": "reads",
        "source": "config",
    }
    gate = Gate([verdict])
    described = Tool(
        name="run_query",
        description="Run a SQL statement against the shop database",
        inputSchema=_schema(query="What to run"),
    )
    tools = {"run_query": described}
    config = ServerConfig(command="srv")
    read = {"query": "SELECT * FROM t WHERE name = 'update'"}
    assert not gate.check("db", "run_query", read, tools, config).needs_approval
    decision = gate.check("db", "run_query", {"query": "DELETE FROM t"}, tools, config)
    assert decision.needs_approval
    assert decision.reason == "argument 'query' contains SQL DELETE"


# --- properties ----------------------------------------------------------------------------------

_property = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_search_tools = st.sampled_from(
    [
        ("search_emails", "Search the mailbox"),
        ("search_files", None),
        ("search", "Search the web"),
        ("web_search", "Performs a web search"),
        ("find_notes", None),
    ]
)


@_property
@given(
    tool=_search_tools,
    key=st.sampled_from(["query", "q", "search_query", "text"]),
    query=st.text(max_size=200),
)
def test_any_free_text_query_of_a_search_tool_passes(
    tool: tuple[str, str | None], key: str, query: str
) -> None:
    name, description = tool
    schema = _schema(**{key: "Search query"})
    assert destructive_intent(name, schema, {key: query}, description=description) is None


_identifier = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
WRITE_TEMPLATES = [
    "DELETE FROM {t}",
    "DELETE FROM {t} WHERE {c} = 'x'",
    "UPDATE {t} SET {c} = 1",
    "INSERT INTO {t} ({c}) VALUES (1)",
    "DROP TABLE {t}",
    "DROP TABLE IF EXISTS {t} CASCADE",
    "TRUNCATE TABLE {t}",
    "ALTER TABLE {t} DROP COLUMN {c}",
    "CREATE TABLE {t} ({c} int)",
    "MERGE INTO {t} USING s ON {t}.{c} = s.{c} WHEN MATCHED THEN DELETE",
    "WITH d AS (DELETE FROM {t} RETURNING *) SELECT * FROM d",
    "SELECT * INTO {t} FROM {c}",
    "SELECT setval('{t}', 1)",
    "GRANT ALL ON {t} TO {c}",
]


@_property
@given(
    template=st.sampled_from(WRITE_TEMPLATES),
    table=_identifier,
    column=_identifier,
    prefix=st.sampled_from(["", "  ", "SELECT 1; ", "-- note\n", "/* x */ ", "\n"]),
    suffix=st.sampled_from(["", ";", " ;", "\n", " -- done"]),
    upper=st.booleans(),
)
def test_any_write_statement_is_held(
    template: str, table: str, column: str, prefix: str, suffix: str, upper: bool
) -> None:
    sql = prefix + template.format(t=table, c=column) + suffix
    assert _postgres(sql.upper() if upper else sql) is not None
