"""`langgraph dev` and Aegra serving `with_planner`, driven alike with langgraph-sdk.

Every test runs on both servers (offline:rules, no key); interrupts are read from the state's
tasks, which both servers fill (Aegra leaves `threads.get()["interrupts"]` empty).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from langgraph_sdk import get_client

from common.memory import namespace as memory_namespace
from common.safety.approval import REFUSED_ANSWER
from common.safety.execution import CallLedger
from tests.integration_tests.aegra import aegra_cluster, interrupts_of
from tests.integration_tests.helpers import langgraph_dev

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Served:
    """One server serving `with_planner`, as the tests see it."""

    name: str
    """`langgraph-dev` or `aegra`."""
    client: Any
    """A langgraph-sdk client of it."""
    database_url: str | None = None
    """Aegra's own PostgreSQL database (None for `langgraph dev`, whose store is in memory)."""


@asynccontextmanager
async def _aegra_server(logs: Path) -> AsyncIterator[Served]:
    """One Aegra instance (PostgreSQL + Redis, no OPENAI_API_KEY) on a fresh database."""
    async with aegra_cluster(logs) as cluster:
        instance = await cluster.add()
        yield Served("aegra", get_client(url=instance.url), cluster.database_url)


@asynccontextmanager
async def _langgraph_dev(logs: Path) -> AsyncIterator[Served]:
    """`langgraph dev` as a `Served`."""
    async with langgraph_dev(logs) as (_, client):
        yield Served("langgraph-dev", client)


SERVERS = {"langgraph-dev": _langgraph_dev, "aegra": _aegra_server}


@pytest.fixture(scope="module", params=list(SERVERS))
async def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Served]:
    """Each server in turn (one instance per module), started fresh without OPENAI_API_KEY."""
    async with SERVERS[request.param](tmp_path_factory.mktemp(request.param)) as served:
        yield served


@pytest.fixture
def server_client(server: Served) -> Any:
    """The langgraph-sdk client of the server under test."""
    return server.client


async def stored_values(server: Served, namespace: list[str], **match: str) -> list[dict[str, Any]]:
    """Values the server's own store holds under exactly `namespace` (whose fields `match`).

    Aegra's Store API only shows namespaces under ("users", <caller>), so its store is read
    from its database; `langgraph dev` keeps its store in memory (saved across restarts in
    `.langgraph_api/`, so it grows), so it is read over its API, filtered there.
    """
    if server.database_url is None:
        found = await server.client.store.search_items(namespace, filter=match or None, limit=100)
        return [i["value"] for i in found["items"] if i["namespace"] == namespace]
    async with await psycopg.AsyncConnection.connect(server.database_url) as conn:
        rows = await conn.execute(
            "SELECT value FROM store WHERE prefix = %s", (".".join(namespace),)
        )
        return [dict(row[0]) for row in await rows.fetchall()]


AEGRA_SCOPES_THE_STORE_API = (
    "Aegra's Store API puts every namespace under ('users', <caller>) (aegra_api/api/store.py "
    "apply_namespace_scoping), while the graph writes past runs and the call ledger unscoped "
    "(common/memory.py namespace, common/safety/execution.py CallLedger): they are in Aegra's "
    "store but no SDK client can read them"
)

STOCK = "How many units of GAD-7 are in stock"


def _context(mcp_config: dict[str, Any]) -> dict[str, Any]:
    servers = {k: mcp_config["mcpServers"][k] for k in ("inventory", "notes")}
    return {"mcp_config": {"mcpServers": servers}, "model": "offline:rules"}


async def test_stream_interrupt_resume_and_final_state(
    server_client: Any, mcp_config: dict[str, Any], workdir: Path
) -> None:
    ctx = _context(mcp_config)
    thread = await server_client.threads.create()
    title = f"via-sdk-{os.urandom(4).hex()}"
    request = f'{STOCK}, then write a note titled "{title}"'
    events: list[tuple[str, Any]] = []
    async for part in server_client.runs.stream(
        thread["thread_id"],
        "with_planner",
        input={"messages": [{"role": "user", "content": request}]},
        context=ctx,
        stream_mode=["updates", "custom"],
    ):
        events.append((part.event, part.data))
    # The custom stream carries our progress events and the plan card's UI messages.
    custom = [d["event"] for e, d in events if e == "custom" and "event" in d]
    assert {"plan", "guard", "task_start", "task_end"} <= set(custom)
    cards = [d for e, d in events if e == "custom" and d.get("type") == "ui"]
    assert cards, "no plan card in the stream"
    assert len({c["id"] for c in cards}) == 1, "one card per plan, updated in place"
    assert [t["status"] for t in cards[-1]["props"]["tasks"]][-1] == "awaiting_approval"
    state = await server_client.threads.get_state(thread["thread_id"])
    (interrupt,) = interrupts_of(state)
    # The stream announces the same question the state holds.
    streamed = [i for e, d in events if e == "updates" for i in d.get("__interrupt__", [])]
    assert [i["value"] for i in streamed] == [interrupt["value"]]
    (action,) = interrupt["value"]["action_requests"]
    assert action["name"] == "write_note"
    assert interrupt["value"]["review_configs"][0]["allowed_decisions"] == [
        "approve",
        "edit",
        "reject",
    ]

    await server_client.runs.wait(
        thread["thread_id"],
        "with_planner",
        command={"resume": APPROVE_ALL},
        context=ctx,
    )

    final = await server_client.threads.get_state(thread["thread_id"])
    statuses = [t["status"] for t in final["values"]["previous_plan"]]
    assert statuses == ["completed", "completed"]
    assert '"stock": 14' in json.loads((workdir / "notes.json").read_text())[title]


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
    server_client: Any, mcp_config: dict[str, Any]
) -> None:
    ctx = _context(mcp_config)
    tag = os.urandom(6).hex()
    inventory = ctx["mcp_config"]["mcpServers"]["inventory"]
    inventory["env"] = {**inventory.get("env", {}), "PLANNER_TEST_TAG": tag}
    threads = [await server_client.threads.create() for _ in range(10)]

    async def ask(thread: dict[str, Any]) -> Any:
        return await server_client.runs.wait(
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
    server_client: Any, mcp_config: dict[str, Any], workdir: Path, mode: str
) -> None:
    ctx = {**_context(mcp_config), "approval_mode": mode}
    thread = await server_client.threads.create()
    title = f"sdk-mode-{os.urandom(4).hex()}"
    request = f'{STOCK}, then write a note titled "{title}"'
    run = await server_client.runs.create(
        thread["thread_id"],
        "with_planner",
        input={"messages": [{"role": "user", "content": request}]},
        context=ctx,
    )
    await server_client.runs.join(thread["thread_id"], run["run_id"])
    finished = await server_client.runs.get(thread["thread_id"], run["run_id"])
    assert finished["status"] == "error"
    state = await server_client.threads.get_state(thread["thread_id"])
    # Refused before the planner: no plan, no interrupt, and the note was never written.
    assert not state["values"].get("plan")
    assert not interrupts_of(state)
    notes = workdir / "notes.json"
    assert title not in (notes.read_text() if notes.exists() else "")


@pytest.mark.parametrize(
    ("model", "sentence", "kind"),
    [
        ("foo:bar", "names an unknown provider 'foo'", "UnknownProviderError"),
        ("openai:gpt-4o", "needs OPENAI_API_KEY, which is not set", "MissingKeyError"),
    ],
)
async def test_a_context_model_that_cannot_load_refuses_the_run_not_a_fallback(
    server: Served, mcp_config: dict[str, Any], model: str, sentence: str, kind: str
) -> None:
    server_client = server.client
    servers = {"inventory": mcp_config["mcpServers"]["inventory"]}
    thread = await server_client.threads.create()
    errors = [
        part.data
        async for part in server_client.runs.stream(
            thread["thread_id"],
            "with_planner",
            input={"messages": [{"role": "user", "content": "How many units of WID-1?"}]},
            context={"mcp_config": {"mcpServers": servers}, "model": model},
        )
        if part.event == "error"
    ]
    # langgraph dev streams the sentence; Aegra streams only the error's type ("... execution
    # failed"), so there the type says which refusal it was.
    assert (kind if server.name == "aegra" else sentence) in str(errors)
    state = await server_client.threads.get_state(thread["thread_id"])
    assert "offline:rules" not in str(state["values"].get("messages"))


async def test_a_resume_without_context_keeps_the_runs_settings(
    server_client: Any, mcp_config: dict[str, Any], workdir: Path
) -> None:
    ctx = _context(mcp_config)
    thread = await server_client.threads.create()
    title = f"sdk-resume-{os.urandom(4).hex()}"
    await server_client.runs.wait(
        thread["thread_id"],
        "with_planner",
        input={
            "messages": [
                {"role": "user", "content": f'{STOCK}, then write a note titled "{title}"'}
            ]
        },
        context=ctx,
    )
    state = await server_client.threads.get_state(thread["thread_id"])
    assert interrupts_of(state)
    # No context now: the server's defaults (MCP_CONFIG file, default model) must not take over.
    await server_client.runs.wait(
        thread["thread_id"],
        "with_planner",
        command={"resume": {"decisions": [{"type": "approve"}]}},
    )
    final = await server_client.threads.get_state(thread["thread_id"])
    assert [t["status"] for t in final["values"]["previous_plan"]] == ["completed", "completed"]
    assert title in json.loads((workdir / "notes.json").read_text())


async def test_without_a_key_the_server_falls_back_to_offline_rules(
    server_client: Any, mcp_config: dict[str, Any]
) -> None:
    servers = {"inventory": mcp_config["mcpServers"]["inventory"]}
    thread = await server_client.threads.create()
    result = await server_client.runs.wait(
        thread["thread_id"],
        "with_planner",
        input={"messages": [{"role": "user", "content": "How many units of WID-1 are in stock"}]},
        context={"mcp_config": {"mcpServers": servers}},
    )
    answer = result["messages"][-1]["content"]
    assert "offline:rules" in answer
    assert "WID-1" in answer
    assert result["report"]["ok"] is True


async def _paused_note(server_client: Any, ctx: dict[str, Any], prefix: str) -> tuple[str, str]:
    """A new thread waiting for approval of a note; its id and the note's title."""
    thread = await server_client.threads.create()
    title = f"{prefix}-{os.urandom(4).hex()}"
    request = f'{STOCK}, then write a note titled "{title}"'
    await server_client.runs.wait(
        thread["thread_id"],
        "with_planner",
        input={"messages": [{"role": "user", "content": request}]},
        context=ctx,
    )
    return thread["thread_id"], title


async def _pending_note(server_client: Any, thread_id: str) -> dict[str, Any]:
    """The one approval request the thread waits on; it must still be the note."""
    state = await server_client.threads.get_state(thread_id)
    (interrupt,) = interrupts_of(state)
    assert interrupt["value"]["action_requests"][0]["name"] == "write_note"
    return dict(interrupt["value"])


async def _approve_and_check(
    server_client: Any, ctx: dict[str, Any], thread_id: str, title: str, workdir: Path
) -> None:
    """Nothing was written before; the next valid answer writes the note."""
    notes = workdir / "notes.json"
    assert title not in (notes.read_text() if notes.exists() else "")
    await server_client.runs.wait(
        thread_id, "with_planner", command={"resume": APPROVE_ALL}, context=ctx
    )
    assert title in json.loads(notes.read_text())


APPROVE_ALL = {"decisions": [{"type": "approve"}]}


@pytest.mark.parametrize("how", ["null-over-http", "unknown-interrupt-id"])
async def test_an_unusable_resume_runs_nothing_and_asks_again_saying_why(
    server_client: Any, mcp_config: dict[str, Any], workdir: Path, how: str
) -> None:
    # LangGraph itself crashes on `resume: null` and ignores answers to ids that are not
    # waiting; through the server both must reach the question as a refusal saying why.
    ctx = _context(mcp_config)
    thread_id, title = await _paused_note(server_client, ctx, "bad-resume")

    if how == "null-over-http":
        # Raw HTTP: langgraph-sdk drops a None resume before sending (see the next test).
        body = {"assistant_id": "with_planner", "command": {"resume": None}, "context": ctx}
        result = await server_client.http.post(f"/threads/{thread_id}/runs/wait", json=body)
    else:
        command = {"resume": {"0" * 32: APPROVE_ALL}}
        result = await server_client.runs.wait(
            thread_id, "with_planner", command=command, context=ctx
        )

    assert "__error__" not in result, result
    assert (await _pending_note(server_client, thread_id))["error"].startswith(REFUSED_ANSWER)
    await _approve_and_check(server_client, ctx, thread_id, title, workdir)


async def test_an_edit_naming_another_tool_runs_nothing_on_the_server(
    server_client: Any, mcp_config: dict[str, Any], workdir: Path
) -> None:
    # The person was asked about a note; an edit into a deletion must not delete anything.
    ctx = _context(mcp_config)
    thread_id, title = await _paused_note(server_client, ctx, "sdk-swap")
    notes = workdir / "notes.json"
    keep = f"keep-{os.urandom(4).hex()}"
    before = json.loads(notes.read_text()) if notes.exists() else {}
    notes.write_text(json.dumps({**before, keep: "kept"}))
    (asked,) = interrupts_of(await server_client.threads.get_state(thread_id))
    swap = {"name": "delete_note", "args": {"title": keep}}
    answer = {"decisions": [{"type": "edit", "edited_action": swap}]}

    await server_client.runs.wait(
        thread_id, "with_planner", command={"resume": {asked["id"]: answer}}, context=ctx
    )

    assert "not the tool" in (await _pending_note(server_client, thread_id))["error"]
    assert json.loads(notes.read_text())[keep] == "kept"
    await _approve_and_check(server_client, ctx, thread_id, title, workdir)


async def test_a_none_resume_from_the_sdk_continues_and_the_question_stays(
    server_client: Any, mcp_config: dict[str, Any], workdir: Path
) -> None:
    # langgraph-sdk sends no command for `{"resume": None}`: the run just continues, which on a
    # waiting thread asks the same question again. Nothing runs.
    ctx = _context(mcp_config)
    thread_id, title = await _paused_note(server_client, ctx, "sdk-none")

    result = await server_client.runs.wait(
        thread_id, "with_planner", command={"resume": None}, context=ctx
    )

    assert "__error__" not in result, result
    await _pending_note(server_client, thread_id)
    await _approve_and_check(server_client, ctx, thread_id, title, workdir)


async def test_an_approved_call_is_recorded_in_the_servers_store(
    server: Served, mcp_config: dict[str, Any], workdir: Path
) -> None:
    # The exactly-once ledger must live in the server's store, not in one process's memory,
    # or another worker resuming the thread would send the call again.
    ctx = _context(mcp_config)
    thread_id, title = await _paused_note(server.client, ctx, "ledger")
    await _approve_and_check(server.client, ctx, thread_id, title, workdir)

    ledger = await stored_values(server, list(CallLedger(None, thread_id).namespace))
    (entry,) = [v for v in ledger if v.get("state") == "done"]
    assert entry["record"]["status"] == "ok"
    assert title in entry["record"]["content"]


async def test_an_approval_remembered_through_the_sdk_is_not_asked_again(
    server: Served, mcp_config: dict[str, Any], workdir: Path, tmp_path: Path
) -> None:
    # "Don't ask again" lives in the server's store, for the run's user, keyed by the notes
    # server's identity: its own folder here, so every other test's notes server still asks.
    ctx = _context(mcp_config)
    experts = ctx["mcp_config"]["mcpServers"]
    notes_server = {**experts["notes"], "cwd": str(tmp_path)}
    ctx = {**ctx, "mcp_config": {"mcpServers": {**experts, "notes": notes_server}}}
    thread_id, title = await _paused_note(server.client, ctx, "remember")
    offered = (await _pending_note(server.client, thread_id))["review_configs"][0]
    assert offered.get("remember") is True

    remember = {"decisions": [{"type": "approve", "remember": True}]}
    await server.client.runs.wait(
        thread_id, "with_planner", command={"resume": remember}, context=ctx
    )
    second, again = await _paused_note(server.client, ctx, "remembered")

    assert not interrupts_of(await server.client.threads.get_state(second))
    written = json.loads((workdir / "notes.json").read_text())
    assert title in written
    assert again in written


async def _remembered_run(server: Served, mcp_config: dict[str, Any]) -> tuple[str, str, str]:
    """A finished run of a new user's; the user, the question and the thread id."""
    user = f"user-{os.urandom(4).hex()}"
    ctx = {**_context(mcp_config), "user_id": user}
    thread = await server.client.threads.create()
    request = "How many units of WID-1 are in stock"
    await server.client.runs.wait(
        thread["thread_id"],
        "with_planner",
        input={"messages": [{"role": "user", "content": request}]},
        context=ctx,
    )
    return user, request, thread["thread_id"]


async def test_finished_runs_are_remembered_per_user_in_the_servers_store(
    server: Served, mcp_config: dict[str, Any]
) -> None:
    user, request, thread_id = await _remembered_run(server, mcp_config)

    (record,) = await stored_values(server, list(memory_namespace(user)))
    assert record["question"] == request
    assert record["thread_id"] == thread_id
    assert "WID-1" in record["answer"]
    assert await stored_values(server, list(memory_namespace(f"{user}-other"))) == []


async def test_without_a_user_id_runs_are_remembered_for_the_default_user(
    server: Served, mcp_config: dict[str, Any]
) -> None:
    # Aegra puts its caller's identity in `configurable.user_id`; our user_id is a context
    # field, so the memory a run reads and writes must not change with the server.
    thread = await server.client.threads.create()
    await server.client.runs.wait(
        thread["thread_id"],
        "with_planner",
        input={"messages": [{"role": "user", "content": "How many units of WID-1 are in stock"}]},
        context=_context(mcp_config),
    )

    ns = list(memory_namespace("default"))
    remembered = await stored_values(server, ns, thread_id=thread["thread_id"])
    assert thread["thread_id"] in [r["thread_id"] for r in remembered]


async def test_the_store_api_shows_a_users_remembered_runs(
    server: Served, mcp_config: dict[str, Any], request: pytest.FixtureRequest
) -> None:
    if server.name == "aegra":
        request.applymarker(pytest.mark.xfail(strict=True, reason=AEGRA_SCOPES_THE_STORE_API))
    user, question, _ = await _remembered_run(server, mcp_config)

    found = await server.client.store.search_items(list(memory_namespace(user)))

    assert [i["value"]["question"] for i in found["items"]] == [question]


async def test_plan_only_holds_the_write_and_go_ahead_releases_it(
    server_client: Any, mcp_config: dict[str, Any], workdir: Path
) -> None:
    ctx = {**_context(mcp_config), "approval_mode": "plan_only"}
    thread = await server_client.threads.create()
    title = f"plan-only-{os.urandom(4).hex()}"
    request = f'{STOCK}, then write a note titled "{title}"'
    notes = workdir / "notes.json"

    held = await server_client.runs.wait(
        thread["thread_id"],
        "with_planner",
        input={"messages": [{"role": "user", "content": request}]},
        context=ctx,
    )

    assert "Held back for your approval (plan_only)" in held["messages"][-1]["content"]
    (call,) = held["deferred"]
    assert (call["name"], call["args"]["title"]) == ("write_note", title)
    state = await server_client.threads.get_state(thread["thread_id"])
    assert not interrupts_of(state)
    assert title not in (notes.read_text() if notes.exists() else "")

    released = await server_client.runs.wait(
        thread["thread_id"],
        "with_planner",
        input={"messages": [{"role": "user", "content": "go ahead"}]},
        context=ctx,
    )

    assert released["deferred"] == []
    (step,) = released["previous_plan"]
    assert (step["tool"], step["status"], step["approval"]["type"]) == (
        "write_note",
        "completed",
        "approve",
    )
    # The release is bound to the definition the held call showed (issue 34).
    assert step["approval"]["definition"]["digest"]
    assert '"stock": 14' in json.loads(notes.read_text())[title]
