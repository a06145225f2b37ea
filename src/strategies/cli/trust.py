"""`mcp-planner trust list | revoke`: the approvals people chose not to be asked again for.

They live in the project's store (`PERSISTENCE`), the same one runs use; a store that was never
created holds none, and listing does not create it.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from strategies.cli.exits import EXIT_CODES_HELP, EXIT_FAILED, CliProblem
from strategies.cli.help import PlainCommand, PlainGroup
from strategies.cli.render import cut, fit_output, line, new_table, print_table, problem

if TYPE_CHECKING:
    from mcp.types import Tool

    from common.mcp import ExpertRegistry, ExpertUnavailable
    from common.safety.trust import TrustEntry

trust_app = typer.Typer(
    help='Remembered approvals ("don\'t ask again"): list them, or revoke them to be asked again.',
    no_args_is_help=True,
    cls=PlainGroup,
    epilog=EXIT_CODES_HELP,
)

UserOption = Annotated[
    str | None,
    typer.Option(
        "--user",
        metavar="ID",
        help="Whose approvals (the run's user_id or auth identity); default: every user for "
        "list, 'default' for revoke.",
    ),
]


async def _entries(user: str | None) -> list[TrustEntry]:
    from common.persistence import open_persistence
    from common.safety.trust import entries
    from strategies.cli.records import nothing_saved

    if nothing_saved("store"):
        return []
    async with open_persistence() as (_saver, store):
        return await entries(store, user)


async def _revoke(user: str, expert: str | None, tool: str | None) -> list[TrustEntry]:
    from common.persistence import open_persistence
    from common.safety.trust import revoke
    from strategies.cli.records import nothing_saved

    if nothing_saved("store"):
        return []
    async with open_persistence() as (_saver, store):
        return await revoke(store, user, expert, tool)


@trust_app.command("list", cls=PlainCommand)
def list_cmd(
    user: UserOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the entries as JSON.")] = False,
) -> None:
    """List remembered approvals: user, expert, tool, since when, and the definition digest.

    Example: mcp-planner trust list --user alice
    """
    from strategies.cli.app import user_errors

    fit_output()
    with user_errors():
        found = asyncio.run(_entries(user))
    if as_json:
        sys.stdout.write(json.dumps(found, indent=2) + "\n")
        return
    if not found:
        who = f" for {user!r}" if user is not None else ""
        line(f"No remembered approvals{who}: every irreversible call is asked about.")
        return
    table = new_table(
        "Remembered approvals", ["user", "expert", "tool", "since", "digest", "server"]
    )
    for e in found:
        since, digest, server = e["since"][:19], e["digest"][:12], cut(e["identity"], 50)
        table.add_row(e["user"], e["expert"], e["tool"], since, digest, server)
    print_table(table)


@trust_app.command("revoke", cls=PlainCommand)
def revoke_cmd(
    expert: Annotated[str | None, typer.Argument(metavar="EXPERT", help="Expert name.")] = None,
    tool: Annotated[str | None, typer.Argument(metavar="TOOL", help="Tool name.")] = None,
    every: Annotated[bool, typer.Option("--all", help="Revoke all of the user's.")] = False,
    user: UserOption = None,
) -> None:
    """Forget a remembered approval: the tool is asked about again. Exits 1 when none matched.

    Example: mcp-planner trust revoke notes write_note --user alice
    """
    from strategies.cli.app import user_errors

    whose = user if user is not None else "default"
    with user_errors():
        _check_revoke(expert, tool, every)
        gone = asyncio.run(_revoke(whose, expert, tool))
    for e in gone:
        line(f"Revoked: {e['expert']} {e['tool']} (user {e['user']!r}).")
    if every and not gone:
        line(f"No remembered approvals for {whose!r}: nothing to revoke.")
    if not every and not gone:
        # A valid request that was not done (nothing matched), not a usage error: exit 1.
        problem(f"No remembered approval of {tool!r} on {expert!r} for user {whose!r}.")
        raise typer.Exit(EXIT_FAILED)


def _check_revoke(expert: str | None, tool: str | None, every: bool) -> None:
    """One sentence, exit 2, for a revoke that names too little or too much."""
    if every and (expert is not None or tool is not None):
        raise CliProblem("Give EXPERT TOOL or --all, not both.")
    if not every and (expert is None or tool is None):
        raise CliProblem("Name what to revoke: EXPERT TOOL (see mcp-planner trust list), or --all.")


async def tool_marks(
    registry: ExpertRegistry, catalog: dict[str, list[Tool] | ExpertUnavailable], user: str
) -> dict[tuple[str, str], str]:
    """`remembered` or `changed` (a rug pull) for each listed tool the user has an entry for."""
    from strategies.cli.records import nothing_saved

    marks: dict[tuple[str, str], str] = {}
    if nothing_saved("store"):
        return marks
    from common.mcp import ExpertUnavailable
    from common.persistence import open_persistence
    from common.safety.trust import Changed, remembered

    async with open_persistence() as (_saver, store):
        for server, tools in catalog.items():
            if isinstance(tools, ExpertUnavailable):
                continue
            for tool in tools:
                found = await remembered(store, user, registry.server(server), tool)
                if isinstance(found, Changed):
                    marks[server, tool.name] = "changed"
                elif found is not None:
                    marks[server, tool.name] = "remembered"
    return marks


def mark_of(marks: dict[tuple[str, str], str], row: dict[str, Any]) -> str | None:
    """A tool's mark in `tools`: remembered, changed since, or None."""
    return marks.get((row["server"], row["tool"]))
