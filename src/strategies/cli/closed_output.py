"""A closed output ends a command cleanly: `mcp-planner threads | head -1`.

Once whatever reads the output has closed it, the next write fails (EPIPE): Python raises
BrokenPipeError, rich exits 1 without a word, and the interpreter's last flush adds "Exception
ignored ... BrokenPipeError". Here the consoles raise OutputClosed instead (`PipeConsole`), and
the root command (`help.PlainGroup.invoke`) ends every command on it, or on a BrokenPipeError of
standard output, with one sentence on stderr and exit 141: what a shell reports for a command
SIGPIPE ended. A command driving a thread stops as at Ctrl-C (`app._conclude`): the graph's
tasks are cancelled before anything more runs, and the sentence names the resume command. The
closed descriptor is pointed at /dev/null (Python's "Note on SIGPIPE"), so no later write and
not the interpreter's final flush can fail again.
"""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import IO, Any, NoReturn

import click
import typer
from rich.console import Console

from strategies.cli.exits import EXIT_CLOSED, OutputClosed

CLOSED = "Stopped: the output was closed (whatever read it has ended)"
"""How the sentence of a command ended by a closed output begins."""

_ENDS = (typer.Exit, click.exceptions.Exit)
"""How a command ends as planned: what it wrote is flushed before the command is left."""


def silence(stream: IO[Any] | None) -> None:
    """Point the stream's descriptor at /dev/null: later writes and flushes go nowhere."""
    try:
        fd = stream.fileno() if stream is not None else -1
    except (AttributeError, OSError, ValueError):
        return
    if fd < 0:
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def reader_gone(stream: IO[Any] | None) -> bool:
    """Whether the stream is a pipe or socket nobody reads any more (poll reports an error)."""
    try:
        fd = stream.fileno() if stream is not None else -1
    except (AttributeError, OSError, ValueError):
        return False
    if fd < 0:
        return False
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


def _stdout_identity() -> tuple[int, int] | None:
    """The file standard output is (device, inode), or None where it has none."""
    try:
        found = os.fstat(sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):
        return None
    return found.st_dev, found.st_ino


@contextmanager
def help_ends_when_closed() -> Iterator[None]:
    """Parse arguments; help or a version printed into a closed output ends with exit 141.

    Help is drawn by Typer's own rich console, which, on a closed output, points standard
    output at /dev/null and exits 1 without a word (rich's `on_broken_pipe`); click does the
    same on EPIPE. Such an exit 1, with standard output no longer the file it was, is the
    closed output, and ends as a command's does.
    """
    before = _stdout_identity()
    try:
        with ends_when_closed():
            yield
    except SystemExit as exc:
        if exc.code == 1 and before is not None and _stdout_identity() != before:
            _end_closed()
        raise


class PipeConsole(Console):
    """A rich console whose closed output raises OutputClosed (rich's own exits 1, silently)."""

    def on_broken_pipe(self) -> None:
        """Stop writing to the closed output and tell the command (OutputClosed)."""
        self.quiet = True
        silence(self.file)
        raise OutputClosed


def _flush_stdout() -> None:
    """Flush what the command wrote, so a closed output fails here, inside the command."""
    if sys.stdout is not None:
        sys.stdout.flush()


def _end_closed() -> NoReturn:
    """One sentence on stderr, then exit 141; standard output points at /dev/null."""
    from strategies.cli.render import notice

    silence(sys.stdout)
    with suppress(OutputClosed):  # stderr was closed as well: there is nobody to tell.
        notice(f"{CLOSED} before everything was shown.")
    raise typer.Exit(EXIT_CLOSED)


@contextmanager
def ends_when_closed() -> Iterator[None]:
    """Run a command; a closed output ends it with one sentence on stderr and exit 141."""
    try:
        try:
            yield
        except _ENDS:
            _flush_stdout()
            raise
        _flush_stdout()
    except OutputClosed:
        _end_closed()
    except BrokenPipeError:
        # Another pipe (an expert's, say) is not the output: that failure is not this one.
        if not reader_gone(sys.stdout):
            raise
        _end_closed()
