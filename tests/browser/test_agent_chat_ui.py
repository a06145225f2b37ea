"""Approving in LangChain's Agent Chat UI: a real page in headless Chromium, a served graph.

The graph runs with INTERRUPT_FORMAT=agent_inbox (offline:rules, no key) over the demo
inventory and notes servers; the page is `ui/dist` (`make ui`). Each test asks for the demo
request with a note title of its own on a fresh thread, waits for the approval card (the tool
name, and the assistant message above it saying what would run), answers with one of the card's
controls and checks the answer shown in the page and what the notes server wrote (its store
and its write log). Waits are on the page (locators), with generous timeouts; no timing is
asserted. The Accept test also runs against one Aegra instance and refreshes the screenshots
in docs/images.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.schema import Command

from tests.browser.conftest import IMAGES, RUN_MS, NotesStore, Served, write_mcp_config
from tests.integration_tests.aegra import aegra_cluster, interrupts_of
from tests.integration_tests.helpers import langgraph_dev

pytestmark = pytest.mark.integration

TOOL = "write_note"

NOT_RUN_STRICT = re.compile("not run", re.IGNORECASE)
"""How an answer says a held call did not run."""

NOT_RUN = re.compile(r"not run|declined", re.IGNORECASE)
"""How an answer says the held call did not run (Ignore's answer says it was declined)."""


def request_for(title: str) -> str:
    """The demo request, writing a note titled `title`."""
    return f'How many units of WID-1 are in stock, then write a note titled "{title}"'


def fresh_title(kind: str) -> str:
    """A note title no other test uses."""
    return f"{kind}-{os.urandom(3).hex()}"


class Chat:
    """Agent Chat UI's page, by what it shows: messages, the approval card, its controls."""

    def __init__(self, page: Any, ui_url: str, api_url: str) -> None:
        self.page = page
        self.url = f"{ui_url}/?" + urlencode({"apiUrl": api_url, "assistantId": "with_planner"})
        # Assistant messages (the template's AssistantMessage root); the card is drawn in one.
        self.ai_messages = page.locator("div.group.mr-auto")
        self.resolve_button = page.get_by_role("button", name="Mark as Resolved")
        self.card = self.ai_messages.filter(has=self.resolve_button)

    async def open(self) -> None:
        """Load the page on a new thread."""
        await self.page.goto(self.url)
        await self.expect(self.page.get_by_placeholder("Type your message...")).to_be_visible(
            timeout=60_000
        )

    @staticmethod
    def expect(locator: Any) -> Any:
        """Playwright's `expect`, imported only once the browser fixture has checked it."""
        from playwright.async_api import expect

        return expect(locator)

    async def send(self, text: str) -> None:
        """Type `text` into the chat box and send it."""
        box = self.page.get_by_placeholder("Type your message...")
        await box.fill(text)
        await self.page.get_by_role("button", name="Send", exact=True).click()

    async def approval_card(self) -> Any:
        """Wait for the approval card; check it names the tool under a message that says why."""
        await self.expect(self.resolve_button).to_be_visible(timeout=RUN_MS)
        await self.expect(self.card.get_by_text(TOOL, exact=True)).to_be_visible()
        # The assistant message the card is drawn under says what would run and why it asks.
        await self.expect(self.card.locator("div.py-1").first).to_contain_text(TOOL)
        return self.card

    def field(self, label: str) -> Any:
        """The Edit card's text box of the argument shown as `label` (e.g. "Title")."""
        return self.card.locator(
            f"xpath=.//p[normalize-space()='{label}']/following-sibling::textarea"
        )

    async def answer(self, *parts: str | re.Pattern[str]) -> str:
        """Wait until the last assistant message contains each of `parts`; its text."""
        last = self.ai_messages.last
        for part in parts:
            await self.expect(last).to_contain_text(part, timeout=RUN_MS)
        await self.expect(self.resolve_button).to_have_count(0, timeout=RUN_MS)
        text: str = await last.inner_text()
        return text


@pytest.fixture
def chat_on(page: Any, ui_server: str) -> Any:
    """A `Chat` of the page against a server URL."""

    def make(api_url: str) -> Chat:
        return Chat(page, ui_server, api_url)

    return make


async def _accept(chat: Chat, served: Served, screenshots: bool) -> None:
    title = fresh_title("accept")
    await chat.open()
    await chat.send(request_for(title))
    card = await chat.approval_card()
    assert served.store.writes(title) == 0, "nothing may run before the answer"
    await chat.expect(chat.field("Title")).to_have_value(title)
    if screenshots:
        await _screenshot(chat, card, IMAGES / "agent-chat-ui-approval.png")
        await chat.expect(card).to_be_visible()
    await card.get_by_role("button", name="Accept", exact=True).click()
    await chat.answer(f"Saved note '{title}'")
    assert served.store.writes(title) == 1, served.store.log.read_text()
    assert "120" in served.store.read()[title]
    if screenshots:
        await _screenshot(chat, chat.ai_messages.last, IMAGES / "agent-chat-ui-answer.png")


SCROLL_TO_TOP = """element => {
  element.scrollIntoView({block: "start"});
  let box = element.parentElement;
  while (box && box.scrollHeight <= box.clientHeight) box = box.parentElement;
  if (box) box.scrollTop -= 80;
}"""


async def _screenshot(chat: Chat, shown: Any, path: Path) -> None:
    """A screenshot of the page with `shown` (a message or the card) scrolled into view."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # Its top to the top of the message list, clear of the page's header.
    await shown.evaluate(SCROLL_TO_TOP)
    await chat.page.screenshot(path=str(path))


async def test_accept_runs_the_call_once(chat_on: Any, dev_server: Served) -> None:
    await _accept(chat_on(dev_server.url), dev_server, screenshots=True)


async def test_edit_runs_the_edited_arguments(chat_on: Any, dev_server: Served) -> None:
    chat = chat_on(dev_server.url)
    title, edited = fresh_title("edit"), fresh_title("edited")
    await chat.open()
    await chat.send(request_for(title))
    card = await chat.approval_card()
    await chat.field("Title").fill(edited)
    await card.get_by_role("button", name="Submit", exact=True).click()
    await chat.answer(f"Saved note '{edited}'")
    notes = dev_server.store.read()
    assert edited in notes
    assert title not in notes
    assert dev_server.store.writes(edited) == 1
    assert dev_server.store.writes(title) == 0


async def test_respond_declines_with_the_reason(chat_on: Any, dev_server: Served) -> None:
    chat = chat_on(dev_server.url)
    title = fresh_title("respond")
    reason = f"no notes this week {os.urandom(2).hex()}"
    await chat.open()
    await chat.send(request_for(title))
    card = await chat.approval_card()
    await card.get_by_placeholder("Your response here...").fill(reason)
    await card.get_by_role("button", name="Send Response", exact=True).click()
    await chat.answer(re.compile("declined", re.IGNORECASE), reason, TOOL)
    assert dev_server.store.writes(title) == 0
    assert title not in dev_server.store.read()


async def test_ignore_runs_nothing(chat_on: Any, dev_server: Served) -> None:
    chat = chat_on(dev_server.url)
    title = fresh_title("ignore")
    await chat.open()
    await chat.send(request_for(title))
    card = await chat.approval_card()
    await card.get_by_role("button", name="Ignore", exact=True).click()
    await chat.answer(TOOL, NOT_RUN)
    assert dev_server.store.writes(title) == 0
    assert title not in dev_server.store.read()


async def test_new_message_while_pending_runs_nothing(chat_on: Any, dev_server: Served) -> None:
    chat = chat_on(dev_server.url)
    title = fresh_title("superseded")
    await chat.open()
    await chat.send(request_for(title))
    await chat.approval_card()
    await chat.send("How many units of GAD-7 are in stock")
    await chat.answer(TOOL, NOT_RUN_STRICT)
    assert dev_server.store.writes(title) == 0
    assert title not in dev_server.store.read()


async def test_mark_as_resolved_runs_nothing(chat_on: Any, dev_server: Served) -> None:
    chat = chat_on(dev_server.url)
    title = fresh_title("resolved")
    await chat.open()
    await chat.send(request_for(title))
    await chat.approval_card()
    await chat.resolve_button.click()
    await chat.answer(TOOL, NOT_RUN_STRICT)
    assert dev_server.store.writes(title) == 0
    assert title not in dev_server.store.read()


async def test_a_question_is_answered_with_respond(chat_on: Any, dev_server: Served) -> None:
    # offline:rules turns "ask me ..." into a task whose expert asks the user (ask_user).
    chat = chat_on(dev_server.url)
    answer = f"blue {os.urandom(2).hex()}"
    await chat.open()
    await chat.send("ask me which colour to use")
    await chat.expect(chat.resolve_button).to_be_visible(timeout=RUN_MS)
    card = chat.card
    await chat.expect(card.get_by_text("ask_user", exact=True)).to_be_visible()
    # The assistant message the card is drawn under states the question.
    await chat.expect(card.locator("div.py-1").first).to_contain_text("Which colour to use?")
    await chat.expect(card.get_by_role("button", name="Accept", exact=True)).to_have_count(0)
    await card.get_by_placeholder("Your response here...").fill(answer)
    await card.get_by_role("button", name="Send Response", exact=True).click()
    await chat.answer(f"You answered: {answer}")


@pytest.fixture(scope="module")
async def aegra_server(
    ui_dist: Path, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Served]:
    """One Aegra instance (PostgreSQL + Redis, no key) with INTERRUPT_FORMAT=agent_inbox."""
    workdir = tmp_path_factory.mktemp("browser-aegra")
    config, store = write_mcp_config(workdir)
    async with aegra_cluster(
        workdir, INTERRUPT_FORMAT="agent_inbox", MCP_CONFIG=str(config)
    ) as cluster:
        instance = await cluster.add()
        yield Served(instance.url, store, instance.log)


async def test_accept_on_aegra(chat_on: Any, aegra_server: Served) -> None:
    await _accept(chat_on(aegra_server.url), aegra_server, screenshots=False)


# --- A server's question (MCP elicitation), in the browser and through the SDK ---------------

ERA_SERVER = Path(__file__).resolve().parents[1] / "servers" / "era_v2.py"
LINK_URL = "https://accounts.example.test/link?code=7F3K"


@pytest.fixture(scope="module")
async def asking_server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Served]:
    """`langgraph dev` (offline:rules, agent_inbox) over the era server, whose tools ask."""
    workdir = tmp_path_factory.mktemp("browser-asking")
    entry = {
        "command": sys.executable,
        "args": [str(ERA_SERVER)],
        "env": {"ERA_NOTES": str(workdir / "era-notes.txt"), "ERA_HOLD": str(workdir / "hold")},
        "description": "Stock, reservations and identity checks.",
    }
    config = workdir / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"shop": entry}}))
    env = {"INTERRUPT_FORMAT": "agent_inbox", "MCP_CONFIG": str(config)}
    async with langgraph_dev(workdir, env=env) as (url, _):
        store = NotesStore(workdir / "notes.json", workdir / "notes.log")
        yield Served(url, store, workdir / "server.log")


async def test_a_servers_question_is_answered_with_respond(
    chat_on: Any, asking_server: Served
) -> None:
    # The server's verify_identity asks the person to open an address (URL mode).
    chat = chat_on(asking_server.url)
    await chat.open()
    await chat.send("verify my identity")
    await chat.expect(chat.resolve_button).to_be_visible(timeout=RUN_MS)
    card = chat.card
    await chat.expect(card.get_by_text("ask_user", exact=True)).to_be_visible()
    await chat.expect(card.locator("div.py-1").first).to_contain_text(LINK_URL)
    await card.get_by_placeholder("Your response here...").fill("done")
    await card.get_by_role("button", name="Send Response", exact=True).click()
    await chat.answer("identity: accept")


async def test_a_servers_form_is_answered_through_the_sdk(asking_server: Served) -> None:
    client = get_client(url=asking_server.url)
    thread = await client.threads.create()
    request = {"messages": [{"role": "user", "content": "reserve item=WID-1"}]}
    await client.runs.wait(thread["thread_id"], "with_planner", input=request)
    (approval,) = interrupts_of(await client.threads.get_state(thread["thread_id"]))
    assert approval["value"][0]["action_request"]["action"] == "reserve"
    accept = Command(resume=[{"type": "accept", "args": None}])
    await client.runs.wait(thread["thread_id"], "with_planner", command=accept)
    (question,) = interrupts_of(await client.threads.get_state(thread["thread_id"]))
    asked = question["value"][0]["action_request"]["args"]
    assert "How many units of WID-1 should be reserved?" in asked["question"]
    assert asked["requested_schema"]["properties"]["units"]["type"] == "integer"

    answer = Command(resume=[{"type": "response", "args": "11"}])
    await client.runs.wait(thread["thread_id"], "with_planner", command=answer)

    assert interrupts_of(await client.threads.get_state(thread["thread_id"])) == []
    notes = (asking_server.log.parent / "era-notes.txt").read_text()
    assert notes.splitlines() == ["reserve\tWID-1\t11"]


async def test_the_plan_card_shows_a_running_calls_progress(
    chat_on: Any, asking_server: Served
) -> None:
    # The server's survey reports "aisle 1 of 2", then waits until the test has seen it shown.
    chat = chat_on(asking_server.url)
    await chat.open()
    await chat.send("survey item=WID-1")
    progress = chat.page.locator("[data-role='plan-card'] [data-role='progress']")
    await chat.expect(progress).to_contain_text("aisle 1 of 2", timeout=RUN_MS)
    await chat.expect(progress).to_contain_text("1/2 (50%)")

    (asking_server.log.parent / "hold").touch()

    await chat.answer("WID-1: surveyed")
