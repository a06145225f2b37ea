"""Real servers' tool lists (tests/data/tool_catalog.json) as in-process MCP experts.

They list exactly what the recorded server listed and answer every call with a short text: enough
to measure what a large catalog does to the planner's prompt, and to plan over it in tests.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
from mcp.server import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
)

from common.mcp.inprocess import register_inprocess_server

CATALOG = Path(__file__).resolve().parents[1] / "data" / "tool_catalog.json"
"""The recorded tool lists."""

LIBRARIES = ("bfcl-", "llamaindex-")
"""Sources that are Python function libraries converted to tools, not MCP servers."""


def recorded_servers() -> dict[str, list[Tool]]:
    """Every recorded MCP server's tools, by server name."""
    servers = json.loads(CATALOG.read_text(encoding="utf-8"))["servers"]
    return {
        name: [Tool.model_validate(t) for t in entry["tools"]]
        for name, entry in servers.items()
        if not name.startswith(LIBRARIES)
    }


def largest(count: int) -> dict[str, list[Tool]]:
    """The `count` recorded MCP servers with the most tools (ties by name)."""
    servers = recorded_servers()
    names = sorted(servers, key=lambda n: (-len(servers[n]), n))[:count]
    return {name: servers[name] for name in names}


def _text(text: str, *, error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=error)


def catalog_server(name: str, tools: list[Tool]) -> Server[Any]:
    """A low-level MCP server listing `tools`; a call answers with the tool's name.

    Like the 1.x low-level server it replaces, a call to a listed tool is first checked against
    the tool's input schema (a failure is an error result), and an unlisted name is answered too.
    """
    schemas = {tool.name: tool.input_schema for tool in tools}

    async def list_tools(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        return ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult:
        try:
            if params.name in schemas:
                try:
                    jsonschema.validate(
                        instance=params.arguments or {}, schema=schemas[params.name]
                    )
                except jsonschema.ValidationError as e:
                    return _text(f"Input validation error: {e.message}", error=True)
            return _text(f"{params.name} done")
        except Exception as e:
            return _text(str(e), error=True)

    return Server(name, on_list_tools=list_tools, on_call_tool=call_tool)


def catalog_experts(count: int, prefix: str = "") -> dict[str, dict[str, Any]]:
    """`mcpServers` entries for the `count` largest recorded servers, registered in-process."""
    entries: dict[str, dict[str, Any]] = {}
    for name, tools in largest(count).items():
        register_inprocess_server(prefix + name, catalog_server(prefix + name, tools))
        entries[name] = {"inprocess": prefix + name}
    return entries
