"""In-process expert servers and state readers for the irreversibility guard tests.

Each server is a MCPServer object registered under a fresh name (sessions live for the whole
test session, so a name is never reused) whose tools append every execution to a Python list.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import Tool, ToolAnnotations

from common.mcp.config import ServerConfig
from common.mcp.inprocess import register_inprocess_server
from common.safety.classify import classify_tool, classify_tools
from tests.unit_tests.helpers import unique

READ_ONLY = ToolAnnotations(readOnlyHint=True)
DESTRUCTIVE = ToolAnnotations(readOnlyHint=False, destructiveHint=True)
PLAIN = ServerConfig(command="srv")
"""A server's config with nothing trusted or sandboxed: the guard's words decide."""


def held(server: str, name: str, description: str | None = None) -> bool:
    """Whether the guard holds tool `name` of `server` (described so) under `PLAIN`."""
    tool = Tool(name=name, description=description, inputSchema={"type": "object"})
    return classify_tool(server, tool, PLAIN)["irreversible"]


def verdict_beside_a_write(
    server: str, name: str, description: str | None, props: dict[str, Any]
) -> dict[str, Any]:
    """The guard's verdict on one tool, classified with a write beside it on its server."""
    tools = [
        Tool(
            name=name, description=description, inputSchema={"type": "object", "properties": props}
        ),
        Tool(name=f"{server.lower()}_delete_item", description="Delete an item.", inputSchema={}),
    ]
    return dict(classify_tools(server, tools, PLAIN)[0])


def held_by(server: str, name: str, description: str | None, **arguments: Any) -> bool:
    """Whether the guard holds a tool whose arguments are `arguments` (name -> JSON schema)."""
    schema = {"type": "object", "properties": arguments}
    tool = Tool(name=name, description=description, inputSchema=schema)
    return classify_tool(server, tool, PLAIN)["irreversible"]


@dataclass
class Executions:
    """What an in-process server actually ran, in order."""

    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def record(self, name: str, **args: Any) -> None:
        self.calls.append((name, args))

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]

    def keys(self) -> list[str]:
        """Each execution as one comparable string: `name {json args}`."""
        return [call_key(name, args) for name, args in self.calls]


def call_key(name: str, args: dict[str, Any]) -> str:
    return f"{name} {json.dumps(args, sort_keys=True)}"


@dataclass
class Expert:
    """A registered in-process server: its registration name and what it ran."""

    inprocess: str
    runs: Executions

    def entry(self, **flags: Any) -> dict[str, Any]:
        """An `mcpServers` entry reaching this server, with our extra keys."""
        return {"inprocess": self.inprocess, "description": "Test expert.", **flags}


def chat_server() -> Expert:
    """A chat expert whose tools the deterministic layers mostly call reversible.

    `get_messages` has no annotations (its name reads as a read); `announce` claims
    readOnlyHint=true and "shows" a text, but to everyone (a lying annotation on an untrusted
    server); `post_message` is annotated destructive.
    """
    runs = Executions()
    mcp = MCPServer(unique("chat"))

    @mcp.tool()
    def get_messages(channel: str = "general") -> str:
        """Return the latest messages of a channel."""
        runs.record("get_messages", channel=channel)
        return f"#{channel}: alice: hi"

    @mcp.tool(annotations=READ_ONLY)
    def announce(text: str) -> str:
        """Show a text to every member of the company."""
        runs.record("announce", text=text)
        return f"announced: {text}"

    @mcp.tool(annotations=DESTRUCTIVE)
    def post_message(channel: str, text: str) -> str:
        """Post a message in a channel."""
        runs.record("post_message", channel=channel, text=text)
        return f"posted in #{channel}"

    register_inprocess_server(mcp.name, mcp)
    return Expert(mcp.name, runs)


def db_server() -> Expert:
    """A database expert: one `run_query` tool that claims to be read-only."""
    runs = Executions()
    mcp = MCPServer(unique("db"))

    @mcp.tool(annotations=READ_ONLY)
    def run_query(query: str) -> str:
        """Run a SQL statement against the shop database and return the rows."""
        runs.record("run_query", query=query)
        return f"ok: {query}"

    register_inprocess_server(mcp.name, mcp)
    return Expert(mcp.name, runs)


GENERATED_DESCRIPTION = "Does its job."
"""What every generated tool says of itself (the gate reads it; oracles pass the same)."""


def tool_server(
    tools: list[tuple[str, str, ToolAnnotations | None]],
) -> Expert:
    """A server with the given (name, parameter, annotations) tools, each taking one string."""
    runs = Executions()
    mcp = MCPServer(unique("generated"))
    for name, param, hints in tools:
        mcp.add_tool(
            _recording_tool(runs, name, param),
            name=name,
            description=GENERATED_DESCRIPTION,
            annotations=hints,
        )
    register_inprocess_server(mcp.name, mcp)
    return Expert(mcp.name, runs)


def _recording_tool(runs: Executions, name: str, param: str) -> Callable[..., str]:
    if param == "query":

        def with_query(query: str) -> str:
            runs.record(name, query=query)
            return "done"

        return with_query

    def with_text(text: str) -> str:
        runs.record(name, text=text)
        return "done"

    return with_text


def servers(**entries: dict[str, Any]) -> dict[str, Any]:
    """An `mcpServers` document."""
    return {"mcpServers": entries}


def verdict(state: dict[str, Any], server: str, tool: str) -> dict[str, Any]:
    """The guard's recorded verdict on one tool this turn."""
    found = [v for v in state["guard"]["verdicts"] if (v["server"], v["tool"]) == (server, tool)]
    assert len(found) == 1, f"no single verdict for {server}/{tool}: {state['guard']['verdicts']}"
    return found[0]


def blocked(state: dict[str, Any], server: str) -> set[str]:
    """Tools of `server` that need approval this turn."""
    return set(state["guard"]["irreversible"].get(server, []))


def attack_verdicts(path: Path) -> dict[str, set[str]]:
    """What the guard makes of an attack file (`label|before|server|name|description|schema`).

    By kind, the `server|name` keys of: writes ("W") and doubtful tools ("D") it clears that
    the guard before held, writes or doubtful tools cleared before too ("older"), reads it
    holds ("R held") and holds anew though the guard before cleared them ("R anew"), and every
    read ("R"). Each server's tools are classified together, as a server lists them.
    """
    servers: dict[str, list[tuple[str, str, Tool]]] = {}
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        label, before, server, name, description, schema = line.split("|", 5)
        tool = Tool(name=name, description=description or None, inputSchema=json.loads(schema))
        servers.setdefault(server, []).append((label, before, tool))
    out: dict[str, set[str]] = {k: set() for k in ("W", "D", "older", "R", "R held", "R anew")}
    for server, cases in servers.items():
        verdicts = classify_tools(server, [tool for _, _, tool in cases], PLAIN)
        for (label, before, tool), verdict in zip(cases, verdicts, strict=True):
            key, held = f"{server}|{tool.name}", verdict["irreversible"]
            if label in "WD" and not held:
                out["older" if before == "C" else label].add(key)
            if label == "R":
                out["R"].add(key)
                if held:
                    out["R held"].add(key)
                    if before == "C":
                        out["R anew"].add(key)
    return out
