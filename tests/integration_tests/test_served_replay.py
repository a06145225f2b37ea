"""An approver replays an old checkpoint of the owner's thread: refused, and nothing runs.

`langgraph dev` and Aegra start once for the module with the approvers' setup of
test_served_approvers.py: the notes server needs a second person with the role `ops`. Alice
(ops) asks for a note; Bob (ops) rejects it, then tries to approve it after the fact by resuming
from the checkpoint where it waited (`checkpoint_id`, `checkpoint`,
`config.configurable.checkpoint_id`) or by jumping to the call (`goto`), through every route
the server has. Each try is refused and the notes file stays as it was; Alice's thread then
goes on as usual, and Bob's plain answer to her next question still writes it. Checkpoint
fields without an id are refused on both (`langgraph dev`: 404, the run does more than answer)
and change nothing. Copying her waiting thread (to approve the copy after the original was
rejected) is refused on both: 403 on `langgraph dev`, 404 on Aegra.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration_tests.aegra import interrupts_of
from tests.integration_tests.test_served_approvers import (
    APPROVE,
    _alices_question,
    _written,
    approve,
    people,
    server,
)
from tests.integration_tests.test_served_auth import GRAPH, STOCK, Served, _ask, status_of

pytestmark = pytest.mark.integration

__all__ = ["people", "server"]  # the fixtures, started once for this module

REJECT = {"decisions": [{"type": "reject", "message": "not this note"}]}

Probe = Callable[[Any, str, str], Awaitable[Any]]
"""One try: (Bob's client, Alice's thread id, the old checkpoint's id) -> the request."""


async def _answer(server: Served, client: Any, thread_id: str, resume: Any) -> None:
    """Answer the thread's question with `resume` as `client`, the way its server lets one."""
    if server.name != "aegra":
        await client.runs.wait(thread_id, GRAPH, command={"resume": resume})
        return
    body = {"assistant_id": GRAPH, "command": {"resume": resume}}
    run = await client.http.post(f"/approvals/{thread_id}/runs", json=body)
    await client.runs.join(thread_id, run["run_id"])


async def _waiting_checkpoint(alice: Any, thread_id: str) -> str:
    """The id of the newest checkpoint of the thread that waits on a question."""
    for state in await alice.threads.get_history(thread_id, limit=50):
        if interrupts_of(state):
            return str(state["checkpoint"]["checkpoint_id"])
    raise AssertionError("the thread never waited on a question")


def _notes(workdir: Path) -> str:
    """The notes server's file as it is now ('' before its first note)."""
    path = workdir / "notes.json"
    return path.read_text() if path.exists() else ""


async def _rejected(server: Served, people: dict[str, Any], title: str) -> tuple[str, str]:
    """Alice's thread whose note Bob rejected, and the checkpoint where the note waited."""
    alice, bob = people["alice"], people["bob"]
    thread_id = await _alices_question(server, alice, title)
    waited = await _waiting_checkpoint(alice, thread_id)
    await _answer(server, bob, thread_id, REJECT)
    assert not interrupts_of(await alice.threads.get_state(thread_id))
    return thread_id, waited


def _resume(**extra: Any) -> Probe:
    """A resume approving the note through the server's own run route, with `extra` fields."""

    def probe(bob: Any, thread_id: str, old: str) -> Awaitable[Any]:
        fields = {k: _filled(v, old) for k, v in extra.items()}
        sent: Awaitable[Any] = bob.runs.wait(
            thread_id, GRAPH, command={"resume": APPROVE}, **fields
        )
        return sent

    return probe


OLD = object()
"""Stands for the old checkpoint's id in a probe's fields."""


def _filled(value: Any, old: str) -> Any:
    """`value` with OLD replaced by the old checkpoint's id, at any depth."""
    if value is OLD:
        return old
    if isinstance(value, dict):
        return {k: _filled(v, old) for k, v in value.items()}
    return value


RUN_ROUTE_PROBES: dict[str, tuple[Probe, int]] = {
    "checkpoint_id": (_resume(checkpoint_id=OLD), 404),
    "checkpoint": (_resume(checkpoint={"checkpoint_id": OLD, "checkpoint_ns": ""}), 404),
    "config.configurable.checkpoint_id": (
        _resume(config={"configurable": {"checkpoint_id": OLD}}),
        404,
    ),
}
"""Replays through the server's own run route, and the status each must get."""


def _goto(bob: Any, thread_id: str, old: str) -> Awaitable[Any]:
    """A resume that also jumps to the node sending calls."""
    sent: Awaitable[Any] = bob.runs.wait(
        thread_id, GRAPH, command={"resume": APPROVE, "goto": "call_tool"}
    )
    return sent


async def _refused(probe: Probe, bob: Any, thread_id: str, old: str) -> tuple[int, str]:
    """The status and body the probe got."""
    return await status_of(probe(bob, thread_id, old))


async def test_an_approver_cannot_replay_a_rejected_call_through_the_run_route(
    server: Served, people: dict[str, Any], workdir: Path
) -> None:
    title = f"replay-{os.urandom(4).hex()}"
    thread_id, old = await _rejected(server, people, title)
    before, head = _notes(workdir), await people["alice"].threads.get_state(thread_id)

    got = {
        name: (await _refused(probe, people["bob"], thread_id, old))[0]
        for name, (probe, _) in RUN_ROUTE_PROBES.items()
    }
    goto = await _refused(_goto, people["bob"], thread_id, old)

    assert got == {name: status for name, (_, status) in RUN_ROUTE_PROBES.items()}
    # A jump is refused to anyone, before who may reach the thread is asked (Aegra: not found).
    assert goto[0] == (404 if server.name == "aegra" else 403), goto
    assert not _written(workdir, title)
    assert _notes(workdir) == before
    after = await people["alice"].threads.get_state(thread_id)
    assert after["checkpoint"] == head["checkpoint"], "a refused try wrote a checkpoint"


SIDE_PROBES: dict[str, Probe] = {
    "checkpoint.checkpoint_ns": _resume(checkpoint={"checkpoint_ns": "fork"}),
    "config.configurable.checkpoint_ns": _resume(config={"configurable": {"checkpoint_ns": "f"}}),
    "checkpoint.checkpoint_map": _resume(checkpoint={"checkpoint_map": {"": OLD}}),
}
"""Checkpoint fields without a checkpoint id. LangGraph folds `checkpoint` into
`config.configurable` before the handlers see the run; a non-empty one there is more than an
answer, so another user's thread is out of reach (404 on both servers)."""


async def test_checkpoint_fields_without_an_id_change_nothing(
    server: Served, people: dict[str, Any], workdir: Path
) -> None:
    title = f"replay-side-{os.urandom(4).hex()}"
    thread_id, old = await _rejected(server, people, title)
    before, head = _notes(workdir), await people["alice"].threads.get_state(thread_id)

    for name, probe in SIDE_PROBES.items():
        status, text = await _refused(probe, people["bob"], thread_id, old)
        assert status == 404, (name, status, text)

    assert not _written(workdir, title)
    assert _notes(workdir) == before
    after = await people["alice"].threads.get_state(thread_id)
    assert after["checkpoint"] == head["checkpoint"], "a try wrote a checkpoint"


async def test_an_approver_cannot_fork_a_waiting_thread_to_approve_it_after_a_rejection(
    server: Served, people: dict[str, Any], workdir: Path
) -> None:
    alice, bob = people["alice"], people["bob"]
    title = f"replay-copy-{os.urandom(4).hex()}"
    thread_id = await _alices_question(server, alice, title)

    status, copy = await _copy(bob, thread_id)
    await _answer(server, bob, thread_id, REJECT)
    if copy is not None:
        await _answer(server, bob, copy, APPROVE)

    assert status == (404 if server.name == "aegra" else 403)
    assert not _written(workdir, title)
    # The owner may not copy either: the server cannot tell whose thread a copy is of.
    assert (await _copy(alice, thread_id))[0] == (404 if server.name == "aegra" else 403)


async def _copy(client: Any, thread_id: str) -> tuple[int, str | None]:
    """Copy the thread as `client`: the status, and the copy's id when it was made."""
    try:
        made = await client.threads.copy(thread_id)
    except httpx.HTTPStatusError as exc:
        return exc.response.status_code, None
    return 200, str(made["thread_id"])


APPROVALS_PROBES: dict[str, tuple[dict[str, Any], str]] = {
    "checkpoint_id": ({"checkpoint_id": OLD}, "the field 'checkpoint_id' is not taken"),
    "checkpoint": (
        {"checkpoint": {"checkpoint_id": OLD, "checkpoint_ns": ""}},
        "the field 'checkpoint' is not taken",
    ),
    "config": (
        {"config": {"configurable": {"checkpoint_id": OLD}}},
        "the field 'config' is not taken",
    ),
    "goto": (
        {"command": {"resume": APPROVE, "goto": "call_tool"}},
        "This route only answers a question",
    ),
}
"""Replays through Aegra's approvals route: the extra body fields, and what the 403 says."""


async def test_on_aegra_the_approvals_route_refuses_a_replay_naming_the_field(
    server: Served, people: dict[str, Any], workdir: Path
) -> None:
    if server.name != "aegra":
        pytest.skip("the approvals routes are Aegra's (langgraph dev answers on its run route)")
    title = f"replay-aegra-{os.urandom(4).hex()}"
    thread_id, old = await _rejected(server, people, title)
    before, head = _notes(workdir), await people["alice"].threads.get_state(thread_id)

    for name, (extra, said) in APPROVALS_PROBES.items():
        body = {"assistant_id": GRAPH, "command": {"resume": APPROVE}, **_filled(extra, old)}
        status, text = await status_of(
            people["bob"].http.post(f"/approvals/{thread_id}/runs", json=body)
        )
        assert (status, said in text) == (403, True), (name, status, text)

    assert not _written(workdir, title)
    assert _notes(workdir) == before
    after = await people["alice"].threads.get_state(thread_id)
    assert after["checkpoint"] == head["checkpoint"], "a refused try wrote a checkpoint"


async def test_after_the_refused_replays_the_owners_thread_goes_on_as_usual(
    server: Served, people: dict[str, Any], workdir: Path
) -> None:
    alice, bob = people["alice"], people["bob"]
    title = f"replay-first-{os.urandom(4).hex()}"
    thread_id, old = await _rejected(server, people, title)
    for probe, _ in RUN_ROUTE_PROBES.values():
        await _refused(probe, bob, thread_id, old)

    # Alice asks again in the same thread; Bob's plain answer writes the new note only.
    again = f"replay-again-{os.urandom(4).hex()}"
    await alice.runs.wait(
        thread_id, GRAPH, input=_ask(f'{STOCK}, then write a note titled "{again}"')
    )
    (question,) = interrupts_of(await alice.threads.get_state(thread_id))
    assert question["value"]["action_requests"][0]["args"]["title"] == again
    await approve(server, bob, thread_id)
    assert not interrupts_of(await alice.threads.get_state(thread_id))
    assert _written(workdir, again)
    assert not _written(workdir, title)
