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


CITIES = ("Lyon", "Porto", "Gdansk", "Leeds", "Turin", "Ghent", "Brno", "Cork")
"""Where the detailed stock record's warehouses are."""


def stock_record(sku: str) -> dict[str, Any]:
    """A stock lookup as an inventory system answers it: ~2 KB of JSON, stable per SKU.

    The SKU and its units, as `get_stock` gives them, plus what a real system sends along: the
    item, each warehouse's count and the latest movements (the realistic turns of
    bench_long_thread quote these in the answer).
    """
    seed = zlib.crc32(sku.encode())
    warehouses = [
        {
            "warehouse": f"WH-{i + 1:02d}",
            "city": city,
            "units": (seed >> i) % 40,
            "bin": f"{chr(65 + i)}{(seed >> (i + 3)) % 30:02d}-{(seed >> (i + 5)) % 9}",
            "last_counted": f"2026-10-{(seed >> i) % 28 + 1:02d}",
        }
        for i, city in enumerate(CITIES)
    ]
    movements = [
        {
            "date": f"2026-{9 + i // 10:02d}-{(seed >> i) % 28 + 1:02d}",
            "kind": "receipt" if (seed >> i) & 1 else "shipment",
            "quantity": (seed >> (i + 2)) % 25 + 1,
            "reference": f"{'GR' if (seed >> i) & 1 else 'SO'}-{(seed >> i) % 100_000:05d}",
        }
        for i in range(4)
    ]
    return {
        "sku": sku,
        "units": units_of(sku),
        "name": f"Stainless fastener assortment {sku}",
        "description": "Assorted M4-M10 stainless steel bolts, nuts and washers in a "
        "compartment case; A2-70 grade; for maintenance crews and assembly lines.",
        "supplier": {"name": "Nordfix GmbH", "lead_time_days": seed % 20 + 5, "min_order": 10},
        "warehouses": warehouses,
        "movements": movements,
    }


def stock_server(tool_s: float, name: str = "stock", detailed: bool = False) -> MCPServer:
    """The read-only stock expert (`detailed`: whole stock records, see `stock_record`)."""
    server = MCPServer(name, log_level="WARNING")

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    async def get_stock(sku: str) -> dict[str, Any]:
        """Get the units in stock for one SKU."""
        await asyncio.sleep(tool_s)
        return stock_record(sku) if detailed else {"sku": sku, "units": units_of(sku)}

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
