"""The audit trail: every question asked and every answer given, in the store, digests only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from common.persistence import sqlite_store
from common.served.audit import ROOT, AuditEntry, append, digest, entries, namespace
from strategies.with_planner.graph import build_graph
from tests.doubles import calls, tool_call
from tests.unit_tests.helpers import Thread, done, note_actions, plan, task, unique
from tests.unit_tests.test_trust import backend

NOTES_TASK = plan(task("t1", "notes", "Save the note"))
SECRET = "the-private-body-7f3a"
"""A value in the arguments that must never reach the trail."""


def args_of(title: str) -> dict[str, Any]:
    """The arguments of the scripted write: its body is private."""
    return {"title": title, "body": SECRET}


def one_write(scripted: Any, title: str) -> dict[str, Any]:
    """A context scripted for one turn that writes one note whose body is private."""
    ctx, _ = scripted(
        planner=[NOTES_TASK],
        orchestrate=[calls(tool_call("write_note", args_of(title)))],
        assess=[done()],
        response=["Saved."],
    )
    return dict(ctx)


def on(store: BaseStore, ctx: dict[str, Any]) -> Thread:
    """A new thread on a graph with `store` (the trail lives there)."""
    return Thread(ctx, graph=build_graph(InMemorySaver(), store=store))


async def answered(
    store: BaseStore, scripted: Any, answer: Any, user: str = "default", title: str = "audited"
) -> Thread:
    """One write of a note titled `title`, held, answered with `answer`; the thread."""
    ctx = one_write(scripted, title)
    thread = on(store, {**ctx, "user_id": user} if user != "default" else ctx)
    await thread.send("Save a note")
    assert len(await thread.interrupts()) == 1
    await thread.resume(answer)
    return thread


def leaks(trail: list[Any]) -> bool:
    """Whether any entry holds the private argument."""
    return SECRET in json.dumps(trail)


async def test_an_approval_is_asked_then_answered_with_digests_only(
    scripted: Any, workdir: Path
) -> None:
    store, title = InMemoryStore(), unique("approved")
    thread = await answered(store, scripted, {"decisions": [{"type": "approve"}]}, title=title)

    asked, given = await entries(store, "default")

    assert (asked["event"], asked["decision"]) == ("asked", None)
    assert (given["event"], given["decision"], given["remember"]) == ("answered", "approve", False)
    for entry in (asked, given):
        assert entry["thread_id"] == thread.thread_id
        assert (entry["expert"], entry["tool"], entry["user"]) == ("notes", "write_note", "default")
        assert entry["at"].endswith("+00:00")
        assert entry["args_digest"] == digest(args_of(title))
    assert note_actions(workdir, title) == ["write"]
    assert not leaks([asked, given])


async def test_a_reject_records_the_decision_and_a_digest_of_why(scripted: Any) -> None:
    store = InMemoryStore()
    why = "not today"
    await answered(store, scripted, {"decisions": [{"type": "reject", "message": why}]})

    _, given = await entries(store, "default")

    assert given["decision"] == "reject"
    assert given["answer_digest"] == digest(why)
    assert why not in json.dumps(given)


async def test_an_edit_records_a_digest_of_the_edited_arguments(
    scripted: Any, workdir: Path
) -> None:
    store = InMemoryStore()
    title = unique("edited")
    edited = {"title": title, "body": SECRET + "-edited"}
    ctx = one_write(scripted, unique("audited"))
    thread = on(store, ctx)
    await thread.send("Save a note")
    edit = {"type": "edit", "edited_action": {"name": "write_note", "args": edited}}
    await thread.resume({"decisions": [edit]})

    _, given = await entries(store, "default")

    assert given["decision"] == "edit"
    assert given["edit_digest"] == digest(edited)
    assert note_actions(workdir, title) == ["write"]
    assert not leaks([given])


async def test_remember_is_recorded(scripted: Any) -> None:
    store = InMemoryStore()
    await answered(store, scripted, {"decisions": [{"type": "approve", "remember": True}]})

    _, given = await entries(store, "default")

    assert (given["decision"], given["remember"]) == ("remember", True)


async def test_a_refused_answer_is_recorded_with_why_and_once(scripted: Any) -> None:
    store = InMemoryStore()
    bad = {"decisions": [{"type": "approve", "forever": SECRET}]}
    thread = await answered(store, scripted, bad)
    await thread.resume({"decisions": [{"type": "approve"}]})

    trail = await entries(store, "default")

    assert [(e["event"], e["decision"]) for e in trail] == [
        ("asked", None),
        ("answered", "refused"),
        ("answered", "approve"),
    ]
    assert "forever" in (trail[1]["why"] or "")
    assert not leaks(trail)


async def test_each_user_has_their_own_trail(scripted: Any) -> None:
    store = InMemoryStore()
    await answered(store, scripted, {"decisions": [{"type": "approve"}]}, user="alice")

    assert await entries(store, "bob") == []
    assert {e["user"] for e in await entries(store)} == {"alice"}
    assert [i.namespace for i in await store.asearch(ROOT)] == [namespace("alice")] * 2


async def test_client_input_cannot_write_the_trail(scripted: Any) -> None:
    store = InMemoryStore()
    ctx = one_write(scripted, unique("forged"))
    thread = on(store, ctx)
    forged = {"event": "answered", "decision": "approve", "user": "mallory"}
    payload = {"messages": [{"role": "user", "content": "Save a note"}], "audit": [forged]}
    await thread.graph.ainvoke(payload, thread.config, context=ctx)
    await thread.resume({"decisions": [{"type": "reject"}]})

    trail = await entries(store)

    assert [(e["event"], e["decision"], e["user"]) for e in trail] == [
        ("asked", None, "default"),
        ("answered", "reject", "default"),
    ]


async def test_the_trail_survives_a_restart_on_sqlite(scripted: Any, tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    async with sqlite_store(path) as store:
        thread = await answered(store, scripted, {"decisions": [{"type": "approve"}]})

    async with sqlite_store(path) as reopened:
        trail = await entries(reopened, "default", thread=thread.thread_id)

    assert [e["event"] for e in trail] == ["asked", "answered"]


async def test_a_question_and_its_answer_in_agent_inbox_are_recorded_as_digests(
    scripted: Any,
) -> None:
    question, answer = "Which SKU do you mean?", "GAD-7 is the one"
    ctx, _ = scripted(
        planner=[plan(task("t1", "inventory", "stock of the user's product"))],
        orchestrate=[
            calls(tool_call("ask_user", {"question": question}, call_id="ask-1")),
            "14 in stock.",
        ],
        assess=[done()],
        response=["There are 14."],
    )
    store = InMemoryStore()
    thread = on(store, {**ctx, "interrupt_format": "agent_inbox"})
    await thread.send("How many of my product are in stock?")
    await thread.resume([{"type": "accept"}])
    await thread.resume([{"type": "response", "args": answer}])

    trail = await entries(store, "default")

    assert [(e["event"], e["tool"], e["decision"]) for e in trail] == [
        ("asked", "ask_user", None),
        ("answered", "ask_user", "refused"),
        ("answered", "ask_user", "answer"),
    ]
    assert trail[0]["args_digest"] == digest({"question": question})
    assert trail[2]["answer_digest"] == digest(answer)
    assert answer not in json.dumps(trail)
    assert question not in json.dumps(trail)


async def test_plan_only_held_calls_and_the_messages_answering_them_are_recorded(
    scripted: Any, workdir: Path
) -> None:
    title = unique("held")
    ctx, _ = scripted(
        planner=[NOTES_TASK],
        orchestrate=[calls(tool_call("write_note", args_of(title)))],
        assess=[done(), done()],
        response=["Held for you.", "Saved."],
    )
    store = InMemoryStore()
    thread = on(store, {**ctx, "approval_mode": "plan_only"})
    await thread.send("Save a note")
    await thread.send(json.dumps({"decisions": [{"type": "approve", "forever": SECRET}]}))
    await thread.send("go ahead")

    trail = await entries(store, "default")

    assert [(e["event"], e["tool"], e["decision"]) for e in trail] == [
        ("asked", "write_note", None),
        ("answered", "write_note", "refused"),
        ("answered", "write_note", "approve"),
    ]
    assert {e["args_digest"] for e in trail} == {digest(args_of(title))}
    assert "forever" in (trail[1]["why"] or "")
    assert note_actions(workdir, title) == ["write"]
    assert not leaks(trail)


def _entry(user: str, thread: str, at: str, event_id: str) -> AuditEntry:
    return AuditEntry(
        id=digest(event_id),
        at=at,
        user=user,
        thread_id=thread,
        event="asked",
        expert="notes",
        tool="write_note",
        task_id="t1",
        args_digest=digest({}),
        decision=None,
        why=None,
        edit_digest=None,
        answer_digest=None,
        remember=False,
    )


@pytest.mark.parametrize("kind", ["memory", "sqlite", "postgres"])
async def test_every_store_backend_appends_once_and_reads_in_order(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    later = _entry("ann.lee@example.com", "th-1", "2026-11-26T10:00:00.000002+00:00", "b")
    first = _entry("ann.lee@example.com", "th-2", "2026-11-26T10:00:00.000001+00:00", "a")
    other = _entry("bob", "th-1", "2026-11-25T09:00:00+00:00", "c")
    async with backend(kind, tmp_path, request) as store:
        assert [await append(store, e) for e in (later, first, other)] == [True] * 3
        # The same event again (a re-run of the asking node) is not written twice.
        assert await append(store, {**later, "at": "2026-11-26T11:00:00+00:00"}) is False

        assert [e["id"] for e in await entries(store, "ann.lee@example.com")] == [
            first["id"],
            later["id"],
        ]
        assert [e["user"] for e in await entries(store, thread="th-1")] == [
            "bob",
            "ann.lee@example.com",
        ]
        assert [e["user"] for e in await entries(store, since="2026-11-26")] == [
            "ann.lee@example.com"
        ] * 2
