"""What each answered tool call tells the model: one ToolMessage per call, whatever happened."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolCall, ToolMessage

from common.mcp.outcome import blocks_of
from common.safety.approval import RejectDecision
from common.safety.execution import Executed, Refused

EDIT_NOTICE = "Note: the user edited this call to {call}.\n"
"""Put before the result of a call the reviewer edited, naming the call that ran instead."""

CONSERVATIVE_NOT_RUN = (
    "Not run: the conservative strategy runs one tool call per turn; call it again next turn."
)
"""The answer to every call after the first under the conservative strategy."""


def tool_message(call: ToolCall, content: str, error: bool = False, **extra: Any) -> ToolMessage:
    """The answer to `call`: a success, or an error the model can read."""
    return ToolMessage(
        content=content,
        tool_call_id=call["id"] or "",
        name=call["name"],
        status="error" if error else "success",
        **extra,
    )


def result_message(call: ToolCall, result: Executed | Refused, prefix: str = "") -> ToolMessage:
    """The answer to a call that was run (or refused before it was sent)."""
    if isinstance(result, Refused):
        return tool_message(call, prefix + result.reason, error=True)
    done = result.outcome
    if done["status"] != "ok":
        return tool_message(call, f"{prefix}Error ({done['status']}): {done['content']}", True)
    # The model gets the trimmed text; the full output stays with the message for the result.
    extra: dict[str, Any] = (
        {"full_output": done["content"]} if result.shown != done["content"] else {}
    )
    if blocks := blocks_of(done):
        # Images, audio and files the tool returned, as LangChain content blocks, for callers
        # that can show them; the text above already describes each one.
        extra["blocks"] = blocks
    return tool_message(
        call, prefix + result.shown, artifact=done["structured"], additional_kwargs=extra
    )


def held_back(call: ToolCall, mode: str) -> ToolMessage:
    """The answer to a gated call held for the user's later approval (plan_only)."""
    return tool_message(
        call,
        f"Not run: {call['name']!r} is irreversible and approval_mode is {mode!r}; it is "
        "recorded as a proposed action for the user to approve.",
        error=True,
    )


def declined(call: ToolCall, decision: RejectDecision) -> ToolMessage:
    """The answer to a call the user rejected, with their reason."""
    why = f" Their reason: {decision.message}" if decision.message else ""
    return tool_message(call, f"The user declined to run {call['name']!r}.{why}", error=True)


def not_run_conservative(call: ToolCall) -> ToolMessage:
    """The answer to a call beyond the conservative strategy's one per turn."""
    return tool_message(call, CONSERVATIVE_NOT_RUN, error=True)
