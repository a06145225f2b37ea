"""Issue 44, ninth pass: the classes the eighth product-prefixed set showed (its held-out
measure was 1 missed, 27 of 100 read-only tools held; it is a tuning list since).

Each class with examples written here in other words than the set's: the reads it now clears,
and the writes of the same shape that stay held.
"""

from __future__ import annotations

import pytest
from mcp.types import Tool

from common.safety.classify import classify_tool
from common.safety.noun_reads import act_noun
from common.safety.wording import verb_of
from tests.unit_tests.guard_helpers import PLAIN, held


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        # 1. A verbless description that names data, and no act.
        ("Harbor", "harbor_tide_table", "Tidal heights for a berth over the next week."),
        ("Keep", "KeepShelfStock", "Stock on hand for each shelf, with reorder points."),
        ("Send", "send_courier_rates", "Courier rates per zone and parcel size."),
        # 2. A question put to an assistant the description names.
        ("Dock", "DockAskHarbourmaster", "Ask the harbour's help bot about berthing rules."),
        # 3. A resource named first, in the plural, then read.
        ("forum", "forum.threads.list", "List threads in a board."),
        ("blog", "posts_get", "Get posts by tag."),
        # 4. A verbless name that a read verb's object repeats.
        ("Radio", "RadioLinkMargin", "Computes a link margin from power, gain and path loss."),
        # 5. An activity a read verb's sentence names ("cost of charging", "charging points").
        ("Volt", "voltListPoints", "List charging points near a postcode."),
        ("Volt", "voltEstimateCost", "Estimates the cost of charging to a target state of charge."),
        # 6. What a description declares it does not do, and output given back.
        ("Stamp", "stamp_fee_quote", "Returns the filing fee; the quote is not held."),
        ("Ship", "ship_export_log", "Exports the day's log as CSV and returns it."),
        ("Help", "help_ask_desk", "Ask the desk a question. Answers only; nothing is filed."),
        # 7. A status of what a change word names; a preview rendered.
        ("Plant", "plant-pump-status", "Status of each pump: running, idle or tripped."),
        ("Ink", "ink_render_sleeve_preview", "Renders the sleeve as an image. Nothing is printed."),
        # A quote of a price tells it; "translate" returns text; "past" ends the opening
        # phrase like any preposition.
        ("Slope", "SlopeQuoteLesson", "Quote the price of a ski lesson for given dates."),
        ("Ink", "ink-quote-job", "Quote a print job. Returns the price only."),
        ("Lingua", "lingua.translate", "Translates a short text between languages."),
        ("Shelf", "shelf_overdue_loans", "Loans past their return date, with the borrower."),
        # "issue" is a change verb now; an issue read or listed still reads.
        ("github", "get_issue", "Get details of a specific issue in a GitHub repository."),
        ("github", "list_issues", "List issues in a GitHub repository."),
    ],
)
def test_reads_of_the_ninth_pass_clear(server: str, name: str, description: str) -> None:
    assert not held(server, name, description)


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        # Data named by an act, or a change said after the opening, stays held.
        ("Hotel", "hotel_guest_bookings", "Bookings for a guest."),
        ("Pay", "pay_supplier_runs", "Payments to suppliers for this week."),
        ("Club", "club_cancellations", "Cancellations of the given classes."),
        ("Team", "team_standup", "Daily standup reminders for the team."),
        ("Chess", "chess_pairings", "Next-round pairings (the round is fixed, players emailed)."),
        ("Shop", "shop_shelves", "Stock the shelves from the back room."),
        ("crm", "customer_onboarding", "Onboards a new customer and returns the ID."),
        # An ask of a person, not an assistant.
        ("Ferry", "ferry_ask_purser", "Ask the purser to hold a seat."),
        # A plural resource first with another change word, or read by nothing.
        ("blog", "posts_sync_list", "Sync posts, then list them."),
        # Marking verbs the guard had not known: the read word after them is a noun.
        ("Fill", "fill_flag_prescription_query", None),
        ("mail", "mail_escalate_ticket", None),
        ("chat", "chat_pin_message", None),
        ("Hire", "hire_issue_access_card", None),
        ("shop", "shop_issue_voucher", "Issue a voucher to a customer."),
        # Output given back to a place that keeps it.
        ("Ship", "ship_export_manifest", "Exports the manifest to the S3 bucket and returns it."),
        # Quoting a post publishes one.
        ("x", "quote_tweet", "Quote a tweet with a comment."),
        ("bsky", "bsky_quote_post", None),
        ("x", "x_quote", "Quote a post with your own words."),
        # What an attack on this pass's readings found cleared, now held.
        ("Crm", "export_contacts", "Export the contact list to Mailchimp and returns it."),
        ("Books", "export_invoices", "Export the selected invoices into Xero and returns them."),
        ("Airline", "hold_seat", "Hold a seat on a flight for 20 minutes. Nothing is charged."),
        ("Cinema", "hold_tickets", "Temporarily hold tickets for a showing."),
        ("Slack", "set_status", "Status shown on the user's Slack profile, with an emoji."),
        ("Slack", "update_status", "Status message for the current user, with an emoji."),
        ("Imap", "emails_fetch", "Fetch new emails and move them to the Processed folder."),
        ("Twitter", "tweets_search", "Search tweets and like each match."),
        ("Twilio", "bulk_sms", "Outbound text messages to a list of phone numbers."),
        ("Ops", "alerts", "Pager alerts to the on-call engineer."),
        ("Slack", "channel_notifications", "Notifications for every member of a channel."),
        ("Shop", "discount_codes", "New discount codes for a promotion."),
        ("Ferry", "ask_purser", "Ask the onboard assistant to hold a seat on the next sailing."),
    ],
)
def test_writes_of_the_same_shapes_stay_held(
    server: str, name: str, description: str | None
) -> None:
    assert held(server, name, description)


@pytest.mark.parametrize(
    ("word", "verb"),
    [
        ("deletion", "delete"),
        ("cancellations", "cancel"),
        ("payment", "pay"),
        ("bookings", "book"),
        ("submission", "submit"),
        ("registration", "register"),
        ("reminders", "remind"),
        ("readings", None),
        ("hearings", None),
        ("temperature", None),
    ],
)
def test_a_noun_made_from_a_change_verb_names_an_act(word: str, verb: str | None) -> None:
    assert act_noun(word) == verb


@pytest.mark.parametrize(
    "verb",
    [
        "abort", "amend", "boost", "curtail", "deduct", "deny", "excuse", "immobilize", "isolate",
        "override", "pause", "prescribe", "quarantine", "reactivate", "recall", "redirect",
        "reprint", "respond", "resume", "retire", "retract", "scrub", "suspend", "swap",
        "unblock", "upgrade", "waive", "warn", "issue", "flag",
    ],
)  # fmt: skip
def test_a_change_verb_the_vocabulary_had_not_known_holds_a_name_before_a_read_word(
    verb: str,
) -> None:
    """Both held-out misses of passes eight and nine were this shape: a change verb the
    vocabulary did not know, then a read word the guard took for the verb
    (`fill_flag_prescription_query`, `deskhire_issue_access_card`). The writes of every
    labelled list were searched for such verbs; those that are not mostly nouns joined, and
    the hold names the verb, not the default's "no signal"."""
    tool = Tool(name=f"desk_{verb}_access_card", inputSchema={"type": "object"})
    verdict = classify_tool("Desk", tool, PLAIN)
    assert verdict["irreversible"]
    assert repr(verb) in verdict["reason"], verdict


def test_band_is_no_form_of_ban() -> None:
    """The ninth set's `SkiLiftAvalancheRisk` was held as destructive for "altitude band"."""
    assert verb_of("band", False) is None
    assert verb_of("banned", False) == ("destructive", "ban")
    assert verb_of("saved", False) == ("change", "save")
