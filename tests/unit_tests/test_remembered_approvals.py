"""Remembered approvals in the graph: "don't ask again" is reused, voided and revoked as told."""

from __future__ import annotations

import asyncio
import copy
import sys
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from mcp.types import Tool
from pydantic import SecretStr

from common.mcp import registry_for
from common.persistence import sqlite_store
from common.safety.trust import entries, offer_for, remember, revoke
from common.settings import get_settings
from strategies.with_planner.graph import build_graph
from tests.doubles import calls, tool_call
from tests.unit_tests.helpers import Thread, done, note_actions, plan, task, unique

NOTES_TASK = plan(task("t1", "notes", "Save the note"))
REMEMBER = {"decisions": [{"type": "approve", "remember": True}]}


def write_note(title: str, call_id: str = "w1") -> Any:
    return calls(tool_call("write_note", {"title": title, "body": "hi"}, call_id=call_id))


def two_runs(scripted: Any, first: str, second: str) -> dict[str, Any]:
    """A context scripted for two turns that each write one note."""
    ctx, _ = scripted(
        planner=[NOTES_TASK, NOTES_TASK],
        orchestrate=[write_note(first), write_note(second, "w2")],
        assess=[done(), done()],
        response=["Saved.", "Saved again."],
    )
    return dict(ctx)


def on(store: BaseStore, ctx: dict[str, Any]) -> Thread:
    """A new thread on a graph with `store` (the remembered approvals live there)."""
    return Thread(ctx, graph=build_graph(InMemorySaver(), store=store))


async def remember_first(store: BaseStore, ctx: dict[str, Any]) -> Thread:
    """Run the first turn, approve its write with remember; the approval request it showed."""
    thread = on(store, ctx)
    await thread.send("Save a note")
    (request,) = await thread.interrupts()
    assert request["review_configs"][0]["remember"] is True
    assert "not be asked again" in request["action_requests"][0]["description"]
    await thread.resume(REMEMBER)
    assert await thread.interrupts() == []
    return thread


async def test_a_remembered_approval_is_reused_on_the_next_run(
    scripted: Any, workdir: Path
) -> None:
    first, second = unique("remembered"), unique("reused")
    ctx, store = two_runs(scripted, first, second), InMemoryStore()
    await remember_first(store, ctx)
    (entry,) = await entries(store, "default")
    assert (entry["expert"], entry["tool"], entry["user"]) == ("notes", "write_note", "default")
    assert "common.demo_servers.notes" in entry["identity"]

    again = on(store, ctx)
    nodes = await again.send("Save another note")

    assert "await_approval" not in nodes
    assert await again.interrupts() == []
    assert note_actions(workdir, first) == ["write"]
    assert note_actions(workdir, second) == ["write"]


async def test_not_reused_after_the_definition_changed(scripted: Any, workdir: Path) -> None:
    title = unique("rug-pull")
    ctx, _ = scripted(planner=[NOTES_TASK], orchestrate=[write_note(title)])
    store = InMemoryStore()
    # What was trusted: the same tool, as it was described before the server changed it.
    registry = await registry_for(ctx["mcp_config"])
    (live,) = [t for t in await registry.tools("notes") if t.name == "write_note"]
    before = Tool(**{**live.model_dump(), "description": "Save a note (harmless)."})
    offer = offer_for(registry.server("notes"), before)
    await remember(store, "default", "notes", "write_note", offer)

    thread = on(store, ctx)
    await thread.send("Save a note")

    (request,) = await thread.interrupts()
    description = request["action_requests"][0]["description"]
    assert "you chose not to be asked again for this tool" in description
    assert "definition changed since (description)" in description
    assert note_actions(workdir, title) == []


async def test_not_reused_for_another_server(scripted: Any, workdir: Path) -> None:
    first, second = unique("server-a"), unique("server-b")
    ctx, store = two_runs(scripted, first, second), InMemoryStore()
    await remember_first(store, ctx)

    # Same name, same tools, another command line: another server.
    other = copy.deepcopy(ctx)
    other["mcp_config"]["mcpServers"]["notes"]["args"] = [
        "-X",
        "utf8",
        "-m",
        "common.demo_servers.notes",
    ]
    assert other["mcp_config"]["mcpServers"]["notes"]["command"] == sys.executable
    thread = on(store, other)
    await thread.send("Save another note")

    assert len(await thread.interrupts()) == 1
    assert note_actions(workdir, second) == []


async def test_not_reused_for_another_user(scripted: Any, workdir: Path) -> None:
    first, second = unique("alice"), unique("bob")
    ctx, store = two_runs(scripted, first, second), InMemoryStore()
    await remember_first(store, {**ctx, "user_id": "alice"})

    thread = on(store, {**ctx, "user_id": "bob"})
    await thread.send("Save another note")

    assert len(await thread.interrupts()) == 1
    assert note_actions(workdir, second) == []
    assert [e["user"] for e in await entries(store)] == ["alice"]


async def test_revoked_is_asked_again(scripted: Any, workdir: Path) -> None:
    first, second = unique("revoked-a"), unique("revoked-b")
    ctx, store = two_runs(scripted, first, second), InMemoryStore()
    await remember_first(store, ctx)

    (gone,) = await revoke(store, "default", "notes", "write_note")
    assert gone["tool"] == "write_note"
    assert await entries(store) == []
    thread = on(store, ctx)
    await thread.send("Save another note")

    assert len(await thread.interrupts()) == 1
    assert note_actions(workdir, second) == []


async def test_an_argument_hold_is_never_cleared_nor_offered(scripted: Any) -> None:
    ctx, _ = scripted(
        planner=[plan(task("t1", "testkit", "Open the page"))],
        orchestrate=[
            calls(tool_call("fetch_page", {"url": "https://example.com/orders/3/cancel"}))
        ],
    )
    store = InMemoryStore()
    registry = await registry_for(ctx["mcp_config"])
    (live,) = [t for t in await registry.tools("testkit") if t.name == "fetch_page"]
    offer = offer_for(registry.server("testkit"), live)
    await remember(store, "default", "testkit", "fetch_page", offer)

    thread = on(store, ctx)
    await thread.send("Open the page")

    (request,) = await thread.interrupts()
    assert "source: arguments" in request["action_requests"][0]["description"]
    assert "remember" not in request["review_configs"][0]
    await thread.resume(REMEMBER)
    (again,) = await thread.interrupts()
    assert "does not offer" in again["error"]
    assert "nothing ran" in again["error"]


async def test_two_approvals_remembered_in_one_answer(scripted: Any, workdir: Path) -> None:
    title = unique("both")
    ctx, _ = scripted(
        planner=[NOTES_TASK],
        orchestrate=[
            calls(
                tool_call("write_note", {"title": title, "body": "x"}, call_id="w"),
                tool_call("delete_note", {"title": title}, call_id="d"),
            )
        ],
        assess=[done()],
        response=["Done."],
    )
    store = InMemoryStore()
    thread = on(store, ctx)
    await thread.send("Write then delete")
    (request,) = await thread.interrupts()
    assert [c.get("remember") for c in request["review_configs"]] == [True, True]

    decision = {"type": "approve", "remember": True}
    await thread.resume({"decisions": [decision, decision]})

    assert sorted(e["tool"] for e in await entries(store)) == ["delete_note", "write_note"]
    assert note_actions(workdir, title) == ["write", "delete"]


async def test_an_unknown_field_is_still_refused(scripted: Any, workdir: Path) -> None:
    title = unique("unknown-field")
    ctx, _ = scripted(planner=[NOTES_TASK], orchestrate=[write_note(title)])
    store = InMemoryStore()
    thread = on(store, ctx)
    await thread.send("Save a note")

    await thread.resume({"decisions": [{"type": "approve", "remember": True, "forever": True}]})

    (request,) = await thread.interrupts()
    assert "forever" in request["error"]
    assert await entries(store) == []
    assert note_actions(workdir, title) == []


async def test_remember_is_refused_on_an_edit(scripted: Any, workdir: Path) -> None:
    title = unique("edit-remember")
    ctx, _ = scripted(planner=[NOTES_TASK], orchestrate=[write_note(title)])
    store = InMemoryStore()
    thread = on(store, ctx)
    await thread.send("Save a note")

    edit = {"name": "write_note", "args": {"title": title, "body": "x"}}
    await thread.resume({"decisions": [{"type": "edit", "edited_action": edit, "remember": True}]})

    (request,) = await thread.interrupts()
    assert "remember" in request["error"]
    assert await entries(store) == []


async def test_plan_only_still_holds_a_remembered_tool(scripted: Any, workdir: Path) -> None:
    first, second = unique("plan-only-a"), unique("plan-only-b")
    ctx, store = two_runs(scripted, first, second), InMemoryStore()
    await remember_first(store, ctx)

    thread = on(store, {**ctx, "approval_mode": "plan_only"})
    await thread.send("Save another note")

    assert note_actions(workdir, second) == []
    assert (await thread.values())["deferred"]


async def test_two_threads_remember_at_once_on_one_sqlite_store(
    scripted: Any, workdir: Path, tmp_path: Path
) -> None:
    title = unique("concurrent")
    ctx, _ = scripted(
        planner=[NOTES_TASK, NOTES_TASK, NOTES_TASK],
        orchestrate=[
            write_note(title),
            calls(tool_call("delete_note", {"title": title}, call_id="d1")),
            write_note(unique("after"), "w3"),
        ],
        assess=[done()] * 3,
        response=["Done."] * 3,
    )
    async with sqlite_store(tmp_path / "store.sqlite") as store:
        writer, deleter = on(store, ctx), on(store, ctx)
        await writer.send("Save a note")
        await deleter.send("Delete it")

        await asyncio.gather(writer.resume(REMEMBER), deleter.resume(REMEMBER))

        assert sorted(e["tool"] for e in await entries(store)) == ["delete_note", "write_note"]
        # Kept in the file: a third run on the same store is not asked.
        third = on(store, ctx)
        await third.send("Save one more")
        assert await third.interrupts() == []


class AuthThread(Thread):
    """A thread run as a LangGraph server with auth runs it: the identity in the config."""

    identity: str = ""

    @property
    def config(self) -> dict[str, Any]:
        """The run config with the server's auth identity."""
        config = super().config
        config["configurable"]["langgraph_auth_user_id"] = self.identity
        return config


async def test_the_auth_identity_decides_whose_approval_it_is(
    scripted: Any, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Served with auth (the settings say so), the identity the server put in the config wins.
    served = get_settings().model_copy(update={"auth_jwt_secret": SecretStr("s" * 32)})
    monkeypatch.setattr("common.served.caller.get_settings", lambda: served)
    first, second = unique("auth-carol"), unique("auth-alice")
    ctx, store = two_runs(scripted, first, second), InMemoryStore()
    graph = build_graph(InMemorySaver(), store=store)
    # The context claims alice; the server says carol, and the server wins.
    thread = AuthThread({**ctx, "user_id": "alice"}, graph=graph)
    thread.identity = "carol"
    await thread.send("Save a note")
    await thread.resume(REMEMBER)
    assert [e["user"] for e in await entries(store)] == ["carol"]

    # So alice (the claimed user) has nothing remembered.
    alice = on(store, {**ctx, "user_id": "alice"})
    await alice.send("Save another note")
    assert len(await alice.interrupts()) == 1
    assert note_actions(workdir, second) == []
