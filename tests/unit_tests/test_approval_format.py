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
    RememberOffer,
    approval_from_message,
    build_approval_request,
    check_remember,
    decision_of,
    parse_decisions,
    record_of,
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


def test_remember_is_an_optional_strict_bool_on_approve_only() -> None:
    (approve,) = parse_decisions({"decisions": [{"type": "approve", "remember": True}]}, 1)
    assert isinstance(approve, ApproveDecision)
    assert approve.remember is True
    assert record_of(approve) == {"type": "approve", "remember": True}
    assert decision_of(record_of(approve)) == approve
    plain = ApproveDecision(type="approve")
    assert record_of(plain) == {"type": "approve"}
    assert decision_of({"type": "approve"}).remember is False
    for bad in ("yes", 1, None):
        with pytest.raises(ApprovalFormatError, match="remember"):
            parse_decisions({"decisions": [{"type": "approve", "remember": bad}]}, 1)
    with pytest.raises(ApprovalFormatError, match="remember"):
        parse_decisions({"decisions": [{"type": "reject", "remember": True}]}, 1)


def test_remember_only_where_the_request_offers_it() -> None:
    offer = RememberOffer(server="s", identity="python -m notes", digest="d", parts={}, summary="")
    offered = PendingCall(**pending("write_note"), remember=offer)
    request = build_approval_request([offered, pending("fetch_page")])
    assert [c.get("remember") for c in request["review_configs"]] == [True, None]
    assert "not be asked again" in request["action_requests"][0]["description"]
    assert "not be asked again" not in request["action_requests"][1]["description"]
    yes = ApproveDecision(type="approve", remember=True)
    assert check_remember([yes], [offered]) == [yes]
    with pytest.raises(ApprovalFormatError, match="does not offer"):
        check_remember([ApproveDecision(type="approve"), yes], [offered, pending("fetch_page")])


def test_a_message_approves_once_and_cannot_remember() -> None:
    with pytest.raises(ApprovalFormatError, match="not in a message"):
        approval_from_message('{"decisions": [{"type": "approve", "remember": true}]}', 1)
    (once,) = approval_from_message('{"decisions": [{"type": "approve"}]}', 1) or []
    assert isinstance(once, ApproveDecision)
