"""The plan card in Agent Chat UI: the graph's plan drawn live, from a real `langgraph dev` server.

The planner is a scripted OpenAI-compatible stub (loopback, no key) that plans direct steps
over the demo inventory and notes servers, so no other model call decides what runs: three
stock lookups and a note that depends on all three (its write waits for approval), or a
lookup that fails and the note that depends on it. The page is `ui/dist` (`make ui`); the card
is `ui-components/plan_card.tsx`, bundled and served by the server (`/ui/with_planner`), drawn
by Agent Chat UI in a shadow root (Playwright's CSS locators pierce it). That the card is live,
drawn from the plan while the run goes on, is checked by order, not by a clock: the stub holds
the failed plan's answer until the card is on the page, so a card drawn only at the run's end
never comes. How long after the plan it came (taken in the page against the moment the stub
handed the plan over, one host, one clock) is printed, not asserted: it is the machine's speed.
Screenshots go to docs/images.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from strategies.with_planner.prompts import PLANNER_SYSTEM_PROMPT
from tests.browser.conftest import IMAGES, RUN_MS, Served, write_mcp_config
from tests.browser.test_agent_chat_ui import Chat, _screenshot
from tests.integration_tests.helpers import langgraph_dev
from tests.integration_tests.openai_stub import OpenAIStub

pytestmark = pytest.mark.integration

HOLD_S = RUN_MS / 1000
"""How long the stub holds a held answer at most (then it answers, and the test fails)."""

SKUS = ("WID-1", "GAD-7", "BOLT-M6")

ANSWER = "Here is what was done."
"""The stub's answer (any request but the planner's)."""

WATCH_CARD = """() => {
  window.__cardSeen = null;
  const timer = setInterval(() => {
    for (const host of document.querySelectorAll("[id^='child-shadow']")) {
      if (host.shadowRoot && host.shadowRoot.querySelector("[data-role='plan-card']")) {
        window.__cardSeen = Date.now();
        clearInterval(timer);
      }
    }
  }, 10);
}"""
"""Notes in the page (every 10 ms) when the card first appears in a component's shadow root."""


def lookup(tid: str, sku: str) -> dict[str, Any]:
    """A direct stock lookup (wire form: every field, arguments JSON-encoded)."""
    return {
        "id": tid,
        "expert": "inventory",
        "task": f"Stock of {sku}",
        "depends_on": [],
        "critical": True,
        "tool": "get_stock",
        "args_json": json.dumps({"sku": sku}),
    }


def note(tid: str, title: str, after: list[str]) -> dict[str, Any]:
    """A direct note write of the results of `after`."""
    body = " ".join(f"${{{t}.result}}" for t in after)
    return {
        "id": tid,
        "expert": "notes",
        "task": f'Write the note "{title}"',
        "depends_on": after,
        "critical": True,
        "tool": "write_note",
        "args_json": json.dumps({"title": title, "body": body}),
    }


def answer(tasks: list[dict[str, Any]], decision: str = "replace") -> dict[str, Any]:
    """The planner's whole answer in the wire form."""
    return {
        "decision": decision,
        "plan": tasks,
        "next_task": 0,
        "clarification": None,
        "not_covered": [],
    }


def plan_for(request: str) -> dict[str, Any]:
    """The plan the stub gives for a request: `stock for TITLE` or `broken stock for TITLE`."""
    title = request.rsplit(" ", 1)[-1]
    if request.startswith("broken"):
        tasks = [lookup("t1", "NOPE-1"), note("t2", title, ["t1"])]
    else:
        tasks = [*(lookup(f"t{n}", sku) for n, sku in enumerate(SKUS, 1))]
        tasks.append(note("t4", title, ["t1", "t2", "t3"]))
    return answer(tasks)


class Planner:
    """Routes the stub's requests: the planner gets the plan (a replan: go on as planned)."""

    def __init__(self) -> None:
        self.planned_at: dict[str, float] = {}
        """When each request's plan was handed over (epoch seconds)."""
        self.held: dict[str, threading.Event] = {}
        """Titles whose answer waits until their event is set (the stub's thread waits)."""

    def hold_answer(self, title: str) -> threading.Event:
        """Hold the answer of the request naming `title` until the returned event is set."""
        self.held[title] = threading.Event()
        return self.held[title]

    def __call__(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """A reply for a planner request; None leaves others to the stub's default."""
        if not str(body["messages"][0]["content"]).startswith(PLANNER_SYSTEM_PROMPT[:40]):
            sent = json.dumps(body)
            for title, release in list(self.held.items()):
                if title in sent:
                    release.wait(HOLD_S)
            return None
        users = [str(m["content"]) for m in body["messages"] if m["role"] == "user"]
        if not users:
            # One came once, under load (its source not found): no plan of this module's, and
            # raising here would fail the module when the stub stops.
            return None
        request = users[-1]
        if request in self.planned_at:
            return {"content": json.dumps(answer([], decision="continue"))}
        self.planned_at[request] = time.time()
        return {"content": json.dumps(plan_for(request))}


@pytest.fixture(scope="module")
async def planned_server(
    ui_dist: Path, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[tuple[Served, Planner]]:
    """`langgraph dev` on the stub planner, agent_inbox interrupts, the demo experts."""
    workdir = tmp_path_factory.mktemp("browser-card")
    config, store = write_mcp_config(workdir)
    planner = Planner()
    with OpenAIStub([], default={"content": ANSWER}, route=planner) as stub:
        env = {
            "INTERRUPT_FORMAT": "agent_inbox",
            "MCP_CONFIG": str(config),
            "MODEL": "openai:stub-model",
            "OPENAI_BASE_URL": stub.base_url,
        }
        async with langgraph_dev(workdir, env=env) as (url, _):
            yield Served(url, store, workdir / "server.log"), planner


@pytest.fixture
def chat(page: Any, ui_server: str, planned_server: tuple[Served, Planner]) -> Chat:
    """Agent Chat UI's page against the stub-planned server."""
    return Chat(page, ui_server, planned_server[0].url)


class Card:
    """The plan card on the page, by its data attributes."""

    def __init__(self, chat: Chat) -> None:
        self.chat = chat
        self.root = chat.page.locator("[data-role='plan-card']")
        # The assistant message it is drawn under (its plan line above it): for screenshots.
        self.message = chat.ai_messages.filter(has=self.root)

    def task(self, tid: str) -> Any:
        """The row of task `tid`."""
        return self.root.locator(f"[data-task='{tid}']")

    async def expect_status(self, tid: str, status: str) -> None:
        """Wait until task `tid` shows `status`."""
        await self.chat.expect(self.task(tid)).to_have_attribute(
            "data-status", status, timeout=RUN_MS
        )


async def _wait_for_card(chat: Chat, planner: Planner, request: str) -> Card:
    """Send `request`; the card, once on the page (how long after the plan printed)."""
    await chat.page.evaluate(WATCH_CARD)
    await chat.send(request)
    card = Card(chat)
    await chat.expect(card.root).to_be_visible(timeout=RUN_MS)
    # The page's own watch may note it a poll later than Playwright saw it.
    await chat.page.wait_for_function("() => window.__cardSeen !== null", timeout=RUN_MS)
    seen_ms = await chat.page.evaluate("() => window.__cardSeen")
    late = seen_ms / 1000 - planner.planned_at[request]
    print(f"the card came {late:.2f} s after the plan")
    return card


async def test_card_follows_the_plan_to_the_answer(
    chat: Chat, planned_server: tuple[Served, Planner]
) -> None:
    served, planner = planned_server
    title = f"card-{os.urandom(3).hex()}"
    await chat.open()
    card = await _wait_for_card(chat, planner, f"stock for {title}")

    await chat.expect(card.root.locator("[data-task]")).to_have_count(4)
    await chat.expect(card.task("t4").locator("[data-role='after']")).to_have_text(
        "after t1, t2, t3"
    )
    for tid in ("t1", "t2", "t3"):
        await card.expect_status(tid, "completed")
    await card.expect_status("t4", "awaiting_approval")
    await chat.expect(card.task("t2").locator("[data-role='line']")).to_contain_text("14")
    held = card.task("t4").locator("[data-role='held']")
    await chat.expect(held).to_contain_text("write_note")
    await chat.approval_card()
    assert served.store.writes(title) == 0, "nothing may run before the answer"
    await _screenshot(chat, card.message, IMAGES / "plan-card-approval.png")

    # The held call links to the approval card: it is scrolled into view.
    await chat.page.evaluate("() => window.scrollTo(0, 0)")
    await held.locator("[data-role='approval-link']").click()
    await chat.expect(chat.resolve_button).to_be_in_viewport(timeout=RUN_MS)

    await chat.card.get_by_role("button", name="Accept", exact=True).click()
    await card.expect_status("t4", "completed")
    await chat.expect(card.root).to_have_attribute("data-final", "true", timeout=RUN_MS)
    await chat.answer(ANSWER)
    assert served.store.writes(title) == 1
    await _screenshot(chat, card.message, IMAGES / "plan-card-final.png")


async def test_failed_task_skips_its_dependent(
    chat: Chat, planned_server: tuple[Served, Planner]
) -> None:
    served, planner = planned_server
    title = f"broken-{os.urandom(3).hex()}"
    release = planner.hold_answer(title)
    await chat.open()
    try:
        card = await _wait_for_card(chat, planner, f"broken stock for {title}")
        # The answer is still held: the card came from the plan, while the run went on.
        await chat.expect(chat.ai_messages.get_by_text(ANSWER)).to_have_count(0)
    finally:
        release.set()

    await card.expect_status("t1", "failed")
    await card.expect_status("t2", "skipped")
    await chat.expect(card.task("t1").locator("[data-role='line']")).to_contain_text("NOPE-1")
    await chat.expect(card.task("t2").locator("[data-role='line']")).to_contain_text("t1 failed")
    await chat.expect(card.root).to_have_attribute("data-final", "true", timeout=RUN_MS)
    assert served.store.writes(title) == 0
    await _screenshot(chat, card.message, IMAGES / "plan-card-failed.png")
