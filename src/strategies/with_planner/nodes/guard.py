"""irreversibility_check: classify the tools of the plan's experts before anything runs."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from common.mcp import ExpertUnavailable, registry_for
from common.safety import ToolVerdict, classify_tools
from strategies.with_planner.context import Context
from strategies.with_planner.nodes.common import context_of, emit
from strategies.with_planner.state import GuardVerdict, State


async def irreversibility_check(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Record which tools of this turn's experts need approval, and which experts are down."""
    registry = await registry_for(context_of(runtime).mcp_config)
    experts = [t["expert"] for t in state["plan"]]
    catalog = await registry.catalog(experts)
    verdicts: list[ToolVerdict] = []
    unavailable: dict[str, str] = {}
    for expert, tools in catalog.items():
        if isinstance(tools, ExpertUnavailable):
            unavailable[expert] = str(tools)
            continue
        verdicts += classify_tools(expert, tools, registry.server(expert))
    irreversible: dict[str, list[str]] = {}
    for v in verdicts:
        if v["irreversible"]:
            irreversible.setdefault(v["server"], []).append(v["tool"])
    guard = GuardVerdict(irreversible=irreversible, verdicts=verdicts, unavailable=unavailable)
    emit(runtime, "guard", irreversible=irreversible, verdicts=verdicts, unavailable=unavailable)
    return {"guard": guard}
