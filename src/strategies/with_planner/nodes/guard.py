"""irreversibility_check: decide, every turn, which tools of the plan's experts need approval."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from langgraph.runtime import Runtime

from common.mcp import ExpertUnavailable, registry_for
from common.mcp.config import ServerConfig
from common.models import ModelConfigError
from common.safety.analysis import (
    AnalysisOutcome,
    AnalysisRecord,
    analyse,
    apply_analysis,
    covers,
    from_record,
    needs_analysis,
    to_record,
)
from common.safety.classify import ToolVerdict, classify_tools
from common.safety.policy import action_for
from common.settings import get_settings
from strategies.with_planner.context import Context
from strategies.with_planner.nodes.common import context_of, emit, model_for, render_plan
from strategies.with_planner.state import (
    GuardStats,
    GuardUpdate,
    GuardVerdict,
    State,
    current_turn,
)

if TYPE_CHECKING:
    from mcp.types import Tool

    from common.mcp import ExpertRegistry

Catalog: TypeAlias = "dict[str, list[Tool]]"


PLAN_NOT_MADE = "(not made yet: judge the request against every tool above)"
"""The plan slot of an analysis started alongside the planner."""


async def irreversibility_check(state: State, runtime: Runtime[Context]) -> GuardUpdate:
    """Classify deterministically, ask the analyser when it could still matter, record why.

    The analyser's answer usually exists already: the planner node asks it alongside the
    planner (`prefetch_analysis`), about every tool; it is used when it judged exactly the
    live tools of the plan's experts, else the analyser is asked now, about the plan.
    """
    ctx = context_of(runtime, state)
    registry = await registry_for(ctx.mcp_config)
    catalog: Catalog = {}
    unavailable: dict[str, str] = {}
    for expert, tools in (await registry.catalog([t["expert"] for t in state["plan"]])).items():
        if isinstance(tools, ExpertUnavailable):
            unavailable[expert] = str(tools)
        else:
            catalog[expert] = tools
    verdicts, configs = classified(registry, catalog)
    record = current_turn(state).get("analysis")
    if not worth_asking(ctx, verdicts, configs, catalog):
        outcome = AnalysisOutcome("skipped")
    elif record is not None and covers(record, catalog):
        outcome = from_record(record)
    else:
        outcome = await analyse_turn(state, runtime, catalog, render_plan(state["plan"]))
    final = apply_analysis(verdicts, outcome, catalog, configs)
    guard = _verdict(final, unavailable, outcome)
    emit(runtime, "guard", **guard)
    stats = GuardStats(**(state.get("guard_stats") or {"llm_calls": 0, "llm_skipped": 0}))
    if outcome.status == "skipped" and record is None:
        stats["llm_skipped"] += 1
    else:
        stats["llm_calls"] += 1
    return GuardUpdate(guard=guard, guard_stats=stats)


def classified(
    registry: ExpertRegistry, catalog: Catalog
) -> tuple[list[ToolVerdict], dict[str, ServerConfig]]:
    """The deterministic verdicts on these tools, and their servers' configs."""
    verdicts: list[ToolVerdict] = []
    for expert, tools in catalog.items():
        verdicts += classify_tools(expert, tools, registry.server(expert))
    return verdicts, {name: registry.server(name) for name in catalog}


def worth_asking(
    ctx: Context, verdicts: list[ToolVerdict], configs: dict[str, ServerConfig], catalog: Catalog
) -> bool:
    """Whether the analyser could matter: a gated call would not simply run, a verdict could move.

    A verdict moves when it is open (the analyser may hold it) or only ignorance holds it (the
    analyser may clear it).
    """
    return action_for(ctx.approval_mode, True) != "run" and needs_analysis(
        verdicts, configs, catalog
    )


async def prefetch_analysis(
    state: State, runtime: Runtime[Context], registry: ExpertRegistry, catalog: Catalog
) -> AnalysisRecord | None:
    """The analysis of the request against every reachable expert's tools, or None.

    Run while the planner plans: its inputs (the request, the tools) need no plan. None when
    no answer could change a verdict.
    """
    verdicts, configs = classified(registry, catalog)
    if not worth_asking(context_of(runtime, state), verdicts, configs, catalog):
        return None
    return to_record(await analyse_turn(state, runtime, catalog, PLAN_NOT_MADE), catalog)


async def analyse_turn(
    state: State, runtime: Runtime[Context], catalog: Catalog, plan: str
) -> AnalysisOutcome:
    """Ask the turn's analyser model about these tools; a missing model is an error outcome."""
    try:
        model = model_for(context_of(runtime, state), "irreversibility")
    except (ModelConfigError, KeyError) as exc:
        return AnalysisOutcome("error", error=f"no analyser model: {exc}")
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
