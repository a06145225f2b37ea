"""Issue 44, tenth pass: the classes the tenth product-prefixed set showed held out (0 missed,
16 of 85 read-only tools held), tuned on since, with the twelfth set's.

Each class with examples written here in other words than the sets': the reads it now clears,
and the writes of the same shape that stay held.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp.types import Tool

from common.safety.classify import classify_tool
from tests.unit_tests.guard_helpers import PLAIN, held


def _schema(*keys: str) -> dict[str, Any]:
    """An input schema whose arguments are `keys`, each a string."""
    return {"type": "object", "properties": {key: {"type": "string"} for key in keys}}


def held_with(server: str, name: str, keys: tuple[str, ...]) -> bool:
    """Whether the guard holds a tool with no description whose arguments are `keys`."""
    tool = Tool(name=name, inputSchema=_schema(*keys))
    return classify_tool(server, tool, PLAIN)["irreversible"]


@pytest.mark.parametrize(
    ("server", "name", "keys"),
    [
        ("Dock", "dock_mooring_fees", ("berth_id", "since", "until")),
        ("Rink", "RinkTemperature", ("rink_id",)),
        ("Cellar", "cellar.cask.stock", ("cask_id",)),
        ("Club", "club_member_lists", ("date",)),
        ("Meter", "meter-monthly-usage", ("account_id", "month")),
        ("Quiz", "quizWeeklyScores", ()),
        ("Weather", "hourly_temperature", ("station_id", "date")),
    ],
)
def test_a_verbless_name_with_no_description_whose_arguments_only_choose_reads(
    server: str, name: str, keys: tuple[str, ...]
) -> None:
    """A name of nouns that names data (a plural, a data noun), read by ids, dates and pages."""
    assert not held_with(server, name, keys)


@pytest.mark.parametrize(
    ("server", "name", "keys"),
    [
        # An argument that may be what the call writes.
        ("Club", "club_member_signups", ("email", "date")),
        ("Shop", "shop_gift_cards", ("customer_id", "amount")),
        # An act, a noun made from one, a destructive verb inside a word.
        ("Shop", "shop_refunds", ("charge_id",)),
        ("Team", "team_invites", ("team_id",)),
        ("Hotel", "hotel_room_bookings", ("guest_id",)),
        ("Bank", "bank_payouts", ("account_id",)),
        # A first word that may be the verb: export, nudge, restock.
        ("Shop", "shop_export_report", ("report_id",)),
        ("Crm", "crm_nudge_users", ("segment_id",)),
        ("Shop", "shop_restock_inventory", ("store_id",)),
        # A head that names no data: a checkout, a subscription to make.
        ("Shop", "shop_checkout", ("cart_id",)),
        # The server's own name is a change word and nothing else speaks.
        ("Book", "BookRooms", ("hotel_id", "since", "until")),
        # Arguments that may carry the value written: a limit, a target, a number, a code, a
        # second id or a list of ids (an attack on this pass found each cleared).
        ("stripe", "spending_limits", ("card_id", "limit")),
        ("homeassistant", "climate_target_temperature", ("entity_id", "to")),
        ("loyalty", "loyalty_points", ("member_id", "number")),
        ("twilio", "incoming_phone_numbers", ("area_code", "country_code")),
        ("stripe", "coupon_redemptions", ("customer_id", "coupon_code")),
        ("stripe", "subscription_items", ("subscription_id", "price_id")),
        ("mailchimp", "audience_members", ("list_id", "member_ids")),
        ("pagerduty", "maintenance_windows", ("service_id", "start", "end")),
    ],
)
def test_a_verbless_name_that_may_act_stays_held(
    server: str, name: str, keys: tuple[str, ...]
) -> None:
    assert held_with(server, name, keys)


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        # "Returns" with what it gives back, under a name with no verb.
        ("Bus", "bus_live_departures", "Returns live departures from a stop."),
        ("Card", "card.balance", "Returns the balance and last top-ups of a travel card."),
        ("Walk", "walker_todays_jobs", "Returns today's jobs for a walker in pickup order."),
        # Possessives, acronyms, participles, gerunds and adjectives in the opening phrase.
        ("Fleet", "fleet_van_location", "Last reported GPS position of a van."),
        ("Cup", "CupTastingNotes", "Final tasting notes for a lot from each judge."),
        ("Snow", "snow_slope_risk", "Today's avalanche risk by aspect."),
        ("Bay", "bay_service_state", "Service status of each wash bay."),
        ("Walk", "walk_fee", "Price for a walk of a given length."),
        # A value maker that returns what it made and declares it kept nowhere.
        (
            "Club",
            "ClubVisitBadge",
            "Generates a PDF badge of a member's visits and returns it as base64. "
            "The file is not stored.",
        ),
        # The eleventh set's classes (its held-out figure was 32 of 88): a gerund naming an
        # activity, a hyphenated modifier, a participle between a determiner and its noun, a
        # change word heading a noun phrase after a determiner, "Returns" with an object that
        # could be an imperative alone, a computation declared.
        ("Post", "post_parcel_events", "Tracking events for a parcel, newest first."),
        ("Dock", "dock_ship_manifest", "Crew and cargo manifest for a sailing."),
        ("Bee", "bee_sensor_log", "Returns weight readings from the hive scale."),
        ("Cafe", "cafe_roast_points", "Temperature points for a saved roast profile."),
        ("Bowl", "bowl_lane_slots", "Returns free lane slots for a date."),
        ("Roast", "roast_yield_calc", "Returns the yield for a batch. Computation only."),
        ("Grow", "grow_soil_moisture", "Watering readings for each bed in a zone."),
        # A list of fields after a colon, states among them.
        ("Line", "line_fault_log", "Fault log for a line: code, time, cleared or not."),
    ],
)
def test_reads_of_the_tenth_pass_clear(server: str, name: str, description: str) -> None:
    assert not held(server, name, description)


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        # "Returns" that puts something back, or a name that returns.
        ("Rent", "rent_car_returns", "Returns the rental car to the depot."),
        ("Desk", "desk_tickets", "Returns tickets to the queue."),
        ("Lib", "lib_return_book", "Returns a book to the shelf."),
        ("Shop", "shop_today", "Returns today's orders and cancels the late ones."),
        ("Shop", "shop_positions", "Returns the positions. Positions are then deleted."),
        # A change participle or a plural act in the opening phrase.
        ("Shop", "shop_orders_now", "Cancelled orders are refunded to the card."),
        ("Ops", "ops_files", "Files damage reports for a claim."),
        ("Bill", "bill_runs", "Generating invoices for every customer."),
        ("Mail", "mail_digest", "Weekly sending schedule for a list."),
        ("Shop", "shop_topups", "Top up balances for a customer."),
        # An act after a colon, or a change verb's -s form leading an item.
        ("Jobs", "jobs_list_all", "Lists jobs: cancels stale ones, deletes old."),
        ("Shop", "shop_list_orders", "Lists orders: refunds them."),
        # A gerund of a change or of making, "Returns" with an act, a computation that acts.
        ("Bill", "bill_batch", "Generating invoices for every customer this month."),
        ("Ship", "ship_batch", "Cancelling orders older than a week."),
        ("Slot", "slot_free", "Returns free up the slots."),
        ("Pay", "pay_calc", "Computes the refund and issues it. Computation only."),
        ("Ship", "ship_sweep", "Balances for the store, moved to savings at night."),
        # Two gaps noticed at the last stop, now closed: a change after "and" with "them"
        # after a plural that is also a change word, and a name's unknown first word that the
        # description leads with, sending the object to a store.
        ("Imap", "pull_mails", "Pull new emails and archive them into the Done folder."),
        ("Logs", "export_log", "Exports the audit log to the S3 bucket and returns it."),
        # Made and returned, but nothing says it is not kept, or a credential, or sent on.
        ("Doc", "doc_invoice_pdf", "Generates an invoice and returns it as PDF."),
        ("Key", "key_new", "Generates an API token and returns it. The token is not stored."),
        ("Doc", "doc_report", "Generates a report and returns it to the customer."),
        # A later verb's -s form with its object is a clause of its own.
        ("Metro", "metro_find_trip", "Finds a trip and books the tickets."),
        # What an attack on this pass found cleared, now held: planning and tracing that act
        # (neither verb reads), a "then" or a bare change verb among fields, a participle after
        # the data it changes or sends, a credential handed out, a sweep somewhere.
        ("jira", "plan_sprint", "Plans the next sprint by pulling the top backlog issues in."),
        ("bank", "trace_payment", "Traces a wire payment, opening a recall request."),
        ("gmail", "fetch_unread", "Fetches unread email: sender, subject, then archive"),
        ("sqs", "get_queue_messages", "Gets queued messages: body, receipt, then ack"),
        ("stripe", "customer_balance", "Returns the customer's balance, credited by the amount."),
        ("shop", "variant_price", "Returns the variant's price, discounted by the given percent."),
        ("coffee", "cupping_scores", "Cupping scores for a lot, texted to the roaster."),
        ("coffee", "lot_scores", "Cupping scores for a lot, logged to the grading sheet."),
        ("dogwalk", "walk_position", "Live GPS position of a walk; the owner gets a text."),
        ("vault", "database_credentials", "Returns database credentials for the role."),
        ("aws", "sts_credentials", "Returns temporary AWS credentials for the assumed role."),
        ("bank", "sweep_balance", "Returns the balance with end-of-day sweep to savings."),
    ],
)
def test_writes_of_the_same_shapes_stay_held(
    server: str, name: str, description: str | None
) -> None:
    assert held(server, name, description)
