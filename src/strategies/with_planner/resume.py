"""Which resume value reaches the graph: one the asking node can refuse, never one LangGraph drops.

LangGraph (1.2) reads a `Command(resume=...)` before any node runs, so some answers never reach
the node that asked: `resume=None` raises LangGraph's own `UnboundLocalError`; a dict keyed by
interrupt ids that are not waiting is taken as an answer to nobody (the question comes back with
no word of why); and every answer is written into the checkpoint as it is, however large. The
caller's input is therefore screened first: such an answer is replaced by a short stand-in
(`common.safety.approval.not_used`) sent to every waiting question, and the node refuses it with
the same "Your last answer was not used, nothing ran: ..." error as any other invalid answer.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from common.safety.approval import echo, not_used, unusable

_INTERRUPT_ID = re.compile(r"[0-9a-f]{32}")
"""An interrupt id; LangGraph takes a dict whose keys all look like this as answers by id."""


def is_resume_map(value: Any) -> bool:
    """Whether LangGraph reads `value` as answers keyed by interrupt id (an empty dict counts)."""
    return isinstance(value, dict) and all(
        isinstance(k, str) and _INTERRUPT_ID.fullmatch(k) for k in value
    )


def refusal(value: Any, pending: list[str]) -> str | None:
    """Why `value` cannot answer the `pending` interrupts, or None when a node may read it."""
    if value is None:
        return "the answer was empty (None)."
    if is_resume_map(value):
        unknown = sorted(set(value) - set(pending))
        if not value:
            return f"the answer names no question; waiting: {', '.join(pending)}."
        if unknown:
            return (
                f"it answers question id(s) {echo(', '.join(unknown))} that are not waiting; "
                f"waiting: {', '.join(pending)}."
            )
    return unusable(value)


def screen_resume(value: Any, pending: list[str]) -> Any:
    """The resume value to send for `value`: itself, or the stand-in every waiting node refuses."""
    reason = refusal(value, pending)
    if reason is None:
        return value
    if len(pending) == 1:
        return not_used(reason)
    return {interrupt_id: not_used(reason) for interrupt_id in pending}


async def screened(
    graph: CompiledStateGraph[Any, Any, Any, Any], payload: Any, config: RunnableConfig
) -> Any:
    """The input to send: a resume command screened against the thread's waiting interrupts.

    Anything else (a new message, a command that updates or routes) is passed on unchanged.
    """
    if not isinstance(payload, Command) or payload.update is not None or payload.goto:
        return payload
    snapshot = await graph.aget_state(config)
    pending = [i.id for i in snapshot.interrupts]
    if not pending:
        return payload
    return Command(resume=screen_resume(payload.resume, pending))
