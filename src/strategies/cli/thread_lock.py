"""One command at a time drives a thread of the project's checkpoints, SQLite or PostgreSQL.

Two commands running the same thread at once (two terminals, a script and a person) would both
write the thread's next checkpoints from the same parent, and LangGraph keeps whichever came
last: one turn's work silently lost. A server refuses a second run on a busy thread (409); this
is the same refusal for the CLI in-process: while a command runs the graph on a thread it holds
the thread's lock, and a second command is refused with one line (exit 2), never kept waiting.
The lock is held only while the graph runs, not while a prompt waits, so another terminal may
still answer a waiting question (the answer check tells the slower one).

Two backends, chosen by the persistence settings (`lock_for`): with SQLite checkpoints an
advisory lock file beside them (`FileLock`), which the operating system releases when the
process ends, however it ends; with PostgreSQL a session-level advisory lock on a key derived
from the thread id (`AdvisoryLock`), held on a connection of its own, which the server releases
when that connection closes, the process's end included, so commands on other hosts sharing the
database are refused too (not through a pooler in transaction mode: docs/cli.md). Memory
threads live in one process and have no lock.
"""

from __future__ import annotations

import asyncio
import errno
import fcntl
import hashlib
import os
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from common.settings import ConfigError, Settings, backend_of, get_settings
from strategies.cli.exits import CliProblem

if TYPE_CHECKING:
    from psycopg import AsyncConnection

LOCK_FOLDER = "locks"
"""The folder, beside the checkpoint file, that holds one lock file per thread."""

APPLICATION_PREFIX = "mcp-planner "
"""How a PostgreSQL lock connection names itself: this, then `pid@host` of its command."""


def busy(thread: str, holder: str) -> CliProblem:
    """The refusal of a second command on a thread another command is running."""
    who = f" (pid {holder})" if holder else ""
    return CliProblem(
        f"Thread {thread!r} is busy: another mcp-planner command is running it{who}; wait "
        "until it ends, then try again."
    )


@dataclass(frozen=True)
class FileLock:
    """The thread's lock as a file beside the SQLite checkpoints (its id hashed: any character)."""

    path: Path

    @asynccontextmanager
    async def held(self, thread: str) -> AsyncIterator[None]:
        """Hold the lock file while the block runs; one another process holds is `busy`."""
        fd = await asyncio.to_thread(self._take, thread)
        try:
            yield
        finally:
            # Closing the descriptor releases the lock.
            os.close(fd)

    def _take(self, thread: str) -> int:
        """The open, locked descriptor with this pid written in it; `busy` if already locked."""
        self.path.parent.mkdir(exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
            os.close(fd)
            if exc.errno not in (errno.EAGAIN, errno.EACCES):
                raise
            raise busy(thread, holder) from exc
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        return fd


_HOLDER = """
SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND l.classid::bigint = %s AND l.objid::bigint = %s
"""
"""The application name of the session holding a bigint advisory lock (split in two halves)."""


_KEEPALIVES = (
    "SET tcp_keepalives_idle = 60; SET tcp_keepalives_interval = 10; SET tcp_keepalives_count = 6"
)
"""The server probes the lock's connection, so a vanished machine's lock ends within minutes."""


@dataclass(frozen=True)
class AdvisoryLock:
    """The thread's lock as a PostgreSQL session-level advisory lock on `key` in `uri`."""

    uri: str
    key: int

    @asynccontextmanager
    async def held(self, thread: str) -> AsyncIterator[None]:
        """Hold the advisory lock on a connection of its own while the block runs, or `busy`."""
        try:
            import psycopg
        except ImportError as exc:
            raise ConfigError(
                "PostgreSQL persistence needs the 'postgres' extra: "
                "pip install 'langgraph-mcp-planner[postgres]'."
            ) from exc
        name = f"{APPLICATION_PREFIX}{os.getpid()}@{socket.gethostname()}"[:63]
        conn = await psycopg.AsyncConnection.connect(
            self.uri, autocommit=True, application_name=name
        )
        # Closing the connection ends the session, which releases the lock; so does the server
        # when this process dies (the connection closes), or its machine (keepalives unanswered).
        async with conn:
            await conn.execute(_KEEPALIVES)
            cur = await conn.execute("SELECT pg_try_advisory_lock(%s)", (self.key,))
            row = await cur.fetchone()
            if not (row and row[0]):
                raise busy(thread, await self._holder(conn))
            yield

    async def _holder(self, conn: AsyncConnection[tuple[object, ...]]) -> str:
        """The pid (and host, when not this one) of the command holding the lock, or ''."""
        halves = ((self.key >> 32) & 0xFFFFFFFF, self.key & 0xFFFFFFFF)
        cur = await conn.execute(_HOLDER, halves)
        row = await cur.fetchone()
        name = str(row[0] or "") if row else ""
        if not name.startswith(APPLICATION_PREFIX):
            return ""
        pid, _, host = name.removeprefix(APPLICATION_PREFIX).partition("@")
        return pid if host == socket.gethostname()[: len(host)] else f"{pid} on {host}"


def advisory_key(thread: str) -> int:
    """The thread's 64-bit advisory lock key (signed, as PostgreSQL's bigint), from a hash."""
    digest = hashlib.sha256(f"mcp-planner thread {thread}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def lock_for(thread: str, settings: Settings | None = None) -> FileLock | AdvisoryLock | None:
    """The thread's lock on the settings' backend; None: no lock (memory threads)."""
    settings = settings or get_settings()
    backend = backend_of(settings)
    if backend == "sqlite":
        name = hashlib.sha256(thread.encode()).hexdigest()[:32]
        return FileLock(settings.checkpoint_path.parent / LOCK_FOLDER / f"{name}.lock")
    if backend == "postgres" and settings.database_uri:
        return AdvisoryLock(settings.database_uri, advisory_key(thread))
    return None


@asynccontextmanager
async def thread_lock(thread: str) -> AsyncIterator[None]:
    """Hold the thread's lock while the block runs; a thread another command holds is `busy`."""
    lock = lock_for(thread)
    if lock is None:
        yield
        return
    async with lock.held(thread):
        yield
