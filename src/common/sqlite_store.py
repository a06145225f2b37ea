"""The SQLite store, each batch of operations in one trip to its connection's thread.

LangGraph's `AsyncSqliteStore` sends every statement of a batch to aiosqlite's thread on its
own: BEGIN, the cursor, each query and each fetch, COMMIT, the cursor's close, each a wake-up
of that thread and of the event loop. A run of the planner makes about 38 store operations (the
call ledger, the data-leaving record, run memory), which cost about a hundred such trips
(issue 45). `OneTripSqliteStore` runs the whole batch in that thread instead, with LangGraph's
synchronous `SqliteStore` on the same sqlite3 connection: the same statements in the same
transaction, the same results. A store with a vector index keeps the parent's way, since its
embeddings are awaited.

Imported when a store is opened (`common.persistence.sqlite_store`), as LangGraph's store is.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from typing import Any

from langgraph.store.base import Op, Result

from common.lazy_modules import defer

# LangGraph's SQLite store imports sqlite_vec, and it numpy, for vector indexes we never make.
defer("sqlite_vec")

from langgraph.store.sqlite.aio import AsyncSqliteStore  # noqa: E402
from langgraph.store.sqlite.base import SqliteStore  # noqa: E402


class OneTripSqliteStore(AsyncSqliteStore):
    """`AsyncSqliteStore` whose `abatch` is one call in the connection's thread."""

    _sync: SqliteStore | None = None
    """LangGraph's synchronous store on the same sqlite3 connection, used only in its thread."""
    _parents_way: bool = False
    """The synchronous store could not be made (see `_make_sync`): batches go the parent's way."""

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """The parent's batch, run by the synchronous store in the connection's thread."""
        if self.index_config or self._parents_way:
            return await super().abatch(ops)
        if not self.is_setup:
            await self.setup()
        batch = list(ops)
        async with self.lock:
            if self._sync is None:
                self._sync = await self._in_thread(_make_sync, self)
                if self._sync is None:
                    self._parents_way = True
        if self._sync is None:
            return await super().abatch(batch)
        async with self.lock:
            results: list[Result] = await self._in_thread(self._sync.batch, batch)
        return results

    async def _in_thread(self, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(*args)` in the connection's thread, in order with its other calls."""
        # aiosqlite's own way to run a call there (untyped in aiosqlite 0.22).
        return await self.conn._execute(fn, *args)  # type: ignore[no-untyped-call]


def _make_sync(store: OneTripSqliteStore) -> SqliteStore | None:
    """LangGraph's synchronous store on `store`'s sqlite3 connection; in that connection's thread.

    sqlite3 refuses calls from a thread that did not open the connection, and refuses to
    register the store's SQL function while a statement is still open on it: then None, and the
    store keeps the parent's way.
    """
    try:
        sync = SqliteStore(store.conn._conn, deserializer=store._deserializer, ttl=store.ttl_config)
    except sqlite3.Error:
        return None
    sync.is_setup = True  # the tables are the ones `setup` made for this store
    return sync
