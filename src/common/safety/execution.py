"""Durable tool execution: an approved call runs once, even across a crash and a resume.

LangGraph re-runs an interrupted or crashed node from its start. Before a gated (irreversible)
call is sent, a ledger entry "started" is written and awaited in the graph's store; once the call
returns, its outcome is written too. A re-run finds the entry: a finished call's outcome is
replayed and nobody is asked again; a call that was started but never finished (the process
died in between) is not sent again: whether it ran is unknown, and it is reported so. A gated
call is therefore sent at most once, and exactly once when the process survives.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from common.mcp.registry import ExpertRegistry

_PROCESS_STORE = InMemoryStore()
"""Ledger of graphs compiled without a store: as durable as their in-memory state."""


class CallRecord(TypedDict):
    """A tool call's outcome (plain data)."""

    status: str
    """ok, tool_error, timeout, unknown_tool, unavailable or interrupted."""
    content: str
    """Output or error text."""
    structured: Any
    """Structured content, when the tool returned any."""


LedgerEntry = CallRecord | Literal["started"]
"""What the ledger knows of a call: its outcome, or that it was sent without an answer yet."""


class CallLedger:
    """Per-thread record of gated calls in a LangGraph store."""

    def __init__(self, store: BaseStore | None, thread_id: str) -> None:
        self.store = store if store is not None else _PROCESS_STORE
        self.namespace = ("mcp_planner", "call_ledger", thread_id)

    async def lookup(self, key: str) -> LedgerEntry | None:
        """The call's recorded state, or None if it was never started."""
        item = await self.store.aget(self.namespace, key)
        if item is None:
            return None
        value = item.value
        if value.get("state") == "started":
            return "started"
        record: CallRecord = value["record"]
        return record

    async def started(self, key: str, expert: str, name: str, args: dict[str, Any]) -> None:
        """Record, before sending, that the call is about to go out."""
        value = {"state": "started", "expert": expert, "name": name, "args": args}
        await self.store.aput(self.namespace, key, value, index=False)

    async def finished(self, key: str, record: CallRecord) -> None:
        """Record the call's outcome."""
        await self.store.aput(self.namespace, key, {"state": "done", "record": record}, index=False)


def unknown_outcome(expert: str, name: str) -> CallRecord:
    """The outcome of a call cut off by a crash: not resent, reported as unknown."""
    return CallRecord(
        status="interrupted",
        content=(
            f"The process stopped while {name!r} was being sent to {expert!r}; whether it ran is "
            "unknown, so it was not sent again. Check the expert before retrying."
        ),
        structured=None,
    )


def replay(entry: LedgerEntry, expert: str, name: str) -> CallRecord:
    """What a re-run reports for a call the ledger already knows."""
    return unknown_outcome(expert, name) if entry == "started" else entry


async def run_once(
    ledger: CallLedger | None,
    key: str,
    registry: ExpertRegistry,
    expert: str,
    name: str,
    args: dict[str, Any],
    timeout_s: float,
    gated: bool,
) -> CallRecord:
    """Send a call; a gated one goes through the ledger so it is never sent twice."""
    if gated and ledger is not None:
        entry = await ledger.lookup(key)
        if entry is not None:
            return replay(entry, expert, name)
        await ledger.started(key, expert, name, args)
    outcome = await registry.call(expert, name, args, timeout_s, retry_safe=not gated)
    record = CallRecord(
        status=outcome.status, content=outcome.content, structured=outcome.structured
    )
    if gated and ledger is not None:
        await ledger.finished(key, record)
    return record
