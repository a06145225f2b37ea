"""Issue 44, fifth pass: the classes the fourth product-prefixed set showed (its held-out measure
was 3 missed, 9 of 81 read-only tools held; it is a tuning list since).

Each class with examples written here in other words than the set's, and the writes beside them
that must stay held.
"""

from __future__ import annotations

import pytest

from common.safety.names import own_words
from common.safety.states import without_states
from tests.unit_tests.guard_helpers import held


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        # 1. A read verb inside a longer product name is the product's: the verb after it decides.
        ("GridView", "GridViewPayInvoice", None),
        ("GridView", "GridViewChangePlan", None),
        ("grid-view", "grid_view_set_thermostat", "Sets the target temperature."),
        ("ShopSearch", "ShopSearchDeleteIndex", None),
        ("ShopSearch", "ShopSearchMigrateCatalog", None),
    ],
)
def test_a_read_verb_in_the_products_name_clears_no_write(
    server: str, name: str, description: str | None
) -> None:
    assert held(server, name, description)


def test_a_servers_name_that_is_one_read_verb_may_still_be_the_tools_verb() -> None:
    assert own_words("fetch", "fetch_url") == ((), ("fetch", "url"))
    assert own_words("GridView", "GridViewPayInvoice") == (("grid", "view"), ("pay", "invoice"))
    assert not held("fetch", "fetch_url", "Fetch a URL and return its text.")


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        ("GridView", "GridViewGetMeterData", None),
        ("GridView", "GridViewDailySummary", "Daily summary of usage per circuit."),
        # 2. A list of states in parentheses, participles or words of one or two words.
        ("vetly", "vetly_list_visits", "Lists visits for a day (booked, checked in, cancelled)."),
        ("lendo", "lendoListLoans", "Lists loans (requested, approved, on loan, returned)."),
        ("claimly", "claimly_get_claim", "Returns a claim with its status (open, denied, paid)."),
        ("tixly", "tixly_get_ticket", "Returns a ticket's status (paid, refunded, sent)."),
        # 3. A head whose verb only reads or takes no object, with no description.
        ("budgetly", "budgetly_energy_trend", None),
        ("shoply", "shoply_price_search", None),
        # 5. A description that says nothing is changed, or puts the output in the response.
        (
            "memo",
            "memo.text.suggest",
            "Returns suggestions for a text. The glossary is not changed.",
        ),
        ("atlas", "atlasExportItemsCsv", "Exports the matching items as CSV text in the response."),
    ],
)
def test_reads_clear(server: str, name: str, description: str | None) -> None:
    assert not held(server, name, description)


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        # A list of actions is no list of states.
        ("batch", "batch_apply", "Applies the changes (create, update, delete)."),
        # A filing head with no description may file (`user_report`), a log may log.
        ("forum", "forum_user_report", None),
        ("events", "events_job_queue", None),
        # Tests run code; running checks or diagnostics may fix, repair or reboot (an attack on
        # this pass found "Runs diagnostics and repairs corrupted indexes" cleared): held.
        ("ci", "ci_run_tests", None),
        ("lintly", "lintly.style.fix", "Runs style checks and rewrites the document in place."),
        ("lintly", "lintly.style.check", "Runs style checks on a document and returns findings."),
        ("netly", "netly_run_diagnostics", "Runs network diagnostics and returns the results."),
        # An export to a file, a bucket or an email is kept elsewhere.
        ("atlas", "atlasExportItems", "Exports the items to a file; the path is in the response."),
        ("atlas", "atlasEmailExport", "Emails the export; a summary is in the response."),
        # "not changed" about one thing while the sentence before deletes another.
        ("memo", "memo.entry.purge", "Deletes old entries. The glossary is not changed."),
    ],
)
def test_writes_stayheld(server: str, name: str, description: str | None) -> None:
    assert held(server, name, description)


def test_a_list_of_actions_stays_in_the_sentence() -> None:
    assert "(create, update, delete)" in without_states("Applies (create, update, delete).")
    assert "(sent" not in without_states("Status (draft, sent, accepted, declined).")
