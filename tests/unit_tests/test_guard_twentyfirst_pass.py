"""Issue 44, the twenty-first pass: what the strict test and a read name's later sentence see.

A rule that read records given back in an order ("Deployments for a project, newest first.") as
a list was tried and taken back: the twelfth attack (below) found 57 writes it cleared, through
an enum or a switch that turns the effect on, a value under a choosing name, and clauses the
strict test did not read. What stays: the strict test of a call's shape (`common.safety.quiet`)
reads a passive in the first clause, a change after a plural subject and ", sent ..."; and a
later sentence led by a change in the third person holds a read-named tool (set 24's miss).
The writes below are of the shapes the order rule would have cleared; they stay held.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit_tests.guard_helpers import attack_verdicts, verdict_beside_a_write

S = {"type": "string"}
N = {"type": "integer"}
E = {"type": "string", "enum": ["production", "preview"]}


_verdict = verdict_beside_a_write


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


@pytest.mark.parametrize(
    ("name", "description"),
    [
        (
            "ring_test_sms_delivery",
            "Test that a number can receive messages. Sends a real test message from the given "
            "sender to the recipient and reports the delivery result.",
        ),
        ("hook_validate_endpoint", "Validates a webhook endpoint. Posts a sample event to it."),
        ("vault_get_secret", "Gets a secret. Rotates it afterwards."),
        ("docs_view_page", "Views a page. Records the view in the page's history."),
        # Set 25's misses (held out): another act after "Also", a device's light blinked.
        (
            "desk_get_me",
            "Returns the admin that owns the access token. Also marks that admin as active, "
            "turning off away mode.",
        ),
        ("lamp_identify_light", "Blinks a light once so you can find it."),
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
        # A change to a definite part of the call: how it reads (the twelfth attack's reads).
        "Gets a record. Retries the request up to three times on rate limits.",
        "Gets a record. Signs the request with the configured credentials.",
        "Gets a record. Replaces the account ids with display names.",
    ],
)
def test_a_later_sentence_that_notes_how_the_result_reads_leaves_it_read(description: str) -> None:
    verdict = _verdict("Crm", "crm_get_record", description, {"record_id": S})
    assert not verdict["irreversible"], verdict["reason"]


TWELFTH = Path(__file__).parents[1] / "data" / "guard_attack_twelfth.txt"
"""A twelfth attack, on the order rule (taken back) and the later sentence led by a change
(`before`: the guard at 8d48760). It found 57 writes the order rule cleared and 20 reads the
first versions of the two other rules held."""


def test_the_twelfth_attack_finds_no_write_cleared_that_the_guard_before_held() -> None:
    cleared = attack_verdicts(TWELFTH)
    assert cleared["W"] == set()
    assert cleared["D"] == set()
    # Cleared by the guard before the pass too: verbless lists whose effect is an enum, a switch,
    # a value under a choosing name, or a clause no reading sees ("... with a lease on each").
    # 27 until the twenty-third pass, whose later call effects ("Returned events vanish from the
    # buffer", "Returning them flips them to read", "torn down on return") hold 6 of them, and
    # whose flags named by a change verb alone (`acknowledge`, `approve`, `send`, `resend`)
    # 5 more; `kube_pods(namespace_id, evict)` since "evict" is a change word;
    # `mailbox_threads(then: none|archive|trash)` since the twenty-fourth pass (an argument
    # named as what to do, whose values are acts).
    assert len(cleared["older"]) == 14
    assert "Mailbox|mailbox_threads" not in cleared["older"]
    # Reads held anew: a change after a plural subject ("Jobs run in UTC", "plans renew") and a
    # destructive verb on the call's own request or result ("Sends the request through the
    # configured proxy", "Truncates each line", "Merges the segments").
    assert cleared["R anew"] == {
        "Cron|cron_jobs", "Kube|get_pod_logs", "Meet|get_transcript", "Subs|subs_plans",
        "Subs|subs_subscriptions", "Web|fetch_url",
    }  # fmt: skip
    assert (len(cleared["R held"]), len(cleared["R"])) == (10, 28)
