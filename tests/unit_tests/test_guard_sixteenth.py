"""Issue 44's sixteenth, seventeenth and eighteenth held-out sets: the classes they brought, and
the writes of the same shapes that must stay held.

Each read here was held by the guard the sets were read blind against; each write is a call a
person would want to approve. The sets themselves are bounded in test_guard_catalog.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.types import Tool

from common.safety.classify import classify_tools
from common.safety.states import without_contents, without_states
from common.safety.word_order import verbs_last
from tests.unit_tests.guard_helpers import PLAIN, attack_verdicts, held_by

S = {"type": "string"}
N = {"type": "integer"}


def _server(server: str, tools: list[tuple[str, str | None, dict[str, Any]]]) -> dict[str, bool]:
    """The guard's hold on each tool of one server, its whole list classified together."""
    listed = [
        Tool(name=n, description=d, inputSchema={"type": "object", "properties": p})
        for n, d, p in tools
    ]
    return {v["tool"]: v["irreversible"] for v in classify_tools(server, listed, PLAIN)}


SHOP = [
    ("storefold.product.list", "List products.", {"query": S}),
    ("storefold.product.create", "Create a product.", {"title": S}),
    ("storefold.product.archive", "Archive a product.", {"id": S}),
    ("storefold.inventory.adjust", "Adjust stock at a location.", {"item_id": S, "delta": N}),
    ("storefold.order.list", "List orders. financial_status: pending, paid, refunded.", {}),
    ("storefold.order.get", None, {"id": S}),
    ("storefold.order.cancel", "Cancel an order and restock.", {"id": S}),
    ("storefold.order.refund", "Refund an order.", {"id": S, "amount": N}),
]


def test_a_server_that_names_verbs_last_is_read_in_its_own_order() -> None:
    verdicts = _server("Storefold", SHOP)
    assert not verdicts["storefold.order.list"]
    assert not verdicts["storefold.order.get"]
    assert verdicts["storefold.order.cancel"]
    assert verdicts["storefold.order.refund"]
    assert verdicts["storefold.product.create"]
    assert verdicts["storefold.inventory.adjust"]


def test_the_habit_needs_the_servers_own_names_and_a_lone_tool_is_read_verb_first() -> None:
    assert verbs_last("Storefold", [n for n, _, _ in SHOP])
    assert not verbs_last("Storefold", ["storefold.order.list", "storefold.list_orders"])
    assert not verbs_last("Merge", ["merge_list_commits", "merge_create_issue", "merge_get_file"])
    # Classified alone (a tool that appeared after the guard ran), the order is not assumed.
    alone = _server("Storefold", [SHOP[4]])
    assert alone["storefold.order.list"]


def test_a_verbs_last_server_still_holds_a_read_word_whose_sentence_changes() -> None:
    tools = [*SHOP, ("storefold.order.list", "List orders and mark them exported.", {})]
    verdicts = _server("Storefold", tools[:4] + tools[-1:])
    assert verdicts["storefold.order.list"]


@pytest.mark.parametrize(
    ("server", "name", "description", "arguments"),
    [
        # Record plurals of change verbs name records, not acts.
        ("Merge", "merge_workflow_runs", "Recent workflow runs for a repository.", {"repo": S}),
        ("Page", "page-schedules", None, {"query": S}),
        ("Tallyo", "TallyoSprintIssues", None, {"sprintId": N, "jql": S, "maxResults": N}),
        # A verbless plural with no description, its arguments only shaping a list.
        ("Storefold", "storefold.customers", None, {"query": S, "first": N, "after": S}),
        # A state under a plural's list or search filters it.
        ("Chatterly", "chatterly_conversations_list", "List conversations.", {"state": S}),
        ("Ship", "ship_deployments_list", "List deployments.", {"state": S, "limit": N}),
        # A colon's list of fields is what the read returns.
        (
            "Chatterly",
            "chatterly_admins",
            "Teammates in the workspace: id, name, email, away_mode_enabled and team_ids.",
            {},
        ),
        ("Pipewright", "pipewright_run_get", "A single run with its jobs.", {"run_id": N}),
        ("Monitor", "monitor.droplets.list", "Lists droplets.", {"tag": S}),
        ("x", "convert_currency", "Convert an amount.", {"amount": N, "to": S}),
        # The same bare word that the name holds is its noun ("Order details ...").
        ("shop", "get_order_details", "Order details for the given ID.", {"order_id": S}),
        # The eighteenth set's: a change verb's participle before its noun describes it.
        ("Hire", "HireScorecards", "Submitted scorecards for an application.", {"app_id": N}),
    ],
)
def test_reads_of_the_sixteenth_and_seventeenth_sets_clear(
    server: str, name: str, description: str | None, arguments: dict[str, Any]
) -> None:
    assert not held_by(server, name, description, **arguments)


@pytest.mark.parametrize(
    ("server", "name", "description", "arguments"),
    [
        # The misses: convert over a record picked by id; verbs after a read-verb server name.
        ("Relatia", "relatiaConvertLead", "Convert a lead into an account.", {"leadId": S}),
        ("Monitor", "monitor.droplet.resize", "Resizes a droplet.", {"droplet_id": N}),
        (
            "Monitor",
            "monitor.droplet.snapshot",
            "Takes a snapshot of a droplet.",
            {"droplet_id": N},
        ),
        # A list's own word is the value its argument sets.
        ("stripe", "spending_limits", None, {"card_id": S, "limit": N}),
        # Two ids: what the call may link.
        ("Quillbox", "quillbox-audit-events", None, {"accountId": S, "envelopeId": S}),
        # A record plural with no list-shaping argument may still be a verb's object.
        ("Post", "postThreadReplies", None, {"channel_id": S, "thread_ts": S}),
        # A state set on one record.
        ("Chatterly", "chatterly_conversation_state", None, {"id": S, "state": S}),
        # A list after a colon that says what is done.
        ("Shop", "shop_batch", "Apply the batch: create, update, delete.", {}),
        ("Q", "get_messages", "Gets messages: body, receipt handle, deleted after read.", {}),
        ("Shop", "get_new_orders", "Gets pending orders: id, total, acknowledged.", {}),
        ("Shop", "checkout", "Checkout: charges card, emails receipt, ships order.", {}),
        # The fields a description lists are the arguments the call writes; a participle of no
        # change verb ("Desired") names a value to set.
        ("aws", "asg_capacity", "Desired capacity of a group", {"group_name": S, "desired": S}),
        # A bare change verb leading the sentence, not a word of the name, is its verb.
        ("acct", "account_info", "Update account info.", {"display_name": S, "email": S}),
        # The server's name leading with a determiner after it is its verb.
        ("Call", "CallGetNumber", "Call a number and play the message.", {"to": S}),
    ],
)
def test_writes_of_the_same_shapes_stay_held(
    server: str, name: str, description: str | None, arguments: dict[str, Any]
) -> None:
    assert held_by(server, name, description, **arguments)


def test_a_colons_fields_and_a_plurals_kinds_drop_but_actions_stay() -> None:
    assert without_contents("Shop settings: name, currency, plan and enabled features") == (
        "Shop settings"
    )
    kinds = "Balance transactions (charges, refunds, fees, payouts) on the account"
    assert "refunds" not in without_states(kinds)
    assert without_contents("Checkout: charges the card, emails receipt, ships") == (
        "Checkout: charges the card, emails receipt, ships"
    )
    assert "delete" in without_states("Apply the batch: create, update, delete.")


SIXTH = Path(__file__).parents[1] / "data" / "guard_attack_sixth.txt"
"""A sixth attack, on this stop's clearing rules: `label|before|server|name|...` (W write, R read,
D doubtful; `before` the verdict of the guard before the stop, H held, C cleared), grouped by
server, as the word-order habit is read from a server's whole list."""

OLDER_GAPS = {
    # Read words that act on what precedes them: a test or a ping sends an event, a log records,
    # a monitor is created, a read is marked, a verification spends microdeposits or a code.
    # (`shipyard.webhook.test` is held since the twenty-second pass: a means that acts.)
    "shipyard|shipyard.webhook.ping",
    "shipyard|shipyard.time_entry.log", "shipyard|shipyard.uptime.monitor",
    "shipyard|shipyard.notification.read",
    "payfold|payfold.bank_account.verify", "payfold|payfold.webhook_endpoint.test",
    "payfold|payfold.payment_method.check", "mailfold|mailfold.sender_identity.verify",
    "mailfold|mailfold.verification_code.check", "mailfold|mailfold.alert_rule.test",
    # A session or a one-time code got is made.
    "authkit|session_get", "authkit|otp_get",
}  # fmt: skip
"""The attack's writes the guard before the stop cleared too, left as they were."""
DOUBTS_CLEARED = {
    "authkit|book_slot_get", "crm|customer_segments", "crm|report_schedules", "crm|exports",
    "crm|sprint_issues",
}  # fmt: skip
"""Doubtful lines the stop's rules clear: lists by a query, which may also save it."""


def test_the_sixth_attack_finds_no_write_cleared_that_the_guard_before_held() -> None:
    found = attack_verdicts(SIXTH)
    assert found["W"] == set()
    assert found["older"] == OLDER_GAPS
    assert found["D"] == DOUBTS_CLEARED
    assert found["R anew"] == set()


def test_the_fields_a_description_lists_may_be_the_arguments_it_writes() -> None:
    sentence = "Images of a product variant: url, alt_text, position."
    writes = {"type": "object", "properties": {"variant_id": S, "alt_text": S}}
    reads = {"type": "object", "properties": {"variant_id": S}}
    tool = Tool(name="variant_images", description=sentence, inputSchema=writes)
    assert classify_tools("shop", [tool], PLAIN)[0]["irreversible"]
    read = Tool(name="variant_images", description=sentence, inputSchema=reads)
    assert not classify_tools("shop", [read], PLAIN)[0]["irreversible"]


SEVENTH = Path(__file__).parents[1] / "data" / "guard_attack_seventh.txt"
"""A seventh attack, on the eighteenth set's mends, in the sixth's format (`before`: the guard
just before them). It found 25 writes cleared by details, health and metadata as read heads
("Update customer details.", `bank_details(employee_id, account_number)`): those heads were
taken back."""


def test_the_seventh_attack_finds_no_write_cleared_that_the_guard_before_held() -> None:
    cleared = attack_verdicts(SEVENTH)
    assert cleared["W"] == set()
    # "info" reads as a noun at a name's end (`repo_info`), its value arguments unread; left as
    # before this stop. "Update account info." and "Update site title and tagline." are held:
    # a bare change verb leading the sentence that the name does not hold.
    assert cleared["older"] == {
        "bamboohr|emergency_contact_info", "gh|repo_info", "yt|video_info", "wp|user_info",
        "car|vehicle_info",
    }  # fmt: skip
    # A change verb's participle before its noun, every argument choosing: "Approved expense
    # report for the given report ID." is doubtful; "Enrolled MFA factors" reads.
    assert cleared["D"] == {"okta|factors", "expensify|report_approval"}
