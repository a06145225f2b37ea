"""Planner prompt tokens with 3 experts, then with 27 real servers' tool lists beside them.

    PYTHONPATH=src:. python bench/bench_perception.py [--request "..."] [--extra 27]

Plans the request with the keyless `offline:rules` model (recording its prompts) through the
whole graph (approval mode `plan_only`, so nothing irreversible runs), once over the three experts
and once with the extra servers of tests/data/tool_catalog.json (the ones with the most tools, no
description: most configs carry none). Prints the planner's system-prompt tokens (characters / 4,
as the request guardrail counts), their ratio, and whether the plan is the same (exit 1 if not).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any
from uuid import uuid4

ROOT = Path(__file__).resolve().parents[1]
# The catalog experts live in the repository's `tests` package, the bench servers beside this file.
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from langchain_core.messages import BaseMessage  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from tests.servers.catalog_experts import catalog_experts  # noqa: E402

from common.guardrails.request import estimate_tokens  # noqa: E402
from common.mcp.inprocess import register_inprocess_server  # noqa: E402
from common.models import register_provider  # noqa: E402
from common.settings import get_settings  # noqa: E402
from servers import build  # noqa: E402
from strategies.with_planner.graph import build_graph  # noqa: E402
from strategies.with_planner.offline_model import OfflineRulesModel  # noqa: E402

DEMO_REQUEST = 'How many units of GAD-7 are in stock, then write a note titled "perception"'
"""The keyless demo's request."""


PROMPTS: list[str] = []
"""The planner system prompts seen, in order."""

PLANS: list[dict[str, Any]] = []
"""The plans answered, in order."""


class RecordingRules(OfflineRulesModel):
    """`offline:rules` that keeps the system prompt of every planning call."""

    def structured(self, messages: list[BaseMessage], schema: Any) -> dict[str, Any]:
        """Record a planner prompt, then plan by rules."""
        if getattr(schema, "__name__", "") == "PlannerResult":
            PROMPTS.append(str(messages[0].content))
            PLANS.append(super().structured(messages, schema))
            return PLANS[-1]
        return super().structured(messages, schema)


register_provider("recorded", lambda _name: RecordingRules())


def three_experts() -> dict[str, dict[str, Any]]:
    """The demo's inventory and notes (stdio) and the bench's orders expert (in-process)."""
    register_inprocess_server("perception-orders", build("orders", 0.0, "orders"))
    module = [sys.executable, "-m"]
    return {
        "inventory": {
            "command": module[0],
            "args": [*module[1:], "common.demo_servers.inventory"],
            "description": "Product stock and prices (read-only).",
        },
        "notes": {
            "command": module[0],
            "args": [*module[1:], "common.demo_servers.notes"],
            "env": {"NOTES_FILE": str(Path(tempfile.gettempdir()) / f"notes-{uuid4().hex}.json")},
            "description": "Team notes: list, read, write, delete.",
        },
        "orders": {"inprocess": "perception-orders", "description": "Purchase orders."},
    }


async def plan_over(servers: dict[str, dict[str, Any]], request: str) -> tuple[str, list[Any]]:
    """The planner's first system prompt and its last plan's tasks."""
    PROMPTS.clear()
    PLANS.clear()
    context = {
        "mcp_config": {"mcpServers": servers},
        "model": "recorded:rules",
        "approval_mode": "plan_only",
    }
    config: dict[str, Any] = {"configurable": {"thread_id": uuid4().hex}}
    graph = build_graph(InMemorySaver())
    await graph.ainvoke(
        {"messages": [{"role": "user", "content": request}]}, config, context=context
    )
    return PROMPTS[0], PLANS[-1]["plan"]


async def main(request: str, extra: int) -> int:
    """Print the two prompt sizes, their ratio and whether the plans agree."""
    small = three_experts()
    small_prompt, small_plan = await plan_over(small, request)
    large_prompt, large_plan = await plan_over({**small, **catalog_experts(extra)}, request)
    small_tokens, large_tokens = estimate_tokens(small_prompt), estimate_tokens(large_prompt)
    print(f"tool budget            {get_settings().planner_tool_budget} tokens")
    print(f"planner prompt, {len(small)} servers  {small_tokens} tokens")
    print(f"planner prompt, {len(small) + extra} servers {large_tokens} tokens")
    print(f"ratio                  {large_tokens / small_tokens:.2f}x")
    print(f"plan ({len(small)} servers)      {small_plan}")
    same = small_plan == large_plan
    print(f"same plan              {'yes' if same else f'NO: {large_plan}'}")
    return 0 if same else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--request", default=DEMO_REQUEST)
    parser.add_argument("--extra", type=int, default=27)
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.request, args.extra)))
