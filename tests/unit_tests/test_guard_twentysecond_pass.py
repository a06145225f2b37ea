"""Issue 44, the twenty-second pass: verbless names and noun-phrase descriptions a person reads.

The largest class still held on the held-out sets was a verbless name ("tasko_users",
"quorvel_credit_usage") or a description that names data ("Backups and their status, including
expired and deleted ones."), held by one word: a participle that says which records ("deleted
ones", "Saved cohorts"), how they came to be ("Credits consumed per warehouse"), or an argument
that names where to look (`workspace`, `folder_uid`) and was not known as a choice. Each rule
below clears only with the rest of the strict tests passing, and the writes of the same shapes
stay held: a destination, a verb that may be the call's act, a value among the arguments.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit_tests.guard_helpers import attack_verdicts, verdict_beside_a_write

DATA = Path(__file__).resolve().parents[1] / "data"

S = {"type": "string"}
N = {"type": "integer"}
A = {"type": "array", "items": {"type": "string"}}


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        # A participle before the plural it describes names which records.
        (
            "Vault",
            "vault_backups",
            "Backups and their status, including expired and deleted ones.",
            {"cluster_id": S, "limit": N},
        ),
        (
            "Lex",
            "lex_lexicon",
            "Event definitions from the Lexicon, including hidden and dropped events.",
            {"project_id": N},
        ),
        (
            "Cohort",
            "cohort_segments",
            "Saved segments in the project with member counts.",
            {"project_id": N},
        ),
        ("Wiki", "WikiListArticles", "Help center articles, published and drafts.", {"state": S}),
        # A plural's participle of a verb that makes records, placed by a preposition.
        ("Hub", "hub-schedules", "Timers and wake-up routines configured on the bridge.", {}),
        (
            "Snow",
            "snow_credit_usage",
            "Credits consumed per warehouse per day.",
            {"start_date": S, "end_date": S, "warehouse": S},
        ),
        ("Cup", "CupScores", "Cupping scores recorded for a coffee.", {"bean_id": S}),
        # A destructive participle before a plural, in a list of what is included.
        (
            "Vault",
            "vault_cluster_backups",
            "Backups for a cluster, including deleted ones.",
            {"cluster_id": S},
        ),
        # Whether something has been done is asked, not done.
        (
            "Find",
            "find_check_task",
            "Checks whether an indexing task has been published.",
            {"task_id": N},
        ),
    ],
)
def test_a_description_naming_records_by_what_happened_to_them_reads(
    server: str, name: str, description: str, props: dict[str, Any]
) -> None:
    verdict = verdict_beside_a_write(server, name, description, props)
    assert not verdict["irreversible"], verdict["reason"]


@pytest.mark.parametrize(
    ("server", "name", "props"),
    [
        # An argument naming the container to look in chooses, like an id; an offset pages.
        ("Tasko", "tasko_users", {"workspace": S, "limit": N, "offset": S}),
        ("Quor", "quor_databases", {"database": S}),
        # After a brand whose change word is not its first, a name headed by data.
        ("BerthBook", "BerthBookBoatDetails", {"boat_id": S}),
        ("FerryBook", "FerryBookVesselDetails", {"vessel_id": S}),
    ],
)
def test_a_verbless_name_whose_arguments_only_choose_reads(
    server: str, name: str, props: dict[str, Any]
) -> None:
    verdict = verdict_beside_a_write(server, name, None, props)
    assert not verdict["irreversible"], verdict["reason"]


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        # A participle after its plural that may be the call's act, or goes somewhere.
        ("X", "x_invoices", "Invoices voided for a customer.", {"customer_id": S}),
        ("X", "x_jobs", "Jobs claimed from the queue.", {"queue_id": S}),
        ("X", "x_sessions", "Sessions terminated on the cluster.", {"cluster": S}),
        ("X", "x_reminders", "Reminders sent for an event.", {"event_id": S}),
        ("X", "x_tasks", "Tasks assigned to the caller.", {"project": S}),
        ("X", "x_locks", "Locks acquired on the workspace for this session.", {"workspace": S}),
        ("X", "x_members", "Members invited to the workspace.", {"workspace": S}),
        # A value beside the choice: what the call may write.
        ("X", "x_messages", "Messages posted in a channel.", {"channel": S, "text": S}),
        ("X", "x_members", "Members added in the workspace.", {"workspace": S, "email": S}),
        ("Pay", "pay_payments", "Payments recorded for a friend.", {"friend_id": S, "dollars": N}),
        # A headline's participles after their plurals, and a clause that acts after the list.
        ("Home", "door_locks", "Doors locked, alarms armed, for every entrance.", {"home_id": S}),
        (
            "Bill",
            "list_invoices",
            "List open invoices, invoices paid, customers emailed.",
            {"customer_id": S},
        ),
        (
            "X",
            "x_files",
            "Files in a bucket, including expired and deleted ones, which are purged.",
            {"bucket": S},
        ),
        ("X", "x_files", "Expired and deleted files, purged on read.", {"bucket": S}),
        # The thirteenth attack: a participle made at the call, a headline's acts, a cleanup's
        # result, and "whether ... has been" joined to the call's own act.
        ("Backup", "db_backups", "Backups created for the database by this call.", {"database": S}),
        (
            "Ops",
            "cluster_security_patches",
            "Security patches installed on the cluster.",
            {"cluster": S},
        ),
        ("Loyalty", "member_points", "Bonus points added for the member.", {"member_id": S}),
        ("CRM", "list_hygiene", "Merged and deleted contacts for a list.", {"list_id": S}),
        ("Git", "stale_branches", "Returns the names of deleted branches.", {"repo": S}),
        (
            "Pay",
            "check_invoice",
            "Checks whether the invoice has been paid and debits the customer's wallet if not.",
            {"invoice_id": S},
        ),
        ("AWS", "account_regions", "Regions for an account.", {"account": S, "region": S}),
        # "Whether ... has been" asks; a verb of the call's own still acts.
        (
            "X",
            "x_check_payment",
            "Checks whether the payment has been captured and captures it.",
            {"id": S},
        ),
        ("X", "x_task", "Whether the task has been deleted, and deletes it otherwise.", {"id": S}),
    ],
)
def test_the_same_shapes_that_may_act_stay_held(
    server: str, name: str, description: str, props: dict[str, Any]
) -> None:
    verdict = verdict_beside_a_write(server, name, description, props)
    assert verdict["irreversible"], verdict["reason"]


@pytest.mark.parametrize(
    ("server", "name", "props"),
    [
        # Two containers may be what the call links; a bound with no page may be the value.
        ("X", "x_users", {"workspace": S, "project": S}),
        ("X", "x_quotas", {"project": S, "limit": N}),
        ("X", "x_webhooks", {"workspace": S, "url": S}),
        ("X", "x_users", {"workspace": S, "role": S}),
        # The change word of the server's name in the verb's place, even before a head of data
        # (the thirteenth attack: `delete_user_data` on gdpr-delete, `send_invoice_details`).
        ("Dispatch", "DispatchJobTimeline", {"job_id": S}),
        ("Post", "post_user_profile", {"user_id": S}),
        ("gdpr-delete", "delete_user_data", {"user_id": S}),
        ("Send", "send_invoice_details", {"invoice_id": S}),
        ("Claim", "claim_reward_details", {"reward_id": S}),
        # A bound beside a value-like head may set it, even with an offset.
        ("Api", "project_quota", {"project": S, "limit": N, "offset": N}),
        ("Book", "book_room", {"room_id": S}),
        ("Charge", "charge_customers", {"customer_id": S}),
        ("Send", "send_message_details", {"message_id": S, "text": S}),
        ("X", "run_details", {"job_id": S}),
        ("X", "archive_summary", {"job_id": S}),
    ],
)
def test_a_verbless_name_with_a_link_a_value_or_a_verb_stays_held(
    server: str, name: str, props: dict[str, Any]
) -> None:
    verdict = verdict_beside_a_write(server, name, None, props)
    assert verdict["irreversible"], verdict["reason"]


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        # Participles listed before a status or a plural are its values.
        (
            "Seal",
            "seal_get_envelope_status",
            "Sent, delivered, declined, voided or completed status of an envelope.",
            {"envelope_id": S},
        ),
        (
            "Seal",
            "seal_list_audit_events",
            "Audit trail for an envelope: sent, viewed, signed, declined and voided events.",
            {"envelope_id": S},
        ),
        # The fields a search matches, after "by".
        (
            "Shop",
            "shop_customers",
            "Searches customers by name, email, phone or tag.",
            {"query": S, "limit": N},
        ),
        ("Idp", "idp_get_user", "Gets a user by ID or login.", {"user_id": S}),
        # A record's quoted message, and listed event names, are what the record says.
        (
            "Ride",
            "rideGetUploadStatus",
            "Status of an upload: 'Your activity is still being processed.', ready, or "
            "'The created activity has been deleted.'",
            {"upload_id": N},
        ),
        (
            "Idp",
            "idp_list_system_logs",
            "System log events such as user.account.lock or app.user_membership.remove.",
            {"since": S, "limit": N, "after": S},
        ),
    ],
)
def test_values_fields_and_quoted_messages_of_a_read_are_not_its_acts(
    server: str, name: str, description: str, props: dict[str, Any]
) -> None:
    verdict = verdict_beside_a_write(server, name, description, props)
    assert not verdict["irreversible"], verdict["reason"]


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        # A "by" list ends at an inflected verb or a change after "and".
        (
            "Shop",
            "get_order",
            "Get an order by id, or cancelled when cancel is true.",
            {"order_id": S, "cancel": {"type": "boolean"}},
        ),
        ("X", "x_find", "Finds orders by customer and cancel.", {"team_id": S}),
        ("X", "x_search", "Searches items by tag and deletes.", {"team_id": S}),
        # A quote of one or two words, or one dotted name, is still read; so is a verb outside.
        (
            "X",
            "x_events",
            "Events such as user.account.lock or user.account.delete; each is acknowledged.",
            {"id": S},
        ),
        # A later sentence's second clause with its own subject (set 27's `selvane_chart_get`).
        (
            "Chart",
            "chart_get",
            "Opens a patient's chart summary. For restricted charts, set override with a reason; "
            "the override is logged and the privacy office is notified.",
            {"patient_id": S, "override": {"type": "boolean"}, "reason": S},
        ),
        (
            "X",
            "x_get_chart",
            "Gets a chart. The access is logged and the owner is notified.",
            {"id": S},
        ),
        # Converting the money a stored balance holds (set 27's `wire_convert_balance`).
        (
            "Wire",
            "wire_convert_balance",
            "Converts money between two currency balances.",
            {"profile_id": N, "quote_id": S},
        ),
    ],
)
def test_a_read_whose_list_or_later_clause_acts_stays_held(
    server: str, name: str, description: str, props: dict[str, Any]
) -> None:
    verdict = verdict_beside_a_write(server, name, description, props)
    assert verdict["irreversible"], verdict["reason"]


def test_converting_a_sum_given_only_computes() -> None:
    verdict = verdict_beside_a_write(
        "Fx",
        "convert_currency",
        "Converts an amount between currencies.",
        {"amount": {"type": "number"}, "from": S, "to": S},
    )
    assert not verdict["irreversible"], verdict["reason"]


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        # "Running a report, a query or a search reads" was tried and taken back: the
        # fourteenth attack found 36 writes it cleared, acts named by nouns beside the head.
        ("Db", "run_deletion_query", "Runs the deletion query for a tenant.", {"tenant": S}),
        ("Ana", "analytics_erasure_run", "Runs the erasure for a user.", {"user_id": S}),
        ("Rep", "report_delivery_run", "Runs the report delivery.", {"report_id": S}),
        ("Pay", "payroll_summary", "Runs payroll for the report period.", {"period": S}),
        ("Rep", "fetch_report", "Runs the report delivery to all subscribers.", {"id": S}),
    ],
)
def test_running_a_named_act_beside_a_report_or_a_query_stays_held(
    server: str, name: str, description: str, props: dict[str, Any]
) -> None:
    verdict = verdict_beside_a_write(server, name, description, props)
    assert verdict["irreversible"], verdict["reason"]


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        # What runs is no read, or the results go somewhere.
        (
            "X",
            "run_payroll_report",
            "Runs payroll for the period and returns the report.",
            {"period": S},
        ),
        ("X", "run_report", "Runs the report and emails it to the finance team.", {"reportId": S}),
        (
            "X",
            "daily_pipeline_report",
            "Runs the pipeline report, but the results are emailed to the sales team.",
            {"report_id": S},
        ),
        (
            "X",
            "daily_pipeline_report",
            "Shows the pipeline report and does not change it, but the results are emailed.",
            {"report_id": S},
        ),
        ("X", "x_cmd", "Run a shell command and query the result.", {"id": S}),
        ("X", "x_cmd", "Run a migration to query tables.", {"id": S}),
        ("X", "x_job_run", None, {"id": S}),
        ("X", "x_payroll_run", None, {"id": S}),
        ("X", "run_deployment", None, {"id": S}),
        ("X", "run_search_reindex", None, {"id": S}),
    ],
)
def test_running_anything_else_or_sending_the_results_stays_held(
    server: str, name: str, description: str | None, props: dict[str, Any]
) -> None:
    verdict = verdict_beside_a_write(server, name, description, props)
    assert verdict["irreversible"], verdict["reason"]


def test_a_cleared_query_runner_handed_a_write_is_held_for_that_call() -> None:
    from common.safety.arguments import destructive_intent

    schema = {"type": "object", "properties": {"query": S}}
    description = "Execute a SELECT query and return the matching rows."
    verdict = verdict_beside_a_write("Db", "read_query", description, {"query": S})
    assert not verdict["irreversible"], verdict["reason"]
    held = destructive_intent(
        "read_query", schema, {"query": "DELETE FROM accounts"}, description=description
    )
    assert held is not None
    assert "DELETE" in held
    chosen = {"query": "SELECT id FROM accounts"}
    assert destructive_intent("read_query", schema, chosen, description=description) is None


def test_the_thirteenth_attack_finds_no_write_cleared_that_the_guard_before_held() -> None:
    """The thirteenth attack on this pass's first rules: 72 writes and doubtful tools cleared.

    Mended: a brand's change word in the verb's place keeps the name held; the participles that
    place records are only of verbs that record (`provenance_verbs`), never at the call ("by
    this call", "now"); "whether ... has been" asks only when nothing joins the call's own act;
    a container argument that names the head is its value; a bound beside a value-like head may
    set it; joined participles leading a sentence may be a headline's acts; a destructive one
    describes only in a list of what is included. 'debit', 'shred' (destructive), 'migrate',
    'settle', 'reconcile', 'offboard' are acts now.
    """
    found = attack_verdicts(DATA / "guard_attack_thirteenth.txt")
    assert found["W"] == set()
    assert found["D"] == set()
    # Older gaps (cleared by the guard before this pass too), named so that a change shows.
    # 14 until the twenty-third pass, whose "and <verb>s ... if not" holds `check_alert`,
    # `verify_delivery` and `check_shipment` ("... and pages the on-call engineer if not").
    assert len(found["older"]) == 11
    assert found["R held"] <= found["R"]


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        # Sets 28 and 29, held out, missed these five (the guard before the pass did too).
        (
            "Host",
            "host-listing-unlist",
            "Unlists a listing so it no longer appears in search.",
            {"listing_id": S},
        ),
        (
            "Host",
            "host-thread-get",
            "Gets a message thread. Opening a thread through this tool marks its messages as read.",
            {"thread_id": S},
        ),
        (
            "Mail",
            "MailTestCampaign",
            "Test a campaign message by delivering it to up to 10 test addresses.",
            {"campaign_message_id": S, "emails": A},
        ),
        (
            "Bill",
            "bill_verify_payment_method",
            "Verifies a customer's card. Uses a zero-amount authorization where supported; "
            "otherwise charges 1.00 in the card currency and refunds it later.",
            {"customer_id": S, "payment_source_id": S},
        ),
        ("X", "check_account", "Checks an account by creating a test record in it.", {"id": S}),
    ],
)
def test_a_means_a_later_mark_or_an_otherwise_clause_that_acts_holds(
    server: str, name: str, description: str, props: dict[str, Any]
) -> None:
    verdict = verdict_beside_a_write(server, name, description, props)
    assert verdict["irreversible"], verdict["reason"]


def test_a_later_clause_refusing_the_callers_input_changes_nothing() -> None:
    verdict = verdict_beside_a_write(
        "Db",
        "db_read_query",
        "Execute a read-only SQL query. Only SELECT statements are accepted; anything else is "
        "rejected.",
        {"query": S},
    )
    assert not verdict["irreversible"], verdict["reason"]


def test_the_fourteenth_attack_finds_no_write_cleared_that_the_guard_before_held() -> None:
    """The fourteenth attack on the pass's later rules: 54 writes and doubtful tools cleared.

    Mended: the run-read rules are taken back (36: `run_deletion_query`, "Runs payroll for the
    report period"); a quoted span is set aside only as a listed value (after ":", ",", "(",
    "or"), not a quote that opens the text or names a step (12); dotted names only after a log's
    or an event's "such as" (2); a destructive word ends a "by" list ("collects it by charge to
    the card": 4).
    """
    found = attack_verdicts(DATA / "guard_attack_fourteenth.txt")
    assert found["W"] == set()
    assert found["D"] == set()
    # Older gaps, cleared by the guard before the pass too: search-and-replace under a read
    # name, a reindex called a search, a query that materializes, a quoted command. 17 until
    # the twenty-third pass, whose later "gets an alert" holds `Ehr|patient_chart_view`.
    assert len(found["older"]) == 16
    assert found["R held"] == {"Docs|envelope_state", "Mail|search_messages", "Obs|prom_query"}
