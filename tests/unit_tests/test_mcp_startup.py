"""Cold start: every expert starts at once, and planning can use remembered tool lists.

The servers are the stdio test kit behind a small launcher that can record when it begins and
becomes ready, and wait at a barrier or a gate file first: so "started concurrently" and "still
starting" are facts the servers observe, not durations the test measures.
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp.types import Tool

from common.mcp.config import ServerConfig, parse_mcp_config
from common.mcp.loader import registry_for
from common.mcp.registry import ExpertRegistry, ExpertUnavailable, shutdown_pool
from common.mcp.tool_cache import ToolCache, cache_key
from strategies.cli.drive import experts_started
from strategies.with_planner.context import Context
from tests.integration_tests.helpers import TAG_VAR, child_servers

ROOT = Path(__file__).resolve().parents[2]
TESTKIT = ROOT / "tests" / "servers" / "testkit.py"
LAUNCHER = """
import os, pathlib, runpy, sys, time
log = pathlib.Path(os.environ["START_LOG"]) if "START_LOG" in os.environ else None
name = os.environ.get("NAME", "")
def note(what):
    if log is not None:
        with log.open("a") as fh:
            fh.write(f"{name} {what}\\n")
def wait_until(done):
    deadline = time.monotonic() + 60
    while not done() and time.monotonic() < deadline:
        time.sleep(0.02)
note("begin")
peers = int(os.environ.get("PEERS", "0"))
if peers:
    wait_until(lambda: log.read_text().count(" begin") >= peers)
gate = os.environ.get("GATE")
if gate:
    wait_until(lambda: os.path.exists(gate))
note("ready")
runpy.run_path(sys.argv[1], run_name="__main__")
"""
"""A server start that can report itself and wait for its peers (PEERS) or a gate file (GATE)."""


def server(tag: str, **env: str) -> dict[str, Any]:
    """A test kit server entry behind the launcher, its process findable by `tag`."""
    return {
        "command": sys.executable,
        "args": ["-c", LAUNCHER, str(TESTKIT)],
        "env": {TAG_VAR: tag, **env},
    }


def registry(servers: dict[str, Any], cache: ToolCache | None) -> ExpertRegistry:
    """A registry over `servers` with a patient start-up and the given cache."""
    return ExpertRegistry(parse_mcp_config({"mcpServers": servers}), 60.0, cache)


@pytest.fixture
def tag() -> str:
    """A fresh tag: new sessions for this test, its server processes findable."""
    return uuid.uuid4().hex[:12]


@pytest.fixture
def cache(tmp_path: Path) -> ToolCache:
    """An empty tool cache of this test's own."""
    return ToolCache(tmp_path / "tools")


@pytest.fixture(autouse=True)
async def _closed_after() -> AsyncIterator[None]:
    yield
    await shutdown_pool()


async def servers_running(tag: str, count: int) -> set[int]:
    """The tagged server processes, once `count` of them can be seen (or after 30 s)."""
    # A process just launched shows its environment (hence its tag) a moment after exec.
    for _ in range(1500):
        found = child_servers(tag)
        if len(found) >= count:
            return found
        await asyncio.sleep(0.02)
    return child_servers(tag)


def names(tools: list[Tool] | ExpertUnavailable) -> list[str]:
    """The tool names of a catalog entry (fails the test on an unavailable expert)."""
    assert isinstance(tools, list), tools
    return sorted(t.name for t in tools)


def events(log: Path) -> list[str]:
    """The launcher's log lines, in the order the servers wrote them."""
    return log.read_text().split("\n")[:-1]


def ghost_tool() -> Tool:
    """A tool the test kit does not have."""
    return Tool(name="ghost", description="Not there any more.", inputSchema={"type": "object"})


async def test_start_all_starts_every_expert_at_once(tmp_path: Path, tag: str) -> None:
    log = tmp_path / "starts.log"
    # Each server waits until all three have begun: one start after another never gets there.
    servers = {n: server(tag, START_LOG=str(log), NAME=n, PEERS="3") for n in ("a", "b", "c")}
    reg = registry(servers, None)

    reg.start_all()
    catalog = await reg.catalog(reg.experts)

    assert all("echo" in names(tools) for tools in catalog.values())
    lines = events(log)
    begun = max(i for i, line in enumerate(lines) if line.endswith(" begin"))
    ready = min(i for i, line in enumerate(lines) if line.endswith(" ready"))
    assert begun < ready, lines


async def test_catalog_waits_for_several_experts_together(tmp_path: Path, tag: str) -> None:
    log = tmp_path / "starts.log"
    servers = {n: server(tag, START_LOG=str(log), NAME=n, PEERS="2") for n in ("a", "b")}

    catalog = await registry(servers, None).catalog(["a", "b"])

    assert all("echo" in names(tools) for tools in catalog.values())
    assert [line.split()[1] for line in events(log)] == ["begin", "begin", "ready", "ready"]


async def test_a_server_still_starting_is_planned_from_its_cached_tools(
    tmp_path: Path, tag: str, cache: ToolCache
) -> None:
    gate = tmp_path / "gate"
    servers = {"kit": server(tag, GATE=str(gate))}
    reg = registry(servers, cache)
    cache.store(reg.server("kit"), [ghost_tool()])

    # The gate is shut: the server cannot have initialized, the answer is the cache's.
    catalog = await reg.catalog(["kit"], cached_ok=True)

    assert names(catalog["kit"]) == ["ghost"]
    assert reg.state("kit").status == "closed"
    await reg.launched(timeout_s=60)
    assert await servers_running(tag, 1), "the server was not started in the background"


async def test_a_call_is_checked_against_the_live_list_and_refreshes_the_cache(
    tmp_path: Path, tag: str, cache: ToolCache
) -> None:
    gate = tmp_path / "gate"
    reg = registry({"kit": server(tag, GATE=str(gate))}, cache)
    cache.store(reg.server("kit"), [ghost_tool()])
    await reg.catalog(["kit"], cached_ok=True)
    gate.touch()

    refused = await reg.call("kit", "ghost", {}, timeout_s=30, retry_safe=True)

    assert refused["status"] == "unknown_tool"
    assert "echo" in refused["content"]
    remembered = cache.load(reg.server("kit"))
    assert remembered is not None
    assert "ghost" not in names(remembered)
    assert "echo" in names(remembered)


async def test_without_a_cache_entry_the_catalog_waits_for_the_live_list(
    tag: str, cache: ToolCache
) -> None:
    reg = registry({"kit": server(tag)}, cache)

    catalog = await reg.catalog(["kit"], cached_ok=True)

    assert "echo" in names(catalog["kit"])
    assert reg.state("kit").status == "open"


async def test_live_catalog_ignores_the_cache(tag: str, cache: ToolCache) -> None:
    reg = registry({"kit": server(tag)}, cache)
    cache.store(reg.server("kit"), [ghost_tool()])

    catalog = await reg.catalog(["kit"])

    assert "ghost" not in names(catalog["kit"])


async def test_an_unwritable_cache_only_means_no_cache(tmp_path: Path, tag: str) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    cache = ToolCache(blocker / "tools")
    reg = registry({"kit": server(tag)}, cache)

    first = await reg.catalog(["kit"], cached_ok=True)

    assert "echo" in names(first["kit"])
    assert cache.load(reg.server("kit")) is None
    assert cache.store(reg.server("kit"), [ghost_tool()]) is False


async def test_shutdown_while_starting_leaves_no_server_process(tmp_path: Path, tag: str) -> None:
    gate = tmp_path / "gate"
    reg = registry({"kit": server(tag, GATE=str(gate)), "open": server(tag)}, None)
    await reg.catalog(["open"])
    reg.start_all()
    await reg.launched(timeout_s=60)
    assert len(await servers_running(tag, 2)) == 2

    await shutdown_pool()

    assert child_servers(tag) == set()


async def test_launched_returns_once_the_servers_run(tmp_path: Path, tag: str) -> None:
    gate = tmp_path / "gate"
    reg = registry({n: server(tag, GATE=str(gate), NAME=n) for n in ("a", "b")}, None)

    reg.start_all()
    await reg.launched(timeout_s=60)

    assert len(await servers_running(tag, 2)) == 2
    assert {reg.state(n).status for n in ("a", "b")} == {"closed"}


async def test_a_cli_run_starts_its_experts_before_the_graph_and_stops_them_after(
    tmp_path: Path, tag: str
) -> None:
    gate = tmp_path / "gate"
    raw = {"mcpServers": {n: server(tag, GATE=str(gate), NAME=n) for n in ("a", "b")}}

    async with experts_started(Context(mcp_config=raw), close=True):
        await (await registry_for(raw)).launched(timeout_s=60)
        running = await servers_running(tag, 2)

    assert len(running) == 2
    assert child_servers(tag) == set()


async def test_a_failed_background_start_is_reported_by_the_next_lookup(tag: str) -> None:
    reg = registry({"gone": {"command": "/nonexistent/server", "env": {TAG_VAR: tag}}}, None)

    reg.start_all()
    catalog = await reg.catalog(["gone"], cached_ok=True)

    assert isinstance(catalog["gone"], ExpertUnavailable)
    assert reg.state("gone").status == "unavailable"


def config(**fields: Any) -> ServerConfig:
    """A stdio server entry with `fields` over a fixed base."""
    base: dict[str, Any] = {"command": "srv", "args": ["--x"], "env": {"K": "v"}, "cwd": "/w"}
    return ServerConfig.model_validate({**base, **fields})


@pytest.mark.parametrize(
    "change",
    [
        {"command": "other"},
        {"args": ["--y"]},
        {"env": {"K": "w"}},
        {"cwd": "/elsewhere"},
    ],
)
def test_a_changed_launch_misses_the_cache(change: dict[str, Any], cache: ToolCache) -> None:
    cache.store(config(), [ghost_tool()])

    assert cache.load(config(**change)) is None
    assert cache_key(config(**change)) != cache_key(config())


def test_what_the_planner_is_told_does_not_change_the_key(cache: ToolCache) -> None:
    cache.store(config(), [ghost_tool()])

    remembered = cache.load(config(description="new words", trust_annotations=True))

    assert remembered is not None
    assert names(remembered) == ["ghost"]


def test_http_headers_are_part_of_the_key() -> None:
    one = ServerConfig(url="http://127.0.0.1:1/mcp", headers={"Authorization": "Bearer a"})
    two = ServerConfig(url="http://127.0.0.1:1/mcp", headers={"Authorization": "Bearer b"})

    assert cache_key(one) != cache_key(two)


def test_the_cache_holds_no_secret_in_clear(cache: ToolCache) -> None:
    secret = "s3cret-token-value"
    cfg = config(env={"API_TOKEN": secret}, headers={})

    cache.store(cfg, [ghost_tool()])

    files = list(cache.directory.iterdir())
    assert len(files) == 1
    assert secret not in files[0].name
    assert secret not in files[0].read_text()


def test_a_corrupt_entry_is_a_miss(cache: ToolCache) -> None:
    cache.store(config(), [ghost_tool()])
    (entry,) = cache.directory.iterdir()
    entry.write_text(json.dumps({"version": 1, "tools": [{"no": "name"}]}))

    assert cache.load(config()) is None
