"""Beside LangChain's MCP adapter: an app that loads its own tools with `langchain.mcp`.

The app has an MCP server of its own (an in-process `MCPServer` with a `weather` tool), loads
it with `MCPAdapter` and runs its own agent step; in the same process and event loop it embeds
our compiled graph over the demo experts (inventory and notes, from the repo's `mcp.json`) and
runs the README's demo request: the stock read runs, the note waits for approval, the app
approves it and the note is written once. The environment that does this resolves cleanly.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from langchain_core._api import suppress_langchain_beta_warning
from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from mcp.server.mcpserver import MCPServer
from packaging.version import Version

from strategies.with_planner.graph import build_graph
from tests.doubles import ScriptedChatModel, calls, tool_call
from tests.unit_tests.helpers import note_actions

with suppress_langchain_beta_warning():
    MCPAdapter = pytest.importorskip(
        "langchain.mcp", reason="langchain.mcp needs the langchain[mcp] extra"
    ).MCPAdapter
pytest.importorskip("fastmcp", reason="MCPAdapter runs on fastmcp (the langchain[mcp] extra)")
create_agent = pytest.importorskip("langchain.agents").create_agent

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
REQUEST = 'How many units of WID-1 are in stock, then write a note titled "tour"'
"""The README's demo request (tour, step 1)."""
DONE = {"completed": True, "reason": "The tool result shows it is done."}


class AppModel(ScriptedChatModel):
    """The app's scripted model: `create_agent` binds LangChain tools, the double reads specs."""

    def bind_tools(
        self, tools: Sequence[Any], **kwargs: Any
    ) -> Runnable[LanguageModelInput, AIMessage]:
        return super().bind_tools([convert_to_openai_tool(t) for t in tools], **kwargs)


def weather_server() -> MCPServer:
    """The app's own MCP server, served in-process."""
    server = MCPServer("weather", instructions="Today's weather by city.")

    @server.tool()
    def weather(city: str) -> str:
        """Today's weather in a city."""
        return f"Sunny and 21 C in {city}."

    return server


def demo_config(store: Path) -> dict[str, Any]:
    """The repo's own `mcp.json` (inventory and notes), its notes kept under `store`."""
    config: dict[str, Any] = json.loads((ROOT / "mcp.json").read_text(encoding="utf-8"))
    servers = config["mcpServers"]
    assert set(servers) == {"inventory", "notes"}
    for entry in servers.values():
        assert entry["command"] == "python"
        entry["command"] = sys.executable
    servers["notes"]["env"] = {
        "NOTES_FILE": str(store / "notes.json"),
        "NOTES_LOG": str(store / "notes.log"),
    }
    return config


async def test_app_with_mcp_adapter_embeds_the_graph(scripted: Any, tmp_path: Path) -> None:
    # Our graph, embedded with scripted models over the demo experts of the repo's mcp.json.
    plan = {
        "plan": [
            {"id": "t1", "expert": "inventory", "task": "Get the stock level of SKU WID-1."},
            {
                "id": "t2",
                "expert": "notes",
                "task": 'Write a note titled "tour" with WID-1\'s stock.',
                "depends_on": ["t1"],
            },
        ]
    }
    note = {"title": "tour", "body": "WID-1: 120 units in stock."}
    answer = 'WID-1 has 120 units in stock; the note "tour" is written.'
    ctx, models = scripted(
        planner=[plan],
        orchestrate=[
            calls(tool_call("get_stock", {"sku": "WID-1"})),
            calls(tool_call("write_note", note)),
        ],
        assess=[DONE, DONE],
        response=[answer],
    )
    ctx["mcp_config"] = demo_config(tmp_path)
    graph = build_graph(checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "beside-mcp-adapter"}}

    # The app's own agent, on its own MCP tools loaded by LangChain's adapter.
    app_model = AppModel(
        script=[calls(tool_call("weather", {"city": "Lyon"})), "Sunny in Lyon today."],
        name_="app",
    )
    async with MCPAdapter(weather_server()) as adapter:
        tools = await adapter.list_tools()
        assert [t.name for t in tools] == ["weather"]
        agent = create_agent(app_model, tools)

        # Both in one event loop, at the same time: the app's agent step and our graph's run.
        agent_run, paused = await asyncio.wait_for(
            asyncio.gather(
                agent.ainvoke({"messages": [{"role": "user", "content": "Weather in Lyon?"}]}),
                graph.ainvoke(
                    {"messages": [{"role": "user", "content": REQUEST}]}, config, context=ctx
                ),
            ),
            timeout=60,
        )

        (weather_result,) = [m for m in agent_run["messages"] if isinstance(m, ToolMessage)]
        assert weather_result.status == "success"
        assert "Sunny and 21 C in Lyon." in str(weather_result.content)
        assert agent_run["messages"][-1].content == "Sunny in Lyon today."

        # The read ran; the note waits for a human, unwritten.
        (asked,) = paused["__interrupt__"]
        (action,) = asked.value["action_requests"]
        assert action["name"] == "write_note"
        assert action["args"] == note
        assert note_actions(tmp_path, "tour") == []
        t1 = (await graph.aget_state(config)).values["plan"][0]
        assert t1["status"] == "completed"
        assert '"stock": 120' in (t1["result"] or "")

        # The app approves it, keyed to the question it was shown (docs/approvals.md).
        final = await asyncio.wait_for(
            graph.ainvoke(
                Command(resume={asked.id: {"decisions": [{"type": "approve"}]}}),
                config,
                context=ctx,
            ),
            timeout=60,
        )

        assert "__interrupt__" not in final
        last = final["messages"][-1]
        assert isinstance(last, AIMessage)
        assert last.content == answer
        assert note_actions(tmp_path, "tour") == ["write"]
        notes = json.loads((tmp_path / "notes.json").read_text(encoding="utf-8"))
        assert notes["tour"] == note["body"]
        assert all(not m.script for role, m in models.items() if role != "irreversibility")

        # The app's tools still work after our graph's run, in the same loop.
        again = await tools[0].ainvoke({"city": "Oslo"})
        assert "Sunny and 21 C in Oslo." in str(again)


def test_the_environment_resolves_cleanly() -> None:
    checked = subprocess.run(
        [sys.executable, "-m", "pip", "check"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert Version(version("langchain")) >= Version("1.5")
    assert Version(version("fastmcp")) >= Version("4")
    assert Version(version("mcp")) >= Version("2.3")
