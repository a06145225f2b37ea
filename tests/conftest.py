"""Shared fixtures: no real model call or remote connection, scripted models, MCP config."""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from common.mcp.registry import shutdown_pool
from tests.bounds import HANG_GUARD_S
from tests.doubles import ScriptedChatModel, install_scripted

# Importing the project reads no settings (they are read on first use), so this holds for
# every test; the settings are read once per process after it.
os.environ["ALLOW_MODEL_REQUESTS"] = "false"
os.environ.pop("OPENAI_API_KEY", None)
os.environ.pop("OPENAI_BASE_URL", None)
# The planner may plan from cached tool lists: tests never see an entry left by another checkout
# (a folder of this session's own; subprocesses started by tests inherit it).
os.environ["MCP_TOOL_CACHE_DIR"] = tempfile.mkdtemp(prefix="mcp-tool-cache-")
# An expert's first answer is the product's 30 s default for a user; a loaded CI machine
# starting many servers side by side has taken longer, so the suite waits as long as any run
# may (tests of the startup timeout itself set their own; subprocesses inherit this one).
os.environ["MCP_STARTUP_TIMEOUT_S"] = str(HANG_GUARD_S)

# No test may depend on machine speed: CI machines are loaded, so Hypothesis gets no deadline
# and no "too slow" health check anywhere (a test's own @settings may still add more).
hypothesis_settings.register_profile(
    "no-timing", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
hypothesis_settings.load_profile("no-timing")

ROOT = Path(__file__).resolve().parents[1]
_real_connect = socket.socket.connect


def _loopback_only(sock: socket.socket, address: Any) -> Any:
    if sock.family in (socket.AF_INET, socket.AF_INET6):
        host = address[0]
        try:
            ok = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            ok = False
        if not ok:
            raise ConnectionRefusedError(f"tests may only connect to loopback, not {host!r}")
    return _real_connect(sock, address)


def pytest_configure(config: pytest.Config) -> None:
    """In the process that runs the tests, name the run's Aegra template before workers start."""
    if not hasattr(config, "workerinput"):
        from tests.integration_tests.aegra import template_name

        template_name()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files marked `long_file` first, the rest in their order (browser, integration, unit).

    Side by side, each worker takes a whole file at a time in this order (`--dist loadfile
    --no-loadscope-reorder`, see the Makefile): a file of minutes taken last would finish last,
    while the many short unit test files taken last fill the workers' gaps at the end.
    """
    items.sort(key=lambda item: item.get_closest_marker("long_file") is None)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Once every worker is done, drop the run's Aegra template database."""
    if not hasattr(session.config, "workerinput"):
        from tests.integration_tests.aegra import drop_template

        drop_template()


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any connection off this machine (a real model API) fails the test."""
    monkeypatch.setattr(socket.socket, "connect", _loopback_only)


@pytest.fixture(scope="session")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory shared by the session's MCP servers (notes store, call logs)."""
    return tmp_path_factory.mktemp("mcp")


@pytest.fixture(scope="session")
def mcp_config(workdir: Path) -> dict[str, Any]:
    """Demo experts plus the testkit server, as a standard `mcpServers` document."""
    return {
        "mcpServers": {
            "inventory": {
                "command": sys.executable,
                "args": ["-m", "common.demo_servers.inventory"],
                "description": "Product stock and prices (read-only).",
            },
            "notes": {
                "command": sys.executable,
                "args": ["-m", "common.demo_servers.notes"],
                "env": {
                    "NOTES_FILE": str(workdir / "notes.json"),
                    "NOTES_LOG": str(workdir / "notes.log"),
                },
                "description": "Team notes: list, read, write, delete.",
            },
            "testkit": {
                "command": sys.executable,
                "args": [str(ROOT / "tests" / "servers" / "testkit.py")],
                "env": {"TESTKIT_LOG": str(workdir / "testkit.log")},
                "description": "Test tools.",
            },
        }
    }


@pytest.fixture
def scripted(mcp_config: dict[str, Any]) -> Any:
    """Build a run context whose node models follow scripts: `scripted(planner=[...], ...)`."""

    def make(**roles: list[Any]) -> tuple[dict[str, Any], dict[str, ScriptedChatModel]]:
        # Unless a test scripts the analyser, it finds nothing irreversible beyond the
        # deterministic verdicts (a real model would answer every turn).
        roles.setdefault("irreversibility", ["IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE"] * 50)
        models = {
            role: ScriptedChatModel(script=list(items), name_=role) for role, items in roles.items()
        }
        ctx: dict[str, Any] = {"mcp_config": mcp_config, "model": "scripted:missing"}
        for role, model in models.items():
            ctx[f"{role}_model"] = install_scripted(model)
        return ctx, models

    return make


@pytest.fixture(scope="session", autouse=True)
async def _close_sessions() -> Any:
    """Close every MCP session (and server process) at the end of the test session."""
    yield
    await shutdown_pool()


@pytest.fixture
def chdir_tmp(tmp_path: Path) -> Iterator[Path]:
    """Run in an empty temporary directory."""
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(old)


def service_unavailable(reason: str) -> None:
    """Skip a test whose service is missing; under REQUIRE_SERVICES=1 (CI) fail it instead."""
    if os.environ.get("REQUIRE_SERVICES") == "1":
        pytest.fail(f"{reason} (REQUIRE_SERVICES=1 makes a missing service a failure)")
    pytest.skip(reason)


@pytest.fixture
def postgres_uri() -> Iterator[str]:
    """A PostgreSQL database of the test's own on the local server, dropped afterwards."""
    base = os.environ.get("TEST_DATABASE_URI", "postgresql://postgres@127.0.0.1:5432/test")
    try:
        import psycopg

        admin = psycopg.connect(base, autocommit=True, connect_timeout=3)
    except Exception as exc:
        service_unavailable(f"PostgreSQL is not reachable at {base}: {exc}")
        raise
    name = f"planner_test_{uuid.uuid4().hex[:10]}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield f"{base.rsplit('/', 1)[0]}/{name}"
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
