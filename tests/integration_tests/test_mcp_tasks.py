"""Long calls as tasks (the MCP Tasks extension): polled to their end, never sent twice.

The server is FastMCP 4 with `fastmcp-tasks` (`tests/servers/tasks_server.py`, run from
`.venv-tasks`: `make third-party`), over streamable HTTP on the 2026-07-28 revision: its
`count_stock` (read-only) and `ship_order` (destructive, one line per shipment in its log) run
as tasks when the client opts in, which ours always does. A crash after the task's id was kept
is a real SIGKILL of the planner's process (`crash_driver.py --crash-at after_task`), on SQLite
and on PostgreSQL; the resumed process polls the task instead of sending the call again.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from common.mcp.calls import TaskHooks
from common.mcp.config import parse_mcp_config
from common.mcp.registry import get_registry
from tests.conftest import service_unavailable
from tests.integration_tests.helpers import drop_pooled, free_port
from tests.integration_tests.test_crash_exactly_once import backend, phase  # noqa: F401

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
TASKS_PYTHON = Path(os.environ.get("TASKS_PYTHON", ROOT / ".venv-tasks" / "bin" / "python"))
"""The interpreter of the venv with fastmcp-tasks (`make third-party`)."""
SLEEP_S = 3.0
"""How long each task runs: long enough for a crash to come first."""


@dataclass(frozen=True)
class TasksServer:
    """The Tasks server: where it listens and where it logs its shipments."""

    url: str
    log: Path

    def shipments(self) -> list[str]:
        """The orders shipped so far."""
        lines = self.log.read_text().splitlines() if self.log.exists() else []
        return [line.split("\t", 1)[1] for line in lines]

    def config(self) -> dict[str, Any]:
        """An `mcpServers` document naming it `shop`."""
        return {"mcpServers": {"shop": {"url": self.url, "description": "Stock and shipping."}}}


@contextmanager
def serving_tasks(work: Path, sleep_s: float = SLEEP_S) -> Iterator[TasksServer]:
    """The Tasks server on a free port, logging into `work`, until the block ends."""
    if not TASKS_PYTHON.exists():
        service_unavailable(f"{TASKS_PYTHON} is missing (run `make third-party`)")
    port, log = free_port(), work / "shipped.log"
    env = {**os.environ, "TASKS_LOG": str(log), "TASKS_SLEEP_S": str(sleep_s)}
    script = str(ROOT / "tests" / "servers" / "tasks_server.py")
    with (work / "server.log").open("wb") as out:
        proc = subprocess.Popen(
            [str(TASKS_PYTHON), script, "--http", str(port)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((work / "server.log").read_text()[-2000:]) from None
                time.sleep(0.1)
        yield TasksServer(f"http://127.0.0.1:{port}/mcp", log)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.fixture(scope="module")
def tasks_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TasksServer]:
    with serving_tasks(tmp_path_factory.mktemp("tasks")) as server:
        yield server


async def test_a_long_call_runs_as_a_task_and_its_result_comes_back(
    tasks_server: TasksServer,
) -> None:
    raw = tasks_server.config()
    registry = get_registry(parse_mcp_config(raw))
    ids: list[str] = []

    async def heard(task_id: str) -> None:
        ids.append(task_id)

    try:
        result = await registry.call(
            "shop", "count_stock", {"item": "wid-1"}, 30, True, tasks=TaskHooks(on_task=heard)
        )
    finally:
        await drop_pooled(raw, "shop")

    assert result["status"] == "ok", result
    assert result["content"] == "WID-1: 120 units counted"
    assert len(ids) == 1, "the call became a task, and its id was told before polling"


async def test_a_task_its_server_no_longer_knows_is_reported_never_resent(
    tasks_server: TasksServer,
) -> None:
    raw = tasks_server.config()
    registry = get_registry(parse_mcp_config(raw))
    before = tasks_server.shipments()
    try:
        lost = await registry.call(
            "shop", "ship_order", {"order": "Z-9"}, 30, False, tasks=TaskHooks(task_id="gone")
        )
    finally:
        await drop_pooled(raw, "shop")

    assert lost["status"] == "interrupted", lost
    assert "not sent again" in lost["content"]
    assert tasks_server.shipments() == before


def test_killed_after_the_task_was_kept_the_resumed_run_polls_it_and_ships_once(
    tasks_server: TasksServer,
    tmp_path: Path,
    backend: str,  # noqa: F811
) -> None:
    url = ["--tasks-url", tasks_server.url]
    started = phase(tmp_path, "start", *url)
    (request,) = started["interrupts"]
    assert [a["name"] for a in request["action_requests"]] == ["ship_order"]
    before = tasks_server.shipments().count("A-1")

    killed = phase(tmp_path, "answer", "--crash-at", "after_task", *url)
    assert killed == {"killed_at": "after_task"}
    resumed = phase(tmp_path, "resume", *url)

    assert tasks_server.shipments().count("A-1") == before + 1
    assert resumed["interrupts"] == []
    assert resumed["tool_messages"][-1] == {"status": "success", "content": "order A-1 shipped"}
    assert resumed["statuses"] == ["completed"]
