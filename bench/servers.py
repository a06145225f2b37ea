"""The two experts of the whole-graph benchmark, as MCPServer servers with a fixed tool latency.

    python bench/servers.py stock|orders [--tool-s 0.2] [--log PATH]    # a stdio MCP server

- `stock`: `get_stock(sku)`, annotated readOnlyHint=true, returns `{"sku", "units"}`;
- `orders`: `reorder(skus, note)`, a write, returns `{"order_id", "skus", "note"}`.

Every tool call sleeps `--tool-s` seconds. With `--log`, `orders` appends each order id it places
to that file, one line per call, so a bench can check that every approved write ran once. The
same factories serve in-process (registered with `common.mcp.inprocess`) for tests, so both
transports run the same tools.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import zlib
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

NAMES = ("stock", "orders")
"""The servers this module can build."""


def units_of(sku: str) -> int:
    """The units in stock for a SKU: stable across processes, different per SKU."""
    return zlib.crc32(sku.encode()) % 90 + 10


def stock_server(tool_s: float, name: str = "stock") -> MCPServer:
    """The read-only stock expert."""
    server = MCPServer(name, log_level="WARNING")

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    async def get_stock(sku: str) -> dict[str, Any]:
        """Get the units in stock for one SKU."""
        await asyncio.sleep(tool_s)
        return {"sku": sku, "units": units_of(sku)}

    return server


def orders_server(tool_s: float, name: str = "orders", log: Path | None = None) -> MCPServer:
    """The orders expert: one write, reorder (each order id appended to `log` when given)."""
    server = MCPServer(name, log_level="WARNING")

    @server.tool()
    async def reorder(skus: list[str], note: str) -> dict[str, Any]:
        """Place one purchase order for the given SKUs, with a note for the buyer."""
        await asyncio.sleep(tool_s)
        order_id = "PO-" + "+".join(skus)
        if log is not None:
            with log.open("a") as out:  # one short line per write: appends do not interleave
                out.write(order_id + "\n")
        return {"order_id": order_id, "skus": skus, "note": note}

    return server


def build(name: str, tool_s: float, server_name: str | None = None) -> MCPServer:
    """The server called `name` (stock or orders), optionally under another server name."""
    factory = stock_server if name == "stock" else orders_server
    return factory(tool_s, server_name or name)


def stdio_entry(name: str, tool_s: float, log: Path | None = None) -> dict[str, Any]:
    """The mcpServers entry that runs server `name` over stdio with this interpreter."""
    args = [str(Path(__file__).resolve()), name, "--tool-s", str(tool_s)]
    return {"command": sys.executable, "args": args + (["--log", str(log)] if log else [])}


def main() -> None:
    """Serve one expert over stdio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("name", choices=NAMES)
    parser.add_argument("--tool-s", type=float, default=0.2, help="seconds per tool call")
    parser.add_argument("--log", type=Path, help="orders: append each order id to this file")
    args = parser.parse_args()
    server = orders_server(args.tool_s, log=args.log) if args.name == "orders" else None
    (server or build(args.name, args.tool_s)).run("stdio")


if __name__ == "__main__":
    main()
