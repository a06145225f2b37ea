"""Issue 44, eighth pass: the classes the seventh product-prefixed set showed (its held-out
measure was 5 missed, 26 of 89 read-only tools held; it is a tuning list since).

Each class with examples written here in other words than the set's: the writes it let through,
now held, and the reads beside them that still clear.
"""

from __future__ import annotations

import pytest

from common.safety.states import without_states
from tests.unit_tests.guard_helpers import held


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        # 1. A later sentence that says what the tool handles is then changed.
        ("mill", "mill_review_batch", "Review a batch. It is then sealed and sent to the buyer."),
        ("mill", "mill_view_order", "View an order. The order is then marked as shipped."),
        # 2. A recording verb leading the description with its object writes a record.
        ("gym", "gym_inspect_rope", "Logs a rope inspection for the safety file."),
        ("farm", "farm_check_well", "Record a water reading for a well."),
        # 3. A display others see, named by its place.
        ("club", "ClubShowOnStageScreen", "Shows the standings on the big screen by the stage."),
        ("bar", "bar-show-quiz", "Shows the quiz question on the lobby TV."),
        # 4. A two-word change with its object between ("check ... off", "check ... in").
        ("depot", "depot_check_job", "Checks a job off as done in the day's sheet."),
        ("inn", "inn_check_guest", "Check a guest in at the front desk."),
    ],
)
def test_writes_areheld(server: str, name: str, description: str) -> None:
    assert held(server, name, description)


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        # Later sentences about a condition, an argument or nothing being done still read.
        ("lock", "lock_can_open", "Can it open remotely? True when remote unlock is enabled."),
        ("page", "page_attachments", "List attachments. Useful for what files are attached."),
        ("relay", "relay_explain", "Explain who would be paged. No one is notified."),
        ("mill", "mill_get_batch", "Get a batch. Would be sealed once full."),
        # "Log of ..." is a noun; a screen that is the caller's is no public display.
        ("ops", "ops_get_logs", "Log of events for a service."),
        ("ops", "ops_show_results", "Shows the results on the screen."),
        ("ops", "ops_check_box", "Check the box in the corner of the form."),
        # 5. States after a colon: progressive forms and phrases a preposition opens.
        ("wash", "wash-get-load", "Status of a load: loaded, washing, drying or dispatched."),
        ("wall", "wall_belay_status", "Status of each belay: in service, removed, due for test."),
    ],
)
def test_reads_clear(server: str, name: str, description: str) -> None:
    assert not held(server, name, description)


@pytest.mark.parametrize(
    "line",
    [
        # An attack on passes five to eight: writes the new clearing rules let through, now held.
        "smart|lights|Turns the lights on or off; the new state is returned in the response.",
        "crm|customer_onboarding|Onboards a new customer and returns the ID in the response.",
        "twilio|sms|Texts the given phone number and returns the message SID in the response.",
        "files|zip_folder|Compresses the folder next to it. The original files are not modified.",
        "notion|duplicate_page|Duplicates a page under its parent. The original is not changed.",
        "lending|disbursement|Disburses the loan to the borrower. The application is not changed.",
        "db|run_diagnostics|Runs diagnostics and repairs corrupted indexes.",
        "ruff|run_checks|Runs lint checks with --fix, so violations are corrected in the files.",
        "auth|get_api_key|Gets a fresh API key; the previous key was revoked.",
        "billing|get_invoice|Gets the invoice, which would be finalized and sent if a draft.",
        "queue|get_next_job|Gets the next job (claimed, locked and removed from pending).",
        "mail|check_inbox|Checks the inbox; spam messages flagged and trashed.",
        "ads|budget_breakdown|Reallocates the campaign budget across ad sets.",
    ],
)
def test_writes_an_attack_on_the_new_readings_found_stayheld(line: str) -> None:
    server, name, description = line.split("|")
    assert held(server, name, description)


@pytest.mark.parametrize(
    "line",
    [
        # Misses older than these passes the same attack listed: a read-named tool whose
        # description says, after a semicolon or in a sentence of its own, what then happens
        # to what it read.
        "sqs|get_messages|Returns messages from the queue. Received messages are deleted.",
        "kafka|read_next|Reads the next record from the topic; the offset is committed.",
        "certs|check_certificates|Checks certificates; expiring ones are renewed and redeployed.",
        "iot|device_status|Returns the device status. Unresponsive devices are rebooted.",
        "shop|list_orders|Lists open orders; stale ones are cancelled and restocked.",
        "mail|get_unread_emails|Returns unread emails; they are marked as read.",
    ],
)
def test_what_then_happens_to_what_a_read_tool_read_holds_it(line: str) -> None:
    server, name, description = line.split("|")
    assert held(server, name, description)


def test_a_board_shown_to_the_caller_is_no_public_display() -> None:
    assert not held("trains", "departures", "Shows the departure board for a station.")
    assert held("trains", "notice", "Show a notice on the departure boards.")


def test_a_list_of_actions_after_a_colon_stays() -> None:
    kept = "Apply the batch: create, update, delete."
    assert without_states(kept) == kept
