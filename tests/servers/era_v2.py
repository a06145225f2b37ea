"""MCP servers on the 2.x SDK for the era suite (`tests/integration_tests/test_mcp_eras.py`).

`MCPServer` serves both eras by default: the 2025 `initialize` handshake and the 2026-07-28
revision (`server/discover`, a `_meta` envelope on each request). With `refuse_initialize` as
its middleware it refuses the handshake, as a 2026-only server does.

Two tools: `get_stock(item)`, read-only, and `write_note(name, text)`, destructive, which
appends one line `NAME<TAB>TEXT` to the file named by `ERA_NOTES`, so tests count the writes.

Usage: `era_v2.py [--modern-only]` serves one server over stdio; `era_v2.py --http PORT` serves
four over streamable HTTP, one process for all (each server costs its imports once):
`/both/stateless/mcp`, `/both/sessions/mcp`, `/2026-only/stateless/mcp` and
`/2026-only/sessions/mcp` (sessions: the server issues `Mcp-Session-Id` to handshake clients).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from mcp import MCPError
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.types import UNSUPPORTED_PROTOCOL_VERSION, ToolAnnotations

STOCK = {"WID-1": 120, "BOLT-M6": 310}
"""Units in stock by item."""
MODERN_ONLY = ["2026-07-28"]
"""The versions a 2026-only server names when it refuses the handshake."""


async def refuse_initialize(
    ctx: ServerRequestContext[Any, Any], call_next: CallNext
) -> HandlerResult:
    """Server middleware: refuse the 2025 `initialize` handshake as a 2026-only server does.

    Raised before `call_next`, so the handshake leaves no state (see `ServerMiddleware`).
    """
    if ctx.method == "initialize":
        raise MCPError(
            code=UNSUPPORTED_PROTOCOL_VERSION,
            message="this server speaks the 2026-07-28 revision only; initialize is not accepted",
            data={"supported": MODERN_ONLY},
        )
    return await call_next(ctx)


def build(modern_only: bool) -> MCPServer:
    """The both-era server, or with `modern_only` the 2026-only one."""
    label = "era-2026-only" if modern_only else "era-both"
    mcp = MCPServer(label, middleware=[refuse_initialize] if modern_only else None)

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
    def get_stock(item: str) -> str:
        """Units of `item` in stock."""
        units = STOCK.get(item.upper(), 0)
        return f"{item.upper()}: {units} units in stock ({label})"

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
    def write_note(name: str, text: str) -> str:
        """Write a note (appended to the team's notes; it cannot be taken back)."""
        with open(os.environ["ERA_NOTES"], "a", encoding="utf-8") as fh:
            fh.write(f"{name}\t{text}\n")
        return f"note {name!r} written"

    return mcp


def serve_http(port: int) -> None:
    """Both eras, each stateless and with sessions, on one port (see the module doc)."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import Mount

    apps = {
        f"/{era}/{kind}": build(era == "2026-only").streamable_http_app(
            stateless_http=kind == "stateless"
        )
        for era in ("both", "2026-only")
        for kind in ("stateless", "sessions")
    }

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
    parser.add_argument("--modern-only", action="store_true")
    parser.add_argument("--http", type=int, metavar="PORT")
    args = parser.parse_args()
    if args.http is None:
        build(args.modern_only).run()
    else:
        serve_http(args.http)


if __name__ == "__main__":
    main()
