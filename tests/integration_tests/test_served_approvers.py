"""The right person answers, on a served instance: approver roles and a second person.

`langgraph dev` and Aegra start once per module with auth and an mcp.json whose notes server
needs a second person with the role `ops`, except for deletions, which the requester answers
within TTL_S seconds. Alice (ops) asks, Bob (ops) answers, Carol holds no role; each uses the
official SDK with an HS256 token carrying `roles`. Bob's answer carries on Alice's turn: its
records stay hers, and a second answer (Alice's terminal) is told it came late.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import jwt
import pytest

from strategies.cli import prompts, remote
from strategies.cli.exits import CliProblem
from tests.integration_tests.aegra import interrupts_of
from tests.integration_tests.test_cli_server import planner
from tests.integration_tests.test_served_auth import (
    GRAPH,
    SECRET,
    SERVERS,
    STOCK,
    Served,
    _ask,
    status_of,
)

pytestmark = pytest.mark.integration

APPROVE = {"decisions": [{"type": "approve"}]}

TTL_S = 2
"""How long the operator's mcp.json keeps a deletion's question open (`approval_ttl`)."""

EXPIRED = re.compile(
    r"This question expired at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, so its calls were not run: "
    r"send your request again to have them asked about anew\."
)
"""The one sentence a late answer gets."""


def token(sub: str, *roles: str) -> str:
    """An HS256 bearer token for `sub` holding `roles`."""
    claims = {"sub": sub, "roles": list(roles), "exp": int(time.time()) + 600}
    return jwt.encode(claims, SECRET, "HS256")


@pytest.fixture(scope="module", params=list(SERVERS))
async def server(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    mcp_config: dict[str, Any],
) -> AsyncIterator[Served]:
    """Each server in turn, with auth on and notes approved by a second person with `ops`."""
    folder = tmp_path_factory.mktemp(f"approvers-{request.param}")
    experts = {k: dict(mcp_config["mcpServers"][k]) for k in ("inventory", "notes")}
    experts["notes"].update(
        approvers=["ops"],
        second_person=True,
        approval_rules={
            "delete_*": {"approvers": [], "second_person": False, "approval_ttl": TTL_S}
        },
    )
    config = folder / "mcp.json"
    config.write_text(json.dumps({"mcpServers": experts}))
    env = {"AUTH_JWT_SECRET": SECRET, "MCP_CONFIG": str(config), "SERVED_CONTEXT_FIELDS": ""}
    async with SERVERS[request.param](folder, env) as served:
        yield served


@pytest.fixture
async def people(server: Served) -> AsyncIterator[dict[str, Any]]:
    """SDK clients for alice (ops), bob (ops) and carol (no role)."""
    clients = {
        "alice": server.client(token("alice", "ops")),
        "bob": server.client(token("bob", "ops")),
        "carol": server.client(token("carol")),
    }
    yield clients
    for client in clients.values():
        await client.aclose()


async def _alices_question(server: Served, alice: Any, title: str) -> str:
    """Alice's thread, waiting for approval of a note titled `title`, her own answer refused."""
    thread = await alice.threads.create()
    thread_id = str(thread["thread_id"])
    await alice.runs.wait(
        thread_id, GRAPH, input=_ask(f'{STOCK}, then write a note titled "{title}"')
    )
    (question,) = interrupts_of(await alice.threads.get_state(thread_id))
    assert "other than 'alice'" in question["value"]["action_requests"][0]["description"]

    # Alice may not approve her own request: refused with one sentence, the question stays open.
    await alice.runs.wait(thread_id, GRAPH, command={"resume": APPROVE})
    (again,) = interrupts_of(await alice.threads.get_state(thread_id))
    assert (
        "cannot approve it: another user with the role 'ops' must answer"
        in (again["value"]["error"])
    )
    return thread_id


def _written(workdir: Path, title: str) -> bool:
    notes = workdir / "notes.json"
    return notes.exists() and title in json.loads(notes.read_text())


async def test_the_requester_cannot_approve_and_no_one_else_writes(
    server: Served, people: dict[str, Any], workdir: Path
) -> None:
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    title = f"second-{os.urandom(4).hex()}"
    thread_id = await _alices_question(server, alice, title)
    assert not _written(workdir, title)

    # Carol has no approver role: the thread is not hers to reach.
    assert (await status_of(carol.threads.get(thread_id)))[0] == 404
    resume = carol.runs.wait(thread_id, GRAPH, command={"resume": APPROVE})
    assert (await status_of(resume))[0] == 404
    # Bob may answer, but not write in Alice's conversation nor change her thread.
    message = bob.runs.wait(thread_id, GRAPH, input=_ask("delete all notes"))
    assert (await status_of(message))[0] == 404
    assert (await status_of(bob.threads.update(thread_id, metadata={"x": 1})))[0] == 404
    assert not _written(workdir, title)
    assert interrupts_of(await alice.threads.get_state(thread_id))


async def _aegra_approver_answers(
    bob: Any, carol: Any, alice: Any, thread_id: str, workdir: Path, title: str
) -> None:
    """On Aegra an approver answers through the approvals routes (`aegra_approvals`).

    Aegra's own routes file a thread under its creator, so they hide Alice's thread from Bob;
    the approvals routes let a holder of its approver role read its question and answer it,
    and nothing else: Carol (no role) finds nothing there, and a message is refused.
    """
    assert (await status_of(bob.threads.get(thread_id)))[0] == 404
    assert (await status_of(bob.runs.wait(thread_id, GRAPH, command={"resume": APPROVE})))[0] == 404
    assert thread_id not in [t["thread_id"] for t in await carol.http.get("/approvals")]
    assert (await status_of(carol.http.get(f"/approvals/{thread_id}/state")))[0] == 404
    answer = {"assistant_id": GRAPH, "command": {"resume": APPROVE}}
    refused = carol.http.post(f"/approvals/{thread_id}/runs", json=answer)
    assert (await status_of(refused))[0] == 404
    message = {"assistant_id": GRAPH, "input": _ask("delete all notes")}
    assert (await status_of(bob.http.post(f"/approvals/{thread_id}/runs", json=message)))[0] == 403
    assert not _written(workdir, title)

    # Bob finds the question among those his role may answer, reads it, and approves it.
    assert thread_id in [t["thread_id"] for t in await bob.http.get("/approvals")]
    (question,) = interrupts_of(await bob.http.get(f"/approvals/{thread_id}/state"))
    (request,) = question["value"]["action_requests"]
    assert (request["name"], request["args"]["title"]) == ("write_note", title)
    run = await bob.http.post(f"/approvals/{thread_id}/runs", json=answer)
    await bob.runs.join(thread_id, run["run_id"])
    assert (await bob.runs.get(thread_id, run["run_id"]))["status"] == "success"
    assert not interrupts_of(await alice.threads.get_state(thread_id))
    assert _written(workdir, title)


async def test_a_second_person_with_the_role_answers(
    server: Served, people: dict[str, Any], workdir: Path
) -> None:
    alice, bob = people["alice"], people["bob"]
    title = f"second-{os.urandom(4).hex()}"
    thread_id = await _alices_question(server, alice, title)
    if server.name == "aegra":
        await _aegra_approver_answers(bob, people["carol"], alice, thread_id, workdir, title)
        return

    # Bob finds the question among the threads waiting, and approves it: the note is written.
    waiting = await bob.threads.search(status="interrupted", limit=100)
    assert thread_id in [t["thread_id"] for t in waiting]
    await bob.runs.wait(thread_id, GRAPH, command={"resume": APPROVE})
    assert not interrupts_of(await alice.threads.get_state(thread_id))
    assert _written(workdir, title)


async def test_through_the_cli_the_requester_is_refused_and_the_approver_answers(
    server: Served, people: dict[str, Any], workdir: Path, tmp_path: Path
) -> None:
    title = f"second-cli-{os.urandom(4).hex()}"
    thread = await people["alice"].threads.create()
    thread_id = str(thread["thread_id"])
    await people["alice"].runs.wait(
        thread_id, GRAPH, input=_ask(f'{STOCK}, then write a note titled "{title}"')
    )
    resume = ("resume", thread_id, "--server", server.url, "--approve", "--token")

    own = planner(tmp_path, *resume, token("alice", "ops"))
    assert own.returncode == 3, own.stderr + own.stdout
    said = " ".join((own.stdout + own.stderr).split())
    assert "cannot approve it: another user with the role 'ops' must answer" in said
    assert not _written(workdir, title)

    other = planner(tmp_path, *resume, token("bob", "ops"))
    assert other.returncode == 0, other.stderr + other.stdout
    assert _written(workdir, title)
    if server.name == "aegra":
        # Answered: another user's thread waits on nothing the approver could answer.
        again = planner(tmp_path, *resume[:4], "--token", token("bob", "ops"))
        assert again.returncode == 2, again.stderr + again.stdout
        assert "waits on no question: there is nothing for you to answer." in again.stderr


async def test_an_answer_after_the_operators_time_limit_runs_nothing(
    people: dict[str, Any], workdir: Path
) -> None:
    alice = people["alice"]
    title = f"late-{os.urandom(4).hex()}"
    notes = workdir / "notes.json"
    kept = json.loads(notes.read_text()) if notes.exists() else {}
    notes.write_text(json.dumps({**kept, title: "to keep"}))
    thread_id = str((await alice.threads.create())["thread_id"])
    await alice.runs.wait(thread_id, GRAPH, input=_ask(f'Delete the note titled "{title}"'))
    (question,) = interrupts_of(await alice.threads.get_state(thread_id))
    assert "'alice' only, until " in question["value"]["action_requests"][0]["description"]

    # Sleeping past the time to live makes the answer late whatever the machine's speed.
    await asyncio.sleep(TTL_S + 1)
    done = await alice.runs.wait(thread_id, GRAPH, command={"resume": APPROVE})

    assert not interrupts_of(await alice.threads.get_state(thread_id))
    answer = " ".join(str(done["messages"][-1]["content"]).split())
    # One sentence says why, and the answer lists the call as not run.
    assert EXPIRED.search(answer), answer
    assert f'declined by the user: delete_note({{"title": "{title}"}})' in answer, answer
    assert title in json.loads(notes.read_text())
    log = workdir / "notes.log"
    assert f"delete {title}" not in (log.read_text() if log.exists() else "")
    trail = await alice.store.search_items(
        ["mcp_planner", "audit", "alice"], filter={"thread_id": thread_id}, limit=100
    )
    (refused,) = [i["value"] for i in trail["items"] if i["value"]["decision"] == "refused"]
    assert (refused["user"], refused["tool"]) == ("alice", "delete_note")
    assert "expired at" in refused["why"]


async def approve(server: Served, client: Any, thread_id: str) -> None:
    """Approve the question on `thread_id` as `client`, the way its server lets an approver.

    On Aegra through the approvals routes (`aegra_approvals`), elsewhere as a resume run.
    """
    if server.name != "aegra":
        await client.runs.wait(thread_id, GRAPH, command={"resume": APPROVE})
        return
    answer = {"assistant_id": GRAPH, "command": {"resume": APPROVE}}
    run = await client.http.post(f"/approvals/{thread_id}/runs", json=answer)
    await client.runs.join(thread_id, run["run_id"])


async def _records(client: Any, kind: str, user: str, thread_id: str) -> list[Any]:
    """The graph's records of `kind` about `thread_id` under `user`, as `client` may read them."""
    found = await client.store.search_items(["mcp_planner", kind, user], limit=100)
    return [i for i in found["items"] if thread_id in i["namespace"] or _about(i, thread_id)]


def _about(item: dict[str, Any], thread_id: str) -> bool:
    """Whether a record not filed under a thread (memory, audit) is about `thread_id`."""
    return bool((item.get("value") or {}).get("thread_id") == thread_id)


async def test_an_approvers_resume_leaves_the_thread_and_its_records_alices(
    server: Served, people: dict[str, Any], workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = people["alice"], people["bob"]
    title = f"owner-{os.urandom(4).hex()}"
    thread_id = await _alices_question(server, alice, title)

    def bob_answers_first(value: Any) -> Any:
        # While alice's terminal asks, bob approves through the SDK (in a loop of his own).
        async def as_bob() -> None:
            client = server.client(token("bob", "ops"))
            await approve(server, client, thread_id)
            await client.aclose()

        with ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, as_bob()).result()
        return APPROVE

    monkeypatch.setattr(prompts, "stdin_is_terminal", lambda: True)
    monkeypatch.setattr(prompts, "ask_in_terminal", bob_answers_first)
    context = remote.server_context(None, None, None)
    hint = f"mcp-planner resume {thread_id} --server {server.url}"
    with pytest.raises(CliProblem, match="was already answered by 'bob' at ") as refused:
        await remote.resume_remote(
            server.url, thread_id, context, hint, None, token("alice", "ops")
        )
    assert "your answer was not used and nothing ran" in str(refused.value)
    assert _written(workdir, title)

    # What bob's run did is alice's: her ledger holds the approved write, the notes expert's
    # answer is in her record, the run in her memory; bob keeps nothing of her thread.
    # (Aegra's Store API shows a client only the audit trail of the graph's records.)
    if server.name != "aegra":
        assert await _records(alice, "call_ledger", "alice", thread_id)
        assert await _records(alice, "runs", "alice", thread_id)
        for kind in ("call_ledger", "seen", "runs", "results"):
            assert await _records(bob, kind, "bob", thread_id) == [], kind
    answers = [
        (i["value"]["user"], i["value"]["decision"])
        for i in await _records(alice, "audit", "alice", thread_id)
        if i["value"]["event"] == "answered"
    ]
    assert ("bob", "approve") in answers


async def test_plan_only_cannot_settle_a_call_that_needs_an_approver(
    server: Served, people: dict[str, Any], workdir: Path
) -> None:
    """A client may tighten to plan_only, but its "go ahead" is no approver's answer.

    Alice (ops) and Carol (no role) each ask for a note in plan_only: the call that needs a
    second person with `ops` is asked as a question, never held for a message; a "go ahead"
    writes nothing, and neither does the requester's own approval.
    """
    for name in ("alice", "carol"):
        client, title = people[name], f"plan-only-{name}-{time.time_ns()}"
        thread_id = str((await client.threads.create())["thread_id"])
        ask = _ask(f'{STOCK}, then write a note titled "{title}"')
        await client.runs.wait(thread_id, GRAPH, input=ask, context={"approval_mode": "plan_only"})
        (question,) = interrupts_of(await client.threads.get_state(thread_id))
        description = question["value"]["action_requests"][0]["description"]
        assert f"other than '{name}'" in description
        await client.runs.wait(thread_id, GRAPH, command={"resume": APPROVE})
        await client.runs.wait(thread_id, GRAPH, input=_ask("go ahead"))
        assert not _written(workdir, title), name


ANSWER_EXTRAS: dict[str, Any] = {
    "webhook": "https://93.184.215.14/answered",
    "checkpoint_id": "1f0a0000-0000-6000-8000-000000000000",
    "config": {"configurable": {"checkpoint_id": "1f0a0000-0000-6000-8000-000000000000"}},
    "interrupt_before": ["call_tool"],
}
"""What an approver's answer may not carry on either server (Aegra's route: more below)."""

AEGRA_ROUTE_EXTRAS: dict[str, Any] = {
    "metadata": {"note": "x"},
    "multitask_strategy": "interrupt",
    "stream_mode": "debug",
    "after_seconds": 5,
    "checkpoint": {"checkpoint_id": "1f0a0000-0000-6000-8000-000000000000"},
    "durability": "exit",
}
"""More fields Aegra's approvals route refuses: an answer takes the resume, and no more."""


async def test_an_approvers_answer_carries_nothing_but_the_answer(
    server: Served, people: dict[str, Any], workdir: Path
) -> None:
    """Bob (ops) may answer Alice's question, and only answer it: every extra field is refused.

    On Aegra the approvals route refuses each with 403 naming it; on langgraph dev a run that
    does more than answer does not reach another user's thread (404). Then Bob's bare answer
    writes the note once.
    """
    alice, bob = people["alice"], people["bob"]
    title = f"extras-{time.time_ns()}"
    thread_id = await _alices_question(server, alice, title)
    answer = {"assistant_id": GRAPH, "command": {"resume": APPROVE}}
    if server.name == "aegra":
        for field, value in {**ANSWER_EXTRAS, **AEGRA_ROUTE_EXTRAS}.items():
            sent = bob.http.post(f"/approvals/{thread_id}/runs", json={**answer, field: value})
            status, body = await status_of(sent)
            assert (status, f"the field {field!r} is not taken" in body) == (403, True), body
    else:
        for field, value in ANSWER_EXTRAS.items():
            sent = bob.runs.wait(thread_id, GRAPH, command={"resume": APPROVE}, **{field: value})
            assert (await status_of(sent))[0] == 404, field
    assert not _written(workdir, title)
    await approve(server, bob, thread_id)
    assert _written(workdir, title)
