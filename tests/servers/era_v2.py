"""MCP servers on the 2.x SDK for the era suite (`tests/integration_tests/test_mcp_eras.py`).

`MCPServer` serves both eras by default: the 2025 `initialize` handshake and the 2026-07-28
revision (`server/discover`, a `_meta` envelope on each request). With `refuse_initialize` as
its middleware it refuses the handshake, as a 2026-only server does.

Two tools: `get_stock(item)`, read-only, and `write_note(name, text)`, destructive, which
appends one line `NAME<TAB>TEXT` to the file named by `ERA_NOTES`, so tests count the writes.
Two that ask the person (elicitation), each era its own way (the SDK picks by the session's
protocol): `reserve(item)`, destructive, asks a one-field form "How many units of ITEM should be
reserved?" (`Resolve` with `Elicit`) and appends `reserve<TAB>ITEM<TAB>UNITS`; `verify_identity()`,
read-only, asks the person to open an address (URL mode: `ctx.elicit_url` on a 2025 session, an
`InputRequiredResult` on a 2026 one) and says what they chose. `survey(item)`, read-only,
reports its progress twice ("aisle 1 of 2", "aisle 2 of 2"); with `ERA_HOLD` naming a file, it
waits after the first report until that file exists (a test that watches the progress shown).

Usage: `era_v2.py [--modern-only]` serves one server over stdio; `era_v2.py --http PORT` serves
four over streamable HTTP, one process for all (each server costs its imports once):
`/both/stateless/mcp`, `/both/sessions/mcp`, `/2026-only/stateless/mcp` and
`/2026-only/sessions/mcp` (sessions: the server issues `Mcp-Session-Id` to handshake clients).
"""

from __future__ import annotations

import argparse
import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Annotated, Any

from mcp import MCPError
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.types import (
    UNSUPPORTED_PROTOCOL_VERSION,
    ElicitRequest,
    ElicitRequestURLParams,
    ElicitResult,
    InputRequiredResult,
    ToolAnnotations,
)
from pydantic import BaseModel, Field

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


LINK_URL = "https://accounts.example.test/link?code=7F3K"
"""The address `verify_identity` asks the person to open (nobody fetches it)."""


class Units(BaseModel):
    """The reservation form."""

    units: int = Field(ge=1, le=1000, description="Units to reserve")


async def wait_for_file(path: str, within_s: float = 120.0) -> None:
    """Return once `path` exists (or after `within_s`)."""
    for _ in range(int(within_s / 0.05)):
        if os.path.exists(path):
            return
        await asyncio.sleep(0.05)


def ask_units(item: str) -> Elicit[Units]:
    """The question `reserve` asks before it runs."""
    return Elicit(f"How many units of {item.upper()} should be reserved?", Units)


def add_asking_tools(mcp: MCPServer) -> None:
    """`reserve` (a form) and `verify_identity` (a URL), see the module doc."""

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def survey(item: str, ctx: Context) -> str:  # type: ignore[type-arg]
        """Count an item aisle by aisle, saying how far it got (progress notifications)."""
        for aisle in (1, 2):
            await ctx.report_progress(aisle, 2, f"aisle {aisle} of 2")
            if aisle == 1 and (hold := os.environ.get("ERA_HOLD")):
                # A test that watches the progress shown lets the survey go on when it has seen it.
                await wait_for_file(hold)
        return f"{item.upper()}: surveyed"

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
    def reserve(item: str, units: Annotated[Units, Resolve(ask_units)]) -> str:
        """Reserve units of an item for an order (it cannot be taken back)."""
        with open(os.environ["ERA_NOTES"], "a", encoding="utf-8") as fh:
            fh.write(f"reserve\t{item.upper()}\t{units.units}\n")
        return f"reserved {units.units} units of {item.upper()}"

    @mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def verify_identity(ctx: Context) -> str | InputRequiredResult:
        """Look up who the person is (they open an address themself)."""
        message = "Open the address to confirm who you are"
        if ctx.protocol_version != "2026-07-28":
            chosen = await ctx.elicit_url(message, LINK_URL, "link-1")
            return f"identity: {chosen.action}"
        answer = (ctx.input_responses or {}).get("link")
        if isinstance(answer, ElicitResult):
            return f"identity: {answer.action}"
        url = ElicitRequestURLParams(message=message, url=LINK_URL)
        return InputRequiredResult(
            input_requests={"link": ElicitRequest(params=url)}, request_state="asked-link"
        )


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

    add_asking_tools(mcp)
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
