"""A stdio MCP server that prints a banner on stdout before it serves, as many scripts do.

`BANNER_END` ends the banner (default a newline); set it to "" and the banner is glued to the
server's first answer, the `initialize` result, which the client then cannot parse.
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

mcp = MCPServer("banner")


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def ping() -> str:
    """Answer pong."""
    return "pong"


if __name__ == "__main__":
    sys.stdout.write("Banner server 1.0 ready" + os.environ.get("BANNER_END", "\n"))
    sys.stdout.flush()
    mcp.run()
