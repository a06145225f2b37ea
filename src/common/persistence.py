"""Checkpointers and stores from settings: memory (tests), SQLite (default), PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from langgraph.store.sqlite.aio import AsyncSqliteStore

from common.settings import ConfigError, Settings, get_settings

Backend = Literal["memory", "sqlite", "postgres"]
"""Where threads and the store live."""


@asynccontextmanager
async def sqlite_checkpointer(path: Path) -> AsyncIterator[AsyncSqliteSaver]:
    """An AsyncSqliteSaver on `path`, creating its folder; closed on exit."""
    await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
    async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
        yield saver


@asynccontextmanager
async def sqlite_store(path: Path) -> AsyncIterator[AsyncSqliteStore]:
    """An AsyncSqliteStore on `path` (tables created), for the call ledger and run memory."""
    await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
    async with AsyncSqliteStore.from_conn_string(str(path)) as store:
        await store.setup()
        yield store


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


def backend_of(settings: Settings) -> Backend:
    """The configured backend: PERSISTENCE, else postgres when DATABASE_URI is set, else sqlite."""
    if settings.persistence is not None:
        return settings.persistence
    return "postgres" if settings.database_uri else "sqlite"


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
