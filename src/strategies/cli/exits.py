"""Exit codes of `mcp-planner` and the one-line problems that end a command early."""

from __future__ import annotations

import typer

EXIT_OK = 0
"""Done as asked; calls the user declined count as done."""
EXIT_FAILED = 1
"""Something failed or was not done (a task, an expert, a plan, an open question)."""
EXIT_USAGE = 2
"""Usage or configuration error: nothing ran."""
EXIT_WAITING = 3
"""Waiting for approval (or an answer) and no terminal to ask in."""
EXIT_STOPPED = 130
"""Stopped by Ctrl-C; the thread is saved and can be resumed."""
EXIT_CLOSED = 141
"""Stopped because the output was closed (`| head -1`): 128 + SIGPIPE, as a shell reports it."""

EXIT_CODES_HELP = (
    "Exit codes: 0 done as asked (declined calls included); 1 something failed or was not "
    "done; 2 usage or configuration error (nothing ran); 3 waiting for approval and no "
    "terminal to ask in (see resume --approve); 130 stopped by Ctrl-C (the thread is saved); "
    "141 stopped because the output was closed, e.g. by head (a run's thread is saved)."
)
"""The exit-code table, as shown in `--help`."""


class OutputClosed(Exception):
    """Whatever read the command's output has closed it (`| head -1`): nothing more is shown."""


class CliProblem(Exception):
    """A mistake the user can fix, reported as one line on stderr with exit code 2."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def one_line(error: BaseException) -> str:
    """The error's message on a single line (no traceback, no multi-line dumps)."""
    return " ".join(str(error).split()) or type(error).__name__


def thread_given(value: str | None) -> str | None:
    """`--thread` as given; an empty id is a usage error (it would read as no id at all)."""
    if value is not None and not value.strip():
        raise typer.BadParameter(
            "it is empty: give a thread id (mcp-planner threads lists them), or leave "
            "--thread out to start a new thread."
        )
    return value
