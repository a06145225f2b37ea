"""Demo expert: a read-only product inventory (every tool annotated readOnlyHint).

It writes no file, so any number of processes can serve it at once from any directory.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

PRODUCTS: dict[str, dict[str, Any]] = {
    "WID-1": {"sku": "WID-1", "name": "Blue widget", "price": 4.5, "stock": 120, "aisle": "A3"},
    "WID-2": {"sku": "WID-2", "name": "Red widget", "price": 4.75, "stock": 0, "aisle": "A3"},
    "GAD-7": {"sku": "GAD-7", "name": "Pocket gadget", "price": 19.0, "stock": 14, "aisle": "C1"},
    "BOLT-M6": {
        "sku": "BOLT-M6",
        "name": "M6 bolt (100)",
        "price": 7.2,
        "stock": 310,
        "aisle": "F2",
    },
}

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)

mcp = MCPServer("inventory", instructions="Look up products, prices and stock levels.")


@mcp.tool(annotations=READ_ONLY)
def list_products() -> list[dict[str, Any]]:
    """List every product with its SKU, name, price and stock."""
    return list(PRODUCTS.values())


@mcp.tool(annotations=READ_ONLY)
def get_stock(sku: str) -> dict[str, Any]:
    """Get the stock level and aisle of one product by SKU."""
    product = PRODUCTS.get(sku.upper())
    if product is None:
        # A ToolError reaches the client as "Error executing tool get_stock: <text>"; any other
        # exception would lose its text.
        raise ToolError(f"Unknown SKU {sku!r}; known: {', '.join(PRODUCTS)}")
    return {"sku": product["sku"], "stock": product["stock"], "aisle": product["aisle"]}


@mcp.tool(annotations=READ_ONLY)
def search_products(query: str) -> list[dict[str, Any]]:
    """Search products whose name contains the query (case-insensitive)."""
    q = query.lower()
    return [p for p in PRODUCTS.values() if q in p["name"].lower() or q in p["sku"].lower()]


def main() -> None:
    """Serve over stdio, or streamable HTTP when `--http PORT` is given."""
    import sys

    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        mcp.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        mcp.run()


if __name__ == "__main__":
    main()
