"""Issue 44, the twenty-fourth pass: held-out sets 32 and 33, and a sixteenth attack.

Sets 32 and 33 were committed (97e18b2) before the guard ran on them; their authors were asked
for lists as real servers write them. Held out, the guard missed no write and held 16 of 86 and
19 of 83 reads. The pass reads six shapes of them: a declaration whose last participle is a
general change ("Nothing is emailed or changed"), or that adds "elsewhere"; a one-sentence
description that names data and hands it back in the response ("Raw events ..., returned as
NDJSON in the response"); a page asked for by `continuation`, or by `after` and `first` beside a
search query; a status word's values after a short phrase ("Workflow states for a team
(Backlog, ..., Canceled...)"); and a gerund that names a part of an API before a read verb
with its object (`sharing.list_links`).

The sixteenth attack (`tests/data/guard_attack_sixteenth.txt`) found 61 writes the first
versions cleared: a declaration of one act not done vouched for others ("Nothing is charged"
after "keeps the chosen seats"), a data phrase whose participle no lexicon knows ("Idle VMs,
powered off"), an unknown plural in a name (`backfills`), "returned by this call" as no effect,
and paged lists acting on each record of their page. Those versions are taken back or narrowed;
what a paged call does to "each ... on the page" is an effect, and an enumerated argument named
as what to do (`op`, `verdict`, `then`) whose values are acts holds the tool.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit_tests.guard_helpers import attack_verdicts, held_by

SIXTEENTH = Path(__file__).parents[1] / "data" / "guard_attack_sixteenth.txt"

_S = {"type": "string"}
_I = {"type": "integer"}
_STATUS = {"type": "string", "enum": ["active", "all"]}


@pytest.mark.parametrize(
    ("server", "name", "description", "arguments"),
    [
        (
            "Ledgerly",
            "ledgerly.invoices.pdf",
            "Returns the invoice rendered as a PDF (base64). Nothing is emailed or changed.",
            {"invoice_id": _S},
        ),
        (
            "Metrica",
            "metrica_events",
            "Raw events for a date range. Streamed back to the caller; nothing is stored or "
            "sent elsewhere.",
            {"from_date": _S, "to_date": _S},
        ),
        (
            "Metrica",
            "metrica_events_export",
            "Raw events for a date range, returned as NDJSON in the response (max 50,000 events).",
            {"from_date": _S, "to_date": _S, "limit": _I},
        ),
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
        ("Boxo", "boxo.billing.get_invoice", "", {"invoice_id": _S}),
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
    assert (len(found["R held"]), len(found["R"])) == (9, 17)
    assert found["R anew"] == set()
