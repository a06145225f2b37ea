"""Issue 44, the twenty-third pass: held-out sets 30 and 31, and the classes read from sets 1-29.

Sets 30 and 31 were committed (e4b397e) before the guard ran on them. Their three misses were
writes that say so after a read's opening: a later sentence led by the caller's condition
("With `refresh` set, the camera ... which is stored"), people who "also get a notification",
and a bare verb after "now and" ("... a domain now and update its verification state"). The
classes cleared: a plural's present participle that says which records ("Users watching an
issue"), an adjective's "to" ("Projects visible to the user"), an order of the list ("newest
first"), an enumerated `state` filter of a plural read, a window's bound named like the head
(`start_time` under "Busy times"), and "health" as data. Each beside a write of the same shape
that stays held.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit_tests.guard_helpers import held_by

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
    ("server", "name", "description", "arguments"),
    [
        ("Vantrix", "vantrix.issues.watchers", "Users watching an issue.", {"issue_key": _S}),
        (
            "Glimpse",
            "glimpse_indexes",
            "Indexes visible to the current user, with event counts and retention.",
            {},
        ),
        (
            "Velquor",
            "velquor_incidents",
            "Incidents, newest first.",
            {"state": _STATES, "priority": {"type": "integer", "minimum": 1}, "limit": _I},
        ),
        (
            "Glance",
            "glance_silences",
            "Active, pending and expired silences.",
            {"state": {"type": "string", "enum": ["active", "pending", "expired"]}},
        ),
        ("K8s", "cluster_health", "Cluster health: status, node counts, unassigned shards.", {}),
    ],
)
def test_a_verbless_read_of_these_shapes_is_cleared(
    server: str, name: str, description: str, arguments: dict[str, Any]
) -> None:
    assert not held_by(server, name, description, **arguments)


@pytest.mark.parametrize(
    "description",
    [
        "Lists messages on a queue. Reading is non-destructive.",
        "Lists messages on a queue. Nothing is permanent until the batch is committed elsewhere.",
    ],
)
def test_a_negated_warning_does_not_hold_a_read(description: str) -> None:
    assert not held_by("Relay", "list_messages", description, queue_id=_S)


def test_a_read_led_description_that_names_no_later_act_stays_cleared() -> None:
    """A read verb's description with a later sentence that only describes stays cleared."""
    text = "Returns a pull request's diff and the patch the branch would apply to its base."
    assert not held_by("github", "get_pull_request", text, owner=_S, repo=_S, pull_number=_I)
