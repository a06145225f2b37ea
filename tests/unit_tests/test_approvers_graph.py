"""The right person answers, in the graph: approvers, second person and expiry, audited.

The graph runs as a LangGraph server with auth runs it: the identity and roles the server
authenticated are in the run's config, and every answer is stamped with them by the resume
screen. The clock is injected (no sleeping).
"""

from __future__ import annotations

import copy
import json
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from pydantic import SecretStr

from common.served.audit import digest, entries
from common.settings import get_settings
from strategies.with_planner.graph import build_graph
from tests.doubles import calls, tool_call
from tests.unit_tests.helpers import Thread, done, note_actions, plan, task, unique

APPROVE = {"decisions": [{"type": "approve"}]}
ACCEPT = [{"type": "accept", "args": None}]
ASKED = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@dataclass
class Person(Thread):
    """A thread on a served graph, run by whoever `identity` and `roles` name."""

    identity: str = "alice"
    roles: list[str] = field(default_factory=list)

    @property
    def config(self) -> dict[str, Any]:
        """The run config with the server's auth identity and roles."""
        config = super().config
        # As LangGraph sets them: the user object holds the roles, the key repeats them.
        user = {"identity": self.identity, "permissions": list(self.roles)}
        config["configurable"]["langgraph_auth_user_id"] = self.identity
        config["configurable"]["langgraph_auth_user"] = user
        config["configurable"]["langgraph_auth_permissions"] = list(self.roles)
        return config

    def as_(self, identity: str, *roles: str) -> Person:
        """The same thread, now run by `identity` holding `roles`."""
        self.identity, self.roles = identity, list(roles)
        return self


class Clock:
    """The time questions are asked and answers arrive at, moved by the test."""

    def __init__(self) -> None:
        self.now = ASKED

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """Auth on (the run's identity is the server's), and an injected clock."""
    on = get_settings().model_copy(update={"auth_jwt_secret": SecretStr("s" * 32)})
    monkeypatch.setattr("common.served.caller.get_settings", lambda: on)
    clock = Clock()
    monkeypatch.setattr("common.served.approvers.clock", clock)
    return clock


def noting(scripted: Any, mcp_config: dict[str, Any], title: str, **keys: Any) -> dict[str, Any]:
    """A context whose plan writes note `title`, the notes server given approval `keys`."""
    config = copy.deepcopy(mcp_config)
    config["mcpServers"]["notes"].update(keys)
    ctx, _ = scripted(
        planner=[plan(task("t1", "notes", "Save the note"))] * 2,
        orchestrate=[calls(tool_call("write_note", {"title": title, "body": "hi"}))] * 2,
        assess=[done()] * 2,
        response=["Saved.", "Saved again."],
    )
    return {**ctx, "mcp_config": config}


def asking(ctx: dict[str, Any], store: InMemoryStore | None = None, **extra: Any) -> Person:
    """alice's thread on a graph with a store (the audit trail lives there)."""
    graph = build_graph(InMemorySaver(), store=store or InMemoryStore())
    return Person({**ctx, **extra}, graph=graph)


async def refused_entries(store: InMemoryStore) -> list[tuple[str, str]]:
    """(who, why) of every refused answer in the audit trail."""
    return [(e["user"], e["why"] or "") for e in await entries(store) if e["decision"] == "refused"]


async def test_second_person_refuses_the_requesters_own_approval(
    scripted: Any, mcp_config: dict[str, Any], workdir: Path, served: Clock
) -> None:
    title = unique("second")
    ctx = noting(scripted, mcp_config, title, approvers=["ops"], second_person=True)
    store = InMemoryStore()
    thread = asking(ctx, store).as_("alice", "ops")
    await thread.send("Save a note")
    (request,) = await thread.interrupts()
    assert "other than 'alice'" in request["action_requests"][0]["description"]

    await thread.resume(APPROVE)
    (again,) = await thread.interrupts()
    assert "cannot approve it: another user with the role 'ops' must answer" in again["error"]
    assert note_actions(workdir, title) == []

    # bob holds the role: his answer runs the call, and alice's stays refused.
    await thread.as_("bob", "ops").resume(APPROVE)
    assert await thread.interrupts() == []
    assert note_actions(workdir, title) == ["write"]
    (refused,) = await refused_entries(store)
    assert refused[0] == "alice"
    assert "cannot approve it" in refused[1]
    approved = [e for e in await entries(store) if e["decision"] == "approve"]
    assert [e["user"] for e in approved] == ["bob"]
    # The question is alice's, even though bob's run asked it again to read his answer.
    assert [e["user"] for e in await entries(store) if e["event"] == "asked"] == ["alice"]


async def test_only_a_user_with_an_approver_role_may_answer(
    scripted: Any, mcp_config: dict[str, Any], workdir: Path, served: Clock
) -> None:
    title = unique("approvers")
    store = InMemoryStore()
    thread = asking(noting(scripted, mcp_config, title, approvers=["ops"]), store)
    await thread.send("Save a note")
    await thread.as_("carol", "dev").resume(APPROVE)
    (again,) = await thread.interrupts()
    assert "only a user with the role 'ops' may answer" in again["error"]
    assert note_actions(workdir, title) == []
    assert [who for who, _ in await refused_entries(store)] == ["carol"]
    await thread.as_("alice", "ops").resume(APPROVE)
    assert note_actions(workdir, title) == ["write"]


async def test_by_default_only_the_requester_answers(
    scripted: Any, mcp_config: dict[str, Any], workdir: Path, served: Clock
) -> None:
    title = unique("owner")
    thread = asking(noting(scripted, mcp_config, title))
    await thread.send("Save a note")
    await thread.as_("mallory", "ops").resume(APPROVE)
    (again,) = await thread.interrupts()
    assert "only 'alice', whose request made this call, may answer" in again["error"]
    await thread.as_("alice").resume(APPROVE)
    assert note_actions(workdir, title) == ["write"]


async def test_a_late_answer_runs_nothing_and_the_user_can_ask_again(
    scripted: Any, mcp_config: dict[str, Any], workdir: Path, served: Clock
) -> None:
    title = unique("late")
    store = InMemoryStore()
    thread = asking(noting(scripted, mcp_config, title, approval_ttl=600), store)
    await thread.send("Save a note")
    (request,) = await thread.interrupts()
    assert "until 2026-03-01 09:10:00 UTC" in request["action_requests"][0]["description"]
    asked = [m for m in (await thread.values())["messages"] if isinstance(m, AIMessage)][-1]
    assert "until 2026-03-01 09:10:00 UTC" in str(asked.content)

    served.now = ASKED + timedelta(minutes=11)
    await thread.resume(APPROVE)
    assert await thread.interrupts() == []
    assert note_actions(workdir, title) == []
    (refused,) = await refused_entries(store)
    assert "expired at 2026-03-01 09:10:00 UTC" in refused[1]
    tool_texts = [str(m.content) for m in await thread.tool_messages()]
    assert any("expired" in text for text in tool_texts)

    # A new message plans again and asks anew, with a new time limit.
    await thread.send("Save it after all")
    (fresh,) = await thread.interrupts()
    assert "until 2026-03-01 09:21:00 UTC" in fresh["action_requests"][0]["description"]
    await thread.resume(APPROVE)
    assert note_actions(workdir, title) == ["write"]


async def test_the_settings_default_time_to_live_applies(
    scripted: Any,
    mcp_config: dict[str, Any],
    workdir: Path,
    served: Clock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    short = get_settings().model_copy(update={"approval_ttl_s": 60.0})
    monkeypatch.setattr("strategies.with_planner.answerers.get_settings", lambda: short)
    title = unique("default-ttl")
    thread = asking(noting(scripted, mcp_config, title))
    await thread.send("Save a note")
    served.now = ASKED + timedelta(seconds=61)
    await thread.resume(APPROVE)
    assert note_actions(workdir, title) == []


async def test_agent_inbox_answers_are_vetted_too(
    scripted: Any, mcp_config: dict[str, Any], workdir: Path, served: Clock
) -> None:
    title = unique("inbox")
    ctx = noting(scripted, mcp_config, title, approvers=["ops"], second_person=True)
    thread = asking(ctx, interrupt_format="agent_inbox").as_("alice", "ops")
    await thread.send("Save a note")
    ((card,),) = await thread.interrupts()
    assert "other than 'alice'" in card["description"]
    await thread.resume(ACCEPT)
    ((again,),) = await thread.interrupts()
    assert "cannot approve it" in again["description"]
    await thread.as_("bob", "ops").resume(ACCEPT)
    assert note_actions(workdir, title) == ["write"]


async def test_an_experts_question_is_answered_by_the_requester_only(
    scripted: Any, mcp_config: dict[str, Any], served: Clock
) -> None:
    # An approver reaches the thread to answer approvals, not what only the user knows.
    ctx, models = scripted(
        planner=[plan(task("t1", "inventory", "stock of the user's product"))],
        orchestrate=[
            calls(tool_call("ask_user", {"question": "Which product?"}, call_id="ask-1")),
            "14 in stock.",
        ],
        assess=[done()],
        response=["There are 14."],
    )
    store = InMemoryStore()
    thread = asking(ctx, store)
    await thread.send("How many of my product are in stock?")
    respond = {"decisions": [{"type": "respond", "message": "GAD-7"}]}
    await thread.as_("bob", "ops").resume(respond)
    (again,) = await thread.interrupts()
    assert "only 'alice', whose request made this call, may answer" in again["error"]
    assert len(models["orchestrate"].requests) == 1
    assert [who for who, _ in await refused_entries(store)] == ["bob"]

    await thread.as_("alice").resume(respond)
    assert await thread.interrupts() == []
    assert (await thread.answer()).content == "There are 14."


async def test_a_remembered_approval_cannot_stand_in_for_an_approver(
    scripted: Any, mcp_config: dict[str, Any], workdir: Path, served: Clock
) -> None:
    store = InMemoryStore()
    first, second = unique("kept"), unique("kept-then-approvers")
    alone = asking(noting(scripted, mcp_config, first), store)
    await alone.send("Save a note")
    (offered,) = await alone.interrupts()
    assert offered["review_configs"][0]["remember"] is True
    await alone.resume({"decisions": [{"type": "approve", "remember": True}]})
    assert note_actions(workdir, first) == ["write"]

    # The operator then names approvers: alice's "don't ask again" no longer clears the call,
    # and none is offered (it would let the next request skip the second person).
    ctx = noting(scripted, mcp_config, second, approvers=["ops"], second_person=True)
    guarded = asking(ctx, store)
    await guarded.send("Save a note")
    (asked,) = await guarded.interrupts()
    assert "remember" not in asked["review_configs"][0]
    assert note_actions(workdir, second) == []


async def test_a_servers_question_is_answered_by_the_requester_only_and_kept_in_the_trail(
    scripted: Any, tmp_path: Path, served: Clock
) -> None:
    # The era server's `reserve` asks "How many units...?" (MCP elicitation) once approved.
    notes = tmp_path / "reserved.txt"
    server = Path(__file__).resolve().parents[1] / "servers" / "era_v2.py"
    entry = {"command": sys.executable, "args": [str(server)], "env": {"ERA_NOTES": str(notes)}}
    step = {"id": "t1", "expert": "shop", "task": "Reserve", "tool": "reserve"}
    ctx, _ = scripted(planner=[plan({**step, "args": {"item": "wid-1"}})], response=["Done."])
    ctx["mcp_config"] = {"mcpServers": {"shop": entry}}
    store = InMemoryStore()
    thread = asking(ctx, store)
    await thread.as_("alice").send("Reserve WID-1")
    await thread.as_("alice").resume(APPROVE)
    (question,) = await thread.interrupts()
    assert question["action_requests"][0]["args"]["requested_schema"]["required"] == ["units"]

    await thread.as_("bob", "ops").resume({"decisions": [{"type": "respond", "message": "900"}]})
    (again,) = await thread.interrupts()
    assert "only 'alice', whose request made this call, may answer" in again["error"]
    assert not notes.exists()
    await thread.as_("alice").resume({"decisions": [{"type": "respond", "message": "8"}]})

    assert notes.read_text() == "reserve\tWID-1\t8\n"
    trail = [(e["event"], e["tool"], e["decision"], e["user"]) for e in await entries(store)]
    assert trail == [
        ("asked", "reserve", None, "alice"),
        ("answered", "reserve", "approve", "alice"),
        ("asked", "ask_user", None, "alice"),
        ("answered", "ask_user", "refused", "bob"),
        ("answered", "ask_user", "answer", "alice"),
    ]
    # The trail keeps a digest of the answer as the server got it, never the answer itself.
    given = json.dumps({"action": "accept", "content": {"units": 8}})
    assert (await entries(store))[-1]["answer_digest"] == digest(given)


async def test_a_servers_question_may_be_answered_by_a_role_the_server_names(
    scripted: Any, tmp_path: Path, served: Clock
) -> None:
    # The server names approvers ("ops"): its question is alice's, or an ops user's, to answer.
    notes = tmp_path / "reserved.txt"
    server = Path(__file__).resolve().parents[1] / "servers" / "era_v2.py"
    entry = {
        "command": sys.executable,
        "args": [str(server)],
        "env": {"ERA_NOTES": str(notes)},
        "approvers": ["ops"],
    }
    step = {"id": "t1", "expert": "shop", "task": "Identity", "tool": "verify_identity"}
    ctx, _ = scripted(planner=[plan({**step, "args": {}})], response=["Done."])
    ctx["mcp_config"] = {"mcpServers": {"shop": entry}}
    store = InMemoryStore()
    thread = asking(ctx, store)
    await thread.as_("alice").send("Verify my identity")
    (question,) = await thread.interrupts()
    assert question["action_requests"][0]["args"]["url"].startswith("https://accounts.")

    await thread.as_("carol", "sales").resume({"decisions": [{"type": "respond", "message": "ok"}]})
    (again,) = await thread.interrupts()
    assert "only a user with the role 'ops' may answer" in again["error"]
    await thread.as_("bob", "ops").resume({"decisions": [{"type": "respond", "message": "done"}]})

    assert await thread.interrupts() == []
    (task,) = (await thread.values())["previous_plan"]
    assert "identity: accept" in str(task["result"])
    assert [who for who, _ in await refused_entries(store)] == ["carol"]


@pytest.mark.parametrize("mode", ["plan_only", "auto"])
async def test_a_call_that_needs_an_approver_is_asked_whatever_the_mode(
    scripted: Any, mcp_config: dict[str, Any], workdir: Path, served: Clock, mode: str
) -> None:
    """plan_only's "go ahead" and auto would settle it without the person the operator named."""
    title = unique(f"mode-{mode}")
    ctx = noting(scripted, mcp_config, title, approvers=["ops"], second_person=True)
    store = InMemoryStore()
    thread = asking(ctx, store, approval_mode=mode).as_("alice", "ops")
    await thread.send("Save a note")
    (request,) = await thread.interrupts()
    assert "other than 'alice'" in request["action_requests"][0]["description"]
    assert note_actions(workdir, title) == []

    await thread.resume(APPROVE)
    (again,) = await thread.interrupts()
    assert "cannot approve it: another user with the role 'ops' must answer" in again["error"]
    assert note_actions(workdir, title) == []
    await thread.as_("bob", "ops").resume(APPROVE)
    assert note_actions(workdir, title) == ["write"]


async def test_a_go_ahead_does_not_release_a_held_call_the_sender_may_not_approve(
    scripted: Any, mcp_config: dict[str, Any], workdir: Path, served: Clock
) -> None:
    """A call held in plan_only before its rule named approvers: the message is vetted too."""
    title = unique("release")
    ctx = noting(scripted, mcp_config, title)
    graph = build_graph(InMemorySaver(), store=InMemoryStore())
    thread = Person({**ctx, "approval_mode": "plan_only"}, graph=graph).as_("carol")
    await thread.send("Save a note")
    values = (await graph.aget_state(thread.config)).values
    assert [c["name"] for c in values["deferred"]] == ["write_note"]

    # The operator now names approvers for notes; carol holds no role.
    thread.ctx["mcp_config"]["mcpServers"]["notes"]["approvers"] = ["ops"]
    await thread.send("go ahead")
    said = (await graph.aget_state(thread.config)).values["messages"][-1].content
    assert said.startswith("I did not run the proposed actions: write_note:")
    assert "only a user with the role 'ops' may answer" in said
    assert note_actions(workdir, title) == []
