"""Issue 44, the twenty-fourth pass: held-out sets 32 and 33, and two attacks.

Sets 32 and 33 were committed (97e18b2) before the guard ran on them; their authors were asked
for lists as real servers write them. Held out, the guard missed no write and held 16 of 86 and
19 of 83 reads. The pass reads four shapes of them: a page asked for by `continuation` (or
`next_marker`, `scroll_id`), or by `after` and `first` beside a search query; a status word's
values after a short phrase ("Workflow states for a team (Backlog, ..., Canceled...)"); and a
gerund that names a part of an API before a listing verb with its object
(`sharing.list_links`).

The sixteenth attack (`tests/data/guard_attack_sixteenth.txt`) found 61 writes the first
versions of the pass's rules cleared, the seventeenth (`guard_attack_seventeenth.txt`) 42 more
in the narrowed versions. Two rules are taken back whole: a declaration closed by a general
change ("Nothing is emailed or changed", which vouched for acts said before it in words no
vocabulary knows: "pings the team's Slack channel with it") and a one-sentence data phrase
handed back in the response ("Idle VMs, powered off", "Old branches, after pruning them"). An
unknown plural in a name stays its possible verb, "returned by this call" stays an effect, a
gerund before `get` stays held (`impersonating_get_token`), and a bare verb in a status list
after a phrase is kept ("by state for the agent (solve, escalate, close)"). What a paged call
does to "each ... on the page" is an effect; a paged list whose description opens by naming an
act ("Deletion of messages ...") or that takes an enumeration of acts (`move: solve|close`,
`advance: pick|pack|ship`) is no list; and anywhere, an enumerated argument named as what to
do (`op`, `verdict`, `then`) whose values are acts holds the tool.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit_tests.guard_helpers import attack_verdicts, held_by

SIXTEENTH = Path(__file__).parents[1] / "data" / "guard_attack_sixteenth.txt"
SEVENTEENTH = Path(__file__).parents[1] / "data" / "guard_attack_seventeenth.txt"

_S = {"type": "string"}
_I = {"type": "integer"}
_STATUS = {"type": "string", "enum": ["active", "all"]}
_ADVANCE = {"type": "string", "enum": ["pick", "pack", "ship"]}


@pytest.mark.parametrize(
    ("server", "name", "description", "arguments"),
    [
        (
            "Ticketo",
            "ticketo_orders",
            "",
            {"event_id": _S, "status": _STATUS, "continuation": _S},
        ),
        (
            "Shopra",
            "ShopraCustomers",
            "Customers, searchable by name.",
            {"query": _S, "first": _I, "after": _S},
        ),
        (
            "Trackr",
            "trackr_list_workflow_states",
            "Workflow states for a team (Backlog, Todo, In Progress, Done, Canceled...).",
            {"team_id": _S},
        ),
        ("Boxo", "boxo.sharing.list_links", "Shared links, optionally for one path.", {"path": _S}),
    ],
)
def test_a_read_of_the_held_out_shapes_is_cleared(
    server: str, name: str, description: str, arguments: dict[str, Any]
) -> None:
    assert not held_by(server, name, description or None, **arguments)


@pytest.mark.parametrize(
    ("server", "name", "description", "arguments"),
    [
        # A declaration of one act not done vouches for no other.
        (
            "Tickets",
            "seat_selection",
            "Renders the seat map and keeps the chosen seats for 10 minutes. Nothing is charged.",
            {"performance_id": _S},
        ),
        (
            "Ideas",
            "reorder_advice",
            "Suggests a reorder and places it with the supplier. Nothing is submitted elsewhere.",
            {"sku": _S},
        ),
        # A data phrase handed back that names an act, an issued thing, or says more after.
        ("Cloud", "idle_vms", "Idle VMs, powered off, returned in the response.", {}),
        ("Locks", "door", "Door state after unlocking, returned in the response.", {}),
        ("Auth", "user_tokens", "Fresh access tokens for a user, returned in the response.", {}),
        ("Twilio", "sms", "Texts the given phone number, returned in the response.", {}),
        (
            "Tax",
            "vat_return",
            "Export the VAT return as XML (returned as text) and file it with the tax office.",
            {"period": _S},
        ),
        # A page whose records the call acts on, or an argument named as what to do.
        (
            "Billing",
            "retries",
            "Failed payments for a customer. Each payment on the page is repeated against the "
            "card on file.",
            {"customer_id": _S, "next_marker": _S},
        ),
        (
            "Mail",
            "resends",
            "Bounced messages of a campaign, each one on the page queued again for delivery.",
            {"campaign_id": _S, "continuation": _S},
        ),
        (
            "K8s",
            "pods",
            "Pods in a namespace for a deployment.",
            {"namespace": _S, "op": {"type": "string", "enum": ["restart", "evict"]}},
        ),
        # The seventeenth attack: a declaration closed by a general change, a data phrase
        # handed back, an act named before "of", an enumeration of acts beside a page, an
        # issued thing after a gerund.
        (
            "Standup",
            "standup_digest",
            "Generates a standup digest from yesterday's commits and pings the team's Slack "
            "channel with it. Nothing is stored or modified.",
            {"repo": _S, "channel": _S},
        ),
        (
            "Git",
            "old_branches",
            "Old feature branches in a repository after pruning them, returned as JSON in the "
            "response.",
            {"repo": _S},
        ),
        (
            "Mail",
            "mailbox_deletions",
            "Deletion of messages matching a search, one page per call.",
            {"query": _S, "first": _I, "after": _S},
        ),
        (
            "Orders",
            "orders",
            "Orders for a warehouse.",
            {"warehouse": _S, "advance": _ADVANCE, "scroll_id": _S},
        ),
        ("Auth", "impersonating_get_token", "", {"user_id": _S}),
        # A word no lexicon knows that leads a name stays its possible verb.
        ("Warehouse", "backfills", "Backfills a warehouse table.", {"table": _S, "cursor": _S}),
        # A gerund before a read word that ends the name may be what it sets.
        ("Shop", "billing_info", "", {"card_number": _S}),
    ],
)
def test_a_write_of_the_same_shapes_is_held(
    server: str, name: str, description: str, arguments: dict[str, Any]
) -> None:
    assert held_by(server, name, description, **arguments)


def test_each_record_on_a_page_that_only_includes_something_stays_a_read() -> None:
    text = "Invoices for a customer. Each invoice on the page includes its lines."
    assert not held_by("Billing", "invoices", text, customer_id=_S, cursor=_S)


def test_an_enumerated_filter_by_another_name_holds_no_list() -> None:
    """`channel: email|sms` and `action: block|allow` choose what a list holds (sets 28, 24)."""
    action = {"type": "string", "enum": ["block", "allow", "log"]}
    assert not held_by("Edge", "edge.firewall_rules.list", "Lists firewall rules.", action=action)
    channel = {"type": "string", "enum": ["email", "sms"]}
    assert not held_by("Rally", "RallyGetCampaigns", "Gets campaigns.", channel=channel)


def test_the_sixteenth_attack_finds_no_write_cleared_that_the_guard_before_held() -> None:
    """85 tools written against the pass's first rules: 61 of their 66 writes and doubtful
    tools were cleared by them. None is now; two were cleared before the pass too."""
    found = attack_verdicts(SIXTEENTH)
    assert found["W"] == set()
    assert found["D"] == set()
    # "Nothing is sent" after a redline the call files elsewhere; a verbless list "each one
    # collected against the card on file": older gaps.
    assert found["older"] == {"Billing|overdue_invoices", "Legal|contract_redline"}
    assert (len(found["R held"]), len(found["R"])) == (10, 17)
    assert found["R anew"] == set()


def test_the_seventeenth_attack_finds_no_write_cleared_that_the_guard_before_held() -> None:
    """71 tools written against the narrowed rules: 42 of their writes and doubtful tools were
    cleared by them. None is now; 17 were cleared before the pass too (older gaps: an action
    enumerated on a read-named tool, `search_messages(on_match: archive|trash)`; a gerund
    before `get` that issues, `resetting_get_link`; a verbless phrase that hides a sale,
    "Clearance lots ... sold at clearance")."""
    found = attack_verdicts(SEVENTEENTH)
    assert found["W"] == set()
    assert found["D"] == set()
    assert len(found["older"]) == 17
    assert "Mail|search_messages" in found["older"]
    assert (len(found["R held"]), len(found["R"])) == (10, 13)
    assert found["R anew"] == set()
