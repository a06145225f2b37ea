"""What the command prints: consoles, tables that survive a pipe, the live plan, run events."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.measure import Measurement
from rich.panel import Panel
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

from common.safety.quoting import one_line
from strategies.cli.closed_output import PipeConsole

out = PipeConsole()
"""Main output: answers, tables, prompts (switched to stderr under --json); closed: OutputClosed."""
err = PipeConsole(stderr=True)
"""Problems and notices."""

STATUS_STYLE = {
    "completed": "green",
    "failed": "red",
    "skipped": "yellow",
    "cancelled": "yellow",
    "running": "cyan",
    "pending": "dim",
}
"""Colour of each task status."""


PROGRESS_MESSAGE_CHARS = 80
"""Characters of a server's progress message on a task's row."""

PIPE_WIDTH = 160
"""Output width in a pipe or a file: wide enough that table rows never wrap or get cropped."""


def fit_output() -> None:
    """In a pipe, lay out for PIPE_WIDTH columns instead of 80 (no cropped table borders)."""
    if not out.is_terminal:
        out.width = PIPE_WIDTH


def cut(text: object, width: int) -> str:
    """`text` on one line, cut to `width` characters with an ellipsis when longer."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def problem(message: str) -> None:
    """One problem line on stderr, never wrapped."""
    err.print(Text(message, style="red"), soft_wrap=True)


def notice(message: str) -> None:
    """One notice line on stderr, never wrapped."""
    err.print(Text(message, style="yellow"), soft_wrap=True)


def line(message: str, style: str = "") -> None:
    """One line on the main output, never wrapped, never read as markup."""
    out.print(Text(message, style=style), soft_wrap=True)


def _frame() -> box.Box:
    # Box-drawing characters and wrapped rows turn into noise in a pipe or a log file.
    return box.HEAVY_HEAD if out.is_terminal else box.ASCII


def new_table(title: str, columns: list[str], keep: tuple[str, ...] = ()) -> Table:
    """A table for `out`; in a pipe: ASCII borders and rows that never wrap.

    Columns named in `keep` are never shortened (thread ids must stay copyable).
    """
    plain = not out.is_terminal
    table = Table(title=title, box=_frame(), expand=False)
    for name in columns:
        table.add_column(
            name,
            no_wrap=plain or name in keep,
            overflow="fold" if name in keep else "ellipsis",
        )
    return table


def print_table(table: Table) -> None:
    """Print a table; in a pipe the output widens to the table's natural width (never cropped)."""
    if not out.is_terminal:
        natural = Measurement.get(out, out.options.update(width=10_000), table).maximum
        out.width = max(out.width, natural)
    out.print(table)


def keep_width(table: Table, column: int, values: list[str]) -> None:
    """Give a column the width of its longest value, so it is never cut."""
    table.columns[column].min_width = max((len(v) for v in values), default=0)


def panel(body: str, title: str, style: str) -> Panel:
    """A framed block of text (ASCII frame in a pipe)."""
    return Panel(
        Text(body),
        title=title,
        border_style=style,
        box=box.ROUNDED if out.is_terminal else box.ASCII,
    )


def progress_line(event: dict[str, Any]) -> str:
    """A "progress" event on one line: `tool 3/10 message` (the message is the server's text)."""
    done, total = event.get("progress"), event.get("total")
    amount = ""
    if isinstance(done, int | float):
        amount = f"{done:g}/{total:g}" if isinstance(total, int | float) and total else f"{done:g}"
    message = event.get("message")
    # Untrusted text, maybe from a remote server: never a second line, never a long one.
    said = cut(one_line(str(message)), PROGRESS_MESSAGE_CHARS) if message else ""
    return " ".join(p for p in (str(event.get("tool") or ""), amount, said) if p)


class PlanBoard:
    """The plan as a live table: one row per task, a spinner and its progress while it runs."""

    def __init__(self) -> None:
        self.tasks: dict[str, dict[str, str]] = {}
        self.spinners: dict[str, Spinner] = {}
        self.progress: dict[str, str] = {}
        """The latest progress line of each running task's call, by task id."""

    def apply(self, event: dict[str, Any]) -> None:
        """Update the rows from a custom stream event."""
        kind = event.get("event")
        if kind == "plan":
            for t in event["plan"]:
                self.tasks[t["id"]] = {
                    "expert": t["expert"],
                    "task": t["task"],
                    "status": t["status"],
                }
        elif kind == "task_start" and event["task_id"] in self.tasks:
            self.tasks[event["task_id"]]["status"] = "running"
            self.progress.pop(event["task_id"], None)
        elif kind == "task_end" and event["task_id"] in self.tasks:
            self.tasks[event["task_id"]]["status"] = event["status"]
            self.progress.pop(event["task_id"], None)
        elif kind == "progress" and event.get("task_id") in self.tasks:
            self.progress[event["task_id"]] = progress_line(event)

    def seed(self, plan: list[Any]) -> None:
        """Start from the thread's current plan (a resumed run sends no plan event)."""
        self.apply({"event": "plan", "plan": plan})

    def __rich__(self) -> Table | Text:
        """The table as it stands (nothing before there is a plan)."""
        if not self.tasks:
            return Text("")
        table = new_table("Plan", ["", "id", "expert", "task", "status"], keep=("id",))
        for tid, t in self.tasks.items():
            mark: Any = ""
            if t["status"] == "running" and out.is_terminal:
                mark = self.spinners.setdefault(tid, Spinner("dots"))
            status = Text(t["status"], STATUS_STYLE.get(t["status"], ""))
            if t["status"] == "running" and tid in self.progress:
                status.append(f" {self.progress[tid]}", "dim")
            table.add_row(mark, tid, Text(t["expert"]), Text(cut(t["task"], 60)), status)
        return table


def render_event(event: dict[str, Any]) -> None:
    """Print what a custom stream event says: the guard's verdict, tool results, failures."""
    kind = event.get("event")
    if kind == "guard":
        blocked = [f"{s}.{t}" for s, tools in event["irreversible"].items() for t in tools]
        # A tool list that could not be read is never "nothing": no call to it is sent.
        blocked += [
            f"unknown for {s} (its tools could not be listed; no call to it is sent)"
            for s in event["unavailable"]
        ]
        line(f"guard: needs approval: {', '.join(blocked) or 'nothing'}", "dim")
        if event.get("analysis") == "skipped":
            line("guard: every tool settled by config or trusted annotations", "dim")
        for note in event.get("notes", []):
            line(f"guard: {note}", "yellow")
        # The same words as `mcp-planner tools`: the registry's ExpertUnavailable text.
        for error in event["unavailable"].values():
            problem(str(error))
    elif kind == "tool_result":
        style = "red" if event["status"] == "error" else "green"
        out.print(Text.assemble("  ", (event["tool"], style), f" → {cut(event['content'], 200)}"))
    elif kind == "task_end" and event.get("error"):
        line(f"{event['task_id']} {event['status']}: {event['error']}", "red")
    elif kind == "approval_remembered":
        line(f"  {event['expert']}.{event['tool']}: approved earlier, not asked again", "yellow")
    elif kind == "approval_kept":
        for kept in event["remembered"]:
            line(f"  {kept['expert']}.{kept['tool']}: will not be asked again", "yellow")
    elif kind == "notice":
        # Sent by a server that fell back to its defaults (in-process the command says it).
        notice(str(event.get("text", "")))


def render_update(node: str) -> None:
    """Print that a node finished."""
    line(f"· {node}", "dim")
