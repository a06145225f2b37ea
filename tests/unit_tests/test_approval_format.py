"""Approval requests and the parsing of a reviewer's decisions."""

from __future__ import annotations

from typing import Any

import pytest

from common.safety.approval import (
    ApprovalFormatError,
    ApproveDecision,
    EditDecision,
    PendingCall,
    RejectDecision,
    build_approval_request,
    parse_decisions,
)


def pending(name: str, **args: Any) -> PendingCall:
    return PendingCall(id=f"id-{name}", expert="notes", name=name, args=args, reason="why")


def test_request_has_one_action_and_one_review_config_per_call() -> None:
    request = build_approval_request([pending("write_note", title="a"), pending("delete_note")])
    assert [a["name"] for a in request["action_requests"]] == ["write_note", "delete_note"]
    assert request["action_requests"][0]["args"] == {"title": "a"}
    assert "why" in request["action_requests"][0]["description"]
    assert [c["action_name"] for c in request["review_configs"]] == ["write_note", "delete_note"]
    assert all(
        c["allowed_decisions"] == ["approve", "edit", "reject"] for c in request["review_configs"]
    )
    assert "error" not in request
    assert build_approval_request([pending("x")], "bad answer")["error"] == "bad answer"


def test_valid_decisions_are_parsed_in_order() -> None:
    value = {
        "decisions": [
            {"type": "approve"},
            {"type": "edit", "edited_action": {"name": "write_note", "args": {"title": "b"}}},
            {"type": "reject", "message": "no"},
            {"type": "reject"},
        ]
    }
    approve, edit, reject, bare_reject = parse_decisions(value, 4)
    assert isinstance(approve, ApproveDecision)
    assert isinstance(edit, EditDecision)
    assert edit.edited_action.name == "write_note"
    assert edit.edited_action.args == {"title": "b"}
    assert isinstance(reject, RejectDecision)
    assert reject.message == "no"
    assert isinstance(bare_reject, RejectDecision)
    assert bare_reject.message == ""


@pytest.mark.parametrize(
    ("value", "expected", "fragment"),
    [
        ({"decisions": [{"type": "maybe"}]}, 1, "maybe"),
        ({"decisions": [{"type": "edit"}]}, 1, "edited_action"),
        ({"decisions": [{"type": "edit", "edited_action": {"name": "x"}}]}, 1, "args"),
        ({"decisions": [{"type": "approve", "extra": 1}]}, 1, "extra"),
        ({"decision": [{"type": "approve"}]}, 1, "decisions"),
        ({"decisions": {"type": "approve"}}, 1, "decisions"),
        ("approve", 1, "'approve'"),
        (None, 1, "None"),
        ([{"type": "approve"}], 1, "Expected"),
    ],
)
def test_invalid_forms_are_refused_with_what_was_expected(
    value: Any, expected: int, fragment: str
) -> None:
    with pytest.raises(ApprovalFormatError) as info:
        parse_decisions(value, expected)
    message = str(info.value)
    assert fragment in message
    assert '{"type": "approve"}' in message


@pytest.mark.parametrize("count", [0, 2])
def test_wrong_number_of_decisions_is_refused(count: int) -> None:
    value = {"decisions": [{"type": "approve"}] * count}
    with pytest.raises(ApprovalFormatError, match=f"Expected 1 decision\\(s\\).*got {count}"):
        parse_decisions(value, 1)
