"""ApprovalInterceptor: the same gate for apps that load our experts with langchain.mcp."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, TypedDict
from uuid import uuid4

import pytest
import pytest_asyncio
from langchain_core._api import suppress_langchain_beta_warning
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command
from mcp.types import CallToolResult, TextContent

from common.mcp.config import parse_mcp_config
from common.safety.interceptor import ApprovalInterceptor, ToolCallRequest
from common.served.audit import digest, entries
from tests.unit_tests.helpers import log_lines, unique

with suppress_langchain_beta_warning():
    MCPAdapter = pytest.importorskip(
        "langchain.mcp", reason="langchain.mcp needs the langchain[mcp] extra"
    ).MCPAdapter
Client = pytest.importorskip("fastmcp").Client
ClientGroup = pytest.importorskip("fastmcp.client.group").ClientGroup
StdioTransport = pytest.importorskip("fastmcp.client.transports").StdioTransport

SERVERS = ("testkit", "notes")
"""The real MCP servers the adapter reaches: one group, tools named '{server}_{tool}'."""


def entries_of(mcp_config: dict[str, Any], *names: str) -> dict[str, dict[str, Any]]:
    servers = mcp_config["mcpServers"]
    return {n: {k: servers[n][k] for k in ("command", "args", "env")} for n in names}


def interceptor(mcp_config: dict[str, Any], mode: str = "interrupt") -> ApprovalInterceptor:
    config = parse_mcp_config({"mcpServers": entries_of(mcp_config, *SERVERS)})
    return ApprovalInterceptor(config, approval_mode=mode)


@contextlib.asynccontextmanager
async def closing(adapter: Any) -> AsyncIterator[Any]:
    """Stop the adapter's stdio servers at the end (its clients keep them alive)."""
    try:
        yield adapter
    finally:
        client = adapter.client
        for member in client.clients.values() if isinstance(client, ClientGroup) else [client]:
            await member.close()


def group_adapter(mcp_config: dict[str, Any]) -> Any:
    return MCPAdapter(ClientGroup.from_config({"mcpServers": entries_of(mcp_config, *SERVERS)}))


@contextlib.asynccontextmanager
async def gated(mcp_config: dict[str, Any], mode: str = "interrupt") -> AsyncIterator[Any]:
    async with closing(group_adapter(mcp_config)) as adapter:
        tools = await interceptor(mcp_config, mode).gated_tools(adapter)
        yield {t.name: t for t in tools}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def tools(mcp_config: dict[str, Any]) -> AsyncIterator[dict[str, BaseTool]]:
    async with gated(mcp_config) as tools:
        yield tools


def runs_of(workdir: Path, tool: str, word: str) -> list[str]:
    return [
        line
        for line in log_lines(workdir / "testkit.log")
        if line.startswith(f"{tool} ") and word in line
    ]


def text_of(result: Any) -> str:
    if isinstance(result, str):
        return result
    return " ".join(b["text"] if isinstance(b, dict) else str(b) for b in result)


# --- the adapter's tools ------------------------------------------------------------------------


async def test_every_tool_of_the_group_is_gated_under_its_own_name(
    tools: dict[str, BaseTool],
) -> None:
    assert {"testkit_echo", "testkit_delete_everything", "notes_delete_note"} <= set(tools)
    assert all(name.startswith(("testkit_", "notes_")) for name in tools)
    # The adapter's metadata (the serving server's identity) is kept.
    assert tools["notes_delete_note"].metadata["mcp"]["server"]["name"] == "notes"


async def test_the_gate_must_place_every_tool_on_a_server_it_knows(
    mcp_config: dict[str, Any],
) -> None:
    kit = entries_of(mcp_config, "testkit")["testkit"]
    one = MCPAdapter(Client(StdioTransport(kit["command"], kit["args"], kit["env"])))
    async with closing(one) as adapter:
        with pytest.raises(ValueError, match="server="):
            await interceptor(mcp_config).gated_tools(adapter)
        # Told the wrong server, the gate would judge tools it does not know: refused.
        with pytest.raises(ValueError, match="lists no tool"):
            await interceptor(mcp_config).gated_tools(adapter, server="notes")
        with pytest.raises(ValueError, match="not a server of the gate's config"):
            await interceptor(mcp_config).gated_tools(adapter, server="elsewhere")
        named = {t.name: t for t in await interceptor(mcp_config).gated_tools(adapter, "testkit")}

        scope = unique("one-server")
        result = await named["delete_everything"].ainvoke({"scope": scope})
        assert "needs a human's approval" in text_of(result)

    both = MCPAdapter({"mcpServers": entries_of(mcp_config, *SERVERS)})
    async with closing(both) as adapter:
        with pytest.raises(ValueError, match="ClientGroup"):
            await interceptor(mcp_config).gated_tools(adapter, server="testkit")


def test_the_module_loads_without_langchain_mcp_or_fastmcp() -> None:
    code = (
        "import sys\n"
        "for name in ('fastmcp', 'langchain.mcp'):\n"
        "    sys.modules[name] = None\n"
        "import common.safety.interceptor\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


# --- outside a graph ----------------------------------------------------------------------------


async def test_a_read_only_tool_runs_untouched(tools: dict[str, BaseTool], workdir: Path) -> None:
    word = unique("echoed")

    result = await tools["testkit_echo"].ainvoke({"text": word})

    assert text_of(result) == word
    assert len(runs_of(workdir, "echo", word)) == 1


async def test_a_failing_tool_still_fails_as_the_adapter_says(
    tools: dict[str, BaseTool], workdir: Path
) -> None:
    word = unique("failed")
    call = {"name": "testkit_fail", "args": {"message": word}, "id": "c1", "type": "tool_call"}

    message = await tools["testkit_fail"].ainvoke(call)

    assert isinstance(message, ToolMessage)
    assert message.status == "error"
    assert word in text_of(message.content)
    assert len(runs_of(workdir, "fail", word)) == 1


async def test_an_irreversible_call_outside_a_graph_never_runs(
    tools: dict[str, BaseTool], workdir: Path
) -> None:
    scope = unique("outside")

    # Whatever the call returns or raises, the tool must not run.
    with contextlib.suppress(Exception):
        await tools["testkit_delete_everything"].ainvoke({"scope": scope})

    assert runs_of(workdir, "delete_everything", scope) == []


async def test_an_irreversible_call_outside_a_graph_says_it_needs_approval(
    tools: dict[str, BaseTool], workdir: Path
) -> None:
    scope = unique("refused")
    call = {
        "name": "testkit_delete_everything",
        "args": {"scope": scope},
        "id": "c1",
        "type": "tool_call",
    }

    message = await tools["testkit_delete_everything"].ainvoke(call)

    assert isinstance(message, ToolMessage)
    assert message.status == "error"
    assert "needs a human's approval" in text_of(message.content)
    assert runs_of(workdir, "delete_everything", scope) == []


async def test_the_interceptor_refuses_when_no_graph_can_ask(
    mcp_config: dict[str, Any], workdir: Path
) -> None:
    gate = interceptor(mcp_config)
    scope = unique("direct")
    handled: list[ToolCallRequest] = []

    async def handler(request: ToolCallRequest) -> CallToolResult:
        handled.append(request)
        return CallToolResult(content=[TextContent(type="text", text="ran")])

    request = ToolCallRequest(
        server_name="testkit", name="delete_everything", args={"scope": scope}
    )
    result = await gate(request, handler)

    assert handled == []
    assert result.is_error
    assert "needs a human's approval" in result.content[0].text
    reversible = ToolCallRequest(server_name="testkit", name="echo", args={"text": "x"})
    assert (await gate(reversible, handler)).content[0].text == "ran"
    assert handled == [reversible]


@pytest.mark.parametrize(
    ("mode", "runs"),
    [("plan_only", 0), ("auto", 1)],
)
async def test_plan_only_refuses_and_auto_runs(
    mcp_config: dict[str, Any], workdir: Path, mode: str, runs: int
) -> None:
    scope = unique(mode)
    async with gated(mcp_config, mode) as tools:
        result = text_of(await tools["testkit_delete_everything"].ainvoke({"scope": scope}))

    assert len(runs_of(workdir, "delete_everything", scope)) == runs
    if mode == "plan_only":
        assert "Not run" in result
        assert "irreversible" in result


# --- inside a graph -----------------------------------------------------------------------------


class CleanupState(TypedDict, total=False):
    scope: str
    result: str


def cleanup_graph(tool: BaseTool) -> Any:
    async def clean_up(state: CleanupState) -> dict[str, Any]:
        return {"result": text_of(await tool.ainvoke({"scope": state["scope"]}))}

    builder = StateGraph(CleanupState)
    builder.add_node("clean_up", clean_up)
    builder.add_edge(START, "clean_up")
    return builder.compile(checkpointer=InMemorySaver())


async def start_cleanup(tools: dict[str, BaseTool], scope: str) -> tuple[Any, dict[str, Any]]:
    graph = cleanup_graph(tools["testkit_delete_everything"])
    config = {"configurable": {"thread_id": uuid4().hex}}
    await graph.ainvoke({"scope": scope}, config)
    return graph, config


async def test_inside_a_graph_the_call_waits_for_approval(
    tools: dict[str, BaseTool], workdir: Path
) -> None:
    scope = unique("graph-wait")

    graph, config = await start_cleanup(tools, scope)

    (pending,) = (await graph.aget_state(config)).interrupts
    (action,) = pending.value["action_requests"]
    # The reviewer is asked about the server's own tool, on that server.
    assert action["name"] == "delete_everything"
    assert action["args"] == {"scope": scope}
    assert "'testkit'" in action["description"]
    assert "destructiveHint" in action["description"]
    assert pending.value["review_configs"] == [
        {"action_name": "delete_everything", "allowed_decisions": ["approve", "edit", "reject"]}
    ]
    assert runs_of(workdir, "delete_everything", scope) == []


async def test_a_tool_of_another_server_in_the_group_is_asked_about_on_its_server(
    tools: dict[str, BaseTool], workdir: Path
) -> None:
    title = unique("note")
    listed = await tools["notes_list_notes"].ainvoke({})
    assert title not in text_of(listed)

    async def delete(state: CleanupState) -> dict[str, Any]:
        note = {"title": state["scope"]}
        return {"result": text_of(await tools["notes_delete_note"].ainvoke(note))}

    builder = StateGraph(CleanupState)
    builder.add_node("delete", delete)
    builder.add_edge(START, "delete")
    graph = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": uuid4().hex}}
    await graph.ainvoke({"scope": title}, config)

    (pending,) = (await graph.aget_state(config)).interrupts
    (action,) = pending.value["action_requests"]
    assert action["name"] == "delete_note"
    assert "'notes'" in action["description"]
    assert not any(title in line for line in log_lines(workdir / "notes.log"))


async def test_approve_inside_a_graph_runs_it_exactly_once(
    tools: dict[str, BaseTool], workdir: Path
) -> None:
    scope = unique("graph-approve")
    graph, config = await start_cleanup(tools, scope)

    out = await graph.ainvoke(Command(resume={"decisions": [{"type": "approve"}]}), config)

    assert out["result"] == f"deleted everything in {scope}"
    assert runs_of(workdir, "delete_everything", scope) == [f"delete_everything {scope}"]
    assert (await graph.aget_state(config)).interrupts == ()


async def test_reject_inside_a_graph_never_runs_it(
    tools: dict[str, BaseTool], workdir: Path
) -> None:
    scope = unique("graph-reject")
    graph, config = await start_cleanup(tools, scope)

    resume = {"decisions": [{"type": "reject", "message": "keep it"}]}
    out = await graph.ainvoke(Command(resume=resume), config)

    assert runs_of(workdir, "delete_everything", scope) == []
    assert "declined to run 'delete_everything'" in out["result"]
    assert "keep it" in out["result"]


async def test_edit_and_malformed_answers_inside_a_graph(
    tools: dict[str, BaseTool], workdir: Path
) -> None:
    proposed, edited = unique("graph-proposed"), unique("graph-edited")
    graph, config = await start_cleanup(tools, proposed)

    await graph.ainvoke(Command(resume={"decisions": [{"type": "maybe"}]}), config)

    (pending,) = (await graph.aget_state(config)).interrupts
    assert "nothing ran" in pending.value["error"]
    assert runs_of(workdir, "delete_everything", proposed) == []

    action = {"name": "delete_everything", "args": {"scope": edited}}
    resume = {"decisions": [{"type": "edit", "edited_action": action}]}
    out = await graph.ainvoke(Command(resume=resume), config)

    assert out["result"] == f"deleted everything in {edited}"
    assert runs_of(workdir, "delete_everything", proposed) == []
    assert len(runs_of(workdir, "delete_everything", edited)) == 1


# --- the graph's approval rules hold here too ---------------------------------------------------


class PageState(TypedDict, total=False):
    url: str
    result: str


def page_graph(tool: BaseTool, store: InMemoryStore | None = None) -> Any:
    async def open_page(state: PageState) -> dict[str, Any]:
        return {"result": text_of(await tool.ainvoke({"url": state["url"]}))}

    builder = StateGraph(PageState)
    builder.add_node("open_page", open_page)
    builder.add_edge(START, "open_page")
    return builder.compile(checkpointer=InMemorySaver(), store=store)


async def interrupts_of(graph: Any, config: dict[str, Any]) -> list[Any]:
    return [i.value for i in (await graph.aget_state(config)).interrupts]


async def test_an_edit_held_for_a_reason_of_its_own_is_asked_again_before_it_runs(
    tools: dict[str, BaseTool], workdir: Path
) -> None:
    proposed = f"https://shop.example/orders/{unique('o')}/cancel"
    edited = f"https://shop.example/items/{unique('i')}?action=delete"
    graph = page_graph(tools["testkit_fetch_page"])
    config = {"configurable": {"thread_id": uuid4().hex}}
    await graph.ainvoke({"url": proposed}, config)
    (first,) = await interrupts_of(graph, config)
    assert "('cancel')" in first["action_requests"][0]["description"]

    edit = {"name": "fetch_page", "args": {"url": edited}}
    await graph.ainvoke(
        Command(resume={"decisions": [{"type": "edit", "edited_action": edit}]}), config
    )

    # The edit acts differently ('delete'), which nobody was shown: asked about, not run.
    (again,) = await interrupts_of(graph, config)
    (request,) = again["action_requests"]
    assert request["args"] == {"url": edited}
    assert "your edit is held for a reason of its own" in request["description"]
    assert "('delete')" in request["description"]
    assert runs_of(workdir, "fetch_page", edited) == []
    assert runs_of(workdir, "fetch_page", proposed) == []

    await graph.ainvoke(Command(resume={"decisions": [{"type": "approve"}]}), config)

    # Approving that question runs the edit as shown, once, and asks nothing more.
    assert await interrupts_of(graph, config) == []
    assert len(runs_of(workdir, "fetch_page", edited)) == 1
    assert runs_of(workdir, "fetch_page", proposed) == []


async def test_an_edit_naming_another_tool_is_refused_and_nothing_runs(
    tools: dict[str, BaseTool], workdir: Path
) -> None:
    scope = unique("swap")
    graph, config = await start_cleanup(tools, scope)

    swap = {"name": "echo", "args": {"text": scope}}
    await graph.ainvoke(
        Command(resume={"decisions": [{"type": "edit", "edited_action": swap}]}), config
    )

    (pending,) = (await graph.aget_state(config)).interrupts
    assert "an edit may change the arguments, not the tool" in pending.value["error"]
    assert runs_of(workdir, "delete_everything", scope) == []
    assert runs_of(workdir, "echo", scope) == []


async def test_questions_and_answers_are_in_the_audit_trail(
    tools: dict[str, BaseTool], workdir: Path
) -> None:
    store = InMemoryStore()
    proposed = f"https://shop.example/orders/{unique('o')}/cancel"
    graph = page_graph(tools["testkit_fetch_page"], store)
    config = {"configurable": {"thread_id": uuid4().hex}}
    await graph.ainvoke({"url": proposed}, config)

    await graph.ainvoke(
        Command(resume={"decisions": [{"type": "reject", "message": "no"}]}), config
    )

    trail = await entries(store, "default", thread=config["configurable"]["thread_id"])
    assert [(e["event"], e["tool"], e["decision"]) for e in trail] == [
        ("asked", "fetch_page", None),
        ("answered", "fetch_page", "reject"),
    ]
    assert trail[0]["expert"] == "testkit"
    assert trail[0]["args_digest"] == digest({"url": proposed})
    assert runs_of(workdir, "fetch_page", proposed) == []
