"""Listing an MCP server's tools: the handshake, and every page of `tools/list`."""

from __future__ import annotations

from mcp import ClientSession
from mcp.types import PaginatedRequestParams, Tool


async def handshake(session: ClientSession) -> list[Tool]:
    """`initialize`, then the server's whole tool list."""
    await session.initialize()
    return await list_all_tools(session)


async def list_all_tools(session: ClientSession) -> list[Tool]:
    """Every tool the server lists, page by page."""
    tools: list[Tool] = []
    cursor: str | None = None
    while True:
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools.extend(page.tools)
        cursor = page.nextCursor
        if not cursor:
            return tools
