"""Issue 44, sixth pass: the classes the fifth product-prefixed set showed (its held-out measure
was 0 missed, 13 of 81 read-only tools held; it is a tuning list since).

Each class with examples written here in other words than the set's, and the writes beside them
that must stay held.
"""

from __future__ import annotations

import pytest

from common.safety.states import without_states
from tests.unit_tests.guard_helpers import held


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        # 1. A participle after "not yet" describes the noun before it.
        ("tollway", "tollway_list_fines", "Lists fines not yet paid, largest first."),
        # 2. A list of what happened, after a colon, ending the sentence.
        ("permitly", "permitly.permits.history", "History of a permit: drafted, issued, revoked."),
        # 3. What happened before the call ("were ...") or what would happen ("would be ...").
        ("scoot", "scoot-list-trips", "Lists trips, including ones that were charged or voided."),
        ("famtree", "famtree-find-twins", "Shows which people would be merged, merging nothing."),
        # 4. A verbless name headed by a ratio, statistics, an overview, totals, a breakdown.
        ("brewsend", "brewsend_extraction_ratio", None),
        ("shipit", "ShipItWeeklyStats", None),
        ("postbox", "postbox_volume_breakdown", "Volume by day and by sender."),
        # 5. A change word after an article, in a sentence no unknown verb leads, is a noun.
        ("relay", "relay_delivery_report", "Delivery report for a relay: status per hop."),
        ("wire", "wire_get_wire_status", "Status of the transfer, with its fees."),
    ],
)
def test_reads_clear(server: str, name: str, description: str | None) -> None:
    assert not held(server, name, description)


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        # The tool's own act in the present stays an act, however listed.
        ("tollway", "tollway_settle", "Fines are paid from the balance, then closed."),
        ("scoot", "scoot-refund-trip", "Refunds a trip. Trips that were charged twice qualify."),
        ("famtree", "famtree-merge", "Merges two people; the records will be merged."),
        ("permitly", "permitly.permits.revoke", "Revoke a permit: it is revoked at once."),
        ("records", "records_sync", "Records are created, updated or deleted to match."),
        # A verb the guard does not know may lead: "Issue a refund", "Report a transfer to ...".
        ("wire", "wire_get_refund", "Issue a refund for a charge."),
        ("taxly", "taxly_get_report", "Report a transfer to the tax office."),
        # A ratio does not make a name that sets it a read.
        ("brewsend", "brewsend_set_ratio", None),
    ],
)
def test_writes_stayheld(server: str, name: str, description: str | None) -> None:
    assert held(server, name, description)


def test_a_list_after_a_colon_goes_only_when_it_lists_states() -> None:
    assert "drafted" not in without_states("History of a permit: drafted, issued, revoked.")
    kept = "Apply the batch: create, update, delete."
    assert without_states(kept) == kept
