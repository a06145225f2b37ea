"""How a command ended: one Outcome, shown to a person or printed as one JSON object."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from common.safety.quoting import one_line
from strategies.cli.closed_output import CLOSED
from strategies.cli.exits import (
    EXIT_CLOSED,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_STOPPED,
    EXIT_USAGE,
    EXIT_WAITING,
)
from strategies.cli.render import line, notice, out, panel, problem

Status = Literal["awaiting_approval", "completed", "failed", "error", "stopped"]
"""The outcome of a run, as `run --json` reports it."""

TASK_FIELDS = ("id", "expert", "task", "status", "result", "error")
"""What `run --json` shows of each task."""


@dataclass
class Outcome:
    """The result of run, resume or chat."""

    thread_id: str | None
    """The thread, or None when nothing ran."""
    status: Status
    """How it ended."""
    exit_code: int
    """The process exit code."""
    answer: str = ""
    """The last answer on the thread."""
    pending: list[dict[str, Any]] = field(default_factory=list)
    """Calls (name, args, reason) or questions waiting for a person."""
    tasks: list[dict[str, Any]] = field(default_factory=list)
    """The plan's tasks with status, result and error."""
    problems: list[str] = field(default_factory=list)
    """One line per thing not done."""
    error: str | None = None
    """The usage or configuration error that stopped the command."""
    resume: str | None = None
    """The command that continues the thread."""

    def as_json(self) -> dict[str, Any]:
        """The JSON object `--json` prints."""
        return asdict(self)


def tasks_of(plan: list[Any]) -> list[dict[str, Any]]:
    """The JSON view of a plan."""
    return [{k: t.get(k) for k in TASK_FIELDS} for t in plan]


def finished(thread: str, values: dict[str, Any]) -> Outcome:
    """The outcome of a finished turn, from the thread's state."""
    from langchain_core.messages import AIMessage

    messages = values.get("messages") or []
    last = messages[-1] if messages else None
    plan = values.get("previous_plan") or []
    report = values.get("report")
    if report is not None:
        ok, problems = bool(report["ok"]), [str(p) for p in report["problems"]]
    else:
        # A graph without a turn report: judge by failed tasks and whether it answered.
        problems = [f"{t['id']} failed: {t.get('error')}" for t in plan if t["status"] == "failed"]
        ok = not problems and isinstance(last, AIMessage)
    return Outcome(
        thread_id=thread,
        status="completed" if ok else "failed",
        exit_code=EXIT_OK if ok else EXIT_FAILED,
        answer=str(last.content) if last is not None else "",
        tasks=tasks_of(plan),
        problems=problems,
    )


def waiting(thread: str, pending: list[dict[str, Any]], plan: list[Any], hint: str) -> Outcome:
    """Waiting for a person and no terminal to ask in."""
    return Outcome(
        thread_id=thread,
        status="awaiting_approval",
        exit_code=EXIT_WAITING,
        pending=pending,
        tasks=tasks_of(plan),
        resume=hint,
    )


def model_failed(thread: str, message: str, hint: str) -> Outcome:
    """A node's model could not be reached: the run stopped at its last step, resumable."""
    return Outcome(
        thread_id=thread, status="failed", exit_code=EXIT_FAILED, error=message, resume=hint
    )


def stopped(thread: str | None, hint: str | None, closed: bool = False) -> Outcome:
    """Stopped by Ctrl-C, or (`closed`) by the output being closed: exit 130 or 141."""
    code = EXIT_CLOSED if closed else EXIT_STOPPED
    return Outcome(thread_id=thread, status="stopped", exit_code=code, resume=hint)


def error(message: str, code: int = EXIT_USAGE) -> Outcome:
    """A usage or configuration error: nothing ran."""
    return Outcome(thread_id=None, status="error", exit_code=code, error=message)


def show(outcome: Outcome) -> None:
    """Tell a person how it ended (on stderr under --json)."""
    if outcome.status == "failed" and outcome.error:
        # No answer was written: the one line says what failed and how to retry.
        problem(outcome.error)
    elif outcome.status in ("completed", "failed"):
        out.print(panel(outcome.answer, "Answer", "cyan"))
        line(f"thread {outcome.thread_id}", "dim")
        if outcome.problems:
            problem(
                f"Not everything was done ({len(outcome.problems)} problem(s), see the answer)."
            )
    elif outcome.status == "awaiting_approval":
        _show_pending(outcome)
    elif outcome.status == "stopped":
        why = CLOSED if outcome.exit_code == EXIT_CLOSED else "Stopped"
        notice(f"{why}. The thread is saved: {outcome.resume}")


def _show_pending(outcome: Outcome) -> None:
    # Why the last answer was not used (a wrong person's, say): once, before what still waits.
    for refused in dict.fromkeys(str(p["refused"]) for p in outcome.pending if p.get("refused")):
        problem(one_line(refused))
    line(f"Waiting on thread {outcome.thread_id} (no terminal to ask in):", "yellow")
    for n, p in enumerate(outcome.pending, 1):
        shown = one_line(f"{p['name']} {json.dumps(p['args'], ensure_ascii=False)}")
        line(f"  {n}. {shown}")
        line(f"     {one_line(p['reason'])} (question {p.get('question')})", "dim")
    # The commands name the questions shown, so an answer never lands on a later one.
    ids = dict.fromkeys(str(p["question"]) for p in outcome.pending if p.get("question"))
    resume = " ".join([outcome.resume or "", *(f"--question {i}" for i in ids)])
    if any(p["name"] != "ask_user" for p in outcome.pending):
        line(f"Approve: {resume} --approve")
        line(f"Reject:  {resume} --reject --message 'why'")
        line(f"Decide call by call: {resume} --decisions '{{\"decisions\": [...]}}'")
    else:
        line(f"Answer: {resume} --answer 'your answer'")


def print_json(outcome: Outcome) -> None:
    """The outcome as one JSON object on stdout."""
    sys.stdout.write(json.dumps(outcome.as_json(), default=str, ensure_ascii=False) + "\n")
