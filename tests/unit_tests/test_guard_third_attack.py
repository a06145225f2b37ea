"""Issue 44: a third attack, on the second attack's mends and the thirteenth set's classes.

The attack (`tests/data/guard_attack_third.txt`, one `label|server|name|description|schema` per
line, W for a write and R for a read) tried 273 writes and 46 reads in the style of real servers.
It found six writes cleared that the code before those mends held (advice verbs taken as verbs
that give something back) and 71 older gaps. The classes mended are tested here in other words;
the file itself is checked last: every write is held but those named as left, with why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp.types import Tool

from common.safety.classify import classify_tool
from tests.unit_tests.guard_helpers import PLAIN, held, held_by

ATTACK = Path(__file__).parents[1] / "data" / "guard_attack_third.txt"

_S = {"type": "string"}
_N = {"type": "number"}
_B = {"type": "boolean"}
_A = {"type": "array", "items": {"type": "string"}}


@pytest.mark.parametrize(
    "description",
    [
        "Proposes a new delivery window to the customer. Your schedule is not changed.",
        "Recommends an article to a reader by email. The article is not changed.",
        "Exports the board to the team's shared drive. The board is not modified.",
        "Renders the chart as an image into the project channel. The chart is not changed.",
        "Returns the borrowed bike to the rack. The rental is not changed.",
    ],
)
def test_a_declaration_is_not_believed_when_the_object_goes_somewhere(description: str) -> None:
    assert held("Desk", "board_tool", description)


@pytest.mark.parametrize(
    "description",
    [
        "Suggest toppings for the next order based on past ones. Nothing is saved.",
        "Exports the results as CSV text to the response. The board is not changed.",
    ],
)
def test_a_declaration_after_advice_or_into_the_response_still_clears(description: str) -> None:
    assert not held("Desk", "board_tool", description)


@pytest.mark.parametrize(
    ("name", "description", "arguments"),
    [
        # A payload argument, whatever the head.
        (
            "room_price",
            "Price of a room in the local currency",
            {"room_id": _S, "value": _S},
        ),
        ("ticket_notes", "Notes on a ticket's timeline", {"ticket_id": _S, "body": _S}),
        ("board_members", "Members of a board: the given people", {"board_id": _S, "people": _A}),
        # A number named with a unit or a size that is not a page's.
        ("room_rate", "Nightly rate of a room", {"room_id": _S, "rate_per_night": _N}),
        ("pool_capacity", "Capacity of a worker pool", {"pool_id": _S, "pool_size": _N}),
        # Tips, bids, mints, sweeps, reimbursements and disbursements are acts.
        ("rider_tips", "Tips for a rider: amount in cents", {"ride_id": _S}),
        ("lot_bids", "Bids on a lot: maximum amount", {"lot_id": _S}),
        ("staff_reimbursements", "Reimbursements for a staff expense claim", {"claim_id": _S}),
    ],
)
def test_what_an_argument_writes_or_an_act_noun_keeps_a_verbless_description_held(
    name: str, description: str, arguments: dict[str, Any]
) -> None:
    assert held_by("Shop", name, description, **arguments)


@pytest.mark.parametrize(
    ("name", "description", "arguments"),
    [
        ("board_members", "Members of a board", {"board_id": _S, "fields": _A}),
        ("team_tickets", "Tickets of a team, newest first", {"team_id": _S, "include_closed": _B}),
        ("page_prices", "Prices of the listings of a host", {"host_id": _S, "page_size": _N}),
    ],
)
def test_arguments_that_only_shape_the_read_still_clear(
    name: str, description: str, arguments: dict[str, Any]
) -> None:
    assert not held_by("Shop", name, description, **arguments)


@pytest.mark.parametrize(
    ("name", "arguments", "waits"),
    [
        ("lamp_status", {"lamp_id": _S, "enabled": _B}, True),
        ("job_status", {"job_id": _S, "value": _S}, True),
        ("job_status", {"job_id": _S, "state": _S}, True),
        ("job_status", {"job_id": _S}, False),
        ("job_status", {"job_id": _S, "include_logs": _B}, False),
        ("browser_snapshot", {"boxes": _B, "selector": _S}, False),
    ],
)
def test_a_status_name_whose_argument_sets_or_switches_it_is_held(
    name: str, arguments: dict[str, Any], waits: bool
) -> None:
    assert held_by("Home", name, None, **arguments) is waits


ATTACK_LEFT = {
    # Doubtful: the text and arguments read as a read, or the server declares one.
    "coinbase|trades", "docusign|signatures", "eventbrite|checkins", "ha|blind_position",
    "metabase|public_dashboard", "gdrive|viewer_access", "github|collaborator_read",
    "github|workflow_dry_run", "aws|lambda_invocation", "n8n|workflow_execution",
    "openai|fine_tune", "stripe|test_clock", "stripe|invoice_reminders_now", "ha|location",
    "mastodon|statuses", "spotify|queue_tracks", "stripe|invoice_render",
    # Left: a status or level set by a value no word names (`presence`, `speed`, `acl`, a flag
    # `eco` that is no state word: `verbose`, `raw`, `latest` are options of reads).
    "slack|presence_status", "ha|fan_level", "aws|bucket_acl", "nest|eco_status",
    # Left: a name read by its verb whose description sends or prints ("Preview email ... to the
    # reviewers' inboxes"; "to a phone number" may be a test's target, "to the database" too).
    # (`hubspot|list_export`, "Exports the contact list to Mailchimp as an audience", is held
    # since the twentieth pass: an audience keeps what is sent to it.)
    "mailchimp|campaign_preview", "twilio|voice_test", "sms|sms_preview",
    "printer|test_page",
    # Left: a verbless description of something granted, billed or scheduled ("billed monthly").
    "grafana|viewer_seat", "shopify|discounts", "ha|tts_announcements",
    # Left: a value whose key names neither the data nor a payload (`unit_amount_decimal`,
    # `available`, `hard_limit_usd`, `price` and `quantity` on items, `location_id`).
    "stripe|price", "shopify|stock", "openai|usage_quota", "shopify|pickup_location",
}  # fmt: skip
"""The attack's writes the guard still clears, each judged doubtful or left, with why."""


def _attack() -> list[tuple[str, str, Tool]]:
    """The attack file's tools: label, server, tool."""
    out = []
    for line in ATTACK.read_text().splitlines():
        label, server, name, description, schema = line.split("|", 4)
        properties = json.loads(schema) if schema else {"type": "object"}
        tool = Tool(name=name, description=description or None, inputSchema=properties)
        out.append((label, server, tool))
    return out


def test_the_third_attack_is_held_but_for_the_writes_left_and_named() -> None:
    cases = _attack()
    cleared = {
        f"{server}|{tool.name}"
        for label, server, tool in cases
        if label == "W" and not classify_tool(server, tool, PLAIN)["irreversible"]
    }
    assert sum(label == "W" for label, _, _ in cases) > 250
    assert cleared == ATTACK_LEFT


FOURTH = Path(__file__).parents[1] / "data" / "guard_attack_fourth.txt"
"""A fourth attack, on the clearing rules of the same stop: `label|before|server|name|...`, where
`before` is the verdict of the guard before the stop (H held, C cleared)."""


def _against_before(path: Path) -> tuple[set[str], set[str]]:
    """The writes the guard before held that it clears now, and the reads it cleared and holds."""
    cleared, held_reads = set(), set()
    for line in path.read_text().splitlines():
        label, before, server, name, description, schema = line.split("|", 5)
        properties = json.loads(schema) if schema else {"type": "object"}
        tool = Tool(name=name, description=description or None, inputSchema=properties)
        waits = classify_tool(server, tool, PLAIN)["irreversible"]
        if label == "W" and before == "H" and not waits:
            cleared.add(f"{server}|{name}")
        if label == "R" and before == "C" and waits:
            held_reads.add(f"{server}|{name}")
    return cleared, held_reads


def test_the_fourth_attack_finds_no_write_cleared_that_the_guard_before_held() -> None:
    cleared, held_reads = _against_before(FOURTH)
    assert cleared == set()
    # "tip" became a change word for `driver_tips` "Tips for a delivery driver: amount in cents".
    assert held_reads == {"doordash|driver_tips_history"}


FIFTH = Path(__file__).parents[1] / "data" / "guard_attack_fifth.txt"
"""A fifth attack, on the participles, field names and declarations of the fourteenth set's
mends, in the fourth's format."""


def test_the_fifth_attack_finds_no_write_cleared_that_the_guard_before_held() -> None:
    cleared, held_reads = _against_before(FIFTH)
    assert cleared == set()
    # Left: a noun after "and" before "its"/"their" read as a verb with its object. Each is a
    # sentence written to find it ("Get a message's headers and label its thread carries").
    assert held_reads == {
        "gmail|get_message", "crm|get_deal", "smarthome|get_device", "smarthome|get_lock",
        "notion|get_page", "shopify|get_customer",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("name", "description", "waits"),
    [
        # The fourteenth set's classes, in other words.
        ("verify_sender", "Re-check the SPF record of a sender and update its trust level.", True),
        ("get_status", "Get the status and update time of a job.", False),
        ("list_boards", "Archived boards in a team space.", False),
        ("board_tool", "Archive boards in a team space.", True),
        ("list_bounces", "Recipients that bounced, with their reasons.", False),
        ("list_jobs", "List jobs; stale jobs killed.", True),
        (
            "list_entries",
            "Audit entries for an order: receipts sent, escalations, annotations.",
            False,
        ),
        ("list_entries", "Audit entries with their invoices sent.", True),
        ("list_invoices", "List open invoices, invoices paid, customers emailed.", True),
        # A field name a verb leads may be written as the verb ("and send_at the given time").
        ("get_campaign", "Get the campaign and send_at the given time to its audience.", True),
        (
            "page_text",
            "Page text rendered as HTML. Read-only export; nothing is written back.",
            False,
        ),
        ("get_file_versions", "Version history of a file: id, created_at, author.", False),
    ],
)
def test_the_fourteenth_sets_classes(name: str, description: str, waits: bool) -> None:
    assert held("Desk", name, description) is waits


@pytest.mark.parametrize(
    ("server", "name", "description", "waits"),
    [
        # The fifteenth set's misses, in other words: a server named with a read verb.
        ("Check", "check.card.token.swap", "Swap a one-off card token for a stored one.", True),
        ("Check", "check.sandbox.fire_event", None, True),
        ("Check", "check.cards.get", "Cards on an account: last four digits, expiry.", False),
        ("fetch", "fetch_url", "Fetch a URL and return its text.", False),
        ("search", "search_posts", "Search posts by keyword.", False),
        # A link, a URL, a token or a key that grants access, whatever the verb.
        ("Drive", "drive_get_temporary_link", "A direct link to a file, valid for an hour.", True),
        ("Drive", "drive_get_presigned_url", None, True),
        ("Drive", "drive_get_link_metadata", "Metadata of a shared link.", False),
    ],
)
def test_the_fifteenth_sets_classes(
    server: str, name: str, description: str | None, waits: bool
) -> None:
    assert held(server, name, description) is waits
