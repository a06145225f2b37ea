"""Progress of a long call: the server's `notifications/progress`, as stream events.

Each call that runs gets a `Listener`. It sends every update as a custom stream event
("progress": task id, expert, tool, progress, total, message), which the CLI's live plan shows
on the task's row; when the turn has a plan card, the update is merged into the card's props
too (`plan_card.progress_message`). The message is the server's untrusted text: it goes out on
one line (`common.safety.quoting.one_line`), capped. A listener never raises: reporting must
not break the call (the SDK would swallow the error, but only after a log line per update).

Every call runs inside the `run_task` subgraph, whose custom events a client sees only when it
streams subgraphs; Agent Chat UI does not, so the card's update would never reach it. The
events are therefore written at the graph's root (`at_root`): LangGraph's custom stream writer
takes the namespace from the run config's checkpoint namespace when it is called, so the write
is made under a copy of that config whose namespace is the node's own last segment. This reads
LangGraph's config keys (`checkpoint_ns`): there is no public way to write to a parent stream.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langgraph.types import StreamWriter

from common.safety.quoting import one_line
from strategies.with_planner.plan_card import CardProgress, progress_message

MESSAGE_CHARS = 80
"""Characters of a progress message: it shares one line with the task."""

logger = logging.getLogger(__name__)


def progress_text(message: str | None) -> str | None:
    """The server's message on one line, cut to MESSAGE_CHARS (None stays None)."""
    if message is None:
        return None
    line = one_line(str(message))
    return line if len(line) <= MESSAGE_CHARS else line[: MESSAGE_CHARS - 1] + "…"


@dataclass(frozen=True)
class Listener:
    """Hears one call's progress notifications and streams them (an SDK `ProgressFnT`)."""

    writer: StreamWriter
    """The node's custom stream."""
    task_id: str
    """The task the call serves."""
    expert: str
    """The expert that runs the call."""
    tool: str
    """The tool called."""
    card_turn: str | None = None
    """The turn whose plan card shows the task (None: no card)."""

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        """Stream one update; any failure is logged, never raised into the SDK."""
        try:
            self.send(progress, total, progress_text(message))
        except Exception:
            logger.warning("progress of %s on %s not shown", self.tool, self.expert, exc_info=True)

    def send(self, progress: float, total: float | None, message: str | None) -> None:
        """Write the "progress" event, and the card's update when there is a card."""
        at_root(
            self.writer,
            {
                "event": "progress",
                "task_id": self.task_id,
                "expert": self.expert,
                "tool": self.tool,
                "progress": progress,
                "total": total,
                "message": message,
            },
        )
        if self.card_turn:
            shown = CardProgress(tool=self.tool, progress=progress, total=total, message=message)
            if (card := progress_message(self.card_turn, self.task_id, shown)) is not None:
                at_root(self.writer, card)


def at_root(writer: Callable[[Any], None], event: Any) -> None:
    """Write `event` to the custom stream as the graph's root would (see the module doc)."""
    from langchain_core.runnables.config import var_child_runnable_config

    config = var_child_runnable_config.get()
    configurable = (config or {}).get("configurable") or {}
    ns = str(configurable.get("checkpoint_ns") or "")
    if config is None or "|" not in ns:
        writer(event)
        return
    root = {**config, "configurable": {**configurable, "checkpoint_ns": ns.rsplit("|", 1)[-1]}}
    token = var_child_runnable_config.set(root)  # type: ignore[arg-type]
    try:
        writer(event)
    finally:
        var_child_runnable_config.reset(token)
