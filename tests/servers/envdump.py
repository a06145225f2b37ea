"""A stdio MCP server for tests that reports which environment variables it was started with."""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

mcp = MCPServer("envdump")


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
def env_keys() -> list[str]:
    """List the names (not the values) of the server's environment variables, sorted."""
    return sorted(os.environ)


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
def pid() -> int:
    """The server's process id."""
    return os.getpid()


if __name__ == "__main__":
    mcp.run()
