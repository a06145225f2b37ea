"""irreversibility_check: decide, every turn, which tools of the plan's experts need approval."""

from __future__ import annotations

from langgraph.runtime import Runtime
from mcp.types import Tool

from common.mcp import ExpertUnavailable, registry_for
from common.models import ModelConfigError
from common.safety.analysis import AnalysisOutcome, analyse, apply_analysis, needs_analysis
from common.safety.classify import ToolVerdict, classify_tools
from common.safety.policy import action_for
from common.settings import get_settings
from strategies.with_planner.context import Context
from strategies.with_planner.nodes.common import context_of, emit, model_for, render_plan
from strategies.with_planner.state import GuardStats, GuardUpdate, GuardVerdict, State


async def irreversibility_check(state: State, runtime: Runtime[Context]) -> GuardUpdate:
    """Classify deterministically, ask the analyser when it could still matter, record why."""
    ctx = context_of(runtime, state)
    registry = await registry_for(ctx.mcp_config)
    catalog: dict[str, list[Tool]] = {}
    unavailable: dict[str, str] = {}
    for expert, tools in (await registry.catalog([t["expert"] for t in state["plan"]])).items():
        if isinstance(tools, ExpertUnavailable):
            unavailable[expert] = str(tools)
        else:
            catalog[expert] = tools
    verdicts: list[ToolVerdict] = []
    for expert, tools in catalog.items():
        verdicts += classify_tools(expert, tools, registry.server(expert))
    configs = {name: registry.server(name) for name in catalog}
    # The analysis can only matter when a gated call would not simply run.
    if action_for(ctx.approval_mode, True) != "run" and needs_analysis(verdicts, configs):
        outcome = await _analyse(state, runtime, catalog)
    else:
        outcome = AnalysisOutcome("skipped")
    final = apply_analysis(verdicts, outcome, catalog, configs)
    guard = _verdict(final, unavailable, outcome)
    emit(runtime, "guard", **guard)
    stats = GuardStats(**(state.get("guard_stats") or {"llm_calls": 0, "llm_skipped": 0}))
    if outcome.status == "skipped":
        stats["llm_skipped"] += 1
    else:
        stats["llm_calls"] += 1
    return GuardUpdate(guard=guard, guard_stats=stats)


async def _analyse(
    state: State, runtime: Runtime[Context], catalog: dict[str, list[Tool]]
) -> AnalysisOutcome:
    try:
        model = model_for(context_of(runtime, state), "irreversibility")
    except (ModelConfigError, KeyError) as exc:
        return AnalysisOutcome("error", error=f"no analyser model: {exc}")
    plan = render_plan(state["plan"])
    timeout = get_settings().analysis_timeout_s
    return await analyse(model, catalog, plan, state["messages"], timeout)


def _verdict(
    final: list[ToolVerdict], unavailable: dict[str, str], outcome: AnalysisOutcome
) -> GuardVerdict:
    irreversible: dict[str, list[str]] = {}
    for v in final:
        if v["irreversible"]:
            irreversible.setdefault(v["server"], []).append(v["tool"])
    return GuardVerdict(
        irreversible=irreversible,
        verdicts=final,
        unavailable=unavailable,
        analysis=outcome.status,
        notes=[*outcome.notes, *([outcome.error] if outcome.error else [])],
    )
