"""Issue 44, third pass: the classes the second product-prefixed set showed (its held-out measure
was 1 missed, 18 of 66 read-only tools held; it is a tuning list since).

Each class with examples written here in other words than the set's, and the writes beside them
that must stay held.
"""

from __future__ import annotations

import pytest
from mcp.types import Tool, ToolAnnotations

from common.mcp.config import ServerConfig
from common.safety.classify import ToolVerdict, classify_tool
from common.safety.readings import physical_effect

PLAIN = ServerConfig(command="srv")


def _verdict(
    server: str, name: str, description: str | None = None, hint: bool | None = None
) -> ToolVerdict:
    annotations = None if hint is None else ToolAnnotations(readOnlyHint=hint)
    tool = Tool(
        name=name, description=description, inputSchema={"type": "object"}, annotations=annotations
    )
    return classify_tool(server, tool, PLAIN)


def _held(server: str, name: str, description: str | None = None) -> bool:
    return _verdict(server, name, description)["irreversible"]


# 1. Printing on paper, a label or a device is a change; no read verb in the name takes it back.


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        ("paperjet", "paperjet_printers_test_page", "Print a test page on the printer."),
        ("labelhub", "labelhub.check_alignment", "Print an alignment sheet on the label printer."),
        ("kiosk", "kiosk_verify_receipt", "Prints a sample receipt to verify the roll."),
        ("office", "office_get_badge", "Print the visitor's badge."),
    ],
)
def test_printing_on_a_medium_is_held_whatever_the_name_reads(
    server: str, name: str, description: str
) -> None:
    verdict = _verdict(server, name, description)
    assert verdict["irreversible"], verdict


def test_an_untrusted_read_only_hint_does_not_clear_printing_on_paper() -> None:
    verdict = _verdict("paperjet", "test_page", "Print a test page on the printer.", hint=True)
    assert verdict["irreversible"], verdict


@pytest.mark.parametrize(
    "description",
    [
        "Print the current configuration to stdout.",
        "Print the page's title to the console.",
        "Print preview of the page as it would look on paper.",
        "Return a printable version of the invoice page.",
        "Pages printed per printer over a period.",
        "Show the printer's paper level.",
    ],
)
def test_printing_to_a_display_or_as_a_noun_is_no_physical_effect(description: str) -> None:
    assert physical_effect(description) is None


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("show_config", "Print the current configuration to stdout."),
        ("get_printable_invoice", "Return a printable version of the invoice page."),
        ("render_preview", "Print preview of the page as it would look on paper."),
    ],
)
def test_display_printing_under_a_read_name_still_reads(name: str, description: str) -> None:
    verdict = _verdict("docs", name, description)
    assert not verdict["irreversible"] or "physical" not in verdict["reason"], verdict


# 2. Reads the second set held by a change word that says nothing the tool does, by class.


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        # a change word as the object of a read verb: a charge, a refund, a payout read
        ("ledgerly", "LedgerlyListCharges", "List charges, newest first."),
        ("ledgerly", "LedgerlyGetRefund", "Retrieve a refund."),
        (
            "ledgerly",
            "ledgerly_explain_credit",
            "Explain the prorated refund a customer would get.",
        ),
        # a question about a state
        ("shipfast", "shipfast-has-delivered", "Has the parcel been delivered? Returns the date."),
        ("paygate", "paygate_is_payout_verified", "Is the payout account verified?"),
        ("rota", "rota_who_is_on_call", "Who is on call for a team right now."),
        ("rota", "rota_is_deposit_required", "Is a deposit required for this booking?"),
        # rehearsing or evaluating a change: simulate, preview, compare, dry-run, evaluate a flag
        (
            "shopline",
            "ShoplineSimulateOrder",
            "Simulate an order in the sandbox. No payment is made.",
        ),
        ("blogly", "BloglyPreviewPost", "Render a preview of the post. Nothing is posted."),
        (
            "deployer",
            "deployer.builds.dry_run",
            "Dry-run a release: run the checks, without deploying.",
        ),
        ("deployer", "deployer.releases.compare", "Compare two releases by commit."),
        (
            "flagship",
            "flagship.flags.evaluate",
            "Evaluate a flag for a user and return its variant.",
        ),
        # a change word in the description used as a noun
        (
            "shopline",
            "shopline_sales_report",
            "Weekly sales report: orders, revenue, refunds and returns.",
        ),
        ("blogly", "BloglyGetPost", "Get a post by ID, including title, tags and publish status."),
        ("remit", "remit_estimate_fee", "Estimate the fee for sending an amount abroad."),
        ("crm", "crm_deal_history", "History of changes on a deal."),
    ],
)
def test_reads_a_change_word_only_names_are_cleared(
    server: str, name: str, description: str
) -> None:
    verdict = _verdict(server, name, description)
    assert not verdict["irreversible"], verdict


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        ("ledgerly", "LedgerlyRefundCharge", "Refund a charge to the customer's card."),
        ("ledgerly", "LedgerlyListCharges", "List charges and refund the oldest one."),
        ("ledgerly", "ledgerly_get_and_charge", None),
        ("shipfast", "shipfast-ship-order", "Ship an order to the customer."),
        ("paygate", "paygate_is_send_allowed", None),
        ("paygate", "paygate_send_transfer", "Send a transfer to a saved recipient."),
        ("shopline", "ShoplineSimulateCheckout", "Simulate and then execute the checkout."),
        ("shopline", "ShoplineSimulateRefund", None),
        ("blogly", "BloglyPublishPost", "Publish a draft to every channel now."),
        ("blogly", "BloglyPreviewPublish", None),
        ("deployer", "deployer.releases.promote", "Promote a release to production."),
        ("deployer", "deployer.releases.dry_run_deploy", None),
        ("syncer", "SyncerRunSync", "Run a sync now. Records in the destination are overwritten."),
        ("browser", "browser_evaluate", "Evaluate JavaScript expression on page or element."),
        ("scripts", "evaluate_script", "Evaluate a script in the page."),
        ("shop", "shop_close_day", "Cancel open orders, refunds and holds."),
        ("remit", "remit_estimate_fee", "Estimate the fee, then send the transfer."),
        ("blogly", "blogly_update_preview", None),
        ("deployer", "deployer_run_dry_run", None),
        ("blogly", "blogly_search_posts", "Search posts, including drafts, and delete history."),
    ],
)
def test_their_writes_stay_held(server: str, name: str, description: str | None) -> None:
    verdict = _verdict(server, name, description)
    assert verdict["irreversible"], verdict
