"""Who may answer an approval question, until when: the decision, its config and its sentences."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from common.mcp.config import McpConfigError, parse_mcp_config
from common.served.approvers import (
    AnswerRule,
    Author,
    may_answer,
    question_of,
    rule_for,
    stamped,
    unstamped,
    who_may_answer,
)

ASKED = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
SOON = ASKED + timedelta(seconds=30)


def server(**keys: Any) -> dict[str, Any]:
    """A notes server entry with the given approval keys."""
    return {"mcpServers": {"notes": {"command": "notes-server", **keys}}}


def rule(
    doc: dict[str, Any], tool: str = "delete_note", default: float | None = None
) -> AnswerRule:
    return rule_for(parse_mcp_config(doc).servers["notes"], tool, default)


def test_without_approvers_only_the_requester_answers() -> None:
    question = question_of(AnswerRule(), "alice", ASKED)
    assert may_answer(question, "alice", (), SOON) is None
    why = may_answer(question, "bob", ("ops", "admin"), SOON)
    assert why is not None
    assert "only 'alice'" in why
    assert "'bob' may not" in why


def test_approvers_are_roles_the_answerer_must_hold() -> None:
    question = question_of(AnswerRule(approvers=("ops",)), "alice", ASKED)
    assert may_answer(question, "bob", ("ops",), SOON) is None
    # The requester may approve too when they hold the role (no second-person rule).
    assert may_answer(question, "alice", ("ops",), SOON) is None
    why = may_answer(question, "carol", ("dev",), SOON)
    assert why is not None
    assert "role 'ops'" in why
    assert "'carol' has none" in why


def test_second_person_refuses_the_requester_even_with_the_role() -> None:
    question = question_of(AnswerRule(approvers=("ops",), second_person=True), "alice", ASKED)
    why = may_answer(question, "alice", ("ops",), SOON)
    assert why is not None
    assert "cannot approve it" in why
    assert "another user" in why
    assert may_answer(question, "bob", ("ops",), SOON) is None
    assert may_answer(question, "carol", (), SOON) is not None


def test_a_question_expires_after_its_time_to_live() -> None:
    question = question_of(AnswerRule(ttl_s=60), "alice", ASKED)
    assert may_answer(question, "alice", (), ASKED + timedelta(seconds=59)) is None
    late = may_answer(question, "alice", (), ASKED + timedelta(seconds=60))
    assert late is not None
    assert "expired at 2026-03-01 09:01:00 UTC" in late
    assert "send your request again" in late
    # Without a time to live a question never expires.
    forever = question_of(AnswerRule(), "alice", ASKED)
    assert may_answer(forever, "alice", (), ASKED + timedelta(days=400)) is None


def test_the_question_says_who_may_answer_and_until_when() -> None:
    rule_ = AnswerRule(approvers=("ops", "sre"), second_person=True, ttl_s=3600)
    said = who_may_answer(question_of(rule_, "alice", ASKED))
    assert said == (
        "May be answered by a user with the role 'ops' or 'sre' other than 'alice', "
        "until 2026-03-01 10:00:00 UTC."
    )
    assert who_may_answer(question_of(AnswerRule(), "alice", ASKED)) == (
        "May be answered by 'alice' only, with no time limit."
    )


def test_a_forged_identity_cannot_break_the_sentence() -> None:
    said = who_may_answer(question_of(AnswerRule(), "alice\nWhy approval: read-only", ASKED))
    assert "\n" not in said


def test_per_tool_rules_override_the_servers_keys_by_pattern() -> None:
    doc = server(
        approvers=["dev"],
        approval_ttl=600,
        approval_rules={"delete_*": {"approvers": ["ops"], "second_person": True}},
    )
    assert rule(doc, "delete_note") == AnswerRule(("ops",), True, 600.0)
    assert rule(doc, "write_note") == AnswerRule(("dev",), False, 600.0)


def test_the_settings_default_time_to_live_and_zero_for_never() -> None:
    assert rule(server(), default=120).ttl_s == 120
    assert rule(server(approval_ttl=0), default=120).ttl_s is None
    assert rule(server(), default=None).ttl_s is None


@pytest.mark.parametrize(
    ("keys", "said"),
    [
        ({"second_person": True}, "'second_person' needs 'approvers'"),
        ({"approvers": "ops"}, "key 'approvers': must be a list of strings"),
        ({"approval_ttl": -1}, "key 'approval_ttl': must be 0 or more seconds"),
        ({"approval_ttl": "1h"}, "key 'approval_ttl': must be a whole number of seconds"),
        ({"second_person": "yes"}, "key 'second_person': must be true or false"),
        ({"approval_rules": {"delete_*": {"approver": ["ops"]}}}, "unknown key"),
        (
            {"approval_rules": {"delete_*": {"second_person": True}}},
            "approval_rules 'delete_*': 'second_person' needs 'approvers'",
        ),
    ],
)
def test_approval_keys_are_checked_with_one_sentence_each(keys: dict[str, Any], said: str) -> None:
    with pytest.raises(McpConfigError, match="server 'notes'") as caught:
        parse_mcp_config(server(**keys))
    assert said in str(caught.value)


def test_the_stamp_keeps_the_answer_and_its_author() -> None:
    author = Author(by="bob", roles=["ops"], at=SOON.isoformat())
    answer = {"decisions": [{"type": "approve"}]}
    assert unstamped(stamped(answer, author)) == (answer, author)
    # A client's own "stamp" inside the answer is the answer: only the outer one is read.
    forged = stamped(stamped(answer, Author(by="alice", roles=["ops"], at="x")), author)
    assert unstamped(forged)[1] == author
    assert unstamped(answer) == (answer, None)
