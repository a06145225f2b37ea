"""Answers given as options (`resume --approve | --reject | --decisions | --answer`), for scripts.

They are checked before anything opens, and apply only to the approvals the thread is waiting on
now: a call that needs approval later in the same run is asked about again. `--question ID`
(the id printed with each waiting question) binds them to the question that was shown: when
that question is no longer the one waiting (answered, or replaced by a new message's), nothing
is sent and the command exits 2. Without it they answer whatever waits when they arrive.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from common.safety.questions import is_question_request, questions_in
from strategies.cli.exits import CliProblem

if TYPE_CHECKING:
    from langgraph.types import Interrupt


@dataclass(frozen=True)
class Preset:
    """What `resume` was told to answer."""

    approve: bool = False
    """Approve every pending call."""
    reject: bool = False
    """Reject every pending call."""
    message: str = ""
    """Why they were rejected, passed on to the planner."""
    decisions: list[dict[str, Any]] | None = None
    """One decision per pending call, in the order listed."""
    answer: str | None = None
    """The answer to a pending question."""
    questions: tuple[str, ...] = ()
    """The ids of the questions answered (`--question`); empty answers whatever waits."""

    @property
    def decides(self) -> bool:
        """Whether it answers approvals."""
        return self.approve or self.reject or self.decisions is not None


def preset_from_options(
    approve: bool,
    reject: bool,
    message: str | None,
    decisions: str | None,
    answer: str | None,
    questions: tuple[str, ...] = (),
) -> Preset | None:
    """The validated preset answer, or None when the options give none."""
    given = [n for n, on in (("--approve", approve), ("--reject", reject)) if on]
    given += ["--decisions"] if decisions is not None else []
    if len(given) > 1:
        raise CliProblem(
            f"Give one of --approve, --reject or --decisions, not {' and '.join(given)}."
        )
    if message is not None and not reject:
        raise CliProblem("--message goes with --reject: it tells the planner why.")
    if not given and answer is None:
        if questions:
            raise CliProblem(
                "--question goes with the answer it binds: give --approve, "
                "--reject, --decisions or --answer too."
            )
        return None
    parsed = _decisions(decisions) if decisions is not None else None
    return Preset(approve, reject, message or "", parsed, answer, questions)


def _decisions(text: str) -> list[dict[str, Any]]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CliProblem(f"--decisions is not valid JSON: {exc}.") from exc
    listed = value.get("decisions") if isinstance(value, dict) else None
    if not isinstance(listed, list):
        raise CliProblem(
            '--decisions must be a JSON object {"decisions": [...]}, one decision per pending '
            "call (see mcp-planner resume --help)."
        )
    from common.safety.approval import ApprovalFormatError, parse_decisions

    try:
        parse_decisions(value, len(listed))
    except ApprovalFormatError as exc:
        raise CliProblem(f"--decisions: {exc}") from exc
    return listed


def is_approval(value: Any) -> bool:
    """Whether an interrupt value asks for approval of tool calls (not questions)."""
    return isinstance(value, dict) and "action_requests" in value and not is_question_request(value)


def questions_of(value: Any) -> list[str]:
    """The questions an interrupt that is not an approval asks (one for an unknown value)."""
    if is_question_request(value):
        return questions_in(value)
    if isinstance(value, dict) and value.get("type") == "ask_user":
        return [str(value.get("question", ""))]
    return [repr(value)]


def question_of(value: Any) -> str:
    """The first question an interrupt that is not an approval asks."""
    return questions_of(value)[0]


def answer_value(value: Any, answers: list[str]) -> Any:
    """The resume value giving `answers` (one per question) in the format `value` asks in."""
    if isinstance(value, list):
        return [{"type": "response", "args": answers[0]}]
    if is_question_request(value):
        return {"decisions": [{"type": "respond", "message": a} for a in answers]}
    return answers[0]


def pending_of(interrupts: list[Interrupt]) -> list[dict[str, Any]]:
    """What the thread waits on: each call (name, args, reason) or question, in order.

    Each carries `question`, the id of the interrupt that asks it (`resume --question`), and
    `refused`, why the last answer to it was not used, when it was refused.
    """
    pending: list[dict[str, Any]] = []
    for i in interrupts:
        if is_approval(i.value):
            refused = i.value.get("error")
            pending += [
                {
                    "name": r["name"],
                    "args": r["args"],
                    "reason": r.get("description", ""),
                    "question": i.id,
                    **({"refused": str(refused)} if refused else {}),
                }
                for r in i.value["action_requests"]
            ]
        else:
            pending += [
                {"name": "ask_user", "args": {"question": q}, "reason": q, "question": i.id}
                for q in questions_of(i.value)
            ]
    return pending


def check_bound(preset: Preset, interrupts: list[Interrupt], thread: str) -> None:
    """CliProblem unless the questions the preset names are exactly the ones waiting now."""
    waiting = sorted({i.id for i in interrupts})
    if preset.questions and sorted(set(preset.questions)) != waiting:
        stale = sorted(set(preset.questions) - set(waiting)) or list(preset.questions)
        raise CliProblem(
            f"Question {', '.join(stale)} is not the one waiting on thread {thread!r} (it was "
            f"answered or replaced; waiting: {', '.join(waiting) or 'nothing'}): nothing was "
            f"sent; run mcp-planner resume {thread} to see what waits now."
        )


def answered_ids(payload: Any) -> list[str]:
    """The question ids a resume command answers (its answers are keyed by them); else none."""
    resume = getattr(payload, "resume", None)
    if isinstance(payload, dict):
        resume = (payload.get("command") or {}).get("resume")
    return [k for k in resume if isinstance(k, str)] if isinstance(resume, dict) else []


def check_unanswered(
    ids: list[str], interrupts: list[Interrupt], values: dict[str, Any], hint: str
) -> None:
    """CliProblem when the questions `ids` answers no longer wait: someone answered first.

    Checked just before an answer is sent, and again when sending it ran nothing (another
    answer arrived in between): nothing runs twice either way, and the person is told.
    """
    waiting = {i.id for i in interrupts}
    if ids and not set(ids) <= waiting:
        raise already_answered(ids, values, hint)


def already_answered(ids: list[str], values: dict[str, Any], hint: str) -> CliProblem:
    """The one line for an answer to a question that no longer waits, naming who answered it."""
    answered, asked = values.get("answered"), values.get("asked")
    by = ""
    if isinstance(answered, dict) and isinstance(asked, dict) and _at(answered) >= _at(asked):
        by = f" by {answered.get('by')!r} at {_at(answered).astimezone(UTC):%Y-%m-%d %H:%M:%S UTC}"
    what = f"answered{by}" if by else "answered (or replaced by a new message)"
    return CliProblem(
        f"Question {', '.join(ids)} was already {what}, so your answer was not used and nothing "
        f"ran: run {hint} to see what waits now."
    )


def _at(stamp: dict[str, Any]) -> datetime:
    """When a state stamp (`asked`, `answered`) says it happened; the earliest time if not read."""
    try:
        moment = datetime.fromisoformat(str(stamp.get("at")))
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def check_tools(decisions: list[dict[str, Any]], requests: list[dict[str, Any]]) -> None:
    """CliProblem when an edit names another tool than the call it answers."""
    for number, (decision, request) in enumerate(zip(decisions, requests, strict=True), 1):
        edited = decision.get("edited_action") if decision.get("type") == "edit" else None
        if isinstance(edited, dict) and edited.get("name") != request["name"]:
            raise CliProblem(
                f"--decisions: decision {number} edits {request['name']!r} into "
                f"{edited.get('name')!r}: an edit may change the arguments, not the tool; "
                "reject this call and ask for the other one instead."
            )


def preset_values(
    preset: Preset,
    interrupts: list[Interrupt],
    thread: str,
    state_values: dict[str, Any] | None = None,
) -> list[Any]:
    """One resume value per interrupt from the preset; one line when it does not fit.

    `state_values` (the thread's state) names who answered a question the preset is bound to
    (`--question`) when nothing waits any more.
    """
    calls = sum(len(i.value["action_requests"]) for i in interrupts if is_approval(i.value))
    questions = [question_of(i.value) for i in interrupts if not is_approval(i.value)]
    if not interrupts and preset.questions:
        hint = f"mcp-planner resume {thread}"
        raise already_answered(list(preset.questions), state_values or {}, hint)
    if not interrupts:
        raise CliProblem(
            f"Thread {thread!r} is not waiting for approval: there is nothing to answer."
        )
    check_bound(preset, interrupts, thread)
    if calls and not preset.decides:
        raise CliProblem(
            f"Thread {thread!r} waits for approval of {calls} call(s): give --approve, --reject "
            "or --decisions."
        )
    if not calls and preset.decides:
        raise CliProblem(
            f"Thread {thread!r} waits for an answer, not an approval: give --answer TEXT."
        )
    if questions and preset.answer is None:
        raise CliProblem(f"Thread {thread!r} asks {questions[0]!r}: give --answer TEXT.")
    decisions = _decisions_for(preset, calls)
    values: list[Any] = []
    for i in interrupts:
        if is_approval(i.value):
            n = len(i.value["action_requests"])
            check_tools(decisions[:n], i.value["action_requests"])
            values.append({"decisions": decisions[:n]})
            decisions = decisions[n:]
        else:
            asked = questions_of(i.value)
            values.append(answer_value(i.value, [preset.answer or ""] * len(asked)))
    return values


def _decisions_for(preset: Preset, calls: int) -> list[dict[str, Any]]:
    if preset.approve:
        return [{"type": "approve"} for _ in range(calls)]
    if preset.reject:
        return [{"type": "reject", "message": preset.message} for _ in range(calls)]
    given = preset.decisions or []
    if len(given) != calls:
        raise CliProblem(
            f"--decisions has {len(given)} decision(s) but {calls} call(s) are pending: give one "
            "per call, in the order listed."
        )
    return given


def resume_hint(thread: str, options: list[str]) -> str:
    """The command that continues `thread` with the same model, mode and config."""
    return " ".join(["mcp-planner", "resume", shlex.quote(thread), *map(shlex.quote, options)])
