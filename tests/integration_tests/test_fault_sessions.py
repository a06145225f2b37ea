"""Faults on the MCP side: a server killed mid-call, a timed-out write, a server that never starts.

Each test bounds the time the user waits, and checks that nothing is lost or sent twice.
"""

from __future__ import annotations

import asyncio
import copy
import os
import signal
import sys
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore

from common.guardrails.config import GuardrailConfig
from common.mcp import ExpertRegistry, ExpertUnavailable, ToolOutcome
from common.mcp.config import parse_mcp_config
from common.mcp.registry import shutdown_pool
from common.safety.execution import CallLedger, CallSpec, refuse_before_call, run_once
from tests.bounds import HANG_GUARD_S, sooner_than
from tests.doubles import calls, tool_call
from tests.integration_tests.helpers import child_servers, pid_alive, tagged
from tests.unit_tests.helpers import Thread, done, plan, task

pytestmark = pytest.mark.integration

TOOL_TIMEOUT_S = 120.0
"""The tool timeout of the kill tests: a call the kill did not end would wait this long."""
SERVERS = Path(__file__).resolve().parents[1] / "servers"
BOUND_S = sooner_than(TOOL_TIMEOUT_S)
"""Every call in flight when the server dies ends within this: by the kill, not the timeout."""
WRITE_S = 10
"""How long the server's slow write takes: ten times the 1 s tool timeout that cuts it."""
STARTUP_S = 2
"""The startup timeout of the hanging server (five asks waiting their own would take 5 of them)."""
ASKS = 9
"""Calls the hanging-server test makes after its three other asks: twelve waits if each waited."""


def _faultkit_config(log: Path) -> tuple[dict[str, Any], str]:
    """An `mcpServers` document with a fresh fault-test server logging to `log`, and its tag."""
    server = {
        "command": sys.executable,
        "args": [str(SERVERS / "faultkit.py")],
        "env": {"FAULTKIT_LOG": str(log)},
    }
    return tagged({"mcpServers": {"faultkit": server}}, "faultkit")


def _faultkit(log: Path) -> tuple[ExpertRegistry, str]:
    """A registry over a fresh fault-test server process logging to `log`, and its process tag."""
    raw, tag = _faultkit_config(log)
    return ExpertRegistry(parse_mcp_config(raw), startup_timeout_s=HANG_GUARD_S), tag


def _lines(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


async def _until(check: Any, within_s: float = 60.0) -> None:
    """Wait until `check()` holds, polling; fails the test after `within_s` (only when broken)."""
    deadline = time.monotonic() + within_s
    while not check():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.05)


async def _kill(tag: str) -> int:
    (pid,) = child_servers(tag)
    os.kill(pid, signal.SIGKILL)
    await _until(lambda: not pid_alive(pid))
    return pid


async def _timed(calls: list[Awaitable[ToolOutcome]]) -> tuple[list[ToolOutcome], float]:
    start = time.monotonic()
    results = await asyncio.gather(*calls)
    return list(results), time.monotonic() - start


async def test_calls_in_flight_end_at_once_when_the_server_is_killed(
    tmp_path: Path,
) -> None:
    log = tmp_path / "kit.log"
    registry, tag = _faultkit(log)
    assert (await registry.call("faultkit", "echo", {"text": "up"}, 10, True))["status"] == "ok"
    reads = [
        registry.call(
            "faultkit", "stall_once", {"tag": f"r{i}", "seconds": 120}, TOOL_TIMEOUT_S, True
        )
        for i in range(10)
    ]
    writes = [
        registry.call(
            "faultkit", "slow_write", {"seconds": 120, "tag": f"w{i}"}, TOOL_TIMEOUT_S, False
        )
        for i in range(10)
    ]
    running = asyncio.ensure_future(_timed(reads + writes))
    await _until(
        lambda: len([x for x in _lines(log) if x.startswith(("stall", "slow_write"))]) == 20
    )
    killed_at = time.monotonic()
    old_pid = await _kill(tag)

    results, _ = await running
    elapsed = time.monotonic() - killed_at

    assert elapsed < BOUND_S
    read_results, write_results = results[:10], results[10:]
    # Reads are retried once on a fresh session, which answers them.
    assert [r["status"] for r in read_results] == ["ok"] * 10, [r["content"] for r in read_results]
    assert child_servers(tag) - {old_pid}
    # Writes may have reached the server: reported as unknown, never resent.
    for r in write_results:
        assert r["status"] == "interrupted"
        assert "may have taken effect" in r["content"]
    lines = _lines(log)
    for i in range(10):
        assert lines.count(f"slow_write start w{i}") == 1
    await shutdown_pool()


async def test_thirty_concurrent_calls_survive_a_kill_within_seconds(
    tmp_path: Path,
) -> None:
    log = tmp_path / "kit.log"
    registry, tag = _faultkit(log)
    calls = [
        registry.call(
            "faultkit", "stall_once", {"tag": f"t{i}", "seconds": 120}, TOOL_TIMEOUT_S, True
        )
        for i in range(30)
    ]
    running = asyncio.ensure_future(_timed(calls))
    await _until(lambda: len(_lines(log)) == 30)
    killed_at = time.monotonic()
    await _kill(tag)

    results, _ = await running

    assert time.monotonic() - killed_at < BOUND_S
    assert [r["content"] for r in results] == [f"answered t{i}" for i in range(30)]
    assert len(child_servers(tag)) == 1
    await shutdown_pool()
    assert child_servers(tag) == set()


def _write_spec(tag: str, timeout_s: float) -> CallSpec:
    return CallSpec(
        key=f"call-{tag}",
        expert="faultkit",
        name="slow_write",
        args={"seconds": WRITE_S, "tag": tag},
        gated=True,
        timeout_s=timeout_s,
        guardrails=GuardrailConfig(),
    )


async def test_a_timed_out_write_is_cancelled_recorded_unknown_and_never_resent(
    tmp_path: Path,
) -> None:
    log = tmp_path / "kit.log"
    registry, _ = _faultkit(log)
    ledger = CallLedger(InMemoryStore(), "thread-timeout")
    spec = _write_spec("once", timeout_s=1)

    first = await run_once(ledger, spec, registry)
    # Read at once: a call that waited for the write's end would find it logged.
    cut = _lines(log)
    again = await run_once(ledger, spec, registry)

    assert "slow_write start once" in cut
    assert "slow_write done once" not in cut, "cut by the 1 s timeout, not the write's end"
    assert first["status"] == "interrupted"
    assert "did not answer within 1s" in first["content"]
    assert "may have taken effect" in first["content"]
    assert again == first
    item = await ledger.store.aget(ledger.namespace, spec.key)
    assert item is not None
    assert item.value["state"] == "unknown"
    await _until(lambda: "slow_write cancelled once" in _lines(log))
    # The cut came at least 1 s after the write began: by now a write not cancelled is done.
    await asyncio.sleep(WRITE_S - 0.5)
    lines = _lines(log)
    assert lines.count("slow_write start once") == 1
    assert "slow_write done once" not in lines
    await shutdown_pool()


async def test_an_approved_write_that_times_out_is_reported_as_maybe_done(
    scripted: Any, tmp_path: Path
) -> None:
    log = tmp_path / "kit.log"
    raw, _ = _faultkit_config(log)
    ctx, _ = scripted(
        planner=[plan(task("t1", "faultkit", "write the record"))],
        orchestrate=[
            calls(tool_call("slow_write", {"seconds": WRITE_S, "tag": "g"}, call_id="w-1")),
            "The write timed out.",
        ],
        assess=[done()],
        response=["Done."],
    )
    ctx["mcp_config"] = raw
    ctx["tool_timeout_s"] = 1
    thread = Thread(ctx)
    await thread.send("Write the record")
    assert await thread.interrupts()

    await thread.resume({"decisions": [{"type": "approve"}]})
    cut = _lines(log)

    assert "slow_write start g" in cut
    assert "slow_write done g" not in cut, "cut by the 1 s timeout, not the write's end"
    (reply,) = await thread.tool_messages()
    assert "did not answer within 1s" in str(reply.content)
    assert "may have taken effect" in str(reply.content)
    answer = str((await thread.answer()).content)
    assert "may have happened" in answer
    assert "slow_write" in answer
    await _until(lambda: "slow_write cancelled g" in _lines(log))
    # The cut came at least 1 s after the write began: by now a write not cancelled is done.
    await asyncio.sleep(WRITE_S - 0.5)
    lines = _lines(log)
    assert lines.count("slow_write start g") == 1
    assert "slow_write done g" not in lines
    await shutdown_pool()


async def test_a_timed_out_read_is_cancelled_on_the_server_and_stays_a_timeout(
    tmp_path: Path,
) -> None:
    log = tmp_path / "kit.log"
    registry, _ = _faultkit(log)

    result = await registry.call("faultkit", "stall_once", {"tag": "r", "seconds": 30}, 1, True)
    echo = await registry.call("faultkit", "echo", {"text": "still here"}, 10, True)

    assert result["status"] == "timeout"
    assert (echo["status"], echo["content"]) == ("ok", "still here")
    await shutdown_pool()


def _hanging(tmp_path: Path, startup_timeout_s: float) -> tuple[ExpertRegistry, Path]:
    """A server that starts (logging each start) but never answers initialize."""
    starts = tmp_path / "starts.log"
    code = (
        "import sys, time; open(sys.argv[1], 'a').write('start\\n'); "
        "sys.stderr.write('warming up forever\\n'); sys.stderr.flush(); time.sleep(600)"
    )
    raw = {"mcpServers": {"stuck": {"command": sys.executable, "args": ["-c", code, str(starts)]}}}
    return ExpertRegistry(parse_mcp_config(raw), startup_timeout_s=startup_timeout_s), starts


async def test_a_server_hanging_at_initialize_costs_one_startup_timeout_per_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry, starts = _hanging(tmp_path, startup_timeout_s=STARTUP_S)
    # The cooldown's clock stands still: however slow the machine, the turn ends inside it.
    frozen = time.monotonic()
    monkeypatch.setattr("common.mcp.session.now", lambda: frozen)
    spec = CallSpec("k", "stuck", "anything", {}, True, 5, GuardrailConfig())

    start = time.monotonic()
    # What one turn asks of it: the planner's catalog, the guard's tools, then each call.
    catalog = await registry.catalog(["stuck"])
    with pytest.raises(ExpertUnavailable) as guard:
        await registry.tools("stuck")
    refused = await refuse_before_call(spec, registry)
    calls = [await registry.call("stuck", "anything", {}, 5, retry_safe=True) for _ in range(ASKS)]
    took = time.monotonic() - start

    # One wait per ask would take (3 + ASKS) startup waits: far from the one this takes.
    assert took < sooner_than((3 + ASKS) * STARTUP_S), "one startup wait, not one per ask"
    assert starts.read_text().splitlines() == ["start"]
    first = catalog["stuck"]
    assert isinstance(first, ExpertUnavailable)
    assert f"no answer to its first requests within {STARTUP_S}s" in str(first)
    assert first.retry_in_s == 5
    assert f"no answer to its first requests within {STARTUP_S}s" in str(guard.value)
    assert refused is None
    for result in calls:
        assert result["status"] == "unavailable"
        assert "no answer to its first requests" in result["content"]
        # The cached reason quotes the one start's stderr once.
        assert result["content"].count("warming up forever") == 1
    state = registry.state("stuck")
    assert (state.status, state.retry_in_s) == ("unavailable", 5)
    assert "no answer to its first requests" in state.reason
    await shutdown_pool()


async def test_after_the_cooldown_it_is_started_again_with_a_longer_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry, starts = _hanging(tmp_path, startup_timeout_s=STARTUP_S)
    now = [time.monotonic()]
    monkeypatch.setattr("common.mcp.session.now", lambda: now[0])

    with pytest.raises(ExpertUnavailable):
        await registry.tools("stuck")
    now[0] += 5.1
    with pytest.raises(ExpertUnavailable) as second:
        await registry.tools("stuck")

    assert starts.read_text().splitlines() == ["start", "start"]
    assert second.value.retry_in_s == 10
    # Stderr is per start: the second failure quotes only its own start.
    assert str(second.value).count("warming up forever") == 1
    await shutdown_pool()


def test_the_tools_command_names_the_failure_not_a_retry_wait(
    mcp_config: dict[str, Any], tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from strategies.cli.app import app

    config = copy.deepcopy(mcp_config)
    crash = "import sys; sys.stderr.write('kaput'); sys.exit(3)"
    config["mcpServers"] = {"broken": {"command": sys.executable, "args": ["-c", crash]}}
    path = tmp_path / "mcp.json"
    path.write_text(__import__("json").dumps(config))

    result = CliRunner().invoke(app, ["tools", "--config", str(path)])

    assert result.exit_code == 1
    stderr = " ".join(result.stderr.split())
    assert "Expert 'broken' is unavailable" in stderr
    assert "kaput" in stderr
    # The command ends long before the next start: "next start in 5s" would mean nothing.
    assert "next start" not in stderr
