"""Issue 44: the second attack on the tenth pass, mended, and the thirteenth set's classes.

The attack (`tests/data/guard_attack_tenth_pass.txt`, one `server|name|description|schema` per
line) tried about 280 writes in the style of real servers against the pass's final rules. The
pass cleared 46 of them that the guard before it held. Each class is tested here in other words
than the attack's: the writes stay held, and reads of the same shape still clear. The file itself
is checked last: every line is held but the reads and the doubtful cases named there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp.types import Tool

from common.safety.classify import classify_tool
from tests.unit_tests.guard_helpers import PLAIN, held, held_by

ATTACK = Path(__file__).parents[1] / "data" / "guard_attack_tenth_pass.txt"

_S = {"type": "string"}
_N = {"type": "number"}
_I = {"type": "integer"}
_A = {"type": "array"}


@pytest.mark.parametrize(
    ("server", "name", "description", "arguments"),
    [
        # A verbless description naming the value an argument sets.
        ("Shop", "sku_price", "Price of a SKU in the store currency", {"sku_id": _S, "price": _N}),
        (
            "Cal",
            "office_day",
            "Office location of a member for a day",
            {"date": _S, "location": _S},
        ),
        ("Tank", "water_level", "Water level of a tank in percent", {"tank_id": _S, "percent": _I}),
        # Led by a gerund: the device acts.
        ("Aquarium", "feeding", "Feeding pellets for the tank feeder", {"pellets": _I}),
        ("Roaster", "roasting", "Roasting level and batch size", {"level": _I, "size_kg": _N}),
        # A verbless name whose argument repeats its head, or sets its value.
        ("Shop", "shelf_count", "Shelf count of an item", {"item_id": _S, "count": _I}),
        ("Chat", "presence_status", None, {"status_text": _S}),
        ("K8s", "pod_replica_count", None, {"deployment": _S, "replicas": _I}),
        # A list of things beside another id: what the call adds to it.
        (
            "Store",
            "collection_items",
            "Items in a collection: the given items",
            {"collection_id": _S, "items": _A},
        ),
    ],
)
def test_a_value_named_as_data_but_set_by_an_argument_is_held(
    server: str, name: str, description: str | None, arguments: dict[str, Any]
) -> None:
    assert held_by(server, name, description, **arguments)


@pytest.mark.parametrize(
    ("server", "name", "description", "arguments"),
    [
        ("Meter", "daily_usage", "Daily usage of a meter", {"meter_id": _S, "days": _I}),
        (
            "Tank",
            "tank_temperatures",
            "Hourly temperatures of the tanks at a site",
            {"site_id": _S},
        ),
        (
            "Tank",
            "tank_readings",
            "Temperatures of the tanks at a site",
            {"site_id": _S, "hours": _I},
        ),
        (
            "Farm",
            "soil_moisture",
            "Latest soil moisture readings per probe in a field",
            {"field_id": _S, "depth_cm": _I},
        ),
        ("Chat", "presence_status", None, {"user_id": _S}),
        ("Shop", "variant_prices", "Prices of the variants of a product", {"product_id": _S}),
    ],
)
def test_data_chosen_by_its_arguments_still_clears(
    server: str, name: str, description: str | None, arguments: dict[str, Any]
) -> None:
    assert not held_by(server, name, description, **arguments)


def test_something_leaving_anywhere_in_a_verbless_description_holds_it() -> None:
    described = "Wiring instructions for an outgoing payment to a supplier"
    assert held_by("Bank", "wire", described, supplier_id=_S)
    assert not held_by("Bank", "wire", "Wiring instructions for a supplier's bank", supplier_id=_S)


@pytest.mark.parametrize(
    "description",
    [
        "Generates a discount code and returns it. The shop is not changed.",
        "Generates a license key for the seat and returns it as text. The seat is not changed.",
        "Generates a guest voucher and returns it. The router settings are not changed.",
        "Generates a gift voucher worth the amount and returns it. Computation only.",
    ],
)
def test_a_made_thing_that_may_be_issued_needs_a_declaration_about_itself(
    description: str,
) -> None:
    assert held("Gen", "make_thing", description)


@pytest.mark.parametrize(
    "description",
    [
        "Generates the receipt PDF and returns it as base64. The receipt is not stored.",
        "Generates a chart image and returns it as base64. The dataset is not changed.",
    ],
)
def test_a_made_thing_declared_not_kept_still_clears(description: str) -> None:
    assert not held("Gen", "make_thing", description)


@pytest.mark.parametrize(
    "description",
    [
        "Realigns the ledger entries. Computation only.",
        "Amortizes the loan for the period. Pure calculation.",
    ],
)
def test_a_declaration_does_not_vouch_for_a_verb_the_guard_does_not_know(
    description: str,
) -> None:
    assert held("Calc", "ledger_tool", description)


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("ask_bot", "Ask the bot a question. Answers only."),
        ("branch_name", "Suggest a name for the branch. Nothing is saved."),
        ("loan_table", "Computes the loan table. Computation only."),
    ],
)
def test_a_declaration_under_a_read_an_ask_or_a_suggestion_still_clears(
    name: str, description: str
) -> None:
    assert not held("Calc", name, description)


@pytest.mark.parametrize(
    ("name", "description", "waits"),
    [
        ("get_open_tickets", "Gets open tickets: id, title, acknowledged", True),
        ("get_alerts", "Gets unread alerts: title, cleared on read", True),
        ("fault_log", "Fault log: robot, time, cleared or not", False),
        ("list_tickets", "Lists tickets: id, title, created by", False),
        ("get_tickets", "Gets tickets: id, title, updated at", False),
    ],
)
def test_a_change_participle_among_fields_is_a_state_only_when_it_says_so(
    name: str, description: str, waits: bool
) -> None:
    assert held("Desk", name, description) is waits


def test_an_irregular_participle_after_the_data_says_what_the_call_does() -> None:
    described = "Configuration values of a service, overwritten with the given ones"
    assert held_by("Env", "config_values", described, service_id=_S)


ATTACK_CLEARED = {
    # Reads: the attack's own controls.
    "reads|tracking_events", "reads|van_position", "reads|invoices", "reads|lane_slots",
    "notion|database_rows", "sendgrid|suppressions", "sendgrid|bounces", "slack|reactions",
    "stripe|invoice_pdf",  # "... The invoice is not stored.": the made thing is declared not kept
    "render|report_pdf",  # rendered, returned, "The dashboard is not changed."
    "jira|watchers", "reads|bay_status",
    # Doubtful: a plural or a noun with no description that may also be a verb, as `invoices`.
    "medium|claps", "slack|nudges", "slack|pings", "ci|builds", "ci|nightly_builds",
    "aws|backups", "db|snapshots",
    # Doubtful: fields that may be states or what reading does ("archived", "marked as read").
    "gmail|fetch_unread", "gmail|get_unread", "shop|list_orders", "jobs|fetch_job",
    "jobs|get_next_task", "notify|list_notifications",
    # Doubtful: a list of ids beside an id may choose what is read as well as what is added.
    "shopify|collection_products", "slack|channel_members",
    # Doubtful, and cleared by the guard before the tenth pass too (not mended this stop).
    "twilio|message_status", "aws|snapshot", "shopify|compare_at_price",
    "gen|quote_pdf", "ha|lights", "ha|porch_lights",
}  # fmt: skip
"""The attack's lines the guard clears: its reads and the doubtful cases, each named."""


def _attack_tools() -> list[tuple[str, Tool]]:
    """The attack file's tools, with their servers."""
    out = []
    for line in ATTACK.read_text().splitlines():
        server, name, description, schema = line.split("|", 3)
        properties = json.loads(schema) if schema else {"type": "object"}
        out.append(
            (server, Tool(name=name, description=description or None, inputSchema=properties))
        )
    return out


def test_the_attack_is_held_but_for_its_reads_and_the_doubtful_cases() -> None:
    tools = _attack_tools()
    cleared = {
        f"{server}|{tool.name}"
        for server, tool in tools
        if not classify_tool(server, tool, PLAIN)["irreversible"]
    }
    assert len(tools) > 250
    assert cleared == ATTACK_CLEARED


@pytest.mark.parametrize(
    ("name", "description", "waits"),
    [
        ("login_code", "Returns a one-time login code for the member by SMS", True),
        ("get_otp", "Gets a one-time passcode and delivers it via WhatsApp", True),
        ("sms_status", "Delivery status of a message sent by SMS", False),
        ("find_member", "Finds a member by email or phone number", False),
    ],
)
def test_a_channel_the_object_goes_out_by_says_the_call_sends(
    name: str, description: str, waits: bool
) -> None:
    assert held("Desk", name, description) is waits


@pytest.mark.parametrize(
    ("server", "name", "description", "waits"),
    [
        # Set 13's classes, in other words: values a status field takes, in parentheses.
        ("Desk", "list_cases", "List cases, filterable by status (open, on_hold, paid).", False),
        ("Desk", "list_alarms", "Alarms with their current state (OK, Warn, Alert).", False),
        ("Desk", "list_posts", "Blog posts, with stage (published / draft) and author", False),
        ("Desk", "update_case", "Updates a case's status (open, on_hold, paid).", True),
        # A snake_case field named in prose is no verb.
        ("Desk", "list_threads", "List threads. Default sort is updated_at descending.", False),
        ("Desk", "list_threads", "List threads. Stale threads are updated and closed.", True),
        # "or <participle> to": another criterion of what is listed.
        ("Desk", "get_jobs", "Get jobs from a queue, a pool, or assigned to a worker.", False),
        ("Desk", "get_jobs", "Get jobs from a queue and assign them to a worker.", True),
        # A plural resource before its read verb, named again by the description.
        # Left held: the resource named again may be the verb ("Comments on an issue with the
        # given body" comments), so a plural resource's description may not repeat it.
        ("Stack", "stack.comments.list", "Comments on a record", True),
        ("Stack", "stack.comments.list", "Comments on a record, posted to the thread", True),
    ],
)
def test_the_thirteenth_sets_classes(server: str, name: str, description: str, waits: bool) -> None:
    assert held(server, name, description) is waits


@pytest.mark.parametrize(
    ("name", "description", "waits"),
    [
        ("verify_check", "Check a passcode the member typed. Returns valid or invalid.", False),
        ("verify_check", "Check a one-time passcode the member typed. Returns approved.", True),
        ("get_link", "Gets a single-use sign-in link for the member.", True),
    ],
)
def test_reading_a_thing_that_works_once_uses_it_up(
    name: str, description: str, waits: bool
) -> None:
    assert held("Desk", name, description) is waits
