"""One command at a time drives a thread of the project's SQLite checkpoints.

Two commands running the same thread at once (two terminals, a script and a person) would both
write the thread's next checkpoints from the same parent, and LangGraph keeps whichever came
last: one turn's work silently lost. A server refuses a second run on a busy thread (409); this
is the same refusal for the CLI in-process: while a command runs the graph on a thread it holds
an advisory lock file beside the checkpoints, and a second command is refused with one line
(exit 2). The lock is held only while the graph runs, not while a prompt waits, so another
terminal may still answer a waiting question (the answer check tells the slower one). The
operating system releases it when the process ends, however it ends. Other backends have no
lock here: memory threads live in one process, PostgreSQL ones may be driven from other hosts.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from common.settings import backend_of, get_settings
from strategies.cli.exits import CliProblem

LOCK_FOLDER = "locks"
"""The folder, beside the checkpoint file, that holds one lock file per thread."""


def lock_path(thread: str) -> Path | None:
    """The thread's lock file (its id hashed: ids may hold any character); None: no lock."""
    settings = get_settings()
    if backend_of(settings) != "sqlite":
        return None
    name = hashlib.sha256(thread.encode()).hexdigest()[:32]
    return settings.checkpoint_path.parent / LOCK_FOLDER / f"{name}.lock"


def busy(thread: str, holder: str) -> CliProblem:
    """The refusal of a second command on a thread another command is running."""
    who = f" (pid {holder})" if holder else ""
    return CliProblem(
        f"Thread {thread!r} is busy: another mcp-planner command is running it{who}; wait "
        "until it ends, then try again."
    )


@contextmanager
def thread_lock(thread: str) -> Iterator[None]:
    """Hold the thread's lock while the block runs; a thread another command holds is `busy`."""
    path = lock_path(thread)
    if path is None:
        yield
        return
    path.parent.mkdir(exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES):
                raise
            raise busy(thread, os.pread(fd, 32, 0).decode(errors="replace").strip()) from exc
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        # Closing the descriptor releases the lock.
        os.close(fd)
