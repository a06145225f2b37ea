"""Who may answer an approval question, and until when: one home for the decision.

A question's rule comes from `mcp.json` (`approvers`, `second_person`, `approval_ttl`, per server,
overridden per tool by `approval_rules` patterns), after GitHub environments' required
reviewers with self-review prevented: without `approvers` only the person whose request made the
call (the thread's owner) may answer; with `approvers`, only a user holding one of those roles;
with `second_person`, never the person whose request made the call. A question asked longer ago
than its time to live is expired: a late answer runs nothing.

Every answer is stamped with its author when it reaches the graph (`stamped`, called by the
resume screen with the identity of the run that resumes), so a refused answer stays refused when
LangGraph replays it to the node during a later resume by someone else.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any, TypedDict

from common.safety.quoting import one_line

if TYPE_CHECKING:
    # Annotation only: the CLI reads answers through this module without loading the MCP client.
    from common.mcp.config import ServerConfig


@dataclass(frozen=True)
class AnswerRule:
    """Who may answer questions about one tool's calls, and for how long they stay open."""

    approvers: tuple[str, ...] = ()
    """Roles allowed to answer; empty means the person whose request made the call."""
    second_person: bool = False
    """The person whose request made the call may not approve it."""
    ttl_s: float | None = None
    """Seconds the question stays open; None (or 0 in the config) means it never expires."""
    requester_too: bool = False
    """The person whose request made the call may answer as well as the roles (an MCP server's
    question to the person: theirs to answer, or a role the server names)."""


@dataclass(frozen=True)
class Question:
    """One asked question as the decision sees it: whose request, its rule, when it expires."""

    requested_by: str
    """The identity of the run that asked (the person whose request made the call)."""
    rule: AnswerRule
    """Who may answer it."""
    expires_at: datetime | None
    """When it stops accepting answers (UTC), or None."""


class Author(TypedDict):
    """Who sent an answer, as the resume screen stamped it."""

    by: str
    """The identity of the run that resumed."""
    roles: list[str]
    """That identity's roles (empty without auth)."""
    at: str
    """When the answer arrived (ISO 8601, UTC)."""


class Asked(TypedDict):
    """When, and by whose run, a stop's questions were asked (kept in the thread's state)."""

    at: str
    """When (ISO 8601, UTC)."""
    by: str
    """The identity of the run that asked: the person whose request made the calls."""


STAMP = "answered_by"
"""Key of the author in a stamped answer; the answer itself is under `ANSWER`."""

ANSWER = "answer"
"""Key of the answer in a stamped answer."""


def clock() -> datetime:
    """The current time (UTC): when a question is asked and when an answer arrives."""
    return datetime.now(UTC)


def rule_for(server: ServerConfig, tool: str, default_ttl_s: float | None) -> AnswerRule:
    """The rule of `tool` on `server`: its first matching `approval_rules` pattern, else its own.

    A time to live of 0 means never; none given anywhere falls back to `default_ttl_s`.
    """
    approvers, second, ttl = server.approvers, server.second_person, server.approval_ttl
    for pattern, override in server.approval_rules.items():
        if fnmatchcase(tool, pattern):
            approvers = override.approvers if override.approvers is not None else approvers
            second = override.second_person if override.second_person is not None else second
            ttl = override.approval_ttl if override.approval_ttl is not None else ttl
            break
    seconds = default_ttl_s if ttl is None else float(ttl)
    return AnswerRule(tuple(approvers), second, seconds if seconds else None)


def may_remember(rule: AnswerRule) -> bool:
    """Whether "don't ask again" may stand for an answer under `rule`: only the default one.

    A remembered approval is its user's own; where approver roles or a second person must
    answer, it would let someone skip them, so it is neither consulted nor offered.
    """
    return not rule.approvers and not rule.second_person


def question_of(rule: AnswerRule, requested_by: str, asked_at: datetime) -> Question:
    """The question asked at `asked_at` by `requested_by` under `rule`."""
    expires = asked_at + timedelta(seconds=rule.ttl_s) if rule.ttl_s else None
    return Question(requested_by, rule, expires)


def expired(question: Question, now: datetime) -> bool:
    """Whether `question` no longer accepts answers at `now`."""
    return question.expires_at is not None and now >= question.expires_at


def _roles(rule: AnswerRule) -> str:
    return " or ".join(repr(r) for r in rule.approvers)


def may_answer(
    question: Question, answerer: str, roles: Collection[str], now: datetime
) -> str | None:
    """None when `answerer` (holding `roles`) may answer `question` at `now`, else why not.

    The sentence says what to do; expiry is checked first, since nobody may answer then.
    """
    if expired(question, now):
        return (
            f"this question expired at {when(question.expires_at)}, so its calls were not run: "
            "send your request again to have them asked about anew."
        )
    rule = question.rule
    if rule.second_person and answerer == question.requested_by:
        return (
            f"the person whose request made this call ({one_line(answerer)!r}) cannot approve it: "
            f"another user with the role {_roles(rule)} must answer."
        )
    if rule.requester_too and answerer == question.requested_by:
        return None
    if rule.approvers and not set(rule.approvers) & set(roles):
        return (
            f"only a user with the role {_roles(rule)} may answer this question, and "
            f"{one_line(answerer)!r} has none of them: ask one of them to answer it."
        )
    if not rule.approvers and answerer != question.requested_by:
        return (
            f"only {one_line(question.requested_by)!r}, whose request made this call, may answer "
            f"this question; {one_line(answerer)!r} may not."
        )
    return None


def when(moment: datetime | None) -> str:
    """A moment as questions show it (UTC, to the second)."""
    return "never" if moment is None else moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def who_may_answer(question: Question) -> str:
    """One sentence naming who may answer `question` and until when (for every question format)."""
    rule = question.rule
    if rule.approvers and rule.requester_too:
        who = f"{one_line(question.requested_by)!r} or a user with the role {_roles(rule)}"
    elif rule.approvers:
        who = f"a user with the role {_roles(rule)}"
        if rule.second_person:
            who += f" other than {one_line(question.requested_by)!r}"
    else:
        who = f"{one_line(question.requested_by)!r} only"
    until = f"until {when(question.expires_at)}" if question.expires_at else "with no time limit"
    return f"May be answered by {who}, {until}."


def stamped(value: Any, author: Author) -> dict[str, Any]:
    """`value` with its author attached (what the resume screen sends on)."""
    return {STAMP: dict(author), ANSWER: value}


def unstamped(value: Any) -> tuple[Any, Author | None]:
    """The answer and its author; an answer nobody stamped has no author (None)."""
    if isinstance(value, Mapping) and set(value) == {STAMP, ANSWER}:
        author = value[STAMP]
        if isinstance(author, Mapping) and isinstance(author.get("by"), str):
            roles = [r for r in author.get("roles") or [] if isinstance(r, str)]
            return value[ANSWER], Author(by=author["by"], roles=roles, at=str(author.get("at")))
    return value, None


def arrived(author: Author) -> datetime:
    """When an answer arrived; an unreadable time counts as now (UTC)."""
    try:
        moment = datetime.fromisoformat(author["at"])
    except ValueError:
        return datetime.now(UTC)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
