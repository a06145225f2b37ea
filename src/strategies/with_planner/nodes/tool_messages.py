"""What each answered tool call tells the model: one ToolMessage per call, whatever happened."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, InvalidToolCall, ToolCall, ToolMessage

from common.mcp.outcome import blocks_of
from common.safety.approval import RESOLVED_REASON, RejectDecision
from common.safety.execution import Executed, Refused
from strategies.with_planner.results import INLINE_CHARS, json_chars, trim

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
    # The model gets the trimmed text; the full output goes with the message to the task's
    # result (which keeps it once: `for_state` and `Results.keep_output` take it off the message).
    extra: dict[str, Any] = (
        {"full_output": prefix + done["content"]} if result.shown != done["content"] else {}
    )
    if blocks := blocks_of(done):
        # Images, audio and files the tool returned, as LangChain content blocks, for callers
        # that can show them; the text above already describes each one.
        extra["blocks"] = blocks
    return tool_message(
        call, prefix + result.shown, artifact=done["structured"], additional_kwargs=extra
    )


def full_output(message: ToolMessage) -> str:
    """The whole output of an answered call (its content is what the model saw of it)."""
    return str(message.additional_kwargs.get("full_output") or message.content)


def for_state(message: AnyMessage, direct: bool) -> AnyMessage:
    """The message as kept in a direct step's transcript: without a large output or argument.

    A direct step's result keeps the whole output and data once (see `results`); a copy on the
    message would be written into every checkpoint again. `output_chars` says how long it was.
    An expert's own calls keep theirs: `Results.keep_output` moved a large one to the store.
    """
    if not direct:
        return message
    if isinstance(message, AIMessage):
        return _without_big_args(message)
    if not isinstance(message, ToolMessage):
        return message
    extra = message.additional_kwargs
    big_output = len(str(extra.get("full_output") or "")) > INLINE_CHARS
    big_artifact = json_chars(message.artifact) > INLINE_CHARS
    if not (big_output or big_artifact):
        return message
    kept: dict[str, Any] = {k: v for k, v in extra.items() if k != "full_output" or not big_output}
    if big_output:
        kept["output_chars"] = len(str(extra["full_output"]))
    artifact = None if big_artifact else message.artifact
    return message.model_copy(update={"additional_kwargs": kept, "artifact": artifact})


def _without_big_args(message: AIMessage) -> AIMessage:
    """A direct step's call as kept in its transcript: a large argument as a trimmed view.

    The call was sent with every byte; the transcript needs only to show what it was.
    """
    if json_chars([c["args"] for c in message.tool_calls]) <= INLINE_CHARS:
        return message
    calls = [ToolCall(**{**c, "args": _trimmed(c["args"])}) for c in message.tool_calls]
    return message.model_copy(update={"tool_calls": calls})


def _trimmed(value: Any) -> Any:
    """`value` with every string longer than `INLINE_CHARS` trimmed to a view."""
    if isinstance(value, str):
        return trim(value) if len(value) > INLINE_CHARS else value
    if isinstance(value, dict):
        return {k: _trimmed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_trimmed(v) for v in value]
    return value


def held_back(call: ToolCall, reason: str, mode: str) -> ToolMessage:
    """The answer to a gated call held for the user's later approval (plan_only)."""
    return tool_message(
        call,
        f"Not run: {call['name']!r} needs approval ({reason}) and approval_mode is {mode!r}; "
        "it is recorded as a proposed action for the user to approve.",
        error=True,
    )


def declined(call: ToolCall, decision: RejectDecision) -> ToolMessage:
    """The answer to a call the user rejected, with their reason (or closed the question on)."""
    if decision.message == RESOLVED_REASON:
        return tool_message(call, f"Not run: {call['name']!r}: {RESOLVED_REASON}.", error=True)
    why = f" Their reason: {decision.message.rstrip('.')}." if decision.message else ""
    return tool_message(call, f"The user declined to run {call['name']!r}.{why}", error=True)


def not_parsed(call: InvalidToolCall) -> ToolMessage:
    """The answer to a call whose arguments could not be parsed: never run, said so."""
    why = call.get("error") or "its arguments are not valid JSON"
    return ToolMessage(
        content=f"Not run: the call could not be parsed ({why}); call it again with valid JSON.",
        tool_call_id=call["id"] or "",
        name=call["name"] or "",
        status="error",
    )


def not_run_conservative(call: ToolCall) -> ToolMessage:
    """The answer to a call beyond the conservative strategy's one per turn."""
    return tool_message(call, CONSERVATIVE_NOT_RUN, error=True)
