"""Aegra instances for tests: a fresh PostgreSQL database and Redis prefix, processes by PID.

`make aegra` builds `.venv-aegra` (Python >= 3.12, aegra-api pinned). Each `AegraCluster` owns a
database of its own (dropped after) and Redis keys under a prefix of its own (deleted after); its
instances are uvicorn processes serving `aegra_api.main:app` with our `aegra.json`, started one
after the other (two at once race on migrations) and stopped by PID. `aegra serve` is not used:
it runs uvicorn as a child that it neither restarts nor reliably stops.

Aegra's migrations run once per test run, into a template database that every cluster's
database is copied from (`CREATE DATABASE ... TEMPLATE`): the first cluster of the run makes it
under a PostgreSQL advisory lock, so test workers running side by side wait for it rather than
migrate twice, and the process that runs the tests drops it at the end (`drop_template`).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import service_unavailable
from tests.integration_tests.helpers import TRUSTED_TEST_FIELDS

ROOT = Path(__file__).resolve().parents[2]
AEGRA_PYTHON = ROOT / ".venv-aegra" / "bin" / "python"
BASE_URI = os.environ.get("TEST_DATABASE_URI", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")

FAST_RECOVERY = {
    "LEASE_DURATION_SECONDS": "15",
    "HEARTBEAT_INTERVAL_SECONDS": "5",
    "REAPER_INTERVAL_SECONDS": "5",
}
"""Lease settings that let a dead worker's runs be re-queued within about 20 s."""


def _parents() -> dict[int, int]:
    """Every live process and its parent, from /proc."""
    found: dict[int, int] = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            fields = (proc / "stat").read_text(errors="replace").rpartition(")")[2].split()
        except OSError:
            continue
        if len(fields) > 1 and fields[0] != "Z":
            found[int(proc.name)] = int(fields[1])
    return found


def descendants(pid: int) -> set[int]:
    """Live processes below `pid`, at any depth (its MCP servers and what they started)."""
    parents = _parents()
    found: set[int] = set()
    grew = True
    while grew:
        more = {p for p, parent in parents.items() if (parent == pid or parent in found)}
        grew = not more <= found
        found |= more
    return found


def _alive(pid: int) -> bool:
    """Whether `pid` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(errors="replace")
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def _kill_all(pids: set[int]) -> None:
    """SIGKILL each of `pids` that is still there."""
    for pid in pids:
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def free_port() -> int:
    """A free loopback TCP port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Instance:
    """One Aegra server process (API and one worker)."""

    name: str
    """A label for logs and messages."""
    port: int
    """Its loopback port."""
    log: Path
    """Its stdout and stderr."""
    env: dict[str, str]
    """Its environment."""
    proc: subprocess.Popen[bytes] | None = None
    """The running process, if started."""

    @property
    def url(self) -> str:
        """Its base URL."""
        return f"http://127.0.0.1:{self.port}"

    async def start(self, ready_within_s: float = 60) -> None:
        """Start the process and wait until /health answers."""
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [
                    str(AEGRA_PYTHON),
                    *("-m", "uvicorn", "aegra_api.main:app"),
                    *("--host", "127.0.0.1", "--port", str(self.port)),
                ],
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + ready_within_s
        async with httpx.AsyncClient() as client:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"{self.name} exited: {self.tail()}")
                with suppress(httpx.HTTPError):
                    if (await client.get(f"{self.url}/health", timeout=2)).status_code == 200:
                        return
                await asyncio.sleep(0.2)
        raise RuntimeError(f"{self.name} not healthy within {ready_within_s}s: {self.tail()}")

    def kill(self) -> None:
        """SIGKILL the server and every process it started (its MCP servers too)."""
        if self.proc is not None and self.proc.poll() is None:
            # MCP servers run in sessions of their own (the MCP SDK's start_new_session), so
            # the group kill alone would leave them running, orphaned, mid-call.
            below = descendants(self.proc.pid)
            with suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            _kill_all(below)
            self.proc.wait(10)

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL) and its process group."""
        if self.proc is None or self.proc.poll() is not None:
            return
        below = descendants(self.proc.pid)
        with suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.kill()
        with suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        # Its MCP servers exit when their stdin closes; give them a moment, then make sure.
        deadline = time.monotonic() + 5
        while any(_alive(pid) for pid in below) and time.monotonic() < deadline:
            time.sleep(0.1)
        _kill_all(below)

    def tail(self, chars: int = 3000) -> str:
        """The end of its log."""
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else ""


@dataclass
class AegraCluster:
    """Aegra instances sharing one fresh database and one Redis prefix."""

    database_url: str
    """The cluster's own database."""
    prefix: str
    """The cluster's own Redis key prefix."""
    logs: Path
    """Where instance logs go."""
    extra_env: dict[str, str]
    """Settings added to every instance's environment."""
    instances: list[Instance] = field(default_factory=list)
    """Instances added so far (running or stopped)."""

    def env(self) -> dict[str, str]:
        """The environment every instance shares."""
        env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
        env.update(
            DATABASE_URL=self.database_url,
            REDIS_URL=REDIS_URL,
            REDIS_BROKER_ENABLED="true",
            REDIS_CHANNEL_PREFIX=f"{self.prefix}run:",
            WORKER_QUEUE_KEY=f"{self.prefix}jobs",
            WORKER_COUNT="1",
            RUN_MIGRATIONS_ON_STARTUP="false",
            AEGRA_CONFIG=str(ROOT / "aegra.json"),
            CRON_ENABLED="false",
            LOG_LEVEL="INFO",
            SERVED_CONTEXT_FIELDS=TRUSTED_TEST_FIELDS,
        )
        env.update(self.extra_env)
        return env

    async def add(self) -> Instance:
        """Start one more instance (after the previous one is healthy)."""
        n = len(self.instances) + 1
        instance = Instance(f"aegra-{n}", free_port(), self.logs / f"aegra-{n}.log", self.env())
        self.instances.append(instance)
        await instance.start()
        return instance

    async def restart(self, instance: Instance) -> None:
        """Start a stopped or killed instance again on its port."""
        instance.stop()
        await instance.start()

    def stop(self) -> None:
        """Stop every instance."""
        for instance in self.instances:
            instance.stop()


TEMPLATE_VAR = "AEGRA_TEST_TEMPLATE"
"""Names the run's template database; set before the test workers start, so they share it."""
TEMPLATE_LOCK = 0x6AE62A
"""The advisory lock key under which a template database is looked for and made."""


def template_name() -> str:
    """The run's template database (named now if no parent process named it)."""
    return os.environ.setdefault(TEMPLATE_VAR, f"aegra_tpl_{uuid.uuid4().hex[:10]}")


def _url_of(database: str) -> str:
    """The URL of `database` on the test server."""
    return f"{BASE_URI.rsplit('/', 1)[0]}/{database}"


def _copy_of_template(admin: Any, name: str) -> None:
    """Create database `name` as a copy of the run's migrated template (made if missing)."""
    template = template_name()
    admin.execute("SELECT pg_advisory_lock(%s)", (TEMPLATE_LOCK,))
    try:
        found = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (template,))
        if found.fetchone() is None:
            admin.execute(f'CREATE DATABASE "{template}"')
            try:
                _migrate(_url_of(template))
            except BaseException:
                admin.execute(f'DROP DATABASE IF EXISTS "{template}" WITH (FORCE)')
                raise
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    finally:
        admin.execute("SELECT pg_advisory_unlock(%s)", (TEMPLATE_LOCK,))


def drop_template() -> None:
    """Drop the run's template database, if this run made one (and PostgreSQL is there)."""
    template = os.environ.get(TEMPLATE_VAR)
    if not template:
        return
    try:
        import psycopg
    except ImportError:
        return  # no driver: no cluster could have made the template
    try:
        admin = psycopg.connect(BASE_URI, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError:
        return  # no server: no cluster could have made the template on it
    with admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{template}" WITH (FORCE)')


def _migrate(database_url: str) -> None:
    """Apply Aegra's migrations once, before any instance starts."""
    env = {**os.environ, "DATABASE_URL": database_url}
    done = subprocess.run(
        [str(ROOT / ".venv-aegra" / "bin" / "aegra"), "db", "upgrade"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"aegra db upgrade failed: {done.stdout[-2000:]}{done.stderr[-2000:]}")


async def _drop_redis_prefix(prefix: str) -> None:
    """Delete every Redis key under `prefix`."""
    import redis.asyncio as aioredis

    client = aioredis.from_url(REDIS_URL)
    try:
        keys = [k async for k in client.scan_iter(match=f"{prefix}*")]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


@asynccontextmanager
async def aegra_cluster(logs: Path, **extra_env: str) -> AsyncIterator[AegraCluster]:
    """A cluster with no instance yet: `await cluster.add()` starts them one by one.

    Skips (fails under REQUIRE_SERVICES=1) when `.venv-aegra`, PostgreSQL or Redis is missing.
    """
    if not AEGRA_PYTHON.exists():
        service_unavailable("Aegra is not installed: run `make aegra` (needs Python >= 3.12)")
    try:
        import psycopg

        admin = psycopg.connect(BASE_URI, autocommit=True, connect_timeout=3)
    except Exception as exc:
        service_unavailable(f"PostgreSQL is not reachable at {BASE_URI}: {exc}")
        raise
    try:
        import redis.asyncio as aioredis

        probe = aioredis.from_url(REDIS_URL)
        await probe.ping()
        await probe.aclose()
    except Exception as exc:
        admin.close()
        service_unavailable(f"Redis is not reachable at {REDIS_URL}: {exc}")
        raise
    name = f"aegra_test_{uuid.uuid4().hex[:10]}"
    prefix = f"{name}:"
    with admin:
        await asyncio.to_thread(_copy_of_template, admin, name)
        cluster = AegraCluster(_url_of(name), prefix, logs, dict(extra_env))
        try:
            yield cluster
        finally:
            cluster.stop()
            await _drop_redis_prefix(prefix)
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def interrupts_of(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The interrupts a thread waits on, read from its state's tasks (works on both servers)."""
    return [i for t in state.get("tasks") or [] for i in t.get("interrupts") or []]
