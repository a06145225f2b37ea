"""Perception: a large catalog is shown as an index with the request's best tools in full."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mcp.types import Tool

from common.guardrails.request import estimate_tokens
from strategies.with_planner.perception import (
    Catalog,
    describe_catalog,
    rank_tools,
    select_tools,
    tool_line,
)
from strategies.with_planner.prompts import PARTIAL_CATALOG_NOTE, PLANNER_SYSTEM_PROMPT
from tests.servers.catalog_experts import catalog_experts, largest
from tests.unit_tests.helpers import Thread, bench_script, plan, system_prompt

ROOT = Path(__file__).resolve().parents[2]
REQUEST = 'How many units of GAD-7 are in stock, then write a note titled "perception"'
BUDGET = 400


def _tool(name: str, description: str, *args: str) -> Tool:
    properties = {a: {"type": "string"} for a in args}
    return Tool(name=name, description=description, inputSchema={"properties": properties})


SMALL: dict[str, Sequence[Tool] | None] = {
    "inventory": [
        _tool("list_products", "List every product with its SKU, name, price and stock."),
        _tool("get_stock", "Get the stock level and aisle of one product by SKU.", "sku"),
        _tool("search_products", "Search products whose name contains the query.", "query"),
    ],
    "notes": [
        _tool("list_notes", "List the titles of all notes."),
        _tool("read_note", "Read one note by its title.", "title"),
        _tool(
            "write_note", "Write a note, replacing any note with the same title.", "title", "body"
        ),
        _tool("delete_note", "Delete a note by its title.", "title"),
    ],
    "orders": [_tool("reorder", "Place one purchase order for the given SKUs.", "skus", "note")],
}
DESCRIPTIONS = {
    "inventory": "Product stock and prices (read-only).",
    "notes": "Team notes: list, read, write, delete.",
    "orders": "Purchase orders.",
}
LARGE: dict[str, Sequence[Tool] | None] = {**SMALL, **largest(27)}


def legacy(descriptions: Mapping[str, str], catalog: Catalog, errors: Mapping[str, str]) -> str:
    """The expert list as the planner showed it before perception: every tool of every expert."""
    lines = []
    for name, tools in catalog.items():
        desc = descriptions.get(name) or "(no description)"
        if tools is None:
            lines.append(f"- {name}: {desc} [currently unavailable: {errors[name]}]")
            continue
        listed = "; ".join(
            f"{t.name}({', '.join((t.input_schema or {}).get('properties', {}))})"
            + (f": {t.description.splitlines()[0]}" if t.description else "")
            for t in tools
        )
        lines.append(f"- {name}: {desc}\n  tools: {listed}")
    return "\n".join(lines) or "(no experts configured)"


def prompt_tokens(experts: str) -> int:
    """Tokens of a planner prompt around `experts`, other slots as on a first turn."""
    return estimate_tokens(
        PLANNER_SYSTEM_PROMPT.format(
            experts=experts,
            now="Tuesday 2026-11-24 17:00 UTC",
            dates="(none)",
            previous_plan="(none)",
            memory="(no store configured)",
            strategy="",
            feedback="",
        )
    )


def describe(catalog: Catalog, request: str = REQUEST, **kw: Any) -> str:
    return describe_catalog(DESCRIPTIONS, catalog, {}, request=request, budget=BUDGET, **kw)


def test_a_catalog_within_the_budget_is_shown_exactly_as_before() -> None:
    small = {**SMALL, "mail": None, "bare": []}
    errors = {"mail": "connection refused"}
    text = describe_catalog(DESCRIPTIONS, small, errors, request=REQUEST, budget=BUDGET)
    assert text == legacy(DESCRIPTIONS, small, errors)
    assert PARTIAL_CATALOG_NOTE not in text
    assert describe_catalog({}, {}, {}, request="", budget=BUDGET) == "(no experts configured)"


def test_a_large_catalog_shows_every_expert_and_the_needed_tools_in_full() -> None:
    text = describe(LARGE)

    for name in LARGE:
        assert f"- {name}: " in text
    assert tool_line(SMALL["inventory"][1]) in text  # type: ignore[index]
    assert tool_line(SMALL["notes"][2]) in text  # type: ignore[index]
    assert "- atlassian: (98 tools)" in text
    assert text.endswith(PARTIAL_CATALOG_NOTE)


def test_the_prompt_with_30_servers_is_at_most_one_and_a_half_times_the_3_server_one() -> None:
    small = prompt_tokens(describe(SMALL))
    large = prompt_tokens(describe(LARGE))
    whole = prompt_tokens(legacy(DESCRIPTIONS, LARGE, {}))

    assert large <= 1.5 * small
    assert whole > 10 * small


def test_experts_a_plan_named_are_shown_whole() -> None:
    text = describe(LARGE, whole=["alpaca"])

    for tool in LARGE["alpaca"] or []:
        assert tool_line(tool) in text
    assert "- alpaca: (no description)\n  tools: " in text


def test_a_request_matching_nothing_gets_the_index_only() -> None:
    text = describe(LARGE, request="Xyzzy plugh?")

    assert "tools: " not in text
    assert "- inventory: Product stock and prices (read-only). (3 tools)" in text
    assert "- brave-search: (2 tools)" in text


def test_each_expert_gets_its_best_tool_before_any_gets_a_second() -> None:
    ranked = rank_tools(REQUEST, DESCRIPTIONS, SMALL)
    assert [expert for expert, _ in ranked[:2]] == ["notes", "notes"]

    shown = select_tools(REQUEST, DESCRIPTIONS, SMALL, budget=70)
    assert shown == {("notes", "write_note"), ("inventory", "get_stock")}


async def test_the_offline_planner_makes_the_same_plan_with_30_servers(
    mcp_config: dict[str, Any],
) -> None:
    demo = {k: mcp_config["mcpServers"][k] for k in ("inventory", "notes")}
    orders = {
        "command": sys.executable,
        "args": [str(ROOT / "bench" / "servers.py"), "orders", "--tool-s", "0"],
    }
    small = {**demo, "orders": {**orders, "description": "Purchase orders."}}
    large = {**small, **catalog_experts(27, prefix="same-plan-")}

    bench = bench_script("bench_perception")
    small_prompt, small_plan = await bench.plan_over(small, REQUEST)
    large_prompt, large_plan = await bench.plan_over(large, REQUEST)

    assert [(t["expert"], t["tool"]) for t in small_plan] == [
        ("inventory", "get_stock"),
        ("notes", "write_note"),
    ]
    assert large_plan == small_plan
    assert estimate_tokens(large_prompt) <= 1.5 * estimate_tokens(small_prompt)


async def test_a_plan_naming_an_unshown_tool_gets_its_schema_on_the_retry(
    scripted: Any, mcp_config: dict[str, Any]
) -> None:
    asset = {"id": "t1", "expert": "alpaca", "task": "Look up AAPL", "tool": "get_asset"}
    ctx, models = scripted(
        planner=[
            plan({**asset, "args": {"symbol": "AAPL"}}),
            plan({**asset, "args": {"symbol_or_asset_id": "AAPL"}}),
        ],
        response=["AAPL looked up."],
    )
    servers = {**mcp_config["mcpServers"], **catalog_experts(27, prefix="retry-")}
    ctx.update(mcp_config={"mcpServers": servers}, approval_mode="auto")
    thread = Thread(ctx)

    nodes = await thread.send("Look up the asset AAPL")

    first, retry = (system_prompt(r) for r in models["planner"].requests)
    get_asset = next(t for t in LARGE["alpaca"] or [] if t.name == "get_asset")
    assert tool_line(get_asset) not in first
    assert tool_line(get_asset) in retry
    assert "symbol_or_asset_id" in retry
    assert nodes[:2] == ["planner", "planner"]
    values = await thread.values()
    [done] = values["previous_plan"]
    assert (done["status"], done["result"]) == ("completed", "get_asset done")
    assert values["turn"]["planner_focus"] == ["alpaca"]


async def test_a_follow_up_is_ranked_with_the_previous_plan(
    scripted: Any, mcp_config: dict[str, Any]
) -> None:
    stock = {"id": "t1", "expert": "inventory", "task": "Stock of GAD-7", "tool": "get_stock"}
    ctx, models = scripted(
        planner=[plan({**stock, "args": {"sku": "GAD-7"}}), plan({**stock, "args": {"sku": "X"}})],
        response=["GAD-7: 14 units.", "X: none."],
    )
    servers = {**mcp_config["mcpServers"], **catalog_experts(27, prefix="follow-up-")}
    ctx.update(mcp_config={"mcpServers": servers}, approval_mode="auto")
    thread = Thread(ctx)

    await thread.send("How many units of GAD-7 are there?")
    await thread.send("The same for X, please.")

    follow_up = system_prompt(models["planner"].requests[1])
    assert "- atlassian: (98 tools)" in follow_up
    assert tool_line(SMALL["inventory"][1]) in follow_up  # type: ignore[index]
