"""Issue 44, the twenty-third pass: held-out sets 30 and 31, and a fifteenth attack.

Sets 30 and 31 were committed (e4b397e) before the guard ran on them. Their three misses were
writes that say so after a read's opening: a later sentence led by the caller's condition
("With `refresh` set, the camera ... which is stored"), people who "also get a notification",
and a bare verb after "now and" ("... a domain now and update its verification state"); all
are held now, with a later warning of a loss ("Delivery is destructive").

The pass's clearing rules (a plural's present participle, an adjective's "to", "newest first",
an enumerated `state` as a filter, a window's bound, "health" as data) cleared 5 held reads of
sets 1-29; the fifteenth attack (`tests/data/guard_attack_fifteenth.txt`) found 44 writes they
cleared, and they are taken back: the verbless shapes below stay held.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit_tests.guard_helpers import attack_verdicts, held_by

FIFTEENTH = Path(__file__).parents[1] / "data" / "guard_attack_fifteenth.txt"

_S = {"type": "string"}
_I = {"type": "integer"}
_STATES = {"type": "string", "enum": ["new", "in_progress", "resolved", "closed"]}


@pytest.mark.parametrize(
    ("server", "name", "description", "arguments"),
    [
        (
            "Peek",
            "peek-snapshot",
            "Returns the latest snapshot from a camera. With `refresh` set, the camera is woken "
            "to capture a new image, which is stored in the event timeline and uses battery.",
            {"camera_id": _S, "refresh": {"type": "boolean"}},
        ),
        (
            "Vexora",
            "VexoraShoutout",
            "Shows another broadcaster's channel card in this channel's chat. The shouted-out "
            "broadcaster's followers also get a notification.",
            {"to_broadcaster_id": _S},
        ),
        (
            "Fling",
            "fling_verify_domain",
            "Re-check the DNS records of a domain now and update its verification state.",
            {"domain": _S},
        ),
        (
            "Relay",
            "relay_messages",
            "Messages waiting on a queue, oldest first. Delivery is destructive: a message "
            "handed back will not be handed back again.",
            {"queue_id": _S, "limit": _I},
        ),
        ("Vault", "list_versions", "Lists secret versions. A purge cannot be undone.", {}),
        (
            "Exports",
            "export_status",
            "Status of the data export. If it has not been downloaded within a day, the link is "
            "emailed to the owner again.",
            {"export_id": _S},
        ),
        # What the call itself does to what it returns (older gaps of the twelfth and ninth
        # attacks), and a decision it carries out (the fifteenth's).
        (
            "Drip",
            "drip_events",
            "Pending webhook events, oldest first. Returned events vanish from the buffer.",
            {"limit": _I},
        ),
        (
            "Stripe",
            "payout_status",
            "Status of the payout. A payout that has not settled within 3 days is cancelled by "
            "this call.",
            {"payout_id": _S},
        ),
        (
            "Okta",
            "org_users_without_mfa",
            "Users lacking MFA in an org.",
            {"org": _S, "enforcement": {"type": "string", "enum": ["enroll", "suspend"]}},
        ),
        # A flag or an argument the caller passes to make the call act, and an act on fetch
        # in the first sentence (older gaps of the fourth and fifth attacks).
        (
            "gmail",
            "list_messages",
            "List messages in the inbox, or archived when archive is true.",
            {},
        ),
        (
            "stripe",
            "payment_status",
            "Show a payment's status (captured if capture is true) for a payment intent.",
            {"payment_intent": _S, "capture": {"type": "boolean"}},
        ),
        (
            "stripe",
            "get_subscription",
            "Get a subscription; pass cancel_at to cancel it at that time.",
            {"subscription_id": _S, "cancel_at": _I},
        ),
        ("gmail", "get_unread", "Get unread messages, marked read on fetch.", {}),
        (
            "Check",
            "verify_delivery",
            "Verifies whether the parcel has been delivered and credits the customer if not.",
            {"parcel_id": _S},
        ),
        # A flag named by a change verb alone (the twelfth attack's older gaps).
        (
            "Beacon",
            "beacon_alerts",
            "Firing alerts for a service, newest first.",
            {"service_id": _S, "acknowledge": {"type": "boolean"}},
        ),
        (
            "Gmail",
            "get_draft",
            "Returns a draft.",
            {"draft_id": _S, "send": {"type": "boolean"}},
        ),
        # The same shapes as the reads below, with an act: the participle changes, a noun
        # before "to" is no adjective, a state beside a record's id may be set.
        ("Boards", "board_followers", "Users following a board.", {"board_id": _S}),
        ("Pager", "pager_alerts", "Pager alerts to the on-call engineer.", {"team": _S}),
        ("Desk", "incident_state", "Incident state.", {"incident_id": _S, "state": _STATES}),
    ],
)
def test_a_write_said_after_a_read_opening_is_held(
    server: str, name: str, description: str, arguments: dict[str, Any]
) -> None:
    assert held_by(server, name, description, **arguments)


@pytest.mark.parametrize(
    "description",
    [
        "Lists messages on a queue. Reading is non-destructive.",
        "Lists messages on a queue. Nothing is permanent until the batch is committed elsewhere.",
        "Lists messages on a queue. Nothing is deleted by this call.",
        "Lists messages on a queue. Pass cursor to get the next page.",
        "Lists messages on a queue and returns the default page if not set.",
        "Lists messages on a queue, including deleted ones when include_deleted is true.",
        # A price per call is no effect the guard holds: set 24 labels a paid lookup a read.
        "Lists messages on a queue. Each lookup is billed per request.",
    ],
)
def test_a_negated_warning_does_not_hold_a_read(description: str) -> None:
    assert not held_by("Relay", "list_messages", description, queue_id=_S)


def test_a_read_led_description_that_names_no_later_act_stays_cleared() -> None:
    """A read verb's description with a later sentence that only describes stays cleared."""
    text = "Returns a pull request's diff and the patch the branch would apply to its base."
    assert not held_by("github", "get_pull_request", text, owner=_S, repo=_S, pull_number=_I)


def test_the_fifteenth_attack_finds_no_write_cleared_that_the_guard_before_held() -> None:
    """82 tools written against the pass's clearing rules: 44 of its 53 writes were cleared by
    them (`room_lights(room, state: on|off)`, "Nodes in an autoscaling node pool" (min_nodes,
    max_nodes), "Members awaiting approval in a group" (decision), "Licenses available to a
    team", "Service health ..., auto-healing unhealthy instances"). With the rules taken back
    none is."""
    found = attack_verdicts(FIFTEENTH)
    assert found["W"] == set()
    assert found["D"] == set()
    # Older gaps, cleared by the guard before the pass too: a verbless list whose status
    # filter may set one ("Incidents on a service, newest first" with status acknowledged|
    # resolved), a from/to pair that moves records, a name led by a noun that is also a read
    # verb (`listing_prices` with a `min_price`, `view_assignees`, `repo_access_requests`), a
    # participle clause or a queue that hides the act. Two more were: a decision the call
    # carries out is a value it sets (`[data] value_keys`: decision, enforcement, reminder,
    # ...), so "Users lacking MFA in an org" (enforcement: suspend) and "Members owing dues"
    # (reminder) are held.
    assert found["older"] == {
        "Airbnb|listing_prices", "Expensify|expense_reports", "GitHub|repo_access_requests",
        "PagerDuty|service_incidents", "Zendesk|reassignment_queue", "Zendesk|view_assignees",
        "Zoom|meeting_participants",
    }  # fmt: skip
    # Its reads: 21 of 29 held, one of them anew, by the later warning of a loss ("Messages in
    # the spam folder. Removal after 30 days is permanent.").
    assert (len(found["R held"]), len(found["R"])) == (21, 29)
    assert found["R anew"] == {"Gmail|spam_messages"}


def test_a_flag_that_names_what_a_calculation_counts_does_not_hold_it() -> None:
    """`refund_shipping` on a calculation says what to count (set 16's `calculate_refund`);
    a filter's flag and a state's are no acts either."""
    assert not held_by(
        "Shop",
        "calculate_refund",
        "Calculates the refund for an order's line items. Nothing is refunded.",
        order_id=_S,
        refundShipping={"type": "boolean"},
    )
    assert not held_by(
        "Mail", "list_messages", "Lists messages.", include_deleted={"type": "boolean"}
    )
    assert not held_by("Mail", "list_messages", "Lists messages.", archived={"type": "boolean"})
    # A stream's option after command-line conventions (the Kubernetes server's `kubectl_logs`).
    logs = "Get logs from Kubernetes resources like pods, deployments, or jobs"
    assert not held_by("kubernetes", "kubectl_logs", logs, pod=_S, follow={"type": "boolean"})
