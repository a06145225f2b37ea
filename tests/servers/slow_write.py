"""A stdio MCP server whose read and irreversible write both take a while, for crash tests.

`SLOW_READ_S` and `SLOW_WRITE_S` (default 6 s each) set how long `slow_read` and `slow_write`
take. `SLOW_LOG` gets one line per call as it arrives (`read KEY PID`, `write KEY PID`) and one
when a write has landed (`wrote KEY PID`), written through so a killed process leaves them.
"""

from __future__ import annotations

import asyncio
import os

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

mcp = MCPServer("slowkit")


def _log(line: str) -> None:
    path = os.environ.get("SLOW_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"{line} {os.getpid()}\n")
            fh.flush()
            os.fsync(fh.fileno())


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
async def slow_read(key: str) -> str:
    """Slowly read the value stored under a key."""
    _log(f"read {key}")
    await asyncio.sleep(float(os.environ.get("SLOW_READ_S", "6")))
    return f"value of {key}"


@mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
async def slow_write(key: str) -> str:
    """Slowly send a value under a key (irreversible: every call sends one)."""
    _log(f"write {key}")
    await asyncio.sleep(float(os.environ.get("SLOW_WRITE_S", "6")))
    _log(f"wrote {key}")
    return f"sent {key}"


if __name__ == "__main__":
    mcp.run()
