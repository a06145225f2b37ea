"""Issue 44, fourth pass: the classes the third product-prefixed set showed (its held-out measure
was 0 missed, 21 of 78 read-only tools held; it is a tuning list since).

Each class with examples written here in other words than the set's, and the writes beside them
that must stay held.
"""

from __future__ import annotations

import pytest

from common.safety.declarations import declared_read_only
from tests.unit_tests.guard_helpers import held


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        # 1. A verbless name headed by metrics, a level, a log, a trail, a queue, a summary...
        ("stockly", "stocklyReorderLevel", "Reorder level of an item per warehouse."),
        ("fleetbot", "fleetbotUptimeMetrics", "Uptime per robot and per shift."),
        ("docsign", "DocsignAccessTrail", "Access trail of a document: who opened it and when."),
        ("modbox", "modbox-report-queue", "Reports waiting for a moderator: user and reason."),
        ("netreg", "netreg.whois", "WHOIS record of a domain."),
        ("adsly", "AdslyWeeklySummary", "Weekly summary of clicks and impressions."),
        # ... a word before it that is only a verb, when the description opens with the name.
        ("adsly", "AdslySpendHistory", "Spend history by ad group, newest first."),
        # ... a head alone that may be a verb, when the description opens with it and "of".
        ("fire", "fire-trend", "Trend of a sensor over an hour: min, max and mean."),
        # 2. A description that declares the tool only reads, nothing else signalling a change.
        ("payco", "payco_audit_ledger", "Audit a ledger for gaps. Reports only."),
        ("ship", "ship.changelog.draft", "Draft a changelog from commits. Returns text only."),
        ("payco", "PaycoCardStatus", "Card status: limit and balance. Read-only."),
        # 3. A rehearsal of a change the description rehearses too.
        ("ship", "ship.deploy.dryRun", "Dry-run a deploy: lists what would change."),
    ],
)
def test_reads_clear(server: str, name: str, description: str) -> None:
    assert not held(server, name, description)


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        ("broadcast", "broadcast_send_broadcast", "Send a broadcast to an audience now."),
        ("Sign", "SignSendEnvelope", "Send an envelope for signature."),
        ("release", "release.publish.run", "Publish the package to the registry."),
        ("release", "release.notes.draft", "Draft and send the notes to subscribers."),
        ("hire", "hire_run_payroll", "Run payroll: pays every employee."),
        ("route", "route.zone.import", "Import a zone file. Removes records that would conflict."),
        ("pickbot", "pickbotClearFault", "Clears the fault and restarts the robot."),
        ("pickbot", "pickbotResetLevel", None),
        ("modbox", "modbox-report-user", "Reports a user to the moderators."),
        ("modbox", "modbox-report-queue", "Reports a bug to the maintainers."),
        ("adsly", "AdslySpendBudget", "Spend the rest of the budget today."),
        ("fire", "fire-trend", None),
        ("payco", "payco_audit_ledger", "Audit a ledger and delete gaps. Reports only."),
        ("payco", "payco_close_ledger", "Close the ledger. Read-only afterwards."),
        ("ship", "ship.deploy.dryRun", None),
        ("ship", "ship.deploy.dryRun", "Dry-run a deploy, then deploy it."),
        ("ship", "ship_preview_publish", None),
        ("ship", "ship_update_preview", "Update the preview of a page."),
    ],
)
def test_writes_stayheld(server: str, name: str, description: str | None) -> None:
    assert held(server, name, description)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Read-only.", "Read-only"),
        ("Status of a card. Read-only.", "Read-only"),
        ("Audit a run. Reports only.", "Reports only"),
        ("Draft it. Returns text only; nothing is saved.", "Returns text only"),
        ("Diff it. Applies nothing.", "Applies nothing"),
        ("Not read-only.", None),
        ("Lists read-only replicas.", None),
        ("Reports only the top rows and deletes the rest.", None),
    ],
)
def test_a_read_only_declaration_is_a_clause_of_its_own(text: str, found: str | None) -> None:
    assert declared_read_only(text) == found
