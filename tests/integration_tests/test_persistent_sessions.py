"""Persistent stdio sessions: reused across runs, reopened after a crash, a clean environment."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from mcp.client.stdio import DEFAULT_INHERITED_ENV_VARS

from common.mcp import ExpertRegistry
from common.mcp.config import parse_mcp_config
from strategies.with_planner.graph import build_graph
from tests.bounds import HANG_GUARD_S
from tests.doubles import calls, tool_call
from tests.integration_tests.helpers import child_servers, pid_alive, pooled, tagged

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
DONE = {"completed": True, "reason": "The stock level is in the tool result."}
INTERPRETER_ADDED = {"LC_CTYPE"}
"""Set by the server's own interpreter (PEP 538 locale coercion), not inherited from us."""


def _registry(raw: dict[str, Any]) -> ExpertRegistry:
    return ExpertRegistry(parse_mcp_config(raw), startup_timeout_s=HANG_GUARD_S)


async def _stock_run(graph: Any, scripted: Any, raw: dict[str, Any], thread: str) -> dict[str, Any]:
    plan = {"plan": [{"id": "t1", "expert": "inventory", "task": "Stock of GAD-7?"}]}
    ctx, _ = scripted(
        planner=[plan],
        orchestrate=[calls(tool_call("get_stock", {"sku": "GAD-7"}))],
        assess=[DONE],
        response=["GAD-7: 14 in stock."],
    )
    ctx["mcp_config"] = raw
    config = {"configurable": {"thread_id": thread}}
    return dict(await graph.ainvoke({"messages": [("user", "GAD-7 stock?")]}, config, context=ctx))


async def test_two_runs_share_one_server_process(mcp_config: dict[str, Any], scripted: Any) -> None:
    raw, tag = tagged(mcp_config, "inventory")
    graph = build_graph(checkpointer=InMemorySaver())

    first = await _stock_run(graph, scripted, raw, f"a-{tag}")
    after_first = child_servers(tag)
    session = pooled(raw, "inventory")
    second = await _stock_run(graph, scripted, raw, f"b-{tag}")

    assert first["messages"][-1].content == second["messages"][-1].content == "GAD-7: 14 in stock."
    assert "14" in (second["previous_plan"][0]["result"] or "")
    assert len(after_first) == 1
    assert child_servers(tag) == after_first
    (pid,) = after_first
    assert pid_alive(pid)
    assert session is not None
    assert pooled(raw, "inventory") is session
    assert session.alive


async def test_crashed_server_is_reopened(mcp_config: dict[str, Any], workdir: Path) -> None:
    raw, tag = tagged(mcp_config, "testkit")
    registry = _registry(raw)
    before = await registry.call("testkit", "echo", {"text": "before"}, 10, True)
    assert before["content"] == "before"
    (old_pid,) = child_servers(tag)

    crash = await registry.call("testkit", "crash", {}, 10, retry_safe=False)
    echo = await registry.call("testkit", "echo", {"text": "after"}, 10, retry_safe=True)

    # The crash came while the call was on the server: whether it ran is unknown.
    assert crash["status"] == "interrupted"
    assert "testkit" in crash["content"]
    assert (echo["status"], echo["content"]) == ("ok", "after")
    (new_pid,) = child_servers(tag)
    assert new_pid != old_pid
    assert not pid_alive(old_pid)
    log = (workdir / "testkit.log").read_text().splitlines()
    assert log.count("crash") >= 1


async def _kill_idle_server(registry: ExpertRegistry, raw: dict[str, Any], tag: str) -> int:
    """Kill the idle server and wait until its pooled session has seen it die (not a sleep)."""
    assert (await registry.call("testkit", "echo", {"text": "x"}, 10, True))["status"] == "ok"
    (pid,) = child_servers(tag)
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + HANG_GUARD_S
    while pid_alive(pid) or ((session := pooled(raw, "testkit")) is not None and session.alive):
        assert time.monotonic() < deadline, "the session never saw its server die"
        await asyncio.sleep(0.05)
    return pid


async def test_server_killed_while_idle_is_reopened(mcp_config: dict[str, Any]) -> None:
    raw, tag = tagged(mcp_config, "testkit")
    registry = _registry(raw)
    old_pid = await _kill_idle_server(registry, raw, tag)

    echo = await registry.call("testkit", "echo", {"text": "again"}, 10, retry_safe=True)

    assert (echo["status"], echo["content"]) == ("ok", "again")
    assert child_servers(tag) - {old_pid} != set()


async def test_irreversible_call_after_idle_death_runs_once(mcp_config: dict[str, Any]) -> None:
    raw, tag = tagged(mcp_config, "testkit")
    registry = _registry(raw)
    await _kill_idle_server(registry, raw, tag)

    outcome = await registry.call("testkit", "send_message", {"to": "a", "text": "b"}, 10, False)

    assert (outcome["status"], outcome["content"]) == ("ok", "sent to a")


async def test_stdio_server_sees_only_its_configured_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-leak-test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "leak-test")
    marker = uuid.uuid4().hex
    raw = {
        "mcpServers": {
            "envdump": {
                "command": sys.executable,
                "args": [str(ROOT / "tests" / "servers" / "envdump.py")],
                "env": {"ENVDUMP_MARKER": marker},
            }
        }
    }
    registry = _registry(raw)

    outcome = await registry.call("envdump", "env_keys", {}, 10, retry_safe=True)

    assert outcome["status"] == "ok", outcome["content"]
    keys = set(outcome["structured"]["result"])
    assert os.environ["OPENAI_API_KEY"] == "sk-leak-test"
    assert "OPENAI_API_KEY" not in keys
    assert "AWS_SECRET_ACCESS_KEY" not in keys
    assert "ENVDUMP_MARKER" in keys
    assert keys <= {"ENVDUMP_MARKER", *DEFAULT_INHERITED_ENV_VARS, *INTERPRETER_ADDED}
    assert "sk-leak-test" not in outcome["content"]
