"""The conversation a model sees: recent turns verbatim within a budget, older ones summarised.

When a turn begins, the turns that no longer fit beside the summary are summarised, one line
each (request and the answer's first line, deterministic: no model call), and removed from the
thread's messages (`RemoveMessage`), so neither the prompts nor the checkpoints grow with the
thread. The removed messages are kept for people in the store, under the records' owner
(`history_namespace`: `("mcp_planner", "conversation", <owner>, <thread id>)`, so a served
client reads only its own), and in the thread's checkpoint history.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, TypedDict

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    messages_to_dict,
    trim_messages,
)
from langchain_core.messages.utils import count_tokens_approximately
from langgraph.store.base import BaseStore

from common.history import calls_of
from common.served.identity import user_namespace
from strategies.with_planner.prompts import EARLIER_TURNS

REQUEST_CHARS = 160
"""Characters of a summarised turn's request kept in its line."""

ANSWER_CHARS = 100
"""Characters of the first line of a summarised turn's answer kept in its line."""

CHARS_PER_TOKEN = 4.0
"""Characters a token, as `count_tokens_approximately` counts them by default."""

PEOPLE_ONLY_PREFIX = "plan-"
"""Id prefix of assistant messages written for people only (the plan card's one-line plan):
never shown to a model, which gets the plan itself where it needs it."""

HISTORY_KIND = "conversation"
"""Kind of the store records holding the turns compacted out of the messages."""


class TurnSummary(TypedDict):
    """One older turn, as the models still see it."""

    turn: int
    """The turn's number in the thread (1 is the first request)."""
    request: str
    """Its request, clipped."""
    answer: str
    """The first line of its answer, clipped ("" once dropped to make room: older lines keep
    only the request)."""


class Compacted(NamedTuple):
    """What a turn's start does to the conversation."""

    removals: list[RemoveMessage]
    """The older turns' messages, removed from the thread's state."""
    summary: list[TurnSummary]
    """The summary with those turns added (the oldest lines dropped past the budget)."""
    turns: list[tuple[TurnSummary, list[BaseMessage]]]
    """Each removed turn with its messages, for the history kept for people."""


def conversational(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """What a model is shown: user messages and assistant answers (no tool calls, no plan lines).

    With no call and no tool message, no trimming of it can split a call from its answers.
    """
    return [
        m
        for m in messages
        if isinstance(m, HumanMessage)
        or (
            isinstance(m, AIMessage)
            and not calls_of(m)
            and not (m.id or "").startswith(PEOPLE_ONLY_PREFIX)
        )
    ]


def split_turns(messages: Sequence[BaseMessage]) -> list[list[BaseMessage]]:
    """The messages grouped by turn: each user message and what followed it."""
    turns: list[list[BaseMessage]] = []
    for m in messages:
        if isinstance(m, HumanMessage) or not turns:
            turns.append([m])
        else:
            turns[-1].append(m)
    return turns


def summarise(number: int, turn: Sequence[BaseMessage]) -> TurnSummary:
    """A turn in one line: its request, and the first line of its last answer."""
    request = next((m.text for m in turn if isinstance(m, HumanMessage)), "")
    answers = [m.text.strip() for m in conversational(turn) if isinstance(m, AIMessage)]
    answers = [a for a in answers if a]
    answer = answers[-1].splitlines()[0] if answers else "(no answer)"
    return TurnSummary(
        turn=number, request=_clip(request, REQUEST_CHARS), answer=_clip(answer, ANSWER_CHARS)
    )


def summary_line(s: TurnSummary) -> str:
    """How a summarised turn reads in the prompt."""
    answer = f" -> {s['answer']}" if s["answer"] else ""
    return f"- Turn {s['turn']}: {s['request']}{answer}"


def render_summary(summary: Sequence[TurnSummary]) -> str:
    """The summary as a section of a system prompt ("" when there is none)."""
    if not summary:
        return ""
    return EARLIER_TURNS.format(turns="\n".join(summary_line(s) for s in summary))


def tokens(text: str) -> int:
    """Approximate tokens of a text, counted as the window counts messages."""
    return count_tokens_approximately([SystemMessage(text)]) if text else 0


def recent(messages: Sequence[BaseMessage], budget: int) -> list[BaseMessage]:
    """The last whole turns within `budget` tokens; the current turn always, even past it."""
    shown = conversational(messages)
    kept = trim_messages(
        shown,
        max_tokens=max(budget, 0),
        token_counter=count_tokens_approximately,
        strategy="last",
        start_on="human",
        allow_partial=False,
    )
    if kept or not shown:
        return list(kept)
    return split_turns(shown)[-1]


def model_view(
    messages: Sequence[BaseMessage], summary: Sequence[TurnSummary], budget: int
) -> tuple[str, list[BaseMessage]]:
    """What a model gets of the conversation: the summary section and the recent messages."""
    section = render_summary(summary)
    return section, recent(messages, budget - tokens(section))


def compact(
    messages: Sequence[BaseMessage], summary: Sequence[TurnSummary], budget: int
) -> Compacted:
    """Summarise and remove the oldest turns until summary and recent turns fit `budget`.

    The current (last) turn is never removed. The summary keeps its newest lines within what
    the current turn and the one before it leave of the budget: the last answer stays verbatim
    for follow-ups (when it takes at most a quarter of the budget).
    """
    turns = split_turns(messages)
    first = summary[-1]["turn"] + 1 if summary else 1
    lines = [summarise(first + i, t) for i, t in enumerate(turns)]
    sizes = [count_tokens_approximately(conversational(t)) for t in turns]
    room = budget - sum(sizes[-1:]) - min(sum(sizes[-2:-1]), budget // 4)
    cut = 0
    while cut < len(turns) - 1:
        kept = _capped([*summary, *lines[:cut]], room)
        if tokens(render_summary(kept)) + sum(sizes[cut:]) <= budget:
            break
        cut += 1
    new_summary = _capped([*summary, *lines[:cut]], room)
    removed = [RemoveMessage(id=m.id) for t in turns[:cut] for m in t if m.id]
    return Compacted(removed, new_summary, list(zip(lines[:cut], turns[:cut], strict=True)))


def history_namespace(owner: str, thread_id: str) -> tuple[str, ...]:
    """Where a thread's compacted turns are kept: under its records' owner, then the thread."""
    return user_namespace(HISTORY_KIND, owner, thread_id)


async def keep_history(
    store: BaseStore | None, owner: str, thread_id: str | None, turns: Compacted
) -> None:
    """Save the removed turns, whole, in the store under their owner and thread (needs a store)."""
    if store is None or not thread_id or not turns.turns:
        return
    for summary, messages in turns.turns:
        value: dict[str, Any] = {
            "turn": summary["turn"],
            "summary": summary_line(summary),
            "messages": messages_to_dict(messages),
        }
        await store.aput(history_namespace(owner, thread_id), f"{summary['turn']:06d}", value)


async def read_history(
    store: BaseStore, owner: str, thread_id: str, limit: int = 1000
) -> list[dict[str, Any]]:
    """The turns compacted out of a thread's messages, oldest first (what `keep_history` saved)."""
    items = await store.asearch(history_namespace(owner, thread_id), limit=limit)
    return sorted((item.value for item in items), key=lambda v: int(v["turn"]))


def _capped(summary: list[TurnSummary], room: int) -> list[TurnSummary]:
    """The summary within `room` tokens: the oldest lines lose their answer, then go.

    Requests are what later turns refer to ("my second request"), so they are kept longest;
    the newest line always stays. The section is counted once; each change is then counted
    by the characters it removes, as `count_tokens_approximately` counts them.
    """
    kept = list(summary)
    size = float(tokens(render_summary(kept)))
    for i, s in enumerate(kept[:-1]):
        if size <= room:
            return kept
        if s["answer"]:
            short = TurnSummary(turn=s["turn"], request=s["request"], answer="")
            size -= (len(summary_line(s)) - len(summary_line(short))) / CHARS_PER_TOKEN
            kept[i] = short
    while len(kept) > 1 and size > room:
        size -= (len(summary_line(kept.pop(0))) + 1) / CHARS_PER_TOKEN
    return kept


def _clip(text: str, limit: int) -> str:
    """One line of at most `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
