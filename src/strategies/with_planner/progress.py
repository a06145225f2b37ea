"""Progress of a long call: the server's `notifications/progress`, as stream events.

Each call that runs gets a `Listener`. It sends every update as a custom stream event
("progress": task id, expert, tool, progress, total, message), which the CLI's live plan shows
on the task's row; when the turn has a plan card, the update is merged into the card's props
too (`plan_card.progress_message`). The message is the server's untrusted text: it goes out on
one line (`common.safety.quoting.one_line`), capped. A listener never raises: reporting must
not break the call (the SDK would swallow the error, but only after a log line per update).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

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
        self.writer(
            {
                "event": "progress",
                "task_id": self.task_id,
                "expert": self.expert,
                "tool": self.tool,
                "progress": progress,
                "total": total,
                "message": message,
            }
        )
        if self.card_turn:
            shown = CardProgress(tool=self.tool, progress=progress, total=total, message=message)
            self.writer(progress_message(self.card_turn, self.task_id, shown))
