"""Issue 44, the nineteenth pass: pages of results, content handed back, data named by its
head, and a record's state named by the record.

The reads are of the shapes the eighteenth and twentieth held-out sets held (made-up tools, not
the sets' own); the writes are calls of the same shapes a person would want to approve.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.types import Tool

from common.safety.classify import classify_tools
from common.safety.paging import paging_argument
from tests.unit_tests.guard_helpers import PLAIN, attack_verdicts

S = {"type": "string"}
N = {"type": "integer"}
A = {"type": "array", "items": S}


def _held(server: str, name: str, description: str | None, props: dict[str, Any]) -> bool:
    """Whether the guard holds one tool, classified with a write beside it on its server."""
    tools = [
        Tool(
            name=name, description=description, inputSchema={"type": "object", "properties": props}
        ),
        Tool(name=f"{server.lower()}_delete_item", description="Delete an item.", inputSchema={}),
    ]
    return classify_tools(server, tools, PLAIN)[0]["irreversible"]


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        ("Booker", "BookerPayments", None, {"where": S, "page": N, "pageSize": N}),
        (
            "Mailfox",
            "mailfox_marketing_sends",
            "Marketing sends with status draft or scheduled.",
            {"page_size": N, "page_token": S, "status": A},
        ),
        (
            "Buildly",
            "buildly.pipelines.runs",
            "Pipeline runs for a repository: number, state.",
            {"repo": S, "pagelen": N, "page": N},
        ),
        (
            "Crate",
            "crate-folder-invites-list",
            "Pending invites to shared folders.",
            {"limit": N, "cursor": S},
        ),
        ("Dial", "dial.calls.list", "Calls, with status, duration and price.", {"page_size": N}),
        (
            "Chirp",
            "chirp-followers",
            "Accounts following a user, 1000 per page.",
            {"user_id": S, "pagination_token": S},
        ),
        (
            "Ship",
            "shipApplications",
            "Applications across jobs. status: active, rejected.",
            {"job_id": S, "status": S, "per_page": N},
        ),
        ("Post", "postPages", "", {"spaceId": S, "status": S, "cursor": S, "limit": N}),
    ],
)
def test_a_paged_call_whose_words_only_name_records_lists(
    server: str, name: str, description: str | None, props: dict[str, Any]
) -> None:
    assert not _held(server, name, description, props)


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        # a word of the name is a change verb in its own form
        ("Booker", "BookerPurchaseOrders", None, {"status": S, "page": N}),
        ("Desk", "desk_bulk_update_tickets", None, {"query": S, "page": N, "status": S}),
        ("Bank", "bank.transactions.sync", "Transactions since the cursor.", {"cursor": S}),
        ("Crawl", "crawl_monitor_create", "A recurring scrape.", {"url": S, "page": N}),
        # an argument carries what would be written
        ("Chat", "chat_channel_messages", None, {"channel_id": S, "cursor": S, "text": S}),
        ("Fund", "fund_payouts", None, {"cursor": S, "amount": N}),
        # the description acts
        ("Chat", "chat_old_messages", "Deletes messages older than a date.", {"cursor": S}),
        ("Chat", "chat_history", "Bulk delete a channel's history, page by page.", {"cursor": S}),
        (
            "Mail",
            "mail_digest",
            "Sends the weekly digest to each page of subscribers.",
            {"cursor": S},
        ),
        ("Jobs", "jobs_stale", "Stale jobs; each one returned is cancelled.", {"offset": N}),
        ("Ledger", "LedgerInvoices", "Sales and purchase invoices.", {"page": N}),
        # a string `page` is a page's content, not a page of results
        ("Wiki", "wiki_page", "A page of the wiki.", {"space": S, "page": S}),
    ],
)
def test_a_paged_call_that_may_act_stays_held(
    server: str, name: str, description: str | None, props: dict[str, Any]
) -> None:
    assert _held(server, name, description, props)


def test_a_page_is_told_by_its_argument_and_its_type() -> None:
    def schema(props: dict[str, Any]) -> dict[str, Any]:
        return {"type": "object", "properties": props}

    assert paging_argument(schema({"nextPageToken": S})) == "nextPageToken"
    assert paging_argument(schema({"per_page": N})) == "per_page"
    assert paging_argument(schema({"page": S})) is None
    assert paging_argument(schema({"limit": N, "before": S})) is None
    # a position is a page beside a size typed as a number, not alone nor beside a string size
    assert paging_argument(schema({"first": N, "after": S})) == "after"
    assert paging_argument(schema({"startPosition": N, "maxResults": N})) == "startPosition"
    assert paging_argument(schema({"after": S})) is None
    assert paging_argument(schema({"limit": S, "after": S})) is None
    assert paging_argument({"type": "object"}) is None


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        # content handed back in the call's own result
        (
            "Sheetly",
            "sheetly_export",
            "Export a sheet as csv or pdf and return the file content.",
            {"sheet_id": S, "format": S},
        ),
        ("Box", "box-file-download", "Download a file's contents (binary as base64).", {"path": S}),
        ("Plan", "plan_state_download", "Download the current state as raw JSON.", {"ws_id": S}),
        # who the caller is
        ("Chat", "chatWhoami", "Signed-in user profile (id, displayName, mail).", {}),
        # a verbless phrase headed by what it gives back, its arguments only choosing
        (
            "Shop",
            "shopProductDetails",
            "Product details at a store: brand, size, price.",
            {"store_id": S, "product_id": S},
        ),
    ],
)
def test_content_handed_back_and_data_named_by_its_head_read(
    server: str, name: str, description: str | None, props: dict[str, Any]
) -> None:
    assert not _held(server, name, description, props)


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        # the content goes somewhere else
        (
            "Mail",
            "mail_download_attachment",
            "Download an attachment to a folder as base64.",
            {"attachment_id": S, "folder": S},
        ),
        ("Sheetly", "sheetly_export_table", "Export the table as CSV.", {"table": S}),
        # the details may be what is set
        (
            "Crm",
            "crm_contact_details",
            "Contact details.",
            {"contact_id": S, "email": S, "phone": S},
        ),
        (
            "Shop",
            "shop_billing_info",
            "Billing info for a customer.",
            {"customer_id": S, "card_token": S},
        ),
        # a verb the guard knows leads the phrase
        ("Ware", "ware_load", "Load data from S3 to Redshift.", {"table": S}),
        ("Acct", "acct_account_info", "Update account info.", {"account_id": S}),
    ],
)
def test_content_sent_elsewhere_and_details_that_may_be_set_stay_held(
    server: str, name: str, description: str | None, props: dict[str, Any]
) -> None:
    assert _held(server, name, description, props)


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        ("Cartly", "cartlyOrderStatus", None, {"order_id": S}),
        ("Car", "car.charge.state", None, {"vehicle_id": S}),
        ("Blog", "blogSiteHealth", None, {}),
        (
            "Infra",
            "infra_deploy_status",
            "Status of a deployment: pending, live, failed.",
            {"deployment_id": S},
        ),
    ],
)
def test_a_name_ending_in_its_records_state_reads(
    server: str, name: str, description: str | None, props: dict[str, Any]
) -> None:
    assert not _held(server, name, description, props)


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        # a verb that sets a state keeps its own
        ("Phone", "phone_set_wifi_status", None, {}),
        ("Chat", "chat_clear_status", None, {"user_id": S}),
        ("Jobs", "jobs_reset_state", None, {"job_id": S}),
        # an argument sets the state
        ("Cartly", "cartlyOrderStatus", None, {"order_id": S, "status": S}),
        ("Car", "car.lock.state", None, {"vehicle_id": S, "locked": {"type": "boolean"}}),
        # the description acts
        ("Cartly", "cartlyOrderStatus", "Mark an order as shipped.", {"order_id": S}),
        # one noun against its server's change word
        ("Send", "SendStatus", None, {}),
    ],
)
def test_a_state_name_that_may_set_the_state_stays_held(
    server: str, name: str, description: str | None, props: dict[str, Any]
) -> None:
    assert _held(server, name, description, props)


def test_a_noun_made_from_an_act_that_only_names_which_data_reads() -> None:
    slots = "Available delivery and pickup slots for an address, with fees per slot."
    assert not _held("Cart", "cart_delivery_slots", slots, {"address_id": S})
    # an act at the head, or among heads listed side by side, still names the act
    assert _held("Cart", "cart_refunds", "Refunds for an order.", {"order_id": S})
    assert _held("Cart", "cart_ledger", "Charges, refunds and payments.", {"account_id": S})
    # an object argument is what the call sets
    prefs = "Notification preferences of the user: channels, keywords."
    assert _held("Chat", "chat_notification_prefs", prefs, {"prefs": {"type": "object"}})


def test_a_name_that_writes_two_words_as_one_holds_them() -> None:
    listed = "Pull requests for a repository. state: OPEN, MERGED."
    props = {"repo": S, "state": A, "pagelen": N}
    assert not _held("Gitzo", "gitzo.pullrequests.list", listed, props)
    # without the page, a state beside a listing verb may still be set; a bare verb still acts
    assert _held("Gitzo", "gitzo.pullrequests.list", listed, {"repo": S, "state": A})
    assert _held("Gitzo", "gitzo.requests.list", listed, props)


EIGHTH = Path(__file__).parents[1] / "data" / "guard_attack_eighth.txt"
"""An eighth attack, on this pass's first clearings, in the sixth's format (`before`: the guard
just before them). It found 53 writes cleared, most saying what they do in a passive, an "each
..." clause, a later sentence or a verb no vocabulary holds; `common.safety.quiet` holds them."""


def test_the_eighth_attack_finds_no_write_cleared_that_the_guard_before_held() -> None:
    cleared = attack_verdicts(EIGHTH)
    assert cleared["W"] == set()
    assert cleared["D"] == set()
    # Cleared before this pass too, by the verb-led readings ("get", "access", a summary, a
    # history) or a verbless description whose later clause the old reading did not see.
    # `AWS|access_key` ("..., rotated on every call.") is held since the twenty-first pass,
    # which knows "rotate" as a change; `Auth|whoami` ("... the admin gets a new-login alert")
    # since the twenty-third, which reads a later "gets an alert" as something sent, and
    # `Tax|filing_summary` ("the return goes to the tax authority at the end of the call").
    assert cleared["older"] == {
        "Telegram|get_updates", "Slack|channels_history", "DO|droplet_backup",
        "Escrow|deal_escrow", "Plaid|item_access",
    }  # fmt: skip
    # Its reads: 19 of 22 were held before this pass.
    assert (len(cleared["R held"]), len(cleared["R"])) == (7, 22)


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        (
            "Shop",
            "shop.order.calculate_refund",
            "Calculate refund amounts for an order without creating a refund.",
            {"orderId": S},
        ),
        (
            "Broker",
            "brokerPreviewOrder",
            "Estimates cost of an order without submitting it.",
            {"symbol": S, "qty": N},
        ),
        (
            "Air",
            "air-refund-estimate",
            "Estimated refund if the booking were cancelled now.",
            {"booking_reference": S},
        ),
        (
            "Cart",
            "cartCheckoutQuote",
            "Price quote for the cart. Does not place the order.",
            {"address_id": S},
        ),
        (
            "Crm",
            "crmValidateDeploy",
            "Validate a deployment (check-only); nothing is saved.",
            {"zipFile": S},
        ),
    ],
)
def test_a_what_if_whose_description_says_the_act_is_not_done_reads(
    server: str, name: str, description: str | None, props: dict[str, Any]
) -> None:
    assert not _held(server, name, description, props)


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        # no word of the name only works the act out
        ("Shop", "shop_refund", "Refund an order without notifying the customer.", {"id": S}),
        # the negation holds only sometimes
        (
            "Exp",
            "exp.reports.export",
            "Export reports. Does not mark them as exported unless mark_as_exported is set.",
            {"report_ids": A, "mark_as_exported": {"type": "boolean"}},
        ),
        # another clause acts
        (
            "Pm",
            "pm_suggest_estimate",
            "Suggest an estimate for an issue and set it. Nothing is saved.",
            {"issueId": S},
        ),
        (
            "Crm",
            "crm_run_report",
            "Run a report and email it to the team. Nothing is saved.",
            {"reportId": S},
        ),
        # no negation at all
        ("Air", "air-refund-estimate", "Refund estimate for a booking.", {"booking_reference": S}),
    ],
)
def test_a_what_if_that_may_still_act_stays_held(
    server: str, name: str, description: str | None, props: dict[str, Any]
) -> None:
    assert _held(server, name, description, props)


def test_a_phrase_after_its_article_or_led_by_an_unknown_word_before_a_count_reads() -> None:
    assert not _held("Broker", "brokerPortfolios", "The account's portfolios.", {})
    cpu = "CPU utilisation metrics for a droplet over a time window."
    assert not _held("Cloud", "cloud.metrics.cpu", cpu, {"host_id": S, "start": S})
    # a word no lexicon knows before anything but a count may be the verb
    assert _held("Crm", "crm_customers", "Onboards customers from a CSV file.", {"file": S})


NINTH = Path(__file__).parents[1] / "data" / "guard_attack_ninth.txt"
"""A ninth attack, on the what-if rule and the strict test's leniencies (`before`: the guard
before the pass). It found 46 writes cleared: what-ifs led by their act (`delete_estimate`,
`send_test_preview`), negations that reached too far ("Payments not retried yet are retried")."""


def test_the_ninth_attack_finds_no_write_cleared_that_the_guard_before_held() -> None:
    cleared = attack_verdicts(NINTH)
    assert cleared["W"] == set()
    assert cleared["D"] == set()
    # Cleared before the pass too: rehearsal and state names whose later sentence acts, a
    # label with one value ("Acknowledgement: automatic"), "calculate" and "validate" names.
    # 13 until the twenty-second pass, whose later clauses hold `aws|simulate_az_failure`; 12
    # until the twenty-third pass, whose conditional lead holds `exports|export_status` ("If it
    # has not been downloaded within a day, the link is emailed to the owner again"); 11 until
    # its later call effects held `ci|build_status` ("... are aborted by the check") and
    # `stripe|payout_status` ("... is cancelled by this call").
    assert len(cleared["older"]) == 9, cleared["older"]
