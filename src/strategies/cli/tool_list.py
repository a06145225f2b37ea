"""What `mcp-planner tools` lists: every expert's tools classified, or why none could be."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from strategies.cli.exits import CliProblem
from strategies.cli.render import new_table
from strategies.cli.trust import tool_marks

if TYPE_CHECKING:
    from rich.table import Table

    from common.mcp import McpConfig
    from common.safety.classify import ToolVerdict


def require_servers(config: McpConfig, source: str) -> None:
    """A config with no server has nothing to list: a configuration error (exit 2)."""
    if not config.servers:
        raise CliProblem(
            f"No expert to list: {source} configures no MCP server; add one under "
            '"mcpServers", or pass --config PATH.'
        )


async def classify_all(
    config: McpConfig, user: str
) -> tuple[list[ToolVerdict], dict[str, str], dict[tuple[str, str], str]]:
    """Every reachable expert's tool verdicts, each unreachable one's reason, remembered marks."""
    from common.mcp import ExpertRegistry, ExpertUnavailable
    from common.mcp.registry import shutdown_pool
    from common.safety.classify import classify_tools
    from strategies.cli.setup import settings

    registry = ExpertRegistry(config, settings().mcp_startup_timeout_s)
    try:
        catalog = await registry.catalog(registry.experts)
    finally:
        await shutdown_pool()
    marks = await tool_marks(registry, catalog, user)
    verdicts: list[ToolVerdict] = []
    errors: dict[str, str] = {}
    for server, tools in catalog.items():
        if isinstance(tools, ExpertUnavailable):
            errors[server] = str(tools)
        else:
            verdicts += classify_tools(server, tools, registry.server(server))
    return verdicts, errors, marks


def none_listed(source: str, errors: dict[str, str]) -> str:
    """The one line when every expert failed to start: each one's reason and what to do."""
    reasons = "; ".join(message.rstrip(".") for message in errors.values())
    return f"No expert could be listed: {reasons}; fix them in {source}, or pass --config PATH."


def tool_table(rows: list[dict[str, Any]]) -> Table:
    """The tools as a table: server, tool, class, source, remembered mark and reason."""
    from rich.text import Text

    columns = ["server", "tool", "class", "source", "remembered", "reason"]
    table = new_table("Tools and their classification", columns)
    for r in rows:
        cls = Text("irreversible", "red") if r["irreversible"] else Text("reversible", "green")
        mark = Text(r["remembered"] or "", "yellow" if r["remembered"] == "changed" else "")
        cells = (Text(r["server"]), Text(r["tool"]), cls, r["source"], mark, Text(r["reason"]))
        table.add_row(*cells)
    return table


def leaving_note(config: McpConfig) -> str:
    """Which servers may carry other experts' data out without approval (`data_may_leave`)."""
    free = [name for name, server in config.servers.items() if server.data_may_leave]
    return (
        "Calls carrying another expert's data through a URL, recipient or message are held at "
        f"call time; data_may_leave: true on {', '.join(free) or 'no server'}."
    )
