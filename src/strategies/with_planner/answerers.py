"""Who may answer a stop's approval questions, in a run: rules from mcp.json, answers vetted.

The decision itself is `common.served.approvers.may_answer`'s; this module finds each waiting
call's rule (its server's config, `APPROVAL_TTL_S` as the default time to live), stamps when
and for whom the question was asked (`request_approval`: the thread's owner, whoever's run
asks), and vets every answer before it is read: an answer by someone the rule does not allow is
refused with its sentence (the question stays open, the refusal is recorded in the audit
trail), and an answer after the question expired declines every call of the stop, saying so.

A stop asks about its calls together (one hitl interrupt; Agent Inbox's cards come from the same
stop), so an answer must satisfy the rule of every call it waits with.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from common.safety.approval import ApprovalFormatError, PendingCall, Vet, expired_answer
from common.served import approvers
from common.served.approvers import Asked, Author, Question, stamped
from common.served.caller import Caller
from common.settings import get_settings
from strategies.with_planner.state import Answered

if TYPE_CHECKING:
    from common.mcp import ExpertRegistry


def asked_now(requester: str) -> Asked:
    """The stamp of a question asked now for `requester` (the user the run works for)."""
    return Asked(at=approvers.clock().isoformat(), by=requester)


def answered_now(who: Caller) -> Answered:
    """Who brings the answers now: the caller of the run that resumed (not the owner)."""
    return Answered(by=who.identity, at=approvers.clock().isoformat())


def question_for(registry: ExpertRegistry, expert: str, tool: str, asked: Asked | None) -> Question:
    """The question about a call of `tool` on `expert`, asked as `asked` says.

    An unknown expert keeps the strictest rule it can (the requester only, never expiring);
    a stop with no stamp names nobody as requester, so nobody but an approver may answer.
    """
    default = get_settings().approval_ttl_s
    try:
        rule = approvers.rule_for(registry.server(expert), tool, default)
    except KeyError:
        rule = approvers.AnswerRule()
    if asked is None:
        return approvers.question_of(rule, "", approvers.clock())
    at = approvers.arrived(Author(by=asked["by"], roles=[], at=asked["at"]))
    return approvers.question_of(rule, asked["by"], at)


def server_question_for(registry: ExpertRegistry, expert: str, asked: Asked | None) -> Question:
    """An MCP server's question to the person: theirs to answer, or a role the server names.

    The roles are the server's `approvers`; a second person is not asked for (it is the
    requester's own information the server wants), and the question does not expire.
    """
    try:
        roles = tuple(registry.server(expert).approvers)
    except KeyError:
        roles = ()
    rule = approvers.AnswerRule(roles, requester_too=True)
    if asked is None:
        return approvers.question_of(rule, "", approvers.clock())
    at = approvers.arrived(Author(by=asked["by"], roles=[], at=asked["at"]))
    return approvers.question_of(rule, asked["by"], at)


def needs_a_person(registry: ExpertRegistry, expert: str, tool: str) -> bool:
    """Whether the rule of `tool` on `expert` names approver roles or a second person.

    Such a call is asked as a question in every approval mode: `plan_only`'s "go ahead" and
    `auto` would settle it without the person the operator named.
    """
    try:
        rule = approvers.rule_for(registry.server(expert), tool, None)
    except KeyError:
        return False
    return bool(rule.approvers) or rule.second_person


def release_refusal(registry: ExpertRegistry, held: list[PendingCall], who: Caller) -> str | None:
    """Why `who`'s message may not release the held calls (plan_only), or None when it may.

    The same decision as an answer to a question (`approvers.may_answer`), asked now for the
    thread's owner: a held call whose rule needs another person is not released by a message.
    """
    now = approvers.clock()
    asked = Asked(at=now.isoformat(), by=who.turn_user)
    for call in held:
        question = question_for(registry, call["expert"], call["name"], asked)
        why = approvers.may_answer(question, who.identity, who.roles, now)
        if why is not None:
            return f"I did not run the proposed actions: {call['name']}: {why}"
    return None


def requester_only(asked: Asked | None) -> Question:
    """An expert's question to the user: answered by the person whose request it serves only.

    An approver reaches the thread to answer approvals; what the user alone knows is theirs to say.
    """
    if asked is None:
        return approvers.question_of(approvers.AnswerRule(), "", approvers.clock())
    at = approvers.arrived(Author(by=asked["by"], roles=[], at=asked["at"]))
    return approvers.question_of(approvers.AnswerRule(), asked["by"], at)


def vet_for(
    questions: list[Question],
    who: Caller,
    refused: Callable[[str, Any], None],
) -> Vet:
    """The check every answer of the stop goes through, by its author, before it is read.

    `refused` is told once of a late answer (the calls it declines), for the audit trail; a wrong
    person's answer raises ApprovalFormatError, which the asking loop records and asks again.
    """
    told: list[bool] = []

    def vet(value: Any, author: Author | None) -> Any:
        if author is None:
            # An answer no screen stamped (the graph driven without ScreenedGraph): the run's own.
            by, roles, at = who.identity, who.roles, approvers.clock()
        else:
            by, roles, at = author["by"], tuple(author["roles"]), approvers.arrived(author)
        for question in questions:
            why = approvers.may_answer(question, by, roles, at)
            if why is None:
                continue
            if approvers.expired(question, at):
                sentence = why[0].upper() + why[1:]
                if not told:
                    told.append(True)
                    refused(sentence, value if author is None else stamped(value, author))
                return expired_answer(sentence)
            raise ApprovalFormatError(why)
        return value

    return vet
