"""The bench's stock scenario: three lookups and a reorder over their results, per request.

Each request names its own SKUs, so a result that leaks from one run into another shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from servers import units_of


def skus_for(n: int) -> list[str]:
    """The three SKUs of request number `n`: unique per request, so leaks show."""
    return [f"SKU-{n:04d}-{letter}" for letter in "ABC"]


def note_for(skus: Sequence[str]) -> str:
    """The note the write should receive: each lookup's SKU and units, through templates."""
    return ", ".join(f"{sku} has {units_of(sku)}" for sku in skus)


def request_for(skus: Sequence[str]) -> str:
    """The user's request for three SKUs."""
    return f"Check the stock of {skus[0]}, {skus[1]} and {skus[2]}, then reorder all three."


def plan_for(skus: Sequence[str]) -> dict[str, Any]:
    """The planner's answer: three direct lookups, then a direct write over their results."""
    ids = ["t1", "t2", "t3"]
    lookups = [
        {
            "id": tid,
            "expert": "stock",
            "task": f"Get the stock of {sku}.",
            "tool": "get_stock",
            "args": {"sku": sku},
        }
        for tid, sku in zip(ids, skus, strict=True)
    ]
    write = {
        "id": "t4",
        "expert": "orders",
        "task": "Reorder the three SKUs.",
        "depends_on": ids,
        "tool": "reorder",
        "args": {
            "skus": [f"${{{tid}.data.sku}}" for tid in ids],
            "note": ", ".join(f"${{{tid}.data.sku}} has ${{{tid}.data.units}}" for tid in ids),
        },
    }
    return {"plan": [*lookups, write]}
