"""A 2025-only MCP server for the era suite: FastMCP of the 1.x SDK, run from `.venv-mcp1`.

Made by `make third-party`; the 1.x SDK knows only the `initialize` handshake. The same tools
as `era_v2.py`: `get_stock(item)`, read-only, and `write_note(name, text)`, destructive, which
appends one line `NAME<TAB>TEXT` to the file named by `ERA_NOTES`.

Usage: `.venv-mcp1/bin/python era_v1.py` serves over stdio; `... era_v1.py --http PORT` serves
streamable HTTP on `/stateless/mcp` (`stateless_http=True`) and `/sessions/mcp` (the 1.x
default: `Mcp-Session-Id`), one process for both.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

STOCK = {"WID-1": 120, "BOLT-M6": 310}
"""Units in stock by item."""
LABEL = "era-2025-only"
KINDS = ("stateless", "sessions")
"""The HTTP endpoints: `/KIND/mcp`."""


def build(stateless_http: bool = False) -> FastMCP:
    """The 2025-only server (`stateless_http` only matters over HTTP)."""
    mcp = FastMCP(LABEL, stateless_http=stateless_http)

    @mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def get_stock(item: str) -> str:
        """Units of `item` in stock."""
        units = STOCK.get(item.upper(), 0)
        return f"{item.upper()}: {units} units in stock ({LABEL})"

    @mcp.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True))
    def write_note(name: str, text: str) -> str:
        """Write a note (appended to the team's notes; it cannot be taken back)."""
        with open(os.environ["ERA_NOTES"], "a", encoding="utf-8") as fh:
            fh.write(f"{name}\t{text}\n")
        return f"note {name!r} written"

    return mcp


def serve_http(port: int) -> None:
    """The server stateless and with sessions, on one port (see the module doc)."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import Mount

    apps = {f"/{kind}": build(kind == "stateless").streamable_http_app() for kind in KINDS}

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        # A mounted app's own lifespan (its session manager) is not run by Starlette.
        async with AsyncExitStack() as stack:
            for app in apps.values():
                await stack.enter_async_context(app.router.lifespan_context(app))
            yield

    root = Starlette(routes=[Mount(p, app=a) for p, a in apps.items()], lifespan=lifespan)
    uvicorn.Server(uvicorn.Config(root, host="127.0.0.1", port=port, log_level="warning")).run()


def main() -> None:
    """Serve over stdio, or streamable HTTP with `--http PORT`."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, metavar="PORT")
    args = parser.parse_args()
    if args.http is None:
        build().run()
    else:
        serve_http(args.http)


if __name__ == "__main__":
    main()
