"""A model's words as a person reads them: unescaped once where a server escaped them.

llama-cpp-python's server renders the chat format that takes tools (`chatml-function-calling`)
through a Jinja environment with autoescape on, so the prompt a model reads there has `&#39;`
for `'`, `&#34;` for `"` and `&amp;` for `&`, and a small model copies them into its answer
("the widget&#39;s stock"). Such text is unescaped here (`html.unescape`), and the scope is
exact:

- once: each entity is replaced by its character in one pass, so `&amp;lt;` gives `&lt;` and
  never `<`; callers pass a text here once, where it is shown to a person as the model's words
  (the answer writer's text, the planner's question back, the parts it says no expert can do,
  the quote of a planner answer that was not a plan), never what was built from it;
- only the model's own words: tool results, task results and the lines the answer is composed
  of beside the model's text are never passed here;
- an entity the model was sent stays as the model wrote it: one that occurs in the request's
  messages (a tool result's `&amp;`, the user's own `&lt;`) may be a faithful quote;
- arguments a model writes for a tool reach the tool as written: a tool is given what the
  model sent, and the approval a person gives is for exactly that.

Also here: `said`, what a model's reply said in its own words (for a quote of an answer that
could not be used), without the field names of the schema it was asked to fill; and
`repeats_instructions`, whether a model's words are mostly its own prompt recited (a small
model copying its system prompt's rules instead of answering), the one check the planner's
answers and the written answer both go through.
"""

from __future__ import annotations

import functools
import html
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
"""An HTML character reference with its semicolon (`&#39;`, `&#x27;`, `&quot;`, `&amp;`)."""

JSON_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"(\s*:)?')
"""A JSON string literal, and the colon after it when it is an object's key."""


def entities_in(texts: Iterable[str]) -> frozenset[str]:
    """The character references that occur in `texts` (what the model was sent)."""
    return frozenset(m.group(0) for text in texts for m in ENTITY.finditer(text))


def sent_texts(messages: Sequence[BaseMessage]) -> list[str]:
    """The text of every message sent to a model, tool calls' arguments included."""
    texts = [str(m.content) for m in messages]
    texts += [
        json.dumps(call["args"], ensure_ascii=False)
        for m in messages
        if isinstance(m, AIMessage)
        for call in m.tool_calls
    ]
    return texts


def unescaped(text: str, kept: frozenset[str] = frozenset()) -> str:
    """`text` with each character reference replaced once, except those in `kept`."""
    return ENTITY.sub(
        lambda m: m.group(0) if m.group(0) in kept else html.unescape(m.group(0)), text
    )


def said(raw: Any) -> str:
    """What a reply said in its own words, on one line: its text, else its calls' strings.

    A reply in JSON (a call's arguments, or JSON text) is read for its string values only:
    the keys are the schema's field names, which are not the model's words.
    """
    if isinstance(raw, str):
        text = raw
    elif isinstance(raw, AIMessage):
        text = raw.text
        if not text.strip():
            calls = [json.dumps(c["args"], ensure_ascii=False) for c in raw.tool_calls]
            calls += [str(c.get("args") or "") for c in raw.invalid_tool_calls]
            text = " ".join(calls)
    else:
        return ""
    if text.lstrip().startswith(("{", "[")):
        # Every literal is matched in turn (a key too), so a value is never read across two.
        values = [_decoded(m[1]) for m in JSON_STRING.finditer(text) if not m[2]]
        text = "; ".join(v for v in values if v.strip())
    return " ".join(text.split())


def _decoded(literal: str) -> str:
    """A JSON string literal's content (as written when its escapes are broken)."""
    try:
        return str(json.loads(f'"{literal}"'))
    except json.JSONDecodeError:
        return literal


ECHO_RUN = 4
"""Words in a row a model's text must share with its instructions for them to count as recited."""

ECHO_SHARE = 0.6
"""Share of a text's words in such runs from which the text repeats its instructions."""

_WORD = re.compile(r"[^\W_]+")
_SLOT = re.compile(r"\{[^{}]*\}")
"""A prompt constant's format slot (`{plan}`): what fills it is not the instructions."""


def _words(text: str) -> list[str]:
    """`text`'s words, lower-cased, without punctuation."""
    return [w.casefold() for w in _WORD.findall(text)]


def _runs(words: Sequence[str]) -> set[tuple[str, ...]]:
    """Every `ECHO_RUN` words in a row of `words`."""
    return {tuple(words[i : i + ECHO_RUN]) for i in range(len(words) - ECHO_RUN + 1)}


@functools.lru_cache(maxsize=16)
def _instruction_runs(prompts: tuple[str, ...]) -> frozenset[tuple[str, ...]]:
    """The runs of words of the prompts' fixed text, never across one of their slots."""
    return frozenset(
        run for prompt in prompts for part in _SLOT.split(prompt) for run in _runs(_words(part))
    )


def recited_share(text: str, prompts: Sequence[str], given: str = "") -> float:
    """The share of `text`'s words that lie in runs it shares with `prompts` but not `given`.

    `prompts` are prompt constants with their slots unfilled; `given` is what the model may
    quote from (the person's request): its runs never count.
    """
    words = _words(text)
    recited = _instruction_runs(tuple(prompts)) - _runs(_words(given))
    covered = [False] * len(words)
    for i in range(len(words) - ECHO_RUN + 1):
        if tuple(words[i : i + ECHO_RUN]) in recited:
            covered[i : i + ECHO_RUN] = [True] * ECHO_RUN
    return sum(covered) / len(words) if words else 0.0


def repeats_instructions(text: str, prompts: Sequence[str], given: str = "") -> bool:
    """Whether `text` is mostly `prompts` recited (`ECHO_SHARE` of its words, in runs)."""
    return recited_share(text, prompts, given) >= ECHO_SHARE
