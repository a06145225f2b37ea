"""`langgraph dev` serving `with_planner`, driven with langgraph-sdk (offline:rules, no key)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_client

from common.safety.approval import REFUSED_ANSWER

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
async def dev_client(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Any]:
    """A dev server on a free loopback port (no browser, no reload, no blocking-call escape)."""
    cli = shutil.which("langgraph", path=str(Path(sys.executable).parent))
    assert cli, "langgraph-cli[inmem] is a dev dependency"
    port = _free_port()
    log = tmp_path_factory.mktemp("dev") / "server.log"
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    with log.open("w") as out:
        proc = subprocess.Popen(
            [cli, "dev", "--no-browser", "--no-reload", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    client = get_client(url=f"http://127.0.0.1:{port}")
    try:
        for _ in range(120):
            if proc.poll() is not None:
                pytest.fail(f"dev server exited:\n{log.read_text()[-3000:]}")
            try:
                async with asyncio.timeout(2):
                    await client.assistants.search()
                break
            except Exception:
                await asyncio.sleep(0.5)
        else:
            pytest.fail(f"dev server did not start:\n{log.read_text()[-3000:]}")
        yield client
    finally:
        proc.terminate()
        proc.wait(15)
        assert "BlockingError" not in log.read_text(), log.read_text()[-3000:]


STOCK = "How many units of GAD-7 are in stock"


def _context(mcp_config: dict[str, Any]) -> dict[str, Any]:
    servers = {k: mcp_config["mcpServers"][k] for k in ("inventory", "notes")}
    return {"mcp_config": {"mcpServers": servers}, "model": "offline:rules"}


async def test_stream_interrupt_resume_and_final_state(
    dev_client: Any, mcp_config: dict[str, Any], workdir: Path
) -> None:
    ctx = _context(mcp_config)
    thread = await dev_client.threads.create()
    request = 'How many units of GAD-7 are in stock, then write a note titled "via-sdk"'
    events: list[tuple[str, Any]] = []
    async for part in dev_client.runs.stream(
        thread["thread_id"],
        "with_planner",
        input={"messages": [{"role": "user", "content": request}]},
        context=ctx,
        stream_mode=["updates", "custom"],
    ):
        events.append((part.event, part.data))
    custom = [d["event"] for e, d in events if e == "custom"]
    assert {"plan", "guard", "task_start", "task_end"} <= set(custom)
    state = await dev_client.threads.get_state(thread["thread_id"])
    (interrupt,) = [i for t in state["tasks"] for i in t["interrupts"]]
    (action,) = interrupt["value"]["action_requests"]
    assert action["name"] == "write_note"
    assert interrupt["value"]["review_configs"][0]["allowed_decisions"] == [
        "approve",
        "edit",
        "reject",
    ]

    await dev_client.runs.wait(
        thread["thread_id"],
        "with_planner",
        command={"resume": {"decisions": [{"type": "approve"}]}},
        context=ctx,
    )

    final = await dev_client.threads.get_state(thread["thread_id"])
    statuses = [t["status"] for t in final["values"]["previous_plan"]]
    assert statuses == ["completed", "completed"]
    assert '"stock": 14' in json.loads((workdir / "notes.json").read_text())["via-sdk"]


def _tagged_processes(tag: str) -> set[int]:
    """Pids of live processes (any parent) started with PLANNER_TEST_TAG=tag."""
    found = set()
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                environ = (proc / "environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if f"PLANNER_TEST_TAG={tag}".encode() in environ:
                found.add(int(proc.name))
    return found


async def test_ten_threads_at_once_share_one_server_process(
    dev_client: Any, mcp_config: dict[str, Any]
) -> None:
    ctx = _context(mcp_config)
    tag = os.urandom(6).hex()
    inventory = ctx["mcp_config"]["mcpServers"]["inventory"]
    inventory["env"] = {**inventory.get("env", {}), "PLANNER_TEST_TAG": tag}
    threads = [await dev_client.threads.create() for _ in range(10)]

    async def ask(thread: dict[str, Any]) -> Any:
        return await dev_client.runs.wait(
            thread["thread_id"],
            "with_planner",
            input={"messages": [{"role": "user", "content": "How many units of WID-1 in stock"}]},
            context=ctx,
        )

    results = await asyncio.gather(*(ask(t) for t in threads))
    # One persistent session in the server's process-wide pool served every run.
    assert len(_tagged_processes(tag)) == 1
    for result in results:
        (task,) = result["previous_plan"]
        assert task["status"] == "completed"
        assert '"stock": 120' in task["result"]


@pytest.mark.parametrize("mode", ["Interrupt", "bogus", "plan-only", ""])
async def test_an_unknown_approval_mode_from_the_sdk_refuses_the_run(
    dev_client: Any, mcp_config: dict[str, Any], workdir: Path, mode: str
) -> None:
    ctx = {**_context(mcp_config), "approval_mode": mode}
    thread = await dev_client.threads.create()
    title = f"sdk-mode-{os.urandom(4).hex()}"
    request = f'{STOCK}, then write a note titled "{title}"'
    run = await dev_client.runs.create(
        thread["thread_id"],
        "with_planner",
        input={"messages": [{"role": "user", "content": request}]},
        context=ctx,
    )
    await dev_client.runs.join(thread["thread_id"], run["run_id"])
    finished = await dev_client.runs.get(thread["thread_id"], run["run_id"])
    assert finished["status"] == "error"
    state = await dev_client.threads.get_state(thread["thread_id"])
    # Refused before the planner: no plan, no interrupt, and the note was never written.
    assert not state["values"].get("plan")
    assert not [i for t in state["tasks"] for i in t["interrupts"]]
    notes = workdir / "notes.json"
    assert title not in (notes.read_text() if notes.exists() else "")


async def test_a_resume_without_context_keeps_the_runs_settings(
    dev_client: Any, mcp_config: dict[str, Any], workdir: Path
) -> None:
    ctx = _context(mcp_config)
    thread = await dev_client.threads.create()
    title = f"sdk-resume-{os.urandom(4).hex()}"
    await dev_client.runs.wait(
        thread["thread_id"],
        "with_planner",
        input={
            "messages": [
                {"role": "user", "content": f'{STOCK}, then write a note titled "{title}"'}
            ]
        },
        context=ctx,
    )
    state = await dev_client.threads.get_state(thread["thread_id"])
    assert [i for t in state["tasks"] for i in t["interrupts"]]
    # No context now: the server's defaults (MCP_CONFIG file, default model) must not take over.
    await dev_client.runs.wait(
        thread["thread_id"],
        "with_planner",
        command={"resume": {"decisions": [{"type": "approve"}]}},
    )
    final = await dev_client.threads.get_state(thread["thread_id"])
    assert [t["status"] for t in final["values"]["previous_plan"]] == ["completed", "completed"]
    assert title in json.loads((workdir / "notes.json").read_text())


async def test_without_a_key_the_server_falls_back_to_offline_rules(
    dev_client: Any, mcp_config: dict[str, Any]
) -> None:
    servers = {"inventory": mcp_config["mcpServers"]["inventory"]}
    thread = await dev_client.threads.create()
    result = await dev_client.runs.wait(
        thread["thread_id"],
        "with_planner",
        input={"messages": [{"role": "user", "content": "How many units of WID-1 are in stock"}]},
        context={"mcp_config": {"mcpServers": servers}},
    )
    answer = result["messages"][-1]["content"]
    assert "offline:rules" in answer
    assert "WID-1" in answer
    assert result["report"]["ok"] is True


async def _paused_note(dev_client: Any, ctx: dict[str, Any], prefix: str) -> tuple[str, str]:
    """A new thread waiting for approval of a note; its id and the note's title."""
    thread = await dev_client.threads.create()
    title = f"{prefix}-{os.urandom(4).hex()}"
    request = f'{STOCK}, then write a note titled "{title}"'
    await dev_client.runs.wait(
        thread["thread_id"],
        "with_planner",
        input={"messages": [{"role": "user", "content": request}]},
        context=ctx,
    )
    return thread["thread_id"], title


async def _pending_note(dev_client: Any, thread_id: str) -> dict[str, Any]:
    """The one approval request the thread waits on; it must still be the note."""
    state = await dev_client.threads.get_state(thread_id)
    (interrupt,) = [i for t in state["tasks"] for i in t["interrupts"]]
    assert interrupt["value"]["action_requests"][0]["name"] == "write_note"
    return dict(interrupt["value"])


async def _approve_and_check(
    dev_client: Any, ctx: dict[str, Any], thread_id: str, title: str, workdir: Path
) -> None:
    """Nothing was written before; the next valid answer writes the note."""
    notes = workdir / "notes.json"
    assert title not in (notes.read_text() if notes.exists() else "")
    await dev_client.runs.wait(
        thread_id, "with_planner", command={"resume": APPROVE_ALL}, context=ctx
    )
    assert title in json.loads(notes.read_text())


APPROVE_ALL = {"decisions": [{"type": "approve"}]}


@pytest.mark.parametrize("how", ["null-over-http", "unknown-interrupt-id"])
async def test_an_unusable_resume_runs_nothing_and_asks_again_saying_why(
    dev_client: Any, mcp_config: dict[str, Any], workdir: Path, how: str
) -> None:
    # LangGraph itself crashes on `resume: null` and ignores answers to ids that are not
    # waiting; through the server both must reach the question as a refusal saying why.
    ctx = _context(mcp_config)
    thread_id, title = await _paused_note(dev_client, ctx, "bad-resume")

    if how == "null-over-http":
        # Raw HTTP: langgraph-sdk drops a None resume before sending (see the next test).
        body = {"assistant_id": "with_planner", "command": {"resume": None}, "context": ctx}
        result = await dev_client.http.post(f"/threads/{thread_id}/runs/wait", json=body)
    else:
        command = {"resume": {"0" * 32: APPROVE_ALL}}
        result = await dev_client.runs.wait(thread_id, "with_planner", command=command, context=ctx)

    assert "__error__" not in result, result
    assert (await _pending_note(dev_client, thread_id))["error"].startswith(REFUSED_ANSWER)
    await _approve_and_check(dev_client, ctx, thread_id, title, workdir)


async def test_a_none_resume_from_the_sdk_continues_and_the_question_stays(
    dev_client: Any, mcp_config: dict[str, Any], workdir: Path
) -> None:
    # langgraph-sdk sends no command for `{"resume": None}`: the run just continues, which on a
    # waiting thread asks the same question again. Nothing runs.
    ctx = _context(mcp_config)
    thread_id, title = await _paused_note(dev_client, ctx, "sdk-none")

    result = await dev_client.runs.wait(
        thread_id, "with_planner", command={"resume": None}, context=ctx
    )

    assert "__error__" not in result, result
    await _pending_note(dev_client, thread_id)
    await _approve_and_check(dev_client, ctx, thread_id, title, workdir)
