"""In-process MCP servers: an `MCPServer` (or low-level `Server`) object reached without a pipe.

Register one under a name and configure `{"inprocess": "name"}`: useful for embedding Python
tools without a subprocess, and for fast, hermetic tests. The SDK's `Client` connects to such
a server directly (no JSON-RPC framing) in the 2026-07-28 revision, or over memory streams
with the 2025 handshake when the server's `protocol` is `legacy`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server
    from mcp.server.mcpserver import MCPServer

# The MCP SDK's server side (MCPServer brings Starlette and uvicorn) is imported by whoever
# registers a server, never by a client that only reaches servers in other processes.

_SERVERS: dict[str, Server[Any] | MCPServer] = {}


def register_inprocess_server(name: str, server: Server[Any] | MCPServer) -> None:
    """Make `server` reachable as `{"inprocess": name}` in an MCP config."""
    _SERVERS[name] = server


def inprocess_server(name: str) -> Server[Any]:
    """The low-level server registered under `name` (KeyError names what is registered)."""
    if name not in _SERVERS:
        known = ", ".join(sorted(_SERVERS)) or "none"
        raise KeyError(f"no in-process MCP server {name!r} is registered (registered: {known})")
    server: Any = _SERVERS[name]
    # An MCPServer wraps its low-level server; told apart without importing MCPServer.
    low: Server[Any] = getattr(server, "_lowlevel_server", server)
    return low
