"""A stdio MCP server for fault tests: a read that stalls once, a slow irreversible write.

Every call is appended to the file named by FAULTKIT_LOG (when set) so tests can count runs,
see a cancellation arrive, and see whether a cancelled write finished anyway.
"""

from __future__ import annotations

import asyncio
import os

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

mcp = MCPServer("faultkit")
RO = ToolAnnotations(read_only_hint=True)


def _log(line: str) -> None:
    path = os.environ.get("FAULTKIT_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")


@mcp.tool(annotations=RO)
def echo(text: str) -> str:
    """Echo the text back."""
    _log(f"echo {text}")
    return text


@mcp.tool(annotations=RO)
async def stall_once(tag: str, seconds: float) -> str:
    """Stall the first call with this tag (per FAULTKIT_LOG); answer later ones at once."""
    marker = f"{os.environ.get('FAULTKIT_LOG', 'faultkit')}.stalled.{tag}"
    first = not os.path.exists(marker)
    _log(f"stall_once {tag}")
    if first:
        with open(marker, "w", encoding="utf-8"):
            pass
        await asyncio.sleep(seconds)
    return f"answered {tag}"


@mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
async def slow_write(seconds: float, tag: str) -> str:
    """Write a record slowly; logs its start, its end and a cancellation."""
    _log(f"slow_write start {tag}")
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        _log(f"slow_write cancelled {tag}")
        raise
    _log(f"slow_write done {tag}")
    return f"wrote {tag}"


if __name__ == "__main__":
    mcp.run()
