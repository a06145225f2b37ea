"""A SQLite checkpointer that stores each channel value once per version.

LangGraph's `AsyncSqliteSaver` serialises every channel's value into each checkpoint row, at
every super-step, although a step changes only a few channels: on a long thread the bounded
conversation is written again about seven times a turn. LangGraph's PostgreSQL saver avoids this
with a `checkpoint_blobs` table keyed by (thread, namespace, channel, version); no SQLite saver
does, so this module hand-writes that layout on top of `AsyncSqliteSaver`:

- `aput` writes a blob only for the channels in `new_versions` (INSERT OR IGNORE; type "empty"
  for a channel with a new version but no value), and the checkpoint row without the values it
  blobs, in one commit (so it writes the row itself, with the parent's statement); a value
  carried over from a checkpoint of the plain saver (inline, no blob) is blobbed then, found by
  one primary-key look-up per carried channel;
- `aget_tuple` and `alist` fill `channel_values` back from the blobs that
  `channel_versions` names, only for the channels the row lacks, so a checkpoint written by the
  plain saver (values inline) loads as before and such a thread can be continued;
- `adelete_thread` deletes the thread's blobs with its checkpoints and writes;
- `get_next_version` writes versions of 25 characters, not 51: a row names every channel's
  version and every node's seen versions, so the parent's 32-digit counter and 16-digit random
  part were most of each row. The counter stays fixed-width (12 digits) so versions compare as
  strings, and every new version sorts after every version of the parent's format (whose 32
  digits lead with at least 12 zeros below 10^20), so an old thread continues in order; the 48
  random bits keep two forks of one thread from writing the same channel version.

Small scalars stay inline (a blob row would cost more than the value), and so does a
`_DeltaSnapshot`: the inherited delta-channel history reads snapshots from the checkpoint rows.
The synchronous methods of `AsyncSqliteSaver` run these coroutines on the saver's loop, so they
use the same layout. Pruning, copying threads and deleting runs are not implemented by the parent
in this version; they are refused here by name, since a copy without the blobs would lose state.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import aclosing
from typing import Any, cast

import aiosqlite
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_metadata,
)
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.serde.types import _DeltaSnapshot
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from common.compressed_serde import CompressedSerializer

BLOBS_TABLE_SQL = """
CREATE TABLE IF NOT EXISTS checkpoint_blobs (
    thread_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL DEFAULT '',
    channel TEXT NOT NULL,
    version TEXT NOT NULL,
    type TEXT NOT NULL,
    blob BLOB,
    PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
);
"""
"""The blobs table: one row per channel value version, as in LangGraph's PostgreSQL saver."""

_INSERT_BLOBS_SQL = (
    "INSERT OR IGNORE INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, "
    "blob) VALUES (?, ?, ?, ?, ?, ?)"
)
"""A version's value is written once: a second write of the same version changes nothing."""

_INSERT_CHECKPOINT_SQL = (
    "INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, "
    "parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
"""The parent saver's checkpoint row statement."""

_WRITES_SQL = (
    "INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, "
    "type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_REPLACE_WRITES_SQL = "INSERT OR REPLACE " + _WRITES_SQL
"""The parent's statement for writes of special channels (an interrupt, a resume, an error)."""
_INSERT_WRITES_SQL = "INSERT OR IGNORE " + _WRITES_SQL
"""The parent's statement for a task's channel writes."""

EMPTY = "empty"
"""The blob type of a channel that has a new version but no value (PostgreSQL saver's word)."""

INLINE_STR_MAX = 64
"""Strings up to this length stay in the checkpoint row: shorter than a blob row's key."""

_PAIRS_PER_QUERY = 200
"""Channel/version pairs per SELECT: well under SQLite's 999 bound variables of old builds."""


VERSION_DIGITS = 12
"""Width of a version's counter: string order is numeric order up to 10^12 versions."""


class BlobSqliteSaver(AsyncSqliteSaver):
    """`AsyncSqliteSaver` whose checkpoint rows name channel versions kept in `checkpoint_blobs`.

    Values are compressed by default (`common.compressed_serde`): rows, blobs and writes.
    """

    def __init__(
        self, conn: aiosqlite.Connection, *, serde: SerializerProtocol | None = None
    ) -> None:
        super().__init__(conn, serde=serde or CompressedSerializer())

    def get_next_version(self, current: str | None, channel: None) -> str:
        """The version after `current`: a fixed-width counter and 48 random bits (see above)."""
        count = 0 if current is None else int(str(current).split(".")[0])
        return f"{count + 1:0{VERSION_DIGITS}}.{random.getrandbits(48):012x}"

    _blobs_ready: bool = False

    async def setup(self) -> None:
        """The parent's tables, then the blobs table (once per saver)."""
        if self._blobs_ready:
            return
        await super().setup()
        async with self.lock:
            # Its own flag, not `is_setup`: the parent sets that before this table exists.
            if not self._blobs_ready:
                await self.conn.executescript(BLOBS_TABLE_SQL)
                await self.conn.commit()
                self._blobs_ready = True

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Blobs for the channels in `new_versions`, then the row without them, in one commit."""
        await self.setup()
        thread_id = str(config["configurable"]["thread_id"])
        checkpoint_ns = str(config["configurable"]["checkpoint_ns"])
        row, blobs, carried = self._split(thread_id, checkpoint_ns, checkpoint, new_versions)
        type_, serialized = self.serde.dumps_typed(row)
        # As the parent's aput writes it (written here so that blobs and row share one commit).
        serialized_metadata = json.dumps(
            get_checkpoint_metadata(config, metadata), ensure_ascii=False
        ).encode("utf-8", "ignore")
        checkpoint_row = (
            thread_id,
            checkpoint_ns,
            checkpoint["id"],
            config["configurable"].get("checkpoint_id"),
            type_,
            serialized,
            serialized_metadata,
        )
        values = checkpoint["channel_values"]

        def write(db: sqlite3.Connection) -> None:
            # Carried values the table lacks are blobbed in the same commit as the row.
            present = _select_in(db, thread_id, checkpoint_ns, carried, "b.channel, b.version")
            missing = set(carried) - {(str(k), str(v)) for k, v in present}
            rows = blobs + [
                (thread_id, checkpoint_ns, k, v, *self._dump(values, k)) for k, v in missing
            ]
            if rows:
                db.executemany(_INSERT_BLOBS_SQL, rows)
            db.execute(_INSERT_CHECKPOINT_SQL, checkpoint_row)

        async with self.lock:
            await _committed(self.conn, write)
        return {
            "configurable": {
                "thread_id": config["configurable"]["thread_id"],
                "checkpoint_ns": checkpoint_ns,
                "checkpoint_id": checkpoint["id"],
            }
        }

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """The parent's rows for a task's writes, in one trip to the connection's thread."""
        special = all(channel in WRITES_IDX_MAP for channel, _ in writes)
        query = _REPLACE_WRITES_SQL if special else _INSERT_WRITES_SQL
        configurable = config["configurable"]
        key = (
            str(configurable["thread_id"]),
            str(configurable["checkpoint_ns"]),
            str(configurable["checkpoint_id"]),
            task_id,
            task_path,
        )
        rows = [
            (*key, WRITES_IDX_MAP.get(channel, idx), channel, *self.serde.dumps_typed(value))
            for idx, (channel, value) in enumerate(writes)
        ]
        await self.setup()
        async with self.lock:
            await _committed(self.conn, lambda db: db.executemany(query, rows))

    def _split(
        self,
        thread_id: str,
        checkpoint_ns: str,
        checkpoint: Checkpoint,
        new_versions: ChannelVersions,
    ) -> tuple[Checkpoint, list[tuple[Any, ...]], list[tuple[str, str]]]:
        """The row to store, the blob rows of new versions, the carried (channel, version) pairs."""
        values, versions = checkpoint["channel_values"], checkpoint["channel_versions"]
        row = checkpoint.copy()
        row["channel_values"] = {k: v for k, v in values.items() if _inline(v) or k not in versions}
        new = {k: str(v) for k, v in new_versions.items() if k not in row["channel_values"]}
        blobs = [(thread_id, checkpoint_ns, k, v, *self._dump(values, k)) for k, v in new.items()]
        # A value carried over from the parent has its blob already, unless the parent was
        # written by the plain saver (value inline): the caller blobs those now.
        carried = [
            (k, str(versions[k])) for k in values if k not in row["channel_values"] and k not in new
        ]
        return row, blobs, carried

    def _dump(self, values: Mapping[str, Any], channel: str) -> tuple[str, bytes | None]:
        """The (type, bytes) of one channel's value, or ("empty", None) when it has none."""
        if channel not in values:
            return EMPTY, None
        return self.serde.dumps_typed(values[channel])

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """The parent's tuple, its blobbed channel values filled back in."""
        found = await super().aget_tuple(config)
        if found is None:
            return None
        async with self.lock:
            await self._fill(found)
        return found

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        """The parent's tuples, newest first, each with its blobbed channel values filled in."""
        listing = cast(
            AsyncGenerator[CheckpointTuple, None],
            super().alist(config, filter=filter, before=before, limit=limit),
        )
        # Closed here, not left to the garbage collector: it holds `self.lock` until it ends.
        async with aclosing(listing):
            async for found in listing:
                # The parent's generator holds `self.lock` while it yields; this read runs
                # inside that hold, on our behalf, so taking the lock again would deadlock.
                await self._fill(found)
                yield found

    async def _fill(self, found: CheckpointTuple) -> None:
        """Put into `found`'s channel_values the blobs its versions name that the row lacks."""
        checkpoint = found.checkpoint
        values = checkpoint["channel_values"]
        wanted = [
            (channel, str(version))
            for channel, version in checkpoint["channel_versions"].items()
            if channel not in values
        ]
        configurable = found.config["configurable"]
        thread_id = str(configurable["thread_id"])
        checkpoint_ns = str(configurable.get("checkpoint_ns", ""))
        for channel, type_, blob in await self._select(
            thread_id, checkpoint_ns, wanted, "b.channel, b.type, b.blob"
        ):
            if type_ != EMPTY:
                values[channel] = self.serde.loads_typed((type_, blob))

    async def _select(
        self, thread_id: str, checkpoint_ns: str, pairs: Sequence[tuple[str, str]], columns: str
    ) -> list[Any]:
        """`columns` of the existing blob rows of these (channel, version) pairs; caller locks."""
        found: list[Any] = []
        for sql, params in _select_queries(thread_id, checkpoint_ns, pairs, columns):
            # execute_fetchall: one trip to aiosqlite's thread, not three (execute, fetch, close).
            found += await self.conn.execute_fetchall(sql, params)
        return found

    async def adelete_thread(self, thread_id: str) -> None:
        """The thread's checkpoints, writes and blobs, in one commit."""
        await self.setup()
        async with self.lock:
            for table in ("checkpoints", "writes", "checkpoint_blobs"):
                await self.conn.execute(f"DELETE FROM {table} WHERE thread_id = ?", (thread_id,))
            await self.conn.commit()

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Refused: not implemented for SQLite (nor by the parent saver)."""
        raise NotImplementedError(_REFUSED.format(what="Deleting runs"))

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Refused: a copy must carry the blobs; not implemented for SQLite."""
        raise NotImplementedError(_REFUSED.format(what="Copying a thread"))

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """Refused: pruning must keep the blobs the kept checkpoints name; not implemented."""
        raise NotImplementedError(_REFUSED.format(what="Pruning checkpoints"))

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Refused, as `adelete_for_runs`."""
        raise NotImplementedError(_REFUSED.format(what="Deleting runs"))

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Refused, as `acopy_thread`."""
        raise NotImplementedError(_REFUSED.format(what="Copying a thread"))

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """Refused, as `aprune`."""
        raise NotImplementedError(_REFUSED.format(what="Pruning checkpoints"))


_REFUSED = (
    "{what} is not supported by the SQLite checkpointer (BlobSqliteSaver); "
    "use delete_thread, or the PostgreSQL backend."
)
"""The sentence of a refused maintenance operation."""


def _inline(value: Any) -> bool:
    """Whether a channel value stays in the checkpoint row rather than in a blob."""
    if isinstance(value, _DeltaSnapshot) or value is None or isinstance(value, bool | int | float):
        return True
    return isinstance(value, str) and len(value) <= INLINE_STR_MAX


def _chunks(items: Sequence[tuple[str, str]], size: int) -> Iterable[Sequence[tuple[str, str]]]:
    """`items` in slices of at most `size`."""
    return (items[i : i + size] for i in range(0, len(items), size))


def _select_queries(
    thread_id: str, checkpoint_ns: str, pairs: Sequence[tuple[str, str]], columns: str
) -> Iterator[tuple[str, list[str]]]:
    """The SELECTs (statement, parameters) of `columns` of these pairs' blob rows, by chunk."""
    for chunk in _chunks(pairs, _PAIRS_PER_QUERY):
        # One primary-key look-up per pair, the pairs as the outer loop (`CROSS JOIN`):
        # an OR of (channel, version) terms lets SQLite scan all the thread's blobs instead.
        wanted = ", ".join(["(?, ?)"] * len(chunk))
        params = [*(part for pair in chunk for part in pair), thread_id, checkpoint_ns]
        sql = (
            f"SELECT {columns} FROM (VALUES {wanted}) AS w CROSS JOIN checkpoint_blobs b "
            "ON b.thread_id = ? AND b.checkpoint_ns = ? "
            "AND b.channel = w.column1 AND b.version = w.column2"
        )
        yield sql, params


def _select_in(
    db: sqlite3.Connection,
    thread_id: str,
    checkpoint_ns: str,
    pairs: Sequence[tuple[str, str]],
    columns: str,
) -> list[Any]:
    """`_select`, on the sqlite3 connection itself (in aiosqlite's thread)."""
    found: list[Any] = []
    for sql, params in _select_queries(thread_id, checkpoint_ns, pairs, columns):
        found += db.execute(sql, params).fetchall()
    return found


async def _committed(
    conn: aiosqlite.Connection, work: Callable[[sqlite3.Connection], object]
) -> None:
    """`work` on the sqlite3 connection, then commit, rolled back on any error: one trip.

    aiosqlite sends each statement, fetch, commit and cursor close to its thread on its own,
    each a wake-up of that thread and of the event loop; a checkpoint took four to six and a
    task's writes four (issue 45). Its `_execute` runs a function in that thread in order with
    the connection's other calls; the callers hold the saver's lock, as for the statements.
    """

    def run(db: sqlite3.Connection) -> None:
        try:
            work(db)
            db.commit()
        except BaseException:
            db.rollback()
            raise

    # Untyped in aiosqlite 0.22; the same call its own `commit` and `execute` make.
    await conn._execute(run, conn._conn)  # type: ignore[no-untyped-call]
