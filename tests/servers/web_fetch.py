"""A stdio MCP server for tests: a real HTTP fetch, following redirects as fetch servers do.

`fetch(url)` GETs the URL with httpx (`follow_redirects=True`, the environment's proxy settings
honoured: HTTP_PROXY, NO_PROXY) and returns the final URL and the body. No address is checked
here, as in home-grown fetch servers: whatever a redirect points at is fetched. Each call is
appended, as one JSON line with every hop's URL, to the file named by WEB_FETCH_LOG (when set).
"""

from __future__ import annotations

import json
import os

import httpx
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

server = MCPServer("web")


def _log(url: str, hops: list[str]) -> None:
    """Append the call and the URLs it went through to WEB_FETCH_LOG, when set."""
    path = os.environ.get("WEB_FETCH_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"tool": "fetch", "url": url, "hops": hops}) + "\n")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=True))
async def fetch(url: str) -> str:
    """Fetch a web page and return its text."""
    async with httpx.AsyncClient(follow_redirects=True, timeout=10) as client:
        try:
            response = await client.get(url)
        except httpx.HTTPError as exc:
            raise ToolError(f"Failed to fetch {url}: {exc}") from None
    hops = [str(r.url) for r in response.history] + [str(response.url)]
    _log(url, hops)
    return f"Contents of {response.url} (status {response.status_code}):\n{response.text}"


if __name__ == "__main__":
    server.run()
