"""An MCP server offering the Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663).

FastMCP 4 with `fastmcp-tasks`, run from `.venv-tasks` (`make third-party`: fastmcp-tasks pins
fastmcp-slim and redis versions of its own, so it has a venv of its own). Its Docket backend is
in memory, so a task lives as long as this process. Two task tools (`task=True`: run as a task
when the client opts in, inline otherwise):
- `count_stock(item)`, read-only, sleeps `TASKS_SLEEP_S` (default 2) then answers;
- `ship_order(order)`, destructive, sleeps the same, then appends `ship<TAB>ORDER` to the file
  `TASKS_LOG` names, so tests count the shipments.

Usage: `.venv-tasks/bin/python tasks_server.py --http PORT` (streamable HTTP on `/mcp`).
"""

from __future__ import annotations

import argparse
import asyncio
import os

from fastmcp import FastMCP
from fastmcp_tasks import TasksExtension
from mcp.types import ToolAnnotations


def build() -> FastMCP:
    """The server with its two task tools."""
    mcp = FastMCP("tasks-demo")
    mcp.add_extension(TasksExtension(url="memory://"))
    pause = float(os.environ.get("TASKS_SLEEP_S", "2"))

    @mcp.tool(task=True, annotations=ToolAnnotations(readOnlyHint=True))
    async def count_stock(item: str) -> str:
        """Count the units of an item in the warehouse (slow: a person walks the aisles)."""
        await asyncio.sleep(pause)
        return f"{item.upper()}: 120 units counted"

    @mcp.tool(task=True, annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True))
    async def ship_order(order: str) -> str:
        """Ship an order to the customer (it cannot be taken back)."""
        await asyncio.sleep(pause)
        with open(os.environ["TASKS_LOG"], "a", encoding="utf-8") as fh:
            fh.write(f"ship\t{order}\n")
        return f"order {order} shipped"

    return mcp


def main() -> None:
    """Serve over streamable HTTP."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, metavar="PORT", required=True)
    args = parser.parse_args()
    build().run(transport="http", host="127.0.0.1", port=args.http, log_level="warning")


if __name__ == "__main__":
    main()
