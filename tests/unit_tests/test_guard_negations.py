"""Issue 44, second pass: reads still held by a change word that says nothing the tool does.

Classes, each with examples written here and the writes beside them that must stay held:
negations ("sends nothing"), states in parentheses, participles of a period ("fees charged over
a period"), owned nouns ("its current charge"), the caller's next step ("before sending it"),
report-named tools whose "Report ..." gives an account, record names led by a noun-like change
word (`call_history`), tracking a thing in transit, previews and hashtags generated, and a
question's bound prefix (`CanCoSign`). A negation only takes out the word it negates: it never
clears a tool by itself.
"""

from __future__ import annotations

import pytest
from mcp.types import Tool

from common.mcp.config import ServerConfig
from common.safety.classify import ToolVerdict, classify_tool
from common.safety.phrases import without_caller_time
from common.safety.states import without_states
from common.safety.wording import found_verbs

PLAIN = ServerConfig(command="srv")


def _verdict(name: str, description: str | None, server: str = "acme") -> ToolVerdict:
    tool = Tool(name=name, description=description, inputSchema={"type": "object"})
    return classify_tool(server, tool, PLAIN)


def _verbs(sentence: str) -> list[str]:
    words = sentence.lower().replace(";", " ;").replace(",", " ,").split()
    return [hit[1] for hit in found_verbs(words) if hit is not None and hit[0] != "read"]


READS = [
    # negations take out the verb they negate
    (
        "preview_newsletter",
        "Preview a newsletter with sample data; nothing is sent to subscribers.",
    ),
    ("check_config", "Check the configuration for errors; does not modify or delete any file."),
    ("validate_payout", "Validate a payout's bank details without sending any money."),
    (
        "run_latency_probe",
        "Run a latency probe against the API and return timings; changes nothing.",
    ),
    ("preview_order_total", "Preview an order's total with taxes; nothing is stored or charged."),
    # states, periods, owned nouns, the caller's next step
    ("get_rule_status", "Get the status (enabled, disabled, archived) of a rule."),
    ("payment_report", "Report the payments sent since a given date."),
    ("estimate_battery_life", "Estimate how long a scooter lasts on its remaining charge."),
    ("check_spelling", "Check a draft's spelling before sending it."),
    # "Report ..." that gives an account
    ("usage_report", "Report the number of API calls per key for a month."),
    ("latency_report", "Report of request latency per endpoint."),
    ("bounce_report", "Report bounced emails, including hard bounces and blocks."),
    # a record named by the kind of thing it records
    ("call_history", "History of calls to a number, newest first."),
    ("order_log", "List the orders placed today."),
    # tracking, previews and hashtags generated, a question's bound prefix
    ("track_package", "Return a package's tracking events."),
    ("TrackFlight", "Return a flight's position and delay."),
    ("generate_invoice_preview", "Generate a preview image of an invoice."),
    ("generate_hashtags", "Generate hashtags for a caption."),
    ("CanCoSign", "Can these two users co-sign the lease? Returns yes or no."),
]


@pytest.mark.parametrize(("name", "description"), READS)
def test_reads_whose_change_word_says_nothing_the_tool_does_are_cleared(
    name: str, description: str
) -> None:
    verdict = _verdict(name, description)

    assert not verdict["irreversible"], verdict


WRITES = [
    # a negation never clears a write: another clause's change still counts
    ("send_invoice", "Send the invoice; nothing else is changed."),
    ("invoice_tool", "Send the invoice; nothing else is changed."),
    ("sync_tool", "Changes nothing locally and deletes the remote copy."),
    ("get_draft", "Get a draft and publish it; nothing is stored."),
    ("notes_tool", "Stores nothing."),
    ("inspect_bucket", "Inspect a bucket; not only reads but deletes expired objects."),
    ("card_tool", "Charge the card."),
    ("estimate_fare", "Estimate the fare and charge it to the rider's card."),
    ("check_wallet", "Check the wallet, then transfer its balance to savings."),
    ("batch_tool", "The payment is sent over SWIFT."),
    ("get_door", "Get a door's state, then unlock it."),
    # the caller's next step only under a read name, and only that clause
    ("mailer", "Validates the email before sending it."),
    ("check_and_send", "Check the draft before sending it."),
    ("check_draft", "Check the draft before sending it and delete the old copy."),
    # "Report ..." that files something
    ("bug_report", "Report a bug to the maintainers."),
    ("abuse_report", "Report abuse in a channel."),
    ("user_report", "Report the user for harassment."),
    ("spam_report", "Report messages as spam."),
    ("incident_report", "Report an incident."),
    ("export_report", "Export the report to S3."),
    # record heads, tracking, previews
    ("call_customer", "Call a customer's phone number."),
    ("import_history", "Import the browsing history from a file."),
    ("call_history", None),
    ("TrackingCancelShipment", "Cancel a shipment that has not been picked up."),
    ("track_event", "Track an analytics event for a user."),
    ("track_parcel_and_redirect", "Track a parcel and redirect it to a new address."),
    ("generate_label", "Generate a shipping label; postage is charged."),
    ("generate_label", "Generate a shipping label for a shipment."),
    ("co_sign_lease", "Co-sign a lease for a tenant."),
]


@pytest.mark.parametrize(("name", "description"), WRITES)
def test_writes_beside_them_stay_held(name: str, description: str | None) -> None:
    verdict = _verdict(name, description)

    assert verdict["irreversible"], verdict


def test_a_negation_takes_out_only_the_verb_it_negates() -> None:
    assert _verbs("render the page ; sends nothing") == []
    assert _verbs("nothing is bought or stored") == []
    assert _verbs("send the invoice ; nothing else is changed") == ["send"]
    assert _verbs("does not modify the file and deletes the cache") == ["delete"]
    assert _verbs("sends nothing but the summary") == ["send"]


def test_only_lists_of_states_are_dropped_from_a_sentence() -> None:
    assert "locked" not in without_states("Get the state (locked, unlocked, jammed) of a door.")
    assert "(create, update, delete)" in without_states("Manage users (create, update, delete).")


def test_the_callers_next_step_ends_at_a_new_clause() -> None:
    dropped = without_caller_time("Check the draft before sending it and delete the old copy.")

    assert "sending" not in dropped
    assert "delete the old copy" in dropped


def test_a_product_prefixed_report_is_read_on_its_own_server() -> None:
    verdict = _verdict("PayBox_FeeReport", "Report the fees charged over a period.", "PayBox")

    assert not verdict["irreversible"], verdict
    assert "set aside" in verdict["reason"]


@pytest.mark.parametrize(
    ("name", "description", "held"),
    [
        ("userLogin", "Logs user into the service. Log into the service.", False),
        ("userLogout", "Log user out of the app. Logs out current logged in user session.", False),
        ("userLogin", "Logs user into the system. Deletes stale sessions.", True),
        ("userLogin", "Log user into the system and transfer the balance.", True),
        ("userLogout", "Log user out of all devices.", True),
        ("sign_document", "Sign user in. Sign the contract.", True),
    ],
)
def test_sign_ins_worded_log_user_into_are_read_sentence_by_sentence(
    name: str, description: str, held: bool
) -> None:
    verdict = _verdict(name, description)

    assert verdict["irreversible"] is held, verdict
