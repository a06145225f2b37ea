"""SQLite persistence CPU (issue 45): one trip to aiosqlite's thread per write, WAL settings."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from common.persistence import sqlite_checkpointer, sqlite_store
from common.persistence_sqlite import BlobSqliteSaver, _committed


def _config(thread: str, checkpoint_id: str) -> Any:
    return {
        "configurable": {"thread_id": thread, "checkpoint_ns": "", "checkpoint_id": checkpoint_id}
    }


class _Trips:
    """Counts the calls a connection sends to its thread."""

    def __init__(self, conn: Any) -> None:
        self.count = 0
        self._execute = conn._execute
        conn._execute = self

    async def __call__(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        self.count += 1
        return await self._execute(fn, *args, **kwargs)


WRITES = [("messages", ["hello", {"a": 1}]), ("plan", [{"id": "t1"}]), ("__interrupt__", None)]


async def test_a_tasks_writes_are_one_trip_and_load_as_the_parent_savers(tmp_path: Path) -> None:
    async with sqlite_checkpointer(tmp_path / "c.sqlite") as saver:
        checkpoint = empty_checkpoint()
        stored = await saver.aput(_config("t", ""), checkpoint, {}, {})
        trips = _Trips(saver.conn)
        await saver.aput_writes(stored, WRITES[:2], "task-1", "path-1")
        await saver.aput_writes(stored, WRITES[2:], "task-2")
        assert trips.count == 2
        found = await saver.aget_tuple(stored)
    assert found is not None
    # As the parent saver loads them: (task, channel, value), in (task, index) order.
    assert sorted(found.pending_writes, key=repr) == [
        ("task-1", "messages", ["hello", {"a": 1}]),
        ("task-1", "plan", [{"id": "t1"}]),
        ("task-2", "__interrupt__", None),
    ]
    with sqlite3.connect(tmp_path / "c.sqlite") as db:
        rows = db.execute(
            "SELECT task_id, task_path, idx, channel FROM writes ORDER BY 1, 3"
        ).fetchall()
    assert rows == [
        ("task-1", "path-1", 0, "messages"),
        ("task-1", "path-1", 1, "plan"),
        ("task-2", "", -3, "__interrupt__"),
    ]


async def test_writes_match_the_parent_saver_row_for_row(tmp_path: Path) -> None:
    import aiosqlite

    async with aiosqlite.connect(str(tmp_path / "p.sqlite")) as conn:
        parent = AsyncSqliteSaver(conn)
        stored = await parent.aput(_config("t", ""), empty_checkpoint(), {}, {})
        await parent.aput_writes(stored, WRITES[:2], "task-1", "p")
        await parent.aput_writes(stored, WRITES[2:], "task-2")
    async with aiosqlite.connect(str(tmp_path / "b.sqlite")) as conn:
        blob = BlobSqliteSaver(conn, serde=parent.serde)
        await blob.setup()
        await blob.aput_writes(stored, WRITES[:2], "task-1", "p")
        await blob.aput_writes(stored, WRITES[2:], "task-2")
    query = "SELECT * FROM writes ORDER BY task_id, idx"
    with sqlite3.connect(tmp_path / "p.sqlite") as p, sqlite3.connect(tmp_path / "b.sqlite") as b:
        assert b.execute(query).fetchall() == p.execute(query).fetchall()


async def test_a_checkpoint_is_one_trip(tmp_path: Path) -> None:
    async with sqlite_checkpointer(tmp_path / "c.sqlite") as saver:
        checkpoint = empty_checkpoint()
        checkpoint["channel_values"] = {"messages": ["x" * 500]}
        checkpoint["channel_versions"] = {"messages": saver.get_next_version(None, None)}
        trips = _Trips(saver.conn)
        stored = await saver.aput(
            _config("t", ""), checkpoint, {}, dict(checkpoint["channel_versions"])
        )
        assert trips.count == 1
        found = await saver.aget_tuple(stored)
    assert found is not None
    assert found.checkpoint["channel_values"] == {"messages": ["x" * 500]}


async def test_a_failed_write_is_rolled_back_and_the_connection_goes_on(tmp_path: Path) -> None:
    async with sqlite_checkpointer(tmp_path / "c.sqlite") as saver:

        def half_then_fail(db: sqlite3.Connection) -> None:
            db.execute("INSERT INTO checkpoint_blobs VALUES ('t', '', 'c', '1', 'x', NULL)")
            raise RuntimeError("broken mid-write")

        with pytest.raises(RuntimeError, match="broken mid-write"):
            await _committed(saver.conn, half_then_fail)
        await _committed(
            saver.conn,
            lambda db: db.execute(
                "INSERT INTO checkpoint_blobs VALUES ('t', '', 'c', '2', 'x', NULL)"
            ),
        )
        rows = await saver.conn.execute_fetchall("SELECT version FROM checkpoint_blobs")
    assert [tuple(r) for r in rows] == [("2",)]


async def test_checkpoints_skip_the_flush_per_commit_and_the_ledger_keeps_it(
    tmp_path: Path,
) -> None:
    async with sqlite_checkpointer(tmp_path / "c.sqlite") as saver:
        assert [tuple(r) for r in await saver.conn.execute_fetchall("PRAGMA journal_mode")] == [
            ("wal",)
        ]
        # 1 = NORMAL: a killed process loses no commit (WAL); an OS crash may lose the last ones.
        assert [tuple(r) for r in await saver.conn.execute_fetchall("PRAGMA synchronous")] == [(1,)]
    async with sqlite_store(tmp_path / "s.sqlite") as store:
        assert [tuple(r) for r in await store.conn.execute_fetchall("PRAGMA journal_mode")] == [
            ("wal",)
        ]
        # 2 = FULL: the call ledger's entry is on disk before a gated call is sent.
        assert [tuple(r) for r in await store.conn.execute_fetchall("PRAGMA synchronous")] == [(2,)]


async def _store_ops(store: Any) -> list[Any]:
    """Puts, gets, searches, a delete and a listing, as the planner makes them; comparable."""
    await store.aput(("p", "ledger"), "call-1", {"state": "sent", "n": 1})
    await store.aput(("p", "seen", "stock"), "r1", {"text": "WID-1: 12"})
    await store.aput(("p", "seen", "stock"), "r2", {"text": "WID-2: 0"})
    await store.aput(("p", "seen", "orders"), "r3", {"text": "PO-1"})
    await store.adelete(("p", "seen", "stock"), "r2")
    got = await store.aget(("p", "ledger"), "call-1")
    missing = await store.aget(("p", "ledger"), "call-2")
    found = await store.asearch(("p", "seen"), limit=10)
    filtered = await store.asearch(("p", "seen"), filter={"text": "PO-1"})
    spaces = await store.alist_namespaces(prefix=("p",))
    return [
        (got.namespace, got.key, got.value) if got else None,
        missing,
        sorted((i.namespace, i.key, i.value) for i in found),
        [(i.namespace, i.key) for i in filtered],
        sorted(spaces),
    ]


async def test_the_store_answers_as_langgraphs_in_one_trip_per_batch(tmp_path: Path) -> None:
    from langgraph.store.sqlite.aio import AsyncSqliteStore

    async with AsyncSqliteStore.from_conn_string(str(tmp_path / "plain.sqlite")) as plain:
        await plain.setup()
        expected = await _store_ops(plain)
    async with sqlite_store(tmp_path / "s.sqlite") as store:
        trips = _Trips(store.conn)
        assert await _store_ops(store) == expected
        # Ten operations, one after another: ten batches, one trip each (and one, once, to make
        # the synchronous store in the connection's thread).
        assert trips.count == 11
    assert expected[0] == (("p", "ledger"), "call-1", {"state": "sent", "n": 1})
    assert expected[2] == [
        (("p", "seen", "orders"), "r3", {"text": "PO-1"}),
        (("p", "seen", "stock"), "r1", {"text": "WID-1: 12"}),
    ]


async def test_a_put_is_on_disk_when_the_batch_returns(tmp_path: Path) -> None:
    async with sqlite_store(tmp_path / "s.sqlite") as store:
        await store.aput(("p", "ledger"), "call-1", {"state": "sent"})
        # Another connection (as a restarted process would open) sees the committed entry.
        with sqlite3.connect(tmp_path / "s.sqlite") as db:
            rows = db.execute("SELECT prefix, key FROM store").fetchall()
    assert rows == [("p.ledger", "call-1")]
