"""Provider-safe tool names: every bound name valid, distinct, stable, and mapped back."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from mcp.types import Tool

from common.mcp.tool_names import MAX_TOOLS, ToolNames, bound_spec, names_in, safe_name
from strategies.with_planner.bound_tools import bind_tools_for, tool_spec

# The providers' documented rules, written out here rather than imported, so a change to the
# module cannot loosen what the test checks.
OPENAI_ANTHROPIC = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
GEMINI = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$")
CATALOG = Path(__file__).parents[1] / "data" / "tool_catalog.json"

DOTTED = "github.issues.create"
SLASHED = "files/read text"
LONG_70 = "x" * 60 + ".long_name"  # 70 characters
LONG_128 = "a.b-" * 32  # 128 characters, the MCP maximum


def every_provider_takes(name: str) -> bool:
    return bool(OPENAI_ANTHROPIC.match(name)) and bool(GEMINI.match(name))


def test_a_safe_name_is_bound_as_it_is() -> None:
    names = ToolNames.of(["get_stock", "write-note", "ask_user"])
    assert [names.bound(n) for n in ("get_stock", "write-note", "ask_user")] == [
        "get_stock",
        "write-note",
        "ask_user",
    ]


def test_dotted_slashed_and_long_names_round_trip() -> None:
    real = [DOTTED, SLASHED, LONG_70, LONG_128, "1st_tool", "_private", "ünïcode"]
    names = ToolNames.of(real)
    for name in real:
        bound = names.bound(name)
        assert every_provider_takes(bound), bound
        assert names.mcp(bound) == name
    assert len({names.bound(n) for n in real}) == len(real)
    # Readable: what is left of the real name still shows.
    assert names.bound(DOTTED).startswith("github_issues_create_")


def test_names_that_clean_or_cut_to_the_same_text_stay_apart() -> None:
    prefix = "p" * 70
    real = ["a.b", "a/b", "a b", "a_b", prefix + ".one", prefix + ".two"]
    names = ToolNames.of(real)
    bound = [names.bound(n) for n in real]
    assert len(set(bound)) == len(real)
    assert names.bound("a_b") == "a_b"
    assert all(every_provider_takes(b) for b in bound)
    assert [names.mcp(b) for b in bound] == real


def test_a_safe_name_equal_to_another_bound_name_keeps_it() -> None:
    taken = safe_name("a.b")
    names = ToolNames.of(["a.b", taken])
    assert names.bound(taken) == taken
    assert names.bound("a.b") != taken
    assert names.mcp(names.bound("a.b")) == "a.b"


def test_the_same_tool_list_binds_the_same_names_in_any_order() -> None:
    real = [DOTTED, SLASHED, LONG_70, "get_stock"]
    assert ToolNames.of(real).to_bound == ToolNames.of(reversed(real)).to_bound
    # A name's bound name does not depend on the others beside it.
    assert ToolNames.of([DOTTED]).bound(DOTTED) == ToolNames.of(real).bound(DOTTED)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=128), max_size=40))
def test_any_names_bind_valid_distinct_and_back(real: list[str]) -> None:
    names = ToolNames.of(real)
    bound = {name: names.bound(name) for name in real}
    assert all(every_provider_takes(b) for b in bound.values())
    assert len(set(bound.values())) == len(set(real))
    assert all(names.mcp(b) == name for name, b in bound.items())


def test_every_catalog_tool_binds_under_a_valid_name_distinct_per_server() -> None:
    servers = json.loads(CATALOG.read_text(encoding="utf-8"))["servers"]
    assert servers
    for server, entry in servers.items():
        real = [t["name"] for t in entry["tools"]]
        names = ToolNames.of(real)
        bound = [names.bound(n) for n in real]
        assert all(every_provider_takes(b) for b in bound), server
        assert len(set(bound)) == len(set(real)), server
        assert [names.mcp(b) for b in bound] == real, server


def test_histories_go_out_under_bound_names_and_replies_come_back_real() -> None:
    names = ToolNames.of([DOTTED])
    history = [
        HumanMessage("open an issue"),
        AIMessage("", tool_calls=[{"name": DOTTED, "args": {"t": 1}, "id": "c1"}]),
        ToolMessage("done", tool_call_id="c1", name=DOTTED),
    ]
    shown = names.for_model(history)
    assert shown[1].tool_calls[0]["name"] == names.bound(DOTTED)  # type: ignore[attr-defined]
    assert shown[2].name == names.bound(DOTTED)
    assert history[1].tool_calls[0]["name"] == DOTTED  # type: ignore[attr-defined]
    reply = AIMessage(
        "", tool_calls=[{"name": names.bound(DOTTED), "args": {}, "id": "c2"}], id="r1"
    )
    back = names.from_model(reply)
    assert back.tool_calls[0]["name"] == DOTTED
    assert back.id == "r1"
    # A history with no tools bound (the assessor's) gets the same names.
    assert names_in(history).bound(DOTTED) == names.bound(DOTTED)


def test_a_renamed_spec_tells_the_model_the_real_name() -> None:
    tool = Tool(name=DOTTED, description="Open an issue.", inputSchema={"type": "object"})
    spec = bound_spec(tool_spec(tool), ToolNames.of([DOTTED]))
    assert every_provider_takes(spec["function"]["name"])  # type: ignore[index]
    assert f"`{DOTTED}`" in spec["function"]["description"]  # type: ignore[index]


def many_tools(count: int) -> list[Tool]:
    return [
        Tool(
            name=f"ns.tool_{i:03d}",
            description=f"Does thing number {i}.",
            inputSchema={"type": "object", "properties": {}},
        )
        for i in range(count)
    ]


CONTROL: list[dict[str, Any]] = [
    {"type": "function", "function": {"name": "ask_user", "description": "", "parameters": {}}}
]


def test_never_more_than_128_tools_in_one_request() -> None:
    tools = many_tools(300)
    tools.append(
        Tool(name="weather.forecast", description="Weather forecast for a city.", inputSchema={})
    )
    bound = bind_tools_for(tools, CONTROL, "What is the weather forecast in Paris?")
    names = [s["function"]["name"] for s in bound.specs]
    assert len(names) == MAX_TOOLS
    assert len(set(names)) == MAX_TOOLS
    assert "ask_user" in names
    assert bound.left_out == len(tools) - (MAX_TOOLS - 1)
    # The ranking keeps the tool the task is about.
    assert bound.names.bound("weather.forecast") in names


def test_tools_the_task_names_or_already_called_are_always_bound() -> None:
    tools = many_tools(300)
    task = "Run ns.tool_299 on the file, then report."
    bound = bind_tools_for(tools, CONTROL, task, called={"ns.tool_250"})
    names = {bound.names.mcp(s["function"]["name"]) for s in bound.specs}
    assert {"ns.tool_299", "ns.tool_250"} <= names
    assert len(names) <= MAX_TOOLS


def test_an_expert_within_the_limit_is_bound_whole() -> None:
    tools = many_tools(20)
    bound = bind_tools_for(tools, CONTROL, "anything")
    assert len(bound.specs) == 21
    assert bound.left_out == 0


def test_the_openai_request_body_carries_only_safe_names() -> None:
    from langchain_openai import ChatOpenAI

    tools = [
        Tool(name=n, description="d", inputSchema={"type": "object", "properties": {}})
        for n in (DOTTED, LONG_70, "get_stock")
    ]
    bound = bind_tools_for(tools, CONTROL, "anything")
    history = [
        HumanMessage("go"),
        AIMessage("", tool_calls=[{"name": LONG_70, "args": {}, "id": "c1"}]),
        ToolMessage("ok", tool_call_id="c1", name=LONG_70),
    ]
    model = ChatOpenAI(model="gpt-4o-mini", api_key="sk-test")  # type: ignore[arg-type]
    body = model._get_request_payload(bound.names.for_model(history), tools=bound.specs)
    names = [t["function"]["name"] for t in body["tools"]]
    names += [c["function"]["name"] for m in body["messages"] for c in m.get("tool_calls", [])]
    assert len(names) == 5
    assert all(OPENAI_ANTHROPIC.match(n) for n in names), names
