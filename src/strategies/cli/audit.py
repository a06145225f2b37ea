"""`mcp-planner audit`: the audit trail of questions asked and answers given, read back.

Read from the project's store (`PERSISTENCE`, the one runs write) or, with `--server`, from a
LangGraph API server's store through the SDK (`store.search_items`), where the server's auth
decides whose entries the token may read. Reading never creates a store that does not exist.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from strategies.cli.exits import CliProblem
from strategies.cli.render import cut, fit_output, keep_width, line, new_table, print_table

if TYPE_CHECKING:
    from common.served.audit import AuditEntry

SERVER_PAGE = 100
"""Entries asked of a server per request."""

COLUMNS = ["when (UTC)", "user", "thread", "event", "expert", "tool", "decision", "args", "why"]
"""The table's columns."""


ThreadFilter = Annotated[
    str | None, typer.Option("--thread", metavar="ID", help="Only this thread's entries.")
]
UserFilter = Annotated[
    str | None,
    typer.Option(
        "--user",
        metavar="ID",
        help="Only this user's trail: their threads' and their own answers (default: every).",
    ),
]
SinceFilter = Annotated[
    str | None,
    typer.Option(
        "--since", metavar="TIME", help="Only entries from this ISO 8601 date or time (UTC)."
    ),
]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print the entries as JSON.")]
ServerOption = Annotated[
    str | None,
    typer.Option("--server", metavar="URL", help="Read the trail of this LangGraph API server."),
]
TokenOption = Annotated[
    str | None,
    typer.Option(
        "--token",
        metavar="TOKEN",
        help="With --server: the bearer token to send (default MCP_PLANNER_TOKEN).",
        show_default=False,
    ),
]


def since_of(value: str | None) -> str | None:
    """`--since` checked: an ISO 8601 date or time, else one line (exit 2)."""
    if value is None:
        return None
    from common.served.audit import as_utc

    try:
        as_utc(value)
    except ValueError as exc:
        raise CliProblem(
            f"--since {value!r} is not an ISO 8601 date or time: give one like 2026-11-26 or "
            "2026-11-26T13:00 (UTC unless it names a zone)."
        ) from exc
    return value


async def local_entries(
    user: str | None, thread: str | None, since: str | None
) -> list[AuditEntry]:
    """The trail in the project's store; none when the store was never created."""
    from common.persistence import open_persistence
    from common.served.audit import entries
    from strategies.cli.records import nothing_saved

    if nothing_saved("store"):
        return []
    async with open_persistence() as (_saver, store):
        return await entries(store, user, thread, since)


async def server_entries(
    url: str, token: str | None, user: str | None, thread: str | None, since: str | None
) -> list[AuditEntry]:
    """The trail on the server at `url`, as far as `token` may read it."""
    from langgraph_sdk.errors import APIStatusError

    from common.served.audit import ROOT, in_order, namespace
    from strategies.cli.remote import connect

    prefix = list(namespace(user) if user is not None else ROOT)
    where = {"thread_id": thread} if thread is not None else None
    found: list[AuditEntry] = []
    async with connect(url, token) as client:
        offset = 0
        while True:
            try:
                page = await client.store.search_items(
                    prefix, filter=where, limit=SERVER_PAGE, offset=offset
                )
            except APIStatusError as exc:
                if user is None and exc.response.status_code == 403:
                    raise CliProblem(EVERYONE_REFUSED.format(url=url)) from exc
                raise
            items = page["items"]
            found += [item["value"] for item in items]  # type: ignore[misc]
            if len(items) < SERVER_PAGE:
                break
            offset += SERVER_PAGE
    return in_order(found, since)


EVERYONE_REFUSED = (
    "The server at {url} lets your token read only your own audit trail (every user's needs "
    "the auditor role): add --user with your user id."
)
"""The line for a token refused the whole trail: a user reads their own with `--user`."""


def show_entries(found: list[AuditEntry]) -> None:
    """The trail as a table, oldest first."""
    if not found:
        line("No audit entries match: nothing was asked or answered yet.")
        return
    table = new_table("Audit trail", COLUMNS, keep=("thread",))
    keep_width(table, 2, [e["thread_id"] for e in found])
    for e in found:
        table.add_row(
            e["at"][:19],
            e["user"],
            e["thread_id"],
            e["event"],
            e["expert"],
            e["tool"],
            _decision(e),
            e["args_digest"][:12],
            cut(e.get("why") or "", 60),
        )
    print_table(table)


def _decision(entry: AuditEntry) -> str:
    """What the entry's decision column shows (an edit's digest after it)."""
    decision = entry.get("decision") or ""
    if decision == "edit" and entry.get("edit_digest"):
        return f"edit {str(entry['edit_digest'])[:12]}"
    return decision


def audit_cmd(
    thread: ThreadFilter = None,
    user: UserFilter = None,
    since: SinceFilter = None,
    as_json: JsonFlag = False,
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """List the audit trail: each question asked and each answer given, oldest first.

    An entry says who, when (UTC), the thread, the expert and tool, a digest of the call's
    arguments (never the arguments) and the decision: approve, edit, reject, remember,
    refused (with why), answer or decline.

    Example: mcp-planner audit --thread 3f2a9c1b7d4e --json
    """
    from strategies.cli.app import user_errors

    fit_output()
    with user_errors():
        start = since_of(since)
        if server is not None:
            from strategies.cli import remote

            url, sent = remote.server_url(server), remote.token_for(token)
            found = asyncio.run(server_entries(url, sent, user, thread, start))
        else:
            found = asyncio.run(local_entries(user, thread, start))
    if as_json:
        sys.stdout.write(json.dumps(found, indent=2) + "\n")
        return
    show_entries(found)
