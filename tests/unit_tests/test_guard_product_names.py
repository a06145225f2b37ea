"""Issue 44: tool names led by their own product's name, read heads, observation verbs, lists.

Each class of the issue, with its own examples and a few more of the same class written here
(none taken from tests/data/guard_blind_set_prefixed.json, which is measured blind), and the
writes beside them that must stay held.
"""

from __future__ import annotations

import pytest
from mcp.types import Tool

from common.mcp.config import ServerConfig
from common.safety.analysis import only_ignorance_holds
from common.safety.classify import ToolVerdict, classify_tool
from common.safety.names import own_words
from common.safety.phrases import asks, listed

PLAIN = ServerConfig(command="srv")


def _verdict(server: str, name: str, description: str | None = None) -> ToolVerdict:
    tool = Tool(name=name, description=description, inputSchema={"type": "object"})
    return classify_tool(server, tool, PLAIN)


def _held(server: str, name: str, description: str | None = None) -> bool:
    return _verdict(server, name, description)["irreversible"]


# 1. A tool name led by its own server's or product's name.


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        ("SmartLock", "SmartLockReadLockState", "Read the current state of a lock."),
        ("SmartLock", "SmartLockListKeyholders", "List the people who hold a key to the lock."),
        ("DispatchCenter", "DispatchCenterGetCallDetails", "Get the details of an emergency call."),
        ("smart-lock", "smart_lock_read_lock_state", None),
        ("smart-lock", "smartlock.list_keyholders", None),
        ("dispatch-center", "dispatch-center-get-call-details", None),
        ("mcp-server-dispatch", "dispatch_list_units", "List the units on duty."),
        ("PostBox", "postbox_get_delivery_window", "Get the delivery window of a parcel."),
        ("Book", "BookViewRoomTypes", "View the room types of a hotel."),
    ],
)
def test_the_servers_own_name_at_the_front_is_set_aside(
    server: str, name: str, description: str | None
) -> None:
    verdict = _verdict(server, name, description)

    assert not verdict["irreversible"], verdict
    assert "set aside" in verdict["reason"]


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        ("SmartLock", "SmartLockLockDoor", "Lock a door."),
        ("SmartLock", "SmartLockLockDoor", None),
        ("DispatchCenter", "DispatchCenterDispatchUnit", "Dispatch a unit to an incident."),
        ("smart-lock", "smart_lock_unlock_gate", None),
        ("dispatch", "dispatch_dispatch_crew", None),
        ("Book", "BookCancelStay", "Cancel a stay."),
        ("travel", "BookFlight", "Book a flight for the traveller."),
        ("deploy", "RunDeployment", "Run a deployment of a service to an environment."),
        ("Dispatch", "Dispatch", "Dispatch the nearest unit."),
        ("Dispatch", "Dispatch", None),
    ],
)
def test_a_write_beside_its_products_name_stays_held(
    server: str, name: str, description: str | None
) -> None:
    assert _held(server, name, description)


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("BookSuite", "Keep a suite aside for two nights."),
        ("BookSuite", None),
        ("book_table", "A table for two at the restaurant."),
    ],
)
def test_a_change_word_product_name_with_nothing_else_holds_as_a_signal(
    name: str, description: str | None
) -> None:
    """The product's change word does not decide alone; with no other word it still holds, and
    the analyser may not clear that hold (it is not the "no signal" default)."""
    tool = Tool(name=name, description=description, inputSchema={"type": "object"})
    verdict = classify_tool("Book", tool, PLAIN)

    assert verdict["irreversible"]
    assert verdict["source"] == "heuristic", verdict
    assert "server's own name" in verdict["reason"]
    assert not only_ignorance_holds(verdict, tool)


def test_a_verbless_rest_is_read_by_its_description() -> None:
    assert not _held("Book", "BookRoomTypes", "Lists the room types of a hotel.")
    assert _held("Book", "BookRoomTypes", "Books the cheapest room type of a hotel.")


def test_a_server_named_for_reading_keeps_its_verb() -> None:
    # On a server called search, `search_posts` searches: a read verb at the front is not set
    # aside (the tool's verb may be its server's name), and "posts" stays a noun.
    assert own_words("search", "search_posts") == ((), ("search", "posts"))
    assert not _held("search", "search_posts", "Search posts by keyword.")


def test_the_longest_spelling_of_the_servers_name_is_set_aside() -> None:
    assert own_words("SmartLock", "SmartLockLockDoor") == (("smart", "lock"), ("lock", "door"))
    assert own_words("dispatch", "dispatch_dispatch_crew") == (
        ("dispatch",),
        ("dispatch", "crew"),
    )
    assert own_words("road-crew", "roadcrew-get-van") == (("roadcrew",), ("get", "van"))
    assert own_words("SmartLock", "SmartLock") == ((), ("smart", "lock"))
    assert own_words("github", "create_issue") == ((), ("create", "issue"))


# 2. A head noun that is a search, a report, a status, a history, a trend or a query.


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        ("MapFinder", "MapFinderPlaceSearch", "Search for places by text."),
        ("MapFinder", "MapFinderGetPopularQueries", "Get the most popular search queries."),
        ("MapFinder", "MapFinderPhotoSearch", "Search photos of a place."),
        ("MapFinder", "MapFinderPlaceSearch", None),
        ("shop", "SalesReport", "Sales figures per region for a quarter."),
        ("shop", "ParcelStatus", "Where a parcel is and when it should arrive."),
        ("bank", "AccountHistory", "Past balances of an account."),
        ("market", "price_trend", "How the price of a product moved over a month."),
        ("Publish", "PublishHistory", "Past releases of a site."),
        ("SmartLock", "SmartLockWifiStatus", None),
    ],
)
def test_a_name_headed_by_a_search_report_status_history_trend_or_query_reads(
    server: str, name: str, description: str | None
) -> None:
    assert not _held(server, name, description)


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("ExportReport", "Export the report to the shared drive."),
        ("ExportReport", "Exports a report as a PDF into the user's folder."),
        ("ExportReport", None),
        ("SpamReport", "Report spam messages to the mail provider."),
        ("report", "Report a bug to the maintainers."),
        ("CreateReport", "Create a sales report."),
        ("ClearHistory", "Clear the search history."),
        ("UpdateStatus", "Update the status of an order."),
        ("status_update", "Post a status update."),
        ("SendReport", None),
        ("GenerateTestReport", None),
        ("report_and_archive_status", None),
    ],
)
def test_a_head_noun_does_not_clear_what_a_verb_does(name: str, description: str | None) -> None:
    assert _held("shop", name, description)


# 3. Verbs of observation with a noun object.


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("AccessLoanFile", "Access a loan applicant's file."),
        ("ViewLabResults", "View a patient's lab results."),
        ("AskWeatherBot", "Ask the weather bot about tomorrow's forecast."),
        ("ask_support_assistant", "Ask the support assistant how to reset a router."),
        ("CompileStylesheet", "Compile a SCSS stylesheet to CSS and return it."),
        ("GenerateUuid", "Generate a random UUID."),
        ("generate_password", "Generate a strong random password."),
        ("EstimateShippingCost", "Estimate the shipping cost of a parcel."),
        ("RunLatencyProbe", "Run a latency probe against a host."),
        ("run_dns_probe", None),
        ("CanUploadVideo", "Whether the current user can upload a video to the channel."),
        ("can_delete_repo", "Can the caller delete this repository?"),
        ("CanRefundOrder", "Whether the order can still be refunded."),
        ("CheckRefundRequest", "Check the state of a refund request."),
        ("get_transfer_status", "Show the state of a transfer request."),
    ],
)
def test_verbs_of_observation_read_with_a_noun_object(name: str, description: str | None) -> None:
    assert not _held("srv", name, description)


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("AskTeamLead", "Ask the team lead to approve the request."),
        ("ask_human", "Ask a person in the team channel."),
        ("AskDeployBot", "Ask the deploy bot to ship a build."),
        ("GenerateApiKey", "Generate an API key for the account."),
        ("GenerateInvoice", "Generate an invoice for a customer."),
        ("GeneratePaymentLink", "Generate a payment link."),
        ("generate_and_send_password", None),
        ("RunTests", "Run the test suite."),
        ("run_script", "Run a script on the host."),
        ("RunDeletionProbe", "Run a probe and delete the stale records it finds."),
        ("AccessFile", "Access a file and delete it."),
        ("access_token_create", None),
        ("compile_and_deploy", None),
        ("CanUploadVideo", "Uploads a video to the channel."),
        ("CheckRefund", None),
        ("verify_send_receipt", None),
        ("test_charge_card", "Test-charge the card for one dollar."),
        ("list_transfers", None),  # with "List transfers ..." it reads (test_guard_prefixed2.py)
    ],
)
def test_observation_verbs_do_not_clear_a_write(name: str, description: str | None) -> None:
    assert _held("srv", name, description)


# 4. A search tool's description that lists what it finds.


@pytest.mark.parametrize(
    "description",
    [
        "Search the user's orders, including returns, cancels and exchanges.",
        "Returns a list of account activities such as fills, dividends, and transfers.",
        "Find messages of a thread, e.g. replies, forwards and reposts.",
        "Search payments, for example refunds or charges, by date.",
        "Search tickets, including closed, merged and deleted ones.",
    ],
)
def test_what_a_search_finds_is_read_as_nouns(description: str) -> None:
    assert not _held("shop", "search_orders", description)


@pytest.mark.parametrize(
    "description",
    [
        "Search orders, including returns, and cancel the stale ones.",
        "Search orders, including returns, cancels and exchanges, and cancels stale ones.",
        "Find old drafts, including deleting the expired ones.",
        "Search orders including returns; then deletes them.",
    ],
)
def test_a_list_does_not_hide_what_the_tool_does(description: str) -> None:
    assert _held("shop", "search_orders", description)


def test_the_list_and_the_question_readings() -> None:
    words = ["search", "orders", ",", "including", "returns", ",", "cancels", "and", "exchanges"]
    assert listed(words, [None] * len(words)) == {4, 5, 6, 7, 8}
    words = ["find", "drafts", ",", "including", "deleting", "old", "ones"]
    assert listed(words, [None] * len(words)) == set()
    assert asks("Can this order still be changed?")
    assert not asks("Can delete orders.")
    assert not asks("Is it deleted?")


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        ("can-gateway", "can_bus_send_frame", None),
        ("can-gateway", "can_bus_set_speed", None),
        ("Send", "SendStatus", None),
        ("shop", "user_report", None),
        ("shop", "user_report", "Report a user for abuse."),
    ],
)
def test_a_question_or_a_head_noun_that_may_hide_a_write_stays_held(
    server: str, name: str, description: str | None
) -> None:
    assert _held(server, name, description)


def test_a_list_ends_where_a_clause_begins() -> None:
    assert _held("shop", "search_messages", "Search messages, including drafts, and send replies.")
    assert not _held("shop", "search_messages", "Search messages, including drafts and replies.")


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("access_token_create", None),
        ("access_key_rotate", None),
        ("access_level_change", None),
        ("test_level_change", None),
        ("generate_user_password", "Generate a new password for the user."),
        ("generate_password", "Generate a random password and email it to the user."),
    ],
)
def test_a_resource_first_name_or_a_stored_value_stays_held(
    name: str, description: str | None
) -> None:
    assert _held("srv", name, description)


def test_generated_random_values_read() -> None:
    assert not _held("srv", "generate_random_string", "Generate a random string of a length.")
