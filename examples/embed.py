"""Embed the compiled with_planner graph in an app: SQLite persistence, your own servers.

Run: python examples/embed.py "How many units of WID-1 are in stock"
With no API key the graph uses offline:rules; set MODEL (and its key) for a real model.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from langgraph.types import Command

from common.mcp.registry import shutdown_pool
from common.persistence import open_persistence
from strategies.with_planner.graph import build_graph

ROOT = Path(__file__).resolve().parents[1]


async def ask(question: str, thread_id: str = "example", model: str = "offline:rules") -> str:
    """Run one question to its answer, approving nothing irreversible on the way."""
    config: Any = {"configurable": {"thread_id": thread_id}}
    context = {
        "mcp_config": json.loads((ROOT / "mcp.json").read_text()),
        "model": model,
        "approval_mode": "interrupt",
    }
    async with open_persistence() as (saver, store):
        graph = build_graph(checkpointer=saver, store=store)
        try:
            result = await graph.ainvoke(
                {"messages": [{"role": "user", "content": question}]}, config, context=context
            )
            while result.get("__interrupt__"):
                # An app would show the request to a person; this one declines every action.
                asked = result["__interrupt__"][0]
                decisions = [
                    {"type": "reject", "message": "declined by the example app"}
                    for _ in asked.value["action_requests"]
                ]
                # Keyed by the question's id: the answer is for the question shown, no other.
                result = await graph.ainvoke(
                    Command(resume={asked.id: {"decisions": decisions}}), config, context=context
                )
        finally:
            await shutdown_pool()
    return str(result["messages"][-1].content)


if __name__ == "__main__":
    print(asyncio.run(ask(" ".join(sys.argv[1:]) or "How many units of WID-1 are in stock")))
