"""A 2025-only MCP server for the era suite: FastMCP of the 1.x SDK, run from `.venv-mcp1`.

Made by `make third-party`; the 1.x SDK knows only the `initialize` handshake. The same tools
as `era_v2.py`: `get_stock(item)`, read-only, and `write_note(name, text)`, destructive, which
appends one line `NAME<TAB>TEXT` to the file named by `ERA_NOTES`; `reserve(item)` and
`verify_identity()` ask the person mid-call with 2025 `elicitation/create` (a form, a URL).

Usage: `.venv-mcp1/bin/python era_v1.py` serves over stdio; `... era_v1.py --http PORT` serves
streamable HTTP on `/stateless/mcp` (`stateless_http=True`) and `/sessions/mcp` (the 1.x
default: `Mcp-Session-Id`), one process for both.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from mcp.server.fastmcp import Context, FastMCP
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

STOCK = {"WID-1": 120, "BOLT-M6": 310}
"""Units in stock by item."""
LABEL = "era-2025-only"
KINDS = ("stateless", "sessions")
"""The HTTP endpoints: `/KIND/mcp`."""


LINK_URL = "https://accounts.example.test/link?code=7F3K"
"""The address `verify_identity` asks the person to open (nobody fetches it)."""


class Units(BaseModel):
    """The reservation form."""

    units: int = Field(ge=1, le=1000, description="Units to reserve")


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

    @mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
    async def survey(item: str, ctx: Context) -> str:  # type: ignore[type-arg]
        """Count an item aisle by aisle, saying how far it got (progress notifications)."""
        for aisle in (1, 2):
            await ctx.report_progress(aisle, 2, f"aisle {aisle} of 2")
        return f"{item.upper()}: surveyed"

    @mcp.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True))
    async def reserve(item: str, ctx: Context) -> str:  # type: ignore[type-arg]
        """Reserve units of an item for an order (it cannot be taken back)."""
        asked = await ctx.elicit(f"How many units of {item.upper()} should be reserved?", Units)
        if asked.action != "accept":
            return f"not reserved: {asked.action}"
        with open(os.environ["ERA_NOTES"], "a", encoding="utf-8") as fh:
            fh.write(f"reserve\t{item.upper()}\t{asked.data.units}\n")
        return f"reserved {asked.data.units} units of {item.upper()}"

    @mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
    async def verify_identity(ctx: Context) -> str:  # type: ignore[type-arg]
        """Look up who the person is (they open an address themself)."""
        chosen = await ctx.elicit_url("Open the address to confirm who you are", LINK_URL, "link-1")
        return f"identity: {chosen.action}"

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
