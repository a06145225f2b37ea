"""The gate as a `langchain-mcp-adapters` tool interceptor, for apps that embed our experts.

    client = MultiServerMCPClient(connections, tool_interceptors=[ApprovalInterceptor(config)])

Calls the gate lets through run untouched; an irreversible one waits for a human through a
LangGraph interrupt in the same approval format as the graph (so it must run inside a graph with
a checkpointer); outside a graph, or in plan_only mode, it is refused with an error result. The
mode is checked when the interceptor is built, and `common.safety.policy.action_for` (the
graph's rule too) decides each call, so an unexpected mode asks rather than runs.

The rules of the graph's approvals hold here too: an edit changes the arguments of the call
asked about, never its tool, and the edited arguments go through the gate again (a hold of
their own that the reviewer was not shown is asked about again, as `with_planner.edits` does);
every question and answer is appended to the audit trail (`common.safety.audit`) when the run
has a store.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langgraph.config import get_config, get_store
from langgraph.errors import GraphInterrupt
from mcp.types import CallToolResult, TextContent

from common.identity import run_user
from common.mcp.config import McpConfig
from common.mcp.registry import ExpertRegistry
from common.safety.approval import (
    Decision,
    EditDecision,
    PendingCall,
    RejectDecision,
    ask_for_approval,
)
from common.safety.audit import Trail, append, call_entry, decision_fields
from common.safety.classify import classify_tools
from common.safety.gate import ASKED_AGAIN, PER_CALL_HOLDS, Gate, GateDecision, hold_of
from common.safety.policy import ApprovalMode, action_for, parse_approval_mode

Handler = Callable[[Any], Awaitable[Any]]
"""The next step of the interceptor chain (eventually, the MCP call)."""

MAX_ROUNDS = 5
"""Questions about one call, its edits asked about again included, before it is refused."""


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
        run_user(config, None),
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
