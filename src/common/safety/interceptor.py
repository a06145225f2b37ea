"""The gate in front of `langchain.mcp` tools, for apps that embed our experts.

    group = ClientGroup.from_config({"mcpServers": servers})      # fastmcp.client.group
    async with MCPAdapter(group) as adapter:                      # langchain.mcp
        tools = await ApprovalInterceptor(config).gated_tools(adapter)

`MCPAdapter` (LangChain 1.5's `langchain.mcp`, on fastmcp 4) has no tool-call interceptor, so
the gate wraps the LangChain tools it lists: each call is decided before the MCP call is sent.
Every tool keeps the server it came from: a `ClientGroup` (tools named `{server}_{tool}`) says
so through its routes, and a one-server adapter is given the server's name (`server=`). The
gate decides with the server's own tool name, on the server `config` (an `McpConfig`) names.

Calls the gate lets through run untouched; an irreversible one waits for a human through a
LangGraph interrupt in the same approval format as the graph (so it must run inside a graph with
a checkpointer); outside a graph, or in plan_only mode, it is refused with an error result (a
`ToolMessage` with status "error", as an MCP error result is). The mode is checked when the
interceptor is built, and `common.safety.policy.action_for` (the graph's rule too) decides each
call, so an unexpected mode asks rather than runs.

The rules of the graph's approvals hold here too: an edit changes the arguments of the call
asked about, never its tool, and the edited arguments go through the gate again (a hold of
their own that the reviewer was not shown is asked about again, as `with_planner.edits` does);
every question and answer is appended to the audit trail (`common.served.audit`) when the run
has a store.

Nothing here imports `langchain.mcp` or fastmcp when loaded: only apps that use `MCPAdapter`
need them (`langchain[mcp]`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from langchain_core.messages.content import create_text_block
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from langgraph.config import get_config, get_store
from langgraph.errors import GraphInterrupt
from mcp.types import CallToolResult, TextContent

from common.mcp.config import McpConfig
from common.mcp.errors import ExpertUnavailable
from common.mcp.registry import ExpertRegistry
from common.safety.approval import (
    Decision,
    EditDecision,
    PendingCall,
    RejectDecision,
    ask_for_approval,
)
from common.safety.classify import classify_tools
from common.safety.gate import ASKED_AGAIN, PER_CALL_HOLDS, Gate, GateDecision, hold_of
from common.safety.policy import ApprovalMode, action_for, parse_approval_mode
from common.served import caller
from common.served.audit import Trail, append, call_entry, decision_fields

if TYPE_CHECKING:
    from langchain.mcp import MCPAdapter

MAX_ROUNDS = 5
"""Questions about one call, its edits asked about again included, before it is refused."""


@dataclass(frozen=True)
class ToolCallRequest:
    """One tool call about to be sent: the server's name for the tool, not the adapter's."""

    server_name: str
    """The server (the key in the `McpConfig`) the call goes to."""
    name: str
    """The tool's name on that server."""
    args: dict[str, Any]
    """The arguments, as they would be sent."""

    def override(self, *, args: dict[str, Any]) -> ToolCallRequest:
        """The same call with other arguments."""
        return replace(self, args=args)


Handler = Callable[[ToolCallRequest], Awaitable[Any]]
"""What sends the call (the wrapped tool's own MCP call)."""


class Refused(ToolException):
    """A call the gate did not send; the model sees its text as a failed tool result."""


def _refusal(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


class ApprovalInterceptor:
    """Apply our irreversibility gate (deterministic layers) to `langchain.mcp` tools."""

    def __init__(self, config: McpConfig, approval_mode: ApprovalMode = "interrupt") -> None:
        self.registry = ExpertRegistry(config)
        self.approval_mode: ApprovalMode = parse_approval_mode(approval_mode)

    async def gated_tools(self, adapter: MCPAdapter, server: str | None = None) -> list[BaseTool]:
        """The adapter's tools, each gated under the server it came from.

        `server` names a one-server adapter's server in the config; a `ClientGroup` adapter
        needs none (its routes say). Raises ValueError when a tool cannot be placed for sure:
        a server the config lacks, or a tool the server's own list does not name, since the
        gate lets a call of a tool unknown to it through.
        """
        # Only with langchain[mcp] (which brings fastmcp); the project itself goes without.
        from fastmcp.client.group import ClientGroup  # type: ignore[import-not-found, unused-ignore]
        from fastmcp.client.transports.config import (  # type: ignore[import-not-found, unused-ignore]
            MCPConfigTransport,
        )

        client = adapter.client
        async with adapter:
            tools = await adapter.list_tools()
            if isinstance(client, ClientGroup):
                routes = [await client.resolve_tool(t.name) for t in tools]
                places = [(r.server_name, r.upstream_name) for r in routes]
            else:
                transport = client.transport
                if (
                    isinstance(transport, MCPConfigTransport)
                    and len(transport.config.mcpServers) > 1
                ):
                    raise ValueError(
                        "A client of several servers names their tools '{server}_{tool}' "
                        "behind one connection; adapt a ClientGroup.from_config(...) instead."
                    )
                if server is None:
                    raise ValueError("Name the adapter's server in the config: server=...")
                places = [(server, t.name) for t in tools]
        for where, name in places:
            await self._check_known(where, name)
        return [self.gate(t, where, name) for t, (where, name) in zip(tools, places, strict=True)]

    async def _check_known(self, server: str, name: str) -> None:
        """Raise ValueError unless `server` is configured and lists `name`."""
        if server not in self.registry.config.servers:
            raise ValueError(f"{server!r} is not a server of the gate's config.")
        try:
            listed = {t.name for t in await self.registry.tools(server)}
        except ExpertUnavailable as exc:
            raise ValueError(f"The tools of {server!r} could not be listed: {exc}") from exc
        if name not in listed:
            raise ValueError(
                f"{server!r} lists no tool {name!r}: the adapter does not reach the server "
                "the gate's config names."
            )

    def gate(self, tool: BaseTool, server: str, name: str | None = None) -> BaseTool:
        """`tool` (one `langchain.mcp` made) with each call decided first.

        `name` is the tool's name on `server` (default: the tool's own). The copy keeps the
        tool's name, description, schema and metadata; a refusal reaches the model as a
        failed tool result, the way an MCP error result does.
        """
        if not isinstance(tool, StructuredTool) or tool.coroutine is None:
            raise TypeError(f"{tool.name!r} is not an async StructuredTool of langchain.mcp.")
        send_to_server = tool.coroutine
        upstream = name or tool.name

        async def send(request: ToolCallRequest) -> Any:
            return await send_to_server(**request.args)

        async def gated(**args: Any) -> Any:
            result = await self(ToolCallRequest(server, upstream, args), send)
            if isinstance(result, CallToolResult) and result.is_error:
                raise Refused(
                    " ".join(b.text for b in result.content if isinstance(b, TextContent))
                )
            return result

        return tool.model_copy(
            update={"coroutine": gated, "handle_tool_error": _handler(tool.handle_tool_error)}
        )

    async def decide(self, server: str, name: str, args: dict[str, Any]) -> GateDecision:
        """The gate's decision for one call, from the server's live tool list."""
        tools = await self.registry.tools(server)
        cfg = self.registry.server(server)
        gate = Gate(classify_tools(server, tools, cfg))
        return gate.check(server, name, args, {t.name: t for t in tools}, cfg)

    async def __call__(self, request: ToolCallRequest, handler: Handler) -> Any:
        """Let a reversible call through; hold an irreversible one for a human's decision."""
        decision = await self.decide(request.server_name, request.name, request.args)
        action = action_for(self.approval_mode, decision.needs_approval)
        if action == "run":
            return await handler(request)
        if action != "ask":
            return _refusal(f"Not run: {request.name!r} is irreversible ({decision.reason}).")
        pending = PendingCall(
            id=request.name,
            expert=request.server_name,
            name=request.name,
            args=request.args,
            reason=hold_of(decision),
        )
        trail = _trail()
        for round_ in range(1, MAX_ROUNDS + 1):
            try:
                answer = await _asked(trail, pending, round_)
            except GraphInterrupt:
                raise
            except (RuntimeError, KeyError) as exc:
                # Outside a LangGraph run there is no one to ask (no Pregel scratchpad).
                return _refusal(
                    f"Not run: {request.name!r} needs a human's approval ({decision.reason}), "
                    f"and no LangGraph run is there to ask ({exc})."
                )
            if action_for(self.approval_mode, True, answer) != "run":
                why = (
                    f" Their reason: {answer.message}" if isinstance(answer, RejectDecision) else ""
                )
                return _refusal(f"The user declined to run {request.name!r}.{why}")
            if not isinstance(answer, EditDecision):
                return await handler(request.override(args=pending["args"]))
            # An edit changes the arguments only (`check_edits` refused any other tool); they
            # are gated again, and a hold the reviewer was not shown is asked about.
            again = await self._asked_again(pending, answer)
            if again is None:
                return await handler(request.override(args=answer.edited_action.args))
            pending = again
        return _refusal(
            f"Not run: {request.name!r} was edited {MAX_ROUNDS} times without an answer."
        )

    async def _asked_again(self, pending: PendingCall, edit: EditDecision) -> PendingCall | None:
        """The edited call to ask about again (held for a reason not shown), or None to run it."""
        args = edit.edited_action.args
        verdict = await self.decide(pending["expert"], pending["name"], args)
        hold = hold_of(verdict)
        shown = pending.get("held") or pending["reason"]
        if not verdict.needs_approval or verdict.source not in PER_CALL_HOLDS or hold == shown:
            return None
        return PendingCall(
            id=pending["id"],
            expert=pending["expert"],
            name=pending["name"],
            args=args,
            reason=ASKED_AGAIN.format(hold=hold),
            held=hold,
        )


ErrorHandling = bool | str | Callable[[ToolException], Any] | None
"""A tool's `handle_tool_error`."""


def _handler(original: ErrorHandling) -> Callable[[ToolException], Any]:
    """`handle_tool_error` showing a refusal as failed output, and anything else as before."""

    def handle(error: ToolException) -> Any:
        if isinstance(error, Refused):
            return [create_text_block(text=str(error))]
        if callable(original):
            return original(error)
        if isinstance(original, str):
            return original
        if original:
            return str(error) or "Tool execution error"
        raise error

    return handle


def _trail() -> Trail | None:
    """The running graph's audit trail for this call; None outside a graph or with no store."""
    try:
        store, config = get_store(), get_config()
    except (RuntimeError, KeyError):
        # No graph runs this call (no config), or a config without LangGraph's runtime.
        return None
    if store is None:
        return None
    configurable = config.get("configurable", {})
    return Trail(
        store,
        caller.resolve(config, None).identity,
        str(configurable.get("thread_id") or ""),
        str(configurable.get("checkpoint_ns") or ""),
    )


async def _asked(trail: Trail | None, pending: PendingCall, round_: int) -> Decision:
    """Ask about `pending` (round `round_` of its questions), recording the question and answer."""
    key = f"{pending['id']}#{round_}"
    if trail is not None:
        await append(trail.store, call_entry(trail, pending, "", key, "asked", "asked"))
    answer = ask_for_approval([pending])[pending["id"]]
    if trail is not None:
        fields = decision_fields(answer)
        entry = call_entry(trail, pending, "", key, "answered", "answer", **fields)
        await append(trail.store, entry)
    return answer
