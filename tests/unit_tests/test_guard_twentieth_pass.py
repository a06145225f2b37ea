"""Issue 44, the twentieth pass: a position beside a size is a page.

GraphQL's connections take `first` and `after`, Stripe-like lists `limit` and `starting_after`,
QuickBooks-like ones `startPosition` and `maxResults`, Twitter-like ones `since_id` and
`max_results`. Neither word alone says the call lists (`after` may be a date a call sets), but a
position beside a size typed as a number is a page of a list. The reads are of the shapes the
nineteenth held-out set held (made-up tools, not the set's own); the writes are calls of the
same shapes a person would want to approve: the page rule's other conditions still hold them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit_tests.guard_helpers import attack_verdicts, verdict_beside_a_write

S = {"type": "string"}
N = {"type": "integer"}


_verdict = verdict_beside_a_write


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        ("Tracko", "trackoIssues", None, {"teamId": S, "assigneeId": S, "first": N, "after": S}),
        (
            "Tracko",
            "trackoCycles",
            None,
            {
                "teamId": S,
                "state": {"type": "string", "enum": ["active", "done"]},
                "first": N,
                "after": S,
            },
        ),
        ("Hubba", "hubba_imports", "Recent import jobs with state.", {"limit": N, "after": S}),
        (
            "Charge",
            "ChargeVendors",
            None,
            {"active": {"type": "boolean"}, "startPosition": N, "maxResults": N},
        ),
        ("Chirp", "chirp-replies", None, {"user_id": S, "since_id": S, "max_results": N}),
        (
            "Trackr",
            "trackrSprints",
            "Sprints on a board.",
            {"boardId": N, "startAt": N, "maxResults": N},
        ),
    ],
)
def test_a_position_beside_a_size_lists(
    server: str, name: str, description: str | None, props: dict[str, Any]
) -> None:
    verdict = _verdict(server, name, description, props)
    assert not verdict["irreversible"], verdict["reason"]
    assert "page of a list" in verdict["reason"]


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        # the name's verb acts
        ("Tracko", "trackoArchiveIssues", None, {"teamId": S, "first": N, "after": S}),
        ("Chat", "chat_purge_messages", None, {"channel": S, "limit": N, "after": S}),
        # the description acts
        (
            "Chat",
            "chat_messages",
            "Messages after the given id, deleted in bulk.",
            {"channel": S, "limit": N, "after": S},
        ),
        # an argument carries what a write writes
        ("Chat", "chat_replies", None, {"thread": S, "text": S, "limit": N, "after": S}),
        # a position beside a size that is no number is no page
        ("Rota", "rota_swaps", None, {"team_id": S, "after": S, "limit": S}),
    ],
)
def test_a_paged_shape_that_may_act_stays_held(
    server: str, name: str, description: str | None, props: dict[str, Any]
) -> None:
    verdict = _verdict(server, name, description, props)
    assert verdict["irreversible"], verdict["reason"]


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        # what a filing says happened is written
        ("Herd", "herd_movement_report", None, {"date": S, "notes": S}),
        # no period: a report on a message may be its filing
        ("Mail", "mail_spam_report", None, {"message_id": S}),
        # a noun made from an act names what a filing reports, or what a call may pay out
        ("Herd", "herd_movement_report", None, {"date": S}),
        ("Shop", "shop_payout_report", None, {"from_date": S, "to_date": S}),
        # the description sends it
        ("Ops", "ops_daily_report", "Sends the daily report to the team.", {"date": S}),
        # `to` may be whom it goes to
        ("Ops", "ops_weekly_report", None, {"week": N, "to": S}),
    ],
)
def test_a_report_that_may_be_filed_or_sent_stays_held(  # a period rule was taken back for these
    server: str, name: str, description: str | None, props: dict[str, Any]
) -> None:
    verdict = _verdict(server, name, description, props)
    assert verdict["irreversible"], verdict["reason"]


@pytest.mark.parametrize(
    ("server", "name", "description", "props", "held"),
    [
        (
            "Voxa",
            "VoxaCheckVerification",
            "Check a code the user entered. A correct code approves the verification.",
            {"to": S, "code": S},
            True,
        ),
        (
            "Vault",
            "vault_get_token",
            "Get the token's details. A second call revokes the token.",
            {"token_id": S},
            True,
        ),
        # a subject whose verb reads, is denied, has no object or acts on something else
        (
            "Vault",
            "vault_get_token",
            "Get the token's details. A new token replaces the current one.",
            {"token_id": S},
            False,
        ),
        (
            "Code",
            "code_search_issues",
            "Search issues. The sort parameter orders the results by date.",
            {"q": S},
            False,
        ),
        (
            "Ledger",
            "ledger_get_invoice",
            "Get an invoice. The response includes the line items.",
            {"invoice_id": S},
            False,
        ),
        (
            "Ledger",
            "ledger_get_entry",
            "Get a journal entry. No call changes the ledger.",
            {"entry_id": S},
            False,
        ),
        (
            "Voxa",
            "VoxaGetVerification",
            "Get a verification's status. A pending verification expires after ten minutes.",
            {"sid": S},
            False,
        ),
    ],
)
def test_a_later_sentence_whose_subject_acts_on_the_tools_record_holds(
    server: str, name: str, description: str, props: dict[str, Any], held: bool
) -> None:
    verdict = _verdict(server, name, description, props)
    assert verdict["irreversible"] is held, verdict["reason"]


TENTH = Path(__file__).parents[1] / "data" / "guard_attack_tenth.txt"
"""A tenth attack, on this pass's page of a position beside a size (`before`: the guard at the
end of the nineteenth pass). It found 62 writes cleared: descriptions that open with the name's
plural as their verb ("Refunds charges ..."), creates whose fields no vocabulary knows beside a
`limit` and an `after`, a `count` the name sets, a page sent to an audience."""


def test_the_tenth_attack_finds_no_write_cleared_that_the_guard_before_held() -> None:
    cleared = attack_verdicts(TENTH)
    assert cleared["W"] == set()
    assert cleared["D"] == set()
    # Cleared before this pass too, by a verbless list reading whose later sentence the old
    # readings do not see ("DELETE on each." is read as a value in capitals). "Boosts each."
    # (Mastodon|statuses) is held since the twenty-first pass: a later sentence led by a change.
    assert cleared["older"] == {
        "Chat|chat_messages", "Chat|chat_unread", "Mastodon|favourites",
    }  # fmt: skip
    # Its reads: 9 of 10 held, as before the pass (hubspot_deleted_contacts is cleared).
    assert (len(cleared["R held"]), len(cleared["R"]), len(cleared["R anew"])) == (9, 10, 0)


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        (
            "Shop",
            "shop_refunds",
            "Refunds charges disputed after the given id, up to limit per call.",
            {"reason": S, "limit": N, "after": S},
        ),
        (
            "Pay",
            "pay_captures",
            "Captures authorized payments after an id.",
            {"first": N, "after": S},
        ),
        (
            "Bank",
            "bank_transfers",
            None,
            {"destination": S, "amount_cents": N, "limit": N, "after": S},
        ),
        ("Retail", "stock_count", None, {"sku": S, "count": N, "after": S}),
        (
            "Crm",
            "crm_exports",
            "Exports contacts created after the given id to the Mailchimp audience.",
            {"audience_id": S, "limit": N, "after": S},
        ),
    ],
)
def test_a_position_beside_a_size_with_a_write_beside_it_stays_held(
    server: str, name: str, description: str | None, props: dict[str, Any]
) -> None:
    verdict = _verdict(server, name, description, props)
    assert verdict["irreversible"], verdict["reason"]


@pytest.mark.parametrize(
    "description",
    [
        "Refunds issued after the given id, newest first.",  # a participle, then a preposition
        "Refunds in the account, newest first.",
        "Refunds, filtered by status.",
    ],
)
def test_a_names_plural_opening_a_list_still_names_its_records(description: str) -> None:
    verdict = _verdict("Shop", "shop_refunds", description, {"limit": N, "after": S})
    assert not verdict["irreversible"], verdict["reason"]


ELEVENTH = Path(__file__).parents[1] / "data" / "guard_attack_eleventh.txt"
"""An eleventh attack, on a report-over-a-period rule (taken back) and the later subject's act
(`before`: the guard at a087645). It found 46 writes the report rule cleared and 22 reads the
first version of the subject rule held."""


def test_the_eleventh_attack_finds_no_write_cleared_and_one_read_held() -> None:
    cleared = attack_verdicts(ELEVENTH)
    assert cleared["W"] == set()
    assert cleared["D"] == set()
    assert cleared["older"] == set()
    # "List charges. The starting_after cursor skips the charges already seen.": its own record.
    assert cleared["R anew"] == {"Stripe|list_charges"}
    assert len(cleared["R"]) == 22
