"""Which lock keeps a second command off a running thread: it follows the persistence backend.

The locks themselves are tried with real processes: SQLite's in
tests/integration_tests/test_newcomer_round4.py, PostgreSQL's in test_thread_lock_postgres.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from common.settings import Settings
from strategies.cli.thread_lock import AdvisoryLock, FileLock, advisory_key, lock_for

URI = "postgresql://postgres@127.0.0.1:5432/planner"


def settings(monkeypatch: pytest.MonkeyPatch, **values: Any) -> Settings:
    """Settings of `values` only: none from the environment or a .env file."""
    for name in ("PERSISTENCE", "DATABASE_URI", "CHECKPOINT_PATH"):
        monkeypatch.delenv(name, raising=False)
    return Settings(_env_file=None, **values)


def test_sqlite_threads_are_locked_by_a_file_beside_the_checkpoints(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    chosen = settings(monkeypatch, checkpoint_path=tmp_path / "c.sqlite")
    lock = lock_for("t1", chosen)
    assert isinstance(lock, FileLock)
    assert lock.path.parent == tmp_path / "locks"
    assert lock_for("t2", chosen) != lock
    # An id with any character still names one file in that folder.
    other = lock_for("../a/b c", chosen)
    assert isinstance(other, FileLock)
    assert other.path.parent == tmp_path / "locks"


@pytest.mark.parametrize("persistence", ["postgres", None])
def test_postgres_threads_are_locked_by_an_advisory_lock_in_their_database(
    monkeypatch: pytest.MonkeyPatch, persistence: str | None
) -> None:
    # DATABASE_URI alone chooses PostgreSQL, as it does for the checkpoints.
    lock = lock_for("t1", settings(monkeypatch, persistence=persistence, database_uri=URI))
    assert lock == AdvisoryLock(URI, advisory_key("t1"))


def test_the_advisory_key_is_a_bigint_fixed_by_the_thread_id() -> None:
    keys = {advisory_key(t) for t in ("t1", "t2", "", "x" * 10_000, "ünï'cöde")}
    assert len(keys) == 5
    assert all(-(2**63) <= k < 2**63 for k in keys)
    # Every command, in any process or version, derives the same key for a thread.
    assert advisory_key("t1") == -3104407521112259880


def test_memory_threads_have_no_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    assert lock_for("t1", settings(monkeypatch, persistence="memory")) is None
    assert lock_for("t1", settings(monkeypatch, persistence="memory", database_uri=URI)) is None
