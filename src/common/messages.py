"""Reading a conversation: which message is the request a turn is about."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import AnyMessage, BaseMessage, HumanMessage


def last_human(messages: Sequence[AnyMessage | BaseMessage]) -> HumanMessage | None:
    """The last human message: the request the turn is about (None before the first)."""
    return next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)


def last_request(messages: Sequence[AnyMessage | BaseMessage]) -> str:
    """The text of the last human message ("" when there is none)."""
    last = last_human(messages)
    return str(last.content) if last is not None else ""
