"""Integration test helpers: our MCP server processes, tagged configs, pooled sessions, ports."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.errors import APIStatusError

from common.mcp.config import parse_mcp_config
from common.mcp.registry import _pool
from common.mcp.session import PersistentSession
from tests.bounds import HANG_GUARD_S

TRUSTED_TEST_FIELDS = (
    "mcp_config,model,planner_model,orchestrate_model,assess_model,response_model,"
    "irreversibility_model,guardrails,approval_mode"
)
"""SERVED_CONTEXT_FIELDS of test servers: their tests choose experts, models and modes per run
(test_served_auth.py starts servers that trust their clients with none)."""

TAG_VAR = "PLANNER_TEST_TAG"
"""Environment variable that marks a server process started by one test."""


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def child_servers(tag: str) -> set[int]:
    """Pids of live child processes of this test process started with `TAG_VAR=tag`."""
    me = str(os.getpid())
    pids: set[int] = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        stat = _read(proc / "stat").decode(errors="replace")
        fields = stat.rpartition(")")[2].split()
        if len(fields) < 2 or fields[0] == "Z" or fields[1] != me:
            continue
        if f"{TAG_VAR}={tag}".encode() in _read(proc / "environ").split(b"\0"):
            pids.add(int(proc.name))
    return pids


def pid_alive(pid: int) -> bool:
    """Whether `pid` exists and is not a zombie."""
    stat = _read(Path(f"/proc/{pid}/stat")).decode(errors="replace")
    return bool(stat) and stat.rpartition(")")[2].split()[0] != "Z"


def tagged(mcp_config: dict[str, Any], *servers: str) -> tuple[dict[str, Any], str]:
    """A copy of `mcp_config` whose `servers` get a fresh tag: new sessions, findable processes."""
    tag = uuid.uuid4().hex[:12]
    config = copy.deepcopy(mcp_config)
    for name in servers:
        entry = config["mcpServers"][name]
        entry["env"] = {**entry.get("env", {}), TAG_VAR: tag}
    return config, tag


def pooled(mcp_config: dict[str, Any], server: str) -> PersistentSession | None:
    """The pooled session of `server` on the running loop, if one was opened."""
    fingerprint = parse_mcp_config(mcp_config).servers[server].fingerprint()
    return _pool().get(fingerprint)


async def drop_pooled(mcp_config: dict[str, Any], server: str) -> None:
    """Close `server`'s pooled session and remove it from the pool."""
    fingerprint = parse_mcp_config(mcp_config).servers[server].fingerprint()
    session = _pool().pop(fingerprint, None)
    if session is not None:
        await session.aclose()


def free_port() -> int:
    """A TCP port on the loopback interface that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def stop_group(proc: subprocess.Popen[Any]) -> None:
    """Stop a process started with `start_new_session=True` and everything in its group."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(15)
    # The group's other members (the bundler) may outlive its leader by a moment.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


SERVED_FILES = ("src", "examples", "ui-components", "langgraph.json", "pyproject.toml")
"""What `langgraph dev` reads from the project folder."""


def served_folder(folder: Path) -> Path:
    """`folder`, made to hold what `langgraph dev` reads from the project (its `mcp.json` too)."""
    root = Path(__file__).resolve().parents[2]
    folder.mkdir(parents=True)
    for name in SERVED_FILES:
        (folder / name).symlink_to(root / name)
    shutil.copyfile(root / "mcp.json", folder / "mcp.json")
    return folder


async def _ui_bundled(root: Path, deadline: float, log: Path) -> None:
    """Wait until the server's UI bundler has written the components langgraph.json declares.

    langgraph_api reads `.langgraph_api/ui/schemas.json` once, on the first `POST /ui/...`,
    and keeps what it found: a plan card asked for before the bundler wrote the file is "UI not
    found" for the server's whole life. On a loaded machine the bundler (node) may finish after
    the first plan, so a test's server is ready only once the file names every component.
    """
    declared = set(json.loads((root / "langgraph.json").read_text()).get("ui") or {})
    schemas = root / ".langgraph_api" / "ui" / "schemas.json"
    while declared and time.monotonic() < deadline:
        with contextlib.suppress(FileNotFoundError, ValueError):
            if declared <= set(json.loads(schemas.read_text())):
                return
        await asyncio.sleep(0.5)
    if declared:
        pytest.fail(f"the UI bundler wrote no {sorted(declared)}:\n{log.read_text()[-3000:]}")


@asynccontextmanager
async def langgraph_dev(
    logs: Path, env: dict[str, str] | None = None
) -> AsyncIterator[tuple[str, Any]]:
    """A `langgraph dev` server on a free loopback port: its URL and a langgraph-sdk client.

    No browser, no reload, no blocking-call escape; the server sees no OPENAI_API_KEY. Its log
    goes to `logs/server.log`; a BlockingError in it fails the test that used it. `env` adds to
    (or overrides) the server's environment; its clients may set TRUSTED_TEST_FIELDS unless `env`
    says otherwise. The server runs in a process group of its own,
    stopped whole: on SIGTERM it stops `npm exec` of its UI bundler (langgraph.json's `ui`) but
    not the bundler's node process under it, which would keep watching after the test.

    It serves from a folder of its own (`served_folder`): the in-memory server keeps its threads
    and the bundled plan card under `.langgraph_api/` of its working folder, which servers of
    other test workers running at the same time must not share.
    """
    cli = shutil.which("langgraph", path=str(Path(sys.executable).parent))
    assert cli, "langgraph-cli[inmem] is a dev dependency"
    port = free_port()
    log = logs / "server.log"
    root = served_folder(logs / f"project-{port}")
    server_env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    server_env.setdefault("SERVED_CONTEXT_FIELDS", TRUSTED_TEST_FIELDS)
    server_env.update(env or {})
    with log.open("w") as out:
        proc = subprocess.Popen(
            [cli, "dev", "--no-browser", "--no-reload", "--port", str(port)],
            cwd=root,
            env=server_env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    client = get_client(url=url)
    try:
        deadline = time.monotonic() + HANG_GUARD_S
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"dev server exited:\n{log.read_text()[-3000:]}")
            try:
                async with asyncio.timeout(2):
                    await client.assistants.search()
                break
            except APIStatusError as exc:
                # A server with auth answers an anonymous probe with 401: it is up.
                if exc.response.status_code == 401:
                    break
                await asyncio.sleep(0.5)
            except Exception:
                await asyncio.sleep(0.5)
        else:
            pytest.fail(f"dev server did not start:\n{log.read_text()[-3000:]}")
        await _ui_bundled(root, time.monotonic() + HANG_GUARD_S, log)
        yield url, client
    finally:
        await client.aclose()
        stop_group(proc)
        assert "BlockingError" not in log.read_text(), log.read_text()[-3000:]
