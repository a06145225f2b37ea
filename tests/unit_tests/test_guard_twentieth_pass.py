"""Issue 44, the twentieth pass: a position beside a size is a page.

GraphQL's connections take `first` and `after`, Stripe-like lists `limit` and `starting_after`,
QuickBooks-like ones `startPosition` and `maxResults`, Twitter-like ones `since_id` and
`max_results`. Neither word alone says the call lists (`after` may be a date a call sets), but a
position beside a size typed as a number is a page of a list. The reads are of the shapes the
nineteenth held-out set held (made-up tools, not the set's own); the writes are calls of the
same shapes a person would want to approve: the page rule's other conditions still hold them.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp.types import Tool

from common.safety.classify import classify_tools
from tests.unit_tests.guard_helpers import PLAIN

S = {"type": "string"}
N = {"type": "integer"}


def _verdict(server: str, name: str, description: str | None, props: dict[str, Any]) -> dict:
    """The guard's verdict on one tool, classified with a write beside it on its server."""
    tools = [
        Tool(
            name=name, description=description, inputSchema={"type": "object", "properties": props}
        ),
        Tool(name=f"{server.lower()}_delete_item", description="Delete an item.", inputSchema={}),
    ]
    return dict(classify_tools(server, tools, PLAIN)[0])


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        ("Tracko", "trackoIssues", None, {"teamId": S, "assigneeId": S, "first": N, "after": S}),
        ("Tracko", "trackoCycles", None, {"teamId": S, "state": S, "first": N, "after": S}),
        ("Hubba", "hubba_imports", "Recent import jobs with state.", {"limit": N, "after": S}),
        (
            "Charge",
            "ChargeVendors",
            None,
            {"active": {"type": "boolean"}, "startPosition": N, "maxResults": N},
        ),
        ("Chirp", "chirp-replies", None, {"user_id": S, "since_id": S, "max_results": N}),
    ],
)
def test_a_position_beside_a_size_lists(
    server: str, name: str, description: str | None, props: dict[str, Any]
) -> None:
    verdict = _verdict(server, name, description, props)
    assert not verdict["irreversible"], verdict["reason"]
    assert "page of a list" in verdict["reason"]


@pytest.mark.parametrize(
    ("server", "name", "description", "props"),
    [
        # the name's verb acts
        ("Tracko", "trackoArchiveIssues", None, {"teamId": S, "first": N, "after": S}),
        ("Chat", "chat_purge_messages", None, {"channel": S, "limit": N, "after": S}),
        # the description acts
        (
            "Chat",
            "chat_messages",
            "Messages after the given id, deleted in bulk.",
            {"channel": S, "limit": N, "after": S},
        ),
        # an argument carries what a write writes
        ("Chat", "chat_replies", None, {"thread": S, "text": S, "limit": N, "after": S}),
        # a position beside a size that is no number is no page
        ("Rota", "rota_swaps", None, {"team_id": S, "after": S, "limit": S}),
    ],
)
def test_a_paged_shape_that_may_act_stays_held(
    server: str, name: str, description: str | None, props: dict[str, Any]
) -> None:
    verdict = _verdict(server, name, description, props)
    assert verdict["irreversible"], verdict["reason"]
