"""Checkpointer factories: SQLite for the CLI and embedding, memory for tests."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.store.sqlite.aio import AsyncSqliteStore


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
