"""Checkpointers and stores from settings: memory (tests), SQLite (default), PostgreSQL."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiosqlite
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from common.persistence_sqlite import BlobSqliteSaver
from common.settings import ConfigError, Settings, backend_of, get_settings

if TYPE_CHECKING:
    from langgraph.store.sqlite.aio import AsyncSqliteStore

# The SQLite store is imported when one is opened: it brings sqlite-vec and numpy, which a
# command that reads only checkpoints (`mcp-planner threads`) does without.


CHECKPOINT_SYNC = "PRAGMA synchronous=NORMAL"
"""The checkpoint file's commits are not each flushed to disk (WAL; issue 45, docs/reliability.md).

A killed process loses nothing committed: the WAL file is the database's, and the next opening
recovers it. A power loss or OS crash may drop the last commits, which leaves the thread at an
earlier step, as runs' `"async"` durability already may: what keeps an approved call from
running twice is the call ledger in the store, which keeps SQLite's full flush per commit.
"""

STORE_JOURNAL = "PRAGMA journal_mode=WAL"
"""The store (the call ledger, run memory) in WAL mode, with the default full flush per commit:
as durable as the rollback journal, at about half the CPU per commit (issue 45)."""


@asynccontextmanager
async def sqlite_checkpointer(
    path: Path, setting: str = "CHECKPOINT_PATH"
) -> AsyncIterator[BlobSqliteSaver]:
    """A BlobSqliteSaver on `path` (values once per version), creating its folder; closed on exit.

    A place it cannot write raises ConfigError naming `path` and `setting`, before any run.
    """
    async with AsyncExitStack() as stack:
        with _unwritable_as_config_error(path, setting):
            await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
            conn = await stack.enter_async_context(aiosqlite.connect(str(path)))
            saver = BlobSqliteSaver(conn)
            await saver.setup()
            await _check_writable(saver.conn)
            # WAL (set by setup) without an fsync per commit: see CHECKPOINT_SYNC.
            await saver.conn.execute_fetchall(CHECKPOINT_SYNC)
        yield saver


@asynccontextmanager
async def sqlite_store(path: Path, setting: str = "STORE_PATH") -> AsyncIterator[AsyncSqliteStore]:
    """An AsyncSqliteStore on `path` (tables created), for the call ledger and run memory.

    A place it cannot write raises ConfigError naming `path` and `setting`, before any run.
    """
    from common.sqlite_store import OneTripSqliteStore

    async with AsyncExitStack() as stack:
        with _unwritable_as_config_error(path, setting):
            await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
            opened = OneTripSqliteStore.from_conn_string(str(path))
            store = await stack.enter_async_context(opened)
            await store.setup()
            await _check_writable(store.conn)
            await store.conn.execute_fetchall(STORE_JOURNAL)
        yield store


async def _check_writable(conn: aiosqlite.Connection) -> None:
    """Take SQLite's write lock and let it go: a read-only file or folder fails now, not mid-run."""
    await conn.execute("BEGIN IMMEDIATE")
    await conn.execute("ROLLBACK")


@contextmanager
def _unwritable_as_config_error(path: Path, setting: str) -> Iterator[None]:
    """Turn "cannot create or write `path`" into one sentence naming it and `setting`."""
    try:
        yield
    except OSError as exc:
        raise _unwritable(path, setting, _os_reason(path, exc)) from exc
    except sqlite3.OperationalError as exc:
        if not any(sign in str(exc) for sign in _SQLITE_UNWRITABLE):
            raise
        raise _unwritable(path, setting, _sqlite_reason(path, exc)) from exc


_SQLITE_UNWRITABLE = ("unable to open database file", "readonly database", "read-only")
"""SQLite's words for a file or folder it may not create or write."""


def _os_reason(path: Path, exc: OSError) -> str:
    """Why the folder of `path` could not be made, in words."""
    if isinstance(exc, FileExistsError | NotADirectoryError):
        blocking = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
        if blocking is not None:
            return f"{str(blocking)!r} is a file, not a folder"
    return (exc.strerror or type(exc).__name__).lower()


def _sqlite_reason(path: Path, exc: sqlite3.OperationalError) -> str:
    """Why SQLite could not open or write `path`, in words."""
    if path.is_dir():
        return "it is a folder"
    if not os.access(path.parent, os.W_OK):
        return "its folder is read-only"
    if path.exists() and not os.access(path, os.W_OK):
        return "the file is read-only"
    return f"SQLite: {exc}"


def _unwritable(path: Path, setting: str, reason: str) -> ConfigError:
    """The one sentence for a SQLite file that cannot be written where `setting` puts it."""
    where = os.path.abspath(path)
    return ConfigError(
        f"Cannot save to {where!r} ({reason}): set {setting} to a file in a folder you can "
        "write to, or run mcp-planner from such a folder."
    )


@asynccontextmanager
async def postgres_persistence(uri: str) -> AsyncIterator[tuple[Any, Any]]:
    """A PostgreSQL checkpointer and store sharing one connection pool (tables set up)."""
    try:
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from langgraph.store.postgres.aio import AsyncPostgresStore
        from psycopg.rows import dict_row
        from psycopg_pool import AsyncConnectionPool
    except ImportError as exc:
        raise ConfigError(
            "PostgreSQL persistence needs the 'postgres' extra: "
            "pip install 'langgraph-mcp-planner[postgres]'."
        ) from exc
    kwargs = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
        uri, kwargs=kwargs, open=False, max_size=10
    )
    async with pool:
        saver = AsyncPostgresSaver(pool)
        store = AsyncPostgresStore(pool)
        await saver.setup()
        await store.setup()
        yield saver, store


@asynccontextmanager
async def open_persistence(
    settings: Settings | None = None,
) -> AsyncIterator[tuple[BaseCheckpointSaver[Any], BaseStore]]:
    """The checkpointer and store the settings name, opened for the `async with` block."""
    settings = settings or get_settings()
    backend = backend_of(settings)
    if backend == "memory":
        yield InMemorySaver(), InMemoryStore()
    elif backend == "postgres":
        if not settings.database_uri:
            raise ConfigError(
                "Setting PERSISTENCE='postgres' needs DATABASE_URI "
                "(e.g. postgresql://postgres@127.0.0.1:5432/planner)."
            )
        async with postgres_persistence(settings.database_uri) as (saver, store):
            yield saver, store
    else:
        async with (
            sqlite_checkpointer(settings.checkpoint_path) as saver,
            sqlite_store(settings.store_path) as store,
        ):
            yield saver, store


@asynccontextmanager
async def open_checkpointer(
    settings: Settings | None = None,
) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    """The checkpointer the settings name, without opening the store (SQLite: its own file)."""
    settings = settings or get_settings()
    if backend_of(settings) == "sqlite":
        async with sqlite_checkpointer(settings.checkpoint_path) as saver:
            yield saver
        return
    async with open_persistence(settings) as (saver, _store):
        yield saver
