"""`with_planner` on several Aegra instances sharing PostgreSQL and Redis (offline:rules, no key).

Runs are created on one instance and executed by whichever instance's worker takes them from
the shared queue; approvals are resumed on the other instance; an instance is SIGKILLed while
its worker is inside a tool call, and the other instance finishes the run. Writes are counted in
the servers' own logs (NOTES_LOG, SLOW_LOG: one line per execution), not in the notes file.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.schema import Command

from common.safety.execution import CallLedger
from strategies.with_planner.nodes.respond import UNKNOWN_HEADING
from tests.integration_tests.aegra import (
    FAST_RECOVERY,
    AegraCluster,
    Instance,
    aegra_cluster,
    descendants,
    interrupts_of,
)
from tests.integration_tests.helpers import TAG_VAR, pid_alive
from tests.integration_tests.test_mcp_tasks import serving_tasks

pytestmark = [pytest.mark.integration, pytest.mark.long_file]

ROOT = Path(__file__).resolve().parents[2]
GRAPH = "with_planner"
STOCK = "How many units of GAD-7 are in stock"
APPROVE: Command = {"resume": {"decisions": [{"type": "approve"}]}}
TERMINAL = ("success", "error", "interrupted", "timeout")


def _context(mcp_config: dict[str, Any], tag: str, **extra: dict[str, Any]) -> dict[str, Any]:
    """A run context: inventory and notes (plus `extra` servers), every server tagged `tag`."""
    servers = copy.deepcopy({k: mcp_config["mcpServers"][k] for k in ("inventory", "notes")})
    servers.update(copy.deepcopy(extra))
    for entry in servers.values():
        entry["env"] = {**entry.get("env", {}), TAG_VAR: tag}
    return {"mcp_config": {"mcpServers": servers}, "model": "offline:rules"}


def _slowkit(log: Path, read_s: float = 6, write_s: float = 6) -> dict[str, Any]:
    """The slow read/write server of tests/servers/slow_write.py, logging to `log`."""
    return {
        "slowkit": {
            "command": sys.executable,
            "args": [str(ROOT / "tests" / "servers" / "slow_write.py")],
            "env": {"SLOW_LOG": str(log), "SLOW_READ_S": str(read_s), "SLOW_WRITE_S": str(write_s)},
            "description": "Slow test tools.",
        }
    }


def _tagged(tag: str) -> set[int]:
    """Live processes (any parent) started with `TAG_VAR=tag`."""
    found = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            environ = (proc / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"{TAG_VAR}={tag}".encode() in environ and pid_alive(int(proc.name)):
            found.add(int(proc.name))
    return found


def _servers_of(instance: Instance, tag: str) -> set[int]:
    """The tagged MCP server processes `instance` started."""
    assert instance.proc is not None
    return _tagged(tag) & descendants(instance.proc.pid)


def _owner(cluster: AegraCluster, pid: int) -> Instance:
    """The running instance whose process tree holds `pid`."""
    for instance in cluster.instances:
        if instance.proc is not None and pid in descendants(instance.proc.pid):
            return instance
    raise AssertionError(f"process {pid} belongs to no running instance")


def _executors(cluster: AegraCluster, run_id: str) -> list[str]:
    """The instances whose worker picked up `run_id`, from their logs."""
    picked = [
        i.name
        for i in cluster.instances
        for line in i.tail(10**7).splitlines()
        if "Worker picked up run" in line and run_id in line
    ]
    return picked


def _lines(log: Path, word: str, key: str) -> list[list[str]]:
    """The log's lines `<...> word key <...>`, split into words."""
    text = log.read_text() if log.exists() else ""
    return [w for w in (line.split() for line in text.splitlines()) if _says(w, word, key)]


def _says(words: list[str], word: str, key: str) -> bool:
    """Whether `word` is followed by `key` among `words`."""
    return any(w == word and nxt == key for w, nxt in itertools.pairwise(words))


def _ledger(cluster: AegraCluster, thread_id: str) -> list[dict[str, Any]]:
    """The thread's call ledger entries, read from the cluster's PostgreSQL store table."""
    import psycopg

    with psycopg.connect(cluster.database_url) as conn:
        rows = conn.execute(
            "SELECT value FROM store WHERE prefix = %s",
            (".".join(CallLedger(None, thread_id).namespace),),
        ).fetchall()
    return [row[0] for row in rows]


async def _until(check: Callable[[], Awaitable[Any]], within_s: float, what: str) -> Any:
    """Poll `check` until it returns something truthy; fail with `what` after `within_s`."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        found = await check()
        if found:
            return found
        await asyncio.sleep(0.2)
    raise AssertionError(f"not within {within_s}s: {what}")


async def _orphans_gone(survivor: Instance, tag: str) -> None:
    """The killed instance's MCP servers end once their client is gone.

    Not at once: a 2.x SDK server that sees its stdin close finishes the request it is running
    (here the 6 s read) before it exits; a server that outlived that would be an orphan.
    """

    async def gone() -> bool:
        return not _tagged(tag) - _servers_of(survivor, tag)

    await _until(gone, 30, "the killed instance's MCP servers ended")


async def _finished(client: Any, thread_id: str, run_id: str, within_s: float) -> dict[str, Any]:
    """The run once it is in a terminal status (polled: its instance may have died)."""

    async def done() -> dict[str, Any] | None:
        run: dict[str, Any] = await client.runs.get(thread_id, run_id)
        return run if run["status"] in TERMINAL else None

    result: dict[str, Any] = await _until(done, within_s, f"run {run_id} finished")
    return result


async def _paused(client: Any, ctx: dict[str, Any], request: str) -> tuple[str, str]:
    """A new thread on `client`'s instance whose first run waits for approval; its ids."""
    thread = await client.threads.create()
    run = await client.runs.create(
        thread["thread_id"],
        GRAPH,
        input={"messages": [{"role": "user", "content": request}]},
        context=ctx,
    )
    await client.runs.join(thread["thread_id"], run["run_id"])
    finished = await client.runs.get(thread["thread_id"], run["run_id"])
    assert finished["status"] == "interrupted", finished
    return thread["thread_id"], run["run_id"]


async def _pending_action(client: Any, thread_id: str) -> str:
    """The name of the one call the thread waits to have approved."""
    (interrupt,) = interrupts_of(await client.threads.get_state(thread_id))
    (action,) = interrupt["value"]["action_requests"]
    return str(action["name"])


async def _statuses(client: Any, thread_id: str) -> list[str]:
    """The statuses of the thread's last plan."""
    state = await client.threads.get_state(thread_id)
    return [t["status"] for t in state["values"]["previous_plan"]]


async def _answer(client: Any, thread_id: str) -> str:
    """The thread's last message."""
    state = await client.threads.get_state(thread_id)
    return str(state["values"]["messages"][-1]["content"])


def _assert_no_leftovers(tag: str) -> None:
    """No process started for this test is still running."""
    assert not _tagged(tag), f"MCP servers left running: {_tagged(tag)}"


async def test_two_instances_share_threads_and_approvals(
    tmp_path: Path, mcp_config: dict[str, Any], workdir: Path
) -> None:
    started = time.monotonic()
    notes_log = workdir / "notes.log"
    tag = uuid.uuid4().hex[:12]
    ctx = _context(mcp_config, tag)
    async with aegra_cluster(tmp_path) as cluster:
        a, b = await cluster.add(), await cluster.add()
        clients = [get_client(url=a.url), get_client(url=b.url)]
        ready = time.monotonic()

        async def one(i: int) -> tuple[str, list[str]]:
            here, there = clients[i % 2], clients[(i + 1) % 2]
            title = f"cluster-{i}-{uuid.uuid4().hex[:6]}"
            request = f'{STOCK}, then write a note titled "{title}"'
            thread_id, first = await _paused(here, ctx, request)
            assert await _pending_action(there, thread_id) == "write_note"
            approved_at = datetime.now().astimezone()
            # Nothing was written before the approval.
            assert _lines(notes_log, "write", title) == []
            run = await there.runs.create(thread_id, GRAPH, command=APPROVE, context=ctx)
            await there.runs.join(thread_id, run["run_id"])
            assert (await here.runs.get(thread_id, run["run_id"]))["status"] == "success"
            assert await _statuses(here, thread_id) == ["completed", "completed"]
            (line,) = _lines(notes_log, "write", title)
            assert datetime.fromisoformat(line[0]) >= approved_at
            return title, [*_executors(cluster, first), *_executors(cluster, run["run_id"])]

        done = await asyncio.gather(*(one(i) for i in range(10)))
        finished = time.monotonic()
        executed = [name for _, names in done for name in names]
        # Each run was executed once, by one instance, and both instances did work.
        assert len(executed) == 20
        assert {a.name, b.name} == set(executed)
        servers_a, servers_b = _servers_of(a, tag), _servers_of(b, tag)
        # Each instance runs its own MCP servers: one process per server, none shared.
        assert len(servers_a) == len(servers_b) == 2
        assert not servers_a & servers_b
        assert _tagged(tag) == servers_a | servers_b
    _assert_no_leftovers(tag)
    print(
        f"\n10 threads, 2 instances: start {ready - started:.1f}s, 20 runs "
        f"{finished - ready:.1f}s ({executed.count(a.name)} on {a.name}, "
        f"{executed.count(b.name)} on {b.name})"
    )


async def _killed_mid_call(
    cluster: AegraCluster, log: Path, word: str, key: str
) -> tuple[Instance, Instance, float]:
    """Wait for the `word key` call to reach its server, SIGKILL the instance running it.

    Returns the killed instance, the other one, and when it was killed.
    """

    async def arrived() -> list[list[str]]:
        return _lines(log, word, key)

    (line,) = await _until(arrived, 60, f"{word} {key} reached its server")
    victim = _owner(cluster, int(line[-1]))
    (survivor,) = [i for i in cluster.instances if i is not victim]
    victim.kill()
    return victim, survivor, time.monotonic()


async def test_a_run_killed_mid_read_is_finished_by_the_other_instance(
    tmp_path: Path, mcp_config: dict[str, Any]
) -> None:
    slow_log = tmp_path / "slow.log"
    tag = uuid.uuid4().hex[:12]
    ctx = _context(mcp_config, tag, **_slowkit(slow_log, read_s=6))
    key = f"read-{uuid.uuid4().hex[:6]}"
    async with aegra_cluster(tmp_path, **FAST_RECOVERY) as cluster:
        a = await cluster.add()
        await cluster.add()
        client = get_client(url=a.url)
        thread = await client.threads.create()
        thread_id = thread["thread_id"]
        request: dict[str, Any] = {
            "messages": [{"role": "user", "content": f'slow read key="{key}"'}]
        }
        run = await client.runs.create(thread_id, GRAPH, input=request, context=ctx)
        victim, survivor, killed = await _killed_mid_call(cluster, slow_log, "read", key)
        assert _executors(cluster, run["run_id"]) == [victim.name]
        await _orphans_gone(survivor, tag)
        other = get_client(url=survivor.url)
        finished = await _finished(other, thread_id, run["run_id"], within_s=120)
        recovery = time.monotonic() - killed
        print(
            f"\nkilled mid read: {victim.name} killed -> run success on {survivor.name} "
            f"in {recovery:.1f}s (lease 15 s, reaper 5 s, read 6 s)"
        )
        assert finished["status"] == "success"
        assert sorted(_executors(cluster, run["run_id"])) == sorted([victim.name, survivor.name])
        # The read was sent again, by the survivor's own server process.
        first, again = _lines(slow_log, "read", key)
        assert int(again[-1]) in _servers_of(survivor, tag)
        assert first[-1] != again[-1]
        assert await _statuses(other, thread_id) == ["completed"]
        assert f"value of {key}" in await _answer(other, thread_id)
        # The retried run did not add the request (nor the plan's line) a second time.
        state: Any = await other.threads.get_state(thread_id)
        assert [m["type"] for m in state["values"]["messages"]] == ["human", "ai", "ai"]
        assert state["values"]["messages"][1]["content"].startswith("Plan: ")
    _assert_no_leftovers(tag)


async def test_an_approved_write_cut_off_by_a_killed_instance_is_never_sent_again(
    tmp_path: Path, mcp_config: dict[str, Any]
) -> None:
    slow_log = tmp_path / "slow.log"
    tag = uuid.uuid4().hex[:12]
    ctx = _context(mcp_config, tag, **_slowkit(slow_log, write_s=8))
    key = f"write-{uuid.uuid4().hex[:6]}"
    async with aegra_cluster(tmp_path, **FAST_RECOVERY) as cluster:
        a, b = await cluster.add(), await cluster.add()
        client_a, client_b = get_client(url=a.url), get_client(url=b.url)
        thread_id, _ = await _paused(client_a, ctx, f'slow write key="{key}"')
        assert await _pending_action(client_b, thread_id) == "slow_write"
        assert _lines(slow_log, "write", key) == []
        run = await client_b.runs.create(thread_id, GRAPH, command=APPROVE, context=ctx)
        victim, survivor, killed = await _killed_mid_call(cluster, slow_log, "write", key)
        other = get_client(url=survivor.url)
        finished = await _finished(other, thread_id, run["run_id"], within_s=120)
        recovery = time.monotonic() - killed
        print(
            f"\nkilled mid write: {victim.name} killed -> run success on {survivor.name} "
            f"in {recovery:.1f}s"
        )
        assert finished["status"] == "success"
        assert sorted(_executors(cluster, run["run_id"])) == sorted([victim.name, survivor.name])
        # Sent once, cut off before it landed, and not sent again by the survivor.
        assert len(_lines(slow_log, "write", key)) == 1
        assert _lines(slow_log, "wrote", key) == []
        answer = await _answer(other, thread_id)
        assert UNKNOWN_HEADING in answer
        assert "slow_write" in answer
        # The killed instance's "started" entry, in the PostgreSQL store both instances share,
        # is what the survivor found: it reported the call instead of sending it.
        (entry,) = _ledger(cluster, thread_id)
        assert (entry["state"], entry["name"], entry["args"]) == (
            "started",
            "slow_write",
            {"key": key},
        )
    _assert_no_leftovers(tag)


async def test_an_approved_call_that_became_a_task_is_polled_not_resent_by_the_survivor(
    tmp_path: Path, mcp_config: dict[str, Any]
) -> None:
    """The Tasks extension across instances: the task's id, kept in the shared store before the
    first poll, is what the surviving instance polls after the first one is killed."""
    tag, order = uuid.uuid4().hex[:12], f"O-{uuid.uuid4().hex[:6]}"
    ctx = _context(mcp_config, tag)
    with serving_tasks(tmp_path, sleep_s=4) as server:
        ctx["mcp_config"]["mcpServers"]["shop"] = server.config()["mcpServers"]["shop"]
        async with aegra_cluster(tmp_path, **FAST_RECOVERY) as cluster:
            a, b = await cluster.add(), await cluster.add()
            client_a, client_b = get_client(url=a.url), get_client(url=b.url)
            thread_id, _ = await _paused(client_a, ctx, f"ship order order={order}")
            assert await _pending_action(client_b, thread_id) == "ship_order"
            run = await client_b.runs.create(thread_id, GRAPH, command=APPROVE, context=ctx)

            async def kept() -> list[dict[str, Any]]:
                return [e for e in _ledger(cluster, thread_id) if e.get("state") == "task"]

            await _until(kept, 60, "the task's id was kept in the store")
            (name,) = _executors(cluster, run["run_id"])
            (victim,) = [i for i in cluster.instances if i.name == name]
            (survivor,) = [i for i in cluster.instances if i is not victim]
            victim.kill()
            other = get_client(url=survivor.url)
            finished = await _finished(other, thread_id, run["run_id"], within_s=120)

            assert finished["status"] == "success"
            assert server.shipments().count(order) == 1
            (entry,) = _ledger(cluster, thread_id)
            assert entry["state"] == "done"
            assert f"order {order} shipped" in json.dumps(entry["record"])
    _assert_no_leftovers(tag)


async def test_a_thread_waiting_for_approval_survives_restarting_every_instance(
    tmp_path: Path, mcp_config: dict[str, Any], workdir: Path
) -> None:
    notes_log = workdir / "notes.log"
    tag = uuid.uuid4().hex[:12]
    ctx = _context(mcp_config, tag)
    title = f"restart-{uuid.uuid4().hex[:6]}"
    async with aegra_cluster(tmp_path) as cluster:
        a, b = await cluster.add(), await cluster.add()
        request = f'{STOCK}, then write a note titled "{title}"'
        thread_id, _ = await _paused(get_client(url=a.url), ctx, request)
        a.stop()
        b.stop()
        assert not _tagged(tag), "MCP servers outlived their instance"
        restarting = time.monotonic()
        await cluster.restart(a)
        await cluster.restart(b)
        print(f"\nboth instances restarted in {time.monotonic() - restarting:.1f}s")
        client_b = get_client(url=b.url)
        assert await _pending_action(client_b, thread_id) == "write_note"
        assert _lines(notes_log, "write", title) == []
        run = await client_b.runs.create(thread_id, GRAPH, command=APPROVE, context=ctx)
        await client_b.runs.join(thread_id, run["run_id"])
        assert (await client_b.runs.get(thread_id, run["run_id"]))["status"] == "success"
        assert await _statuses(get_client(url=a.url), thread_id) == ["completed", "completed"]
        assert len(_lines(notes_log, "write", title)) == 1
    _assert_no_leftovers(tag)
