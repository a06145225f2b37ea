"""Listing an MCP server's tools: every page of `tools/list`."""

from __future__ import annotations

from mcp import Client
from mcp.types import Tool


async def list_all_tools(client: Client) -> list[Tool]:
    """Every tool the server lists now, page by page.

    Asked of the server itself (`cache_mode="refresh"`): each of our listings is a question
    about now (a start, a change the server announced, a definition checked at call time).
    The SDK's cache still stores the pages, for its own re-list after a `HEADER_MISMATCH`.
    """
    tools: list[Tool] = []
    cursor: str | None = None
    while True:
        page = await client.list_tools(cursor=cursor, cache_mode="refresh")
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools
