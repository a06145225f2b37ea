"""One mcp-planner command at a time on a thread whose checkpoints are in PostgreSQL.

The SQLite case is in test_newcomer_round4.py (a lock file beside the checkpoints). Here both
commands are real `mcp-planner` processes on a PostgreSQL database of the test's own: the first
is held inside its graph run by a model endpoint that answers nothing until the test lets it,
and the second, on the same thread, must be refused with the SQLite case's sentence (exit 2).
Before the PostgreSQL lock the second one ran, writing the thread's checkpoints as well. Once
the first has ended, or was killed (the server ends its session and so releases the lock),
the same command runs.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import psycopg
import pytest
from werkzeug import Request, Response

from tests.bounds import HANG_GUARD_S
from tests.http_stub import StubServer
from tests.integration_tests.test_newcomer_round4 import (
    BIN,
    STOCK,
    clean_env,
    one_sentence,
    planner,
)

pytestmark = pytest.mark.integration


THREAD = "t1"


class HeldModel:
    """A model endpoint that holds every request until `release`, then answers 500."""

    def __init__(self) -> None:
        self.asked = threading.Event()
        """Set once a request arrived: the command asking is inside its graph run."""
        self.released = threading.Event()
        """Set by the test to let the held requests be answered."""

    def __call__(self, _request: Request) -> Response:
        self.asked.set()
        self.released.wait(HANG_GUARD_S)
        body = json.dumps({"error": {"message": "held by the test", "type": "server_error"}})
        return Response(body, status=500, content_type="application/json")


@pytest.fixture
def here(tmp_path: Path, mcp_config: dict[str, Any]) -> Path:
    """A fresh folder holding mcp.json with the inventory and notes demo experts."""
    servers = {k: mcp_config["mcpServers"][k] for k in ("inventory", "notes")}
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return tmp_path


@pytest.fixture
def pg_env(postgres_uri: str) -> dict[str, str]:
    """The settings putting the commands' threads in the test's PostgreSQL database."""
    return {"PERSISTENCE": "postgres", "DATABASE_URI": postgres_uri}


@dataclass
class First:
    """The first command: its process, and the model endpoint holding it inside its run."""

    process: subprocess.Popen[str]
    model: HeldModel
    log: Path

    def output(self) -> str:
        """The end of what the first command printed."""
        return self.log.read_text()[-3000:]


@pytest.fixture
def first(here: Path, pg_env: dict[str, str]) -> Iterator[First]:
    """A first `mcp-planner run` on THREAD, inside its graph run, waiting for its model."""
    model = HeldModel()
    log = here / "first.log"
    with StubServer(model) as server, log.open("w") as out:
        model_env = {
            "MODEL": "openai:m",
            "OPENAI_BASE_URL": f"{server.url}/v1",
            "MODEL_MAX_RETRIES": "0",
            "MODEL_TIMEOUT_S": str(HANG_GUARD_S),
        }
        args = ("run", "--thread", THREAD, "--new", STOCK)
        running = First(_start(here, out, *args, **pg_env, **model_env), model, log)
        try:
            assert model.asked.wait(HANG_GUARD_S), running.output()
            yield running
        finally:
            model.released.set()
            if running.process.poll() is None:
                running.process.kill()
            running.process.wait(HANG_GUARD_S)


def _start(here: Path, out: IO[str], *args: str, **env: str) -> subprocess.Popen[str]:
    """`mcp-planner ARGS` started in `here` with `planner`'s clean environment, output to `out`."""
    clean = clean_env()
    return subprocess.Popen(
        [str(BIN / "mcp-planner"), *args],
        cwd=here,
        env={**clean, **env},
        stdin=subprocess.DEVNULL,
        stdout=out,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _refused(done: subprocess.CompletedProcess[str], pid: int) -> None:
    """`done` was refused as a second command on THREAD while process `pid` runs it."""
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
    assert one_sentence(done) == (
        f"Thread {THREAD!r} is busy: another mcp-planner command is running it (pid {pid}); "
        "wait until it ends, then try again."
    )


def _runs(done: subprocess.CompletedProcess[str]) -> None:
    """`done` ran the thread to its end."""
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]


def test_a_second_command_on_a_postgres_thread_another_is_running_is_refused(
    here: Path, pg_env: dict[str, str], first: First
) -> None:
    offline = {**pg_env, "MODEL": "offline:rules"}
    _refused(planner(here, "run", "--thread", THREAD, STOCK, **offline), first.process.pid)
    _refused(planner(here, "resume", THREAD, **offline), first.process.pid)
    assert first.process.poll() is None, first.output()

    # The first command ends (its model failed; the thread stays at its last step)...
    first.model.released.set()
    assert first.process.wait(HANG_GUARD_S) == 1, first.output()
    # ...and its lock with it: the same thread now runs.
    _runs(planner(here, "run", "--thread", THREAD, STOCK, **offline))


def test_a_killed_first_command_frees_the_postgres_thread(
    here: Path, pg_env: dict[str, str], first: First
) -> None:
    key = _advisory_key(THREAD)
    with psycopg.connect(pg_env["DATABASE_URI"], autocommit=True) as conn:
        assert _holder(conn, key).startswith(f"mcp-planner {first.process.pid}@")
        first.process.kill()
        first.process.wait(HANG_GUARD_S)
        # The server ends the killed command's session, and its lock with it: wait for that
        # by taking the lock (lock_timeout only guards against a hang), then let it go.
        conn.execute(f"SET lock_timeout = '{int(HANG_GUARD_S)}s'")
        conn.execute("SELECT pg_advisory_lock(%s)", (key,))
        conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
    _runs(planner(here, "run", "--thread", THREAD, STOCK, MODEL="offline:rules", **pg_env))


def _advisory_key(thread: str) -> int:
    """The thread's advisory lock key, as an mcp-planner command derives it."""
    digest = hashlib.sha256(f"mcp-planner thread {thread}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _holder(conn: psycopg.Connection[Any], key: int) -> str:
    """The application name of the session holding the advisory lock on `key`, or ''."""
    row = conn.execute(
        "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
        "WHERE l.locktype = 'advisory' AND l.granted "
        "AND l.classid::bigint = %s AND l.objid::bigint = %s",
        ((key >> 32) & 0xFFFFFFFF, key & 0xFFFFFFFF),
    ).fetchone()
    return str(row[0]) if row else ""
