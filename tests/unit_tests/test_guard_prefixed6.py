"""Issue 44, seventh pass: the classes the sixth product-prefixed set showed (its held-out
measure was 2 missed, 13 of 78 read-only tools held; it is a tuning list since).

Each class with examples written here in other words than the set's: the two writes it let
through, now held, and the read it cleared, with writes beside it that stay held.
"""

from __future__ import annotations

import pytest

from tests.unit_tests.guard_helpers import held


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        # 1. A clause after a colon that says what the tool changes, under a read verb's name.
        ("gavel", "GavelListItem", "List an item for sale: creates the listing from an intake."),
        ("shelf", "shelf_get_slot", "Get a free slot: reserves it for ten minutes."),
        ("crm", "crm_view_lead", "View a lead: assigns it to you."),
        # 2. Showing something on a display others see is a change, whatever the verb reads.
        ("lift", "liftShowNotice", "Show a notice on the departure boards."),
        ("mall", "mall_display_promo", "Display a promotion on the public screens."),
        ("arena", "arena-show-score", "Show the score on the billboard."),
    ],
)
def test_writes_areheld(server: str, name: str, description: str) -> None:
    assert held(server, name, description)


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        # A colon that lists nouns, and "show" that returns something to the caller, read.
        ("crm", "crm_get_user", "Profile of a user: posts, comments and likes."),
        ("crm", "crm_list_jobs", "Lists jobs: queued, running, failed."),
        ("kanban", "kanban_show_board", "Show a board with its lists and cards."),
        ("kanban", "kanban_show_screen", "Show what is on the screen of a session."),
        # 3. Two participles describing a plural noun before them.
        ("plant-set", "plant_set_fault_history", "History of faults raised and cleared per line."),
    ],
)
def test_reads_clear(server: str, name: str, description: str) -> None:
    assert not held(server, name, description)


def test_participles_that_are_the_sentences_verb_still_act() -> None:
    assert held("plant-set", "plant_set_cleanup", "Faults are raised and cleared here.")
    assert held("acme", "acme_cleanup", "Files are uploaded and deleted.")
