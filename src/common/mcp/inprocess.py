"""In-process MCP servers: a FastMCP (or low-level) server object reached over memory streams.

Register one under a name and configure `{"inprocess": "name"}`: useful for embedding Python
tools without a subprocess, and for fast, hermetic tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.fastmcp import FastMCP
    from mcp.server.lowlevel import Server

# The MCP SDK's server side (FastMCP brings Starlette and uvicorn) is imported by whoever
# registers a server, never by a client that only reaches servers in other processes.

_SERVERS: dict[str, Server[Any] | FastMCP] = {}


def register_inprocess_server(name: str, server: Server[Any] | FastMCP) -> None:
    """Make `server` reachable as `{"inprocess": name}` in an MCP config."""
    _SERVERS[name] = server


def inprocess_server(name: str) -> Server[Any]:
    """The low-level server registered under `name` (KeyError names what is registered)."""
    if name not in _SERVERS:
        known = ", ".join(sorted(_SERVERS)) or "none"
        raise KeyError(f"no in-process MCP server {name!r} is registered (registered: {known})")
    server: Any = _SERVERS[name]
    # A FastMCP wraps its low-level server; told apart without importing FastMCP.
    low: Server[Any] = getattr(server, "_mcp_server", server)
    return low
