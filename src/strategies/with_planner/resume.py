"""Which resume value reaches the graph: one the asking node can refuse, never one LangGraph drops.

LangGraph (1.2) reads a `Command(resume=...)` before any node runs, so some answers never reach
the node that asked: `resume=None` raises LangGraph's own `UnboundLocalError`; a dict keyed by
interrupt ids that are not waiting is taken as an answer to nobody (the question comes back with
no word of why); and every answer is written into the checkpoint as it is, however large. The
caller's input is therefore screened first: such an answer is replaced by a short stand-in
(`common.safety.approval.not_used`) sent to every waiting question, and the node refuses it with
the same "Your last answer was not used, nothing ran: ..." error as any other invalid answer.

A command that only jumps to the end (Agent Chat UI's "Mark as Resolved") while questions wait
would be ignored by LangGraph, which asks the same question again. It is taken for what the
person meant: every waiting question is closed without an answer, so a held call is declined
(not run) and the answer of that run says so.

LangGraph has no hook that sees a resume before its loop reads it, so `build_graph` returns a
`ScreenedGraph`: the compiled graph with `stream`/`astream` screening first. Every entry point
(`invoke`, `ainvoke`, `astream_events`, `langgraph dev`, the CLI) streams through these two.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import replace
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.constants import END
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from common.safety.approval import echo, not_used, resolved_without_answer, unusable
from common.served import approvers, caller
from common.served.caller import Caller
from common.settings import get_settings
from strategies.with_planner.context import Context

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


def is_resume(payload: Any) -> bool:
    """Whether `payload` is only an answer: a resume command that neither updates nor routes."""
    return isinstance(payload, Command) and payload.update is None and not payload.goto


def is_close(payload: Any) -> bool:
    """Whether `payload` only jumps to the end: "mark as resolved" (no answer, no update)."""
    return (
        isinstance(payload, Command)
        and payload.update is None
        and payload.resume is None
        and (payload.goto == END or payload.goto in ([END], (END,)))
    )


def screen_payload(payload: Command[Any], pending: list[str]) -> Any:
    """The screened input for a resume or close `payload`, given the interrupts that wait."""
    if not pending:
        return payload
    if is_close(payload):
        if len(pending) == 1:
            return Command(resume=resolved_without_answer())
        return Command(resume={i: resolved_without_answer() for i in pending})
    return Command(resume=screen_resume(payload.resume, pending))


def needs_screening(payload: Any) -> bool:
    """Whether `payload` is read against the waiting interrupts: an answer or a close."""
    return is_resume(payload) or is_close(payload)


def _context_user(context: Any) -> str | None:
    """The `user_id` a run's context names (a mapping or a Context), if any."""
    found = (
        context.get("user_id")
        if isinstance(context, Mapping)
        else getattr(context, "user_id", None)
    )
    return found if isinstance(found, str) else None


def authored(payload: Any, who: Caller) -> Any:
    """A screened resume with its author stamped on every answer (`common.served.approvers`).

    The author is the caller of the run that resumes, and the time the answer arrived: kept
    with the answer in the checkpoint, so a replayed answer keeps its author.
    """
    if not is_resume(payload):
        return payload
    author = approvers.Author(
        by=who.identity, roles=list(who.roles), at=approvers.clock().isoformat()
    )
    value = payload.resume
    if is_resume_map(value) and value:
        return Command(resume={k: approvers.stamped(v, author) for k, v in value.items()})
    return Command(resume=approvers.stamped(value, author))


def with_caller(context: Any, who: Caller) -> Any:
    """The run's context carrying `who`: whatever caller a context named is replaced."""
    if context is None:
        return {"caller": who}
    if isinstance(context, Mapping):
        return {**context, "caller": who}
    if isinstance(context, Context):
        return replace(context, caller=who)
    return context


def _reads_thread(payload: Any, config: RunnableConfig | None, checkpointer: Any) -> bool:
    """Whether the run's entry reads the thread: to screen an answer, or for its owner (auth)."""
    if config is None or checkpointer is None:
        return False
    return needs_screening(payload) or get_settings().auth_on


def entered(
    payload: Any, config: RunnableConfig | None, snapshot: Any, kwargs: dict[str, Any]
) -> Any:
    """The input to send, with the caller resolved once and put on the run's context.

    `snapshot` is the thread's state when it was read (else None). A resume command is screened
    against the waiting interrupts and stamped with its author; anything else (a new message,
    a command that updates or routes, no input) is passed on. No input continues a stopped run:
    after a crash it carries the answer the checkpoint already holds, so it is never taken for
    an empty answer.
    """
    context = kwargs.get("context")
    values = snapshot.values if snapshot is not None else None
    who = caller.resolve(config, _context_user(context), values)
    if snapshot is not None and needs_screening(payload):
        payload = screen_payload(payload, [i.id for i in snapshot.interrupts])
    kwargs["context"] = with_caller(context, who)
    return authored(payload, who)


class ScreenedGraph(CompiledStateGraph[Any, Any, Any, Any]):
    """A compiled graph that resolves each run's caller and screens every resume first.

    `invoke`, `ainvoke`, `astream_events` and the server all stream through `stream` or
    `astream`, so these two are where every run enters: the caller is resolved there, once.
    """

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """`astream`, with the caller resolved and a resume screened."""
        read = _reads_thread(input, config, self.checkpointer)
        snapshot = await self.aget_state(config) if read and config is not None else None
        input = entered(input, config, snapshot, kwargs)
        async for chunk in super().astream(input, config, **kwargs):
            yield chunk

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        """`stream`, with the caller resolved and a resume screened."""
        read = _reads_thread(input, config, self.checkpointer)
        snapshot = self.get_state(config) if read and config is not None else None
        input = entered(input, config, snapshot, kwargs)
        yield from super().stream(input, config, **kwargs)


def screening(graph: CompiledStateGraph[Any, Any, Any, Any]) -> ScreenedGraph:
    """A copy of `graph` that screens its resumes (every later copy screens them too)."""
    # Built the way LangGraph's own `Pregel.copy` builds a copy (the instance's fields passed to
    # the class), so `with_config` and the server's per-run copies keep the class.
    fields = {k: v for k, v in graph.__dict__.items() if k != "__orig_class__"}
    return ScreenedGraph(**fields)
