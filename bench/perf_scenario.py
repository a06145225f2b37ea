"""The bench's stock scenario: three lookups and a reorder over their results, per request.

Each request names its own SKUs, so a result that leaks from one run into another shows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from servers import units_of

SKU = re.compile(r"\bSKU-\d+-[A-Z]\b")
"""A SKU as requests name them (`skus_for`)."""


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
    """The planner's answer, as a model sends it: three direct lookups, then a direct write.

    In the wire form (`PlannerResult`): every field given, each step's arguments JSON-encoded
    in `args_json`.
    """
    ids = ["t1", "t2", "t3"]
    lookups = [
        {
            "id": tid,
            "expert": "stock",
            "task": f"Get the stock of {sku}.",
            "depends_on": [],
            "critical": True,
            "tool": "get_stock",
            "args_json": json.dumps({"sku": sku}),
        }
        for tid, sku in zip(ids, skus, strict=True)
    ]
    args = {
        "skus": [f"${{{tid}.data.sku}}" for tid in ids],
        "note": ", ".join(f"${{{tid}.data.sku}} has ${{{tid}.data.units}}" for tid in ids),
    }
    write = {
        "id": "t4",
        "expert": "orders",
        "task": "Reorder the three SKUs.",
        "depends_on": ids,
        "critical": True,
        "tool": "reorder",
        "args_json": json.dumps(args),
    }
    return answer_with([*lookups, write])


def answer_with(steps: list[dict[str, Any]]) -> dict[str, Any]:
    """A planner answer (wire form) with these steps: a new plan, nothing left uncovered."""
    return {
        "decision": "replace",
        "plan": steps,
        "next_task": 0,
        "clarification": None,
        "not_covered": [],
    }


def answer_for(prompt: str) -> str:
    """The answer writer's reply: the order id from the write's result in its prompt."""
    # The data that crossed the graph: the write's result, not the request.
    found = re.search(r"PO-[\w+-]+", prompt)
    if found is None:
        return "No order was placed."
    return f"Reordered {', '.join(found.group(0)[3:].split('+'))}: order {found.group(0)}."


def order_of(skus: Sequence[str]) -> str:
    """The order id the write returns for these SKUs."""
    return "PO-" + "+".join(skus)


def check_turn(values: dict[str, Any], skus: Sequence[str]) -> tuple[list[str], Any]:
    """Problems with a finished turn: incomplete plan, wrong write data, a foreign SKU."""
    if "__interrupt__" in values:
        return [f"interrupted: {values['__interrupt__']!r}"], None
    tasks = values.get("previous_plan") or []
    problems = [
        f"{t['id']} {t['status']}: {t['error']}" for t in tasks if t["status"] != "completed"
    ]
    if len(tasks) != 4:
        problems.append(f"expected 4 tasks, got {len(tasks)}")
    written = tasks[-1].get("data") if tasks else None
    want = {"skus": list(skus), "note": note_for(skus)}
    if not isinstance(written, dict) or {k: written.get(k) for k in want} != want:
        problems.append(f"the write received {written!r}, expected {want}")
    answer = str(values["messages"][-1].content)
    if order_of(skus) not in answer:
        problems.append(f"the answer lacks the order of {skus}: {answer[:200]!r}")
    foreign = set(SKU.findall(answer)) - set(skus)
    if foreign:
        problems.append(f"the answer names another request's SKUs: {sorted(foreign)}")
    return problems, written
