"""The gate as a `langchain-mcp-adapters` tool interceptor, for apps that embed our experts.

    client = MultiServerMCPClient(connections, tool_interceptors=[ApprovalInterceptor(config)])

Calls the gate lets through run untouched; an irreversible one waits for a human through a
LangGraph interrupt in the same approval format as the graph (so it must run inside a graph with
a checkpointer); outside a graph, or in plan_only mode, it is refused with an error result. The
mode is checked when the interceptor is built, and `common.safety.policy.action_for` (the
graph's rule too) decides each call, so an unexpected mode asks rather than runs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langgraph.errors import GraphInterrupt
from mcp.types import CallToolResult, TextContent

from common.mcp.config import McpConfig
from common.mcp.registry import ExpertRegistry
from common.safety.approval import EditDecision, PendingCall, RejectDecision, ask_for_approval
from common.safety.classify import classify_tools
from common.safety.gate import Gate, GateDecision
from common.safety.policy import ApprovalMode, action_for, parse_approval_mode

Handler = Callable[[Any], Awaitable[Any]]
"""The next step of the interceptor chain (eventually, the MCP call)."""


def _refusal(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], isError=True)


class ApprovalInterceptor:
    """Apply our irreversibility gate (deterministic layers) to MultiServerMCPClient tools."""

    def __init__(self, config: McpConfig, approval_mode: ApprovalMode = "interrupt") -> None:
        self.registry = ExpertRegistry(config)
        self.approval_mode: ApprovalMode = parse_approval_mode(approval_mode)

    async def decide(self, server: str, name: str, args: dict[str, Any]) -> GateDecision:
        """The gate's decision for one call, from the server's live tool list."""
        tools = await self.registry.tools(server)
        cfg = self.registry.server(server)
        gate = Gate(classify_tools(server, tools, cfg))
        return gate.check(server, name, args, {t.name: t for t in tools}, cfg)

    async def __call__(self, request: Any, handler: Handler) -> Any:
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
            reason=f"{decision.reason} (source: {decision.source})",
        )
        try:
            answer = ask_for_approval([pending])[pending["id"]]
        except GraphInterrupt:
            raise
        except (RuntimeError, KeyError) as exc:
            # Outside a LangGraph run there is no one to ask (no Pregel scratchpad).
            return _refusal(
                f"Not run: {request.name!r} needs a human's approval ({decision.reason}), "
                f"and no LangGraph run is there to ask ({exc})."
            )
        if action_for(self.approval_mode, True, answer) != "run":
            why = f" Their reason: {answer.message}" if isinstance(answer, RejectDecision) else ""
            return _refusal(f"The user declined to run {request.name!r}.{why}")
        if isinstance(answer, EditDecision):
            # An edit changes the arguments only (`check_edits` refused any other tool).
            return await handler(request.override(args=answer.edited_action.args))
        return await handler(request)
