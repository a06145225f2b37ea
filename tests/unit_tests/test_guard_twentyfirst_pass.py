"""Issue 44, the twenty-first pass: records given back in an order are a list.

"Deployments for a project or team, newest first.": an order is something a list has, and a
call that changes something has none to give. Every one of the 60 descriptions of the labelled
lists that order what they return is a read's. The order clears a call only under the strict
test of a page (`common.safety.paging`): the reads below are of the shapes the held-out sets
held (made-up tools, not the sets' own); the writes are of the same shapes, and two of them
(a passive in the first clause, a plural subject before a change) were cleared by the page rule
before this pass too.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp.types import Tool

from common.safety.classify import classify_tools
from common.safety.ordering import order_given
from tests.unit_tests.guard_helpers import PLAIN

S = {"type": "string"}
N = {"type": "integer"}
E = {"type": "string", "enum": ["production", "preview"]}


def _verdict(server: str, name: str, description: str | None, props: dict[str, Any]) -> dict:
    """The guard's verdict on one tool, classified with a write beside it on its server."""
    tools = [
        Tool(
            name=name, description=description, inputSchema={"type": "object", "properties": props}
        ),
        Tool(name=f"{server.lower()}_delete_item", description="Delete an item.", inputSchema={}),
    ]
    return dict(classify_tools(server, tools, PLAIN)[0])


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        ("Ship", "ship_deployments", "Deployments of a site, newest first.", {"siteId": S}),
        (
            "Launch",
            "launch_builds",
            "Builds for a project or team, most recent first.",
            {"projectId": S, "target": E},
        ),
        ("Crate", "CrateBookings", "Bookings for a depot, oldest first.", {"depot_id": S}),
        ("Hatch", "hatch-installations", "Installations on an account. Sorted by date.", {}),
        ("Relay", "relay.payments", "Payments in chronological order.", {"limit": N}),
    ],
)
def test_records_given_back_in_an_order_are_read(
    server: str, name: str, description: str, props: dict[str, Any]
) -> None:
    verdict = _verdict(server, name, description, props)
    assert not verdict["irreversible"], verdict["reason"]
    assert "in an order" in verdict["reason"]


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        # An argument that carries a value beside the order: the value may be set.
        ("Store", "store_prices", "Prices for each SKU, newest first.", {"sku": S, "price": N}),
        ("Mail", "mail_digests", "Digests, newest first.", {"list_id": S, "body": S}),
        # A name's word in a change verb's own form, or a verb in its verb place.
        ("Ops", "ops_restart_pods", "Unhealthy pods, oldest first.", {}),
        ("Cache", "cache_flush", "Entries, oldest first.", {}),
        # The description acts: a passive in the first clause, a later clause, a participle.
        ("Job", "job_failed", "Failed jobs, oldest first, are deleted.", {}),
        ("Job", "job_failed", "Failed jobs, oldest first, will be retried.", {}),
        ("Cron", "cron_jobs", "Scheduled jobs sorted by next run; due ones run now.", {}),
        ("Bank", "bank_dues", "Payments due today, oldest first, paid from the main account.", {}),
        ("Sms", "sms_outbox", "Queued texts, oldest first, sent as they are returned.", {}),
        ("Chat", "chat_unread", "Unread messages, newest first, marked read on return.", {}),
        ("Ticket", "ticket_queue", "Open tickets, oldest first, assigned to the caller.", {}),
        ("Poll", "poll_votes", "Polls, newest first; your vote is recorded.", {"poll_id": S}),
    ],
)
def test_an_order_with_a_value_a_verb_or_an_act_beside_it_stays_held(
    server: str, name: str, description: str, props: dict[str, Any]
) -> None:
    verdict = _verdict(server, name, description, props)
    assert verdict["irreversible"], verdict["reason"]


@pytest.mark.parametrize(
    ("description", "props"),
    [
        ("Failed jobs are retried.", {"limit": N, "after": S}),
        ("Failed jobs, oldest first, are automatically requeued and retried.", {"page": N}),
        ("Scheduled jobs; due ones run now.", {"cursor": S}),
        ("Invoices due today, sent to each customer.", {"page_token": S}),
    ],
)
def test_a_page_whose_description_acts_in_a_passive_or_after_a_plural_is_held(
    description: str, props: dict[str, Any]
) -> None:
    """These were cleared as a page of a list before this pass (the paging rule's strict test)."""
    verdict = _verdict("Work", "work_jobs", description, props)
    assert verdict["irreversible"], verdict["reason"]


@pytest.mark.parametrize(
    "description",
    [
        "Failed jobs that are retried, oldest first.",  # a relative: which jobs
        "Recipients a campaign was sent to, newest first.",  # a past: what was done before
        "Failed jobs, oldest first. Replies are not included.",  # negated
        "Failed jobs are listed oldest first.",  # a read's passive
    ],
)
def test_a_passive_that_says_which_records_or_is_not_done_leaves_the_list_read(
    description: str,
) -> None:
    verdict = _verdict("Work", "work_jobs", description, {"limit": N, "after": S})
    assert not verdict["irreversible"], verdict["reason"]


def test_the_order_words_are_found_in_any_case_and_only_as_an_order() -> None:
    assert order_given("Charges, Newest First.") == "newest first"
    assert order_given("Rows sorted by last edit.") == "sorted by"
    assert order_given("Events in reverse chronological order.") == "chronological order"
    assert order_given("First the newest build is deployed.") is None
    assert order_given("Sort the rows by date.") is None


@pytest.mark.parametrize(
    ("name", "description"),
    [
        (
            "ring_test_sms_delivery",
            "Test that a number can receive messages. Sends a real test message from the given "
            "sender to the recipient and reports the delivery result.",
        ),
        ("hook_validate_endpoint", "Validates a webhook endpoint. Posts a sample event to it."),
        ("vault_get_secret", "Gets a secret. Rotates the old version afterwards."),
        ("docs_view_page", "Views a page. Records the view in the page's history."),
    ],
)
def test_a_later_sentence_led_by_a_change_holds_a_read_named_tool(
    name: str, description: str
) -> None:
    """Set 24's one miss (held out): the tool, unnamed, is the subject of a later change."""
    verdict = _verdict(name.split("_")[0].title(), name, description, {"id": S})
    assert verdict["irreversible"], verdict["reason"]


@pytest.mark.parametrize(
    "description",
    [
        "Gets a record. Orders the results by date.",  # a note on how the result is read
        "Gets a record. Includes the deleted ones when asked.",
        "Gets a record. Updates to it are listed in its history.",  # no object after the verb
        "Gets a record. Returns the fields a caller may read.",
    ],
)
def test_a_later_sentence_that_notes_how_the_result_reads_leaves_it_read(description: str) -> None:
    verdict = _verdict("Crm", "crm_get_record", description, {"record_id": S})
    assert not verdict["irreversible"], verdict["reason"]
