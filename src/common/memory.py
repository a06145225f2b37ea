"""Memory of past runs: each finished turn saved per user, the relevant ones found again.

Records live in the graph's store under ("mcp_planner", "runs", <user label>), so users never see
each other's runs. Search is by keywords always, and by meaning when the store has an embedding
index.

Each record keeps its marks (`sources`): the experts whose results its text may hold. What a
planner prompt recalls is read by the data-leaving check as data of those experts
(`strategies.with_planner.recalled`). A record kept before marks were (no `sources`) may hold
anything its thread read: it counts as data of `UNRECORDED_SOURCE`.
"""

from __future__ import annotations

import math
import re
import uuid
from collections import Counter
from functools import lru_cache
from typing import Any, NotRequired, TypedDict

from langchain_core.embeddings import Embeddings
from langgraph.store.base import BaseStore

from common.served.identity import user_namespace

RECENT_LIMIT = 200
SEMANTIC_MIN = 0.3
RESULT_CHARS = 300
RECALL_CHARS = 4_000
"""Characters of one remembered run a prompt is shown at most (and its marks cover)."""
UNRECORDED_SOURCE = "memory of a past run (its sources were not recorded)"
"""The source of what a record kept without marks recalls: unknown, so possibly private."""
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    " ".join(
        (
            "a an and are as at be by do for from how i in is it me my of on or show the then",
            "this to what when where which with you your same",
        )
    ).split()
)


class ToolCallRecord(TypedDict):
    """One tool call of a run."""

    expert: str
    """Expert that ran it."""
    tool: str
    """Tool name."""
    args: dict[str, Any]
    """Arguments as sent."""
    result: str
    """Result or error, truncated."""


class RunRecord(TypedDict):
    """A finished turn, as remembered."""

    question: str
    """The user's request."""
    plan: list[dict[str, Any]]
    """Tasks with expert, task, status and direct-step tool and args."""
    tool_calls: list[ToolCallRecord]
    """Every tool call made, with arguments and a truncated result."""
    answer: str
    """The answer given."""
    started_at: str | None
    """When the first task started."""
    ended_at: str
    """When the answer was written."""
    thread_id: str | None
    """Conversation it belongs to."""
    sources: NotRequired[list[str]]
    """Experts whose results its text may hold (absent in records kept before marks were)."""


def namespace(user: str) -> tuple[str, ...]:
    """Where a user's runs are kept: `("mcp_planner", "runs", <user label>)`."""
    return user_namespace("runs", user)


def words(text: str) -> list[str]:
    """Lower-case content words of `text`."""
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]


async def save_run(
    store: BaseStore, user: str, record: RunRecord, embeddings: Embeddings | None = None
) -> str:
    """Store a finished turn (with its embedding when a model is configured); returns its key."""
    key = uuid.uuid4().hex
    value: dict[str, Any] = dict(record)
    if embeddings is not None:
        value["embedding"] = await embeddings.aembed_query(_text(value))
    await store.aput(namespace(user), key, value, index=False)
    return key


def _text(record: dict[str, Any]) -> str:
    return f"{record.get('question', '')}\n{record.get('answer', '')}"


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


DOC_CACHE_SIZE = 2048
"""Remembered runs whose word counts are kept: every turn scores up to RECENT_LIMIT of them."""


@lru_cache(maxsize=DOC_CACHE_SIZE)
def _doc_words(text: str) -> Counter[str]:
    """The word counts of a remembered run's question and answer (read only: shared)."""
    return Counter(words(text))


def _doc(record: dict[str, Any]) -> Counter[str]:
    return _doc_words(f"{record.get('question', '')} {record.get('answer', '')}")


def _score(query: list[str], doc: Counter[str], df: Counter[str], n: int) -> float:
    return sum(doc[w] * math.log(1 + n / (1 + df[w])) for w in set(query) if w in doc)


async def search_runs(
    store: BaseStore,
    user: str,
    query: str,
    limit: int = 3,
    embeddings: Embeddings | None = None,
) -> list[dict[str, Any]]:
    """The user's past runs most relevant to `query`, best first.

    Keyword matches come first, then (with an embedding model) the runs closest in meaning,
    then the most recent runs.
    """
    items = await store.asearch(namespace(user), limit=RECENT_LIMIT)
    items.sort(key=lambda i: i.updated_at, reverse=True)
    records = [dict(i.value) for i in items]
    terms = words(query)
    # Each run's words counted once (and kept across turns), for the frequencies and the scores.
    docs = [_doc(r) for r in records]
    df: Counter[str] = Counter()
    for doc in docs:
        df.update(doc.keys())
    scored = [
        (s, r)
        for r, doc in zip(records, docs, strict=True)
        if (s := _score(terms, doc, df, len(records))) > 0
    ]
    scored.sort(key=lambda pair: pair[0], reverse=True)
    found = [r for _, r in scored[:limit]]
    if embeddings is not None and query.strip():
        target = await embeddings.aembed_query(query)
        near = [(_cosine(target, r["embedding"]), r) for r in records if r.get("embedding")]
        near.sort(key=lambda pair: pair[0], reverse=True)
        found += [r for s, r in near if s >= SEMANTIC_MIN and r not in found]
    # Follow-ups ("the same for Munich") share few words with what they follow: the most
    # recent runs fill the remaining places.
    for r in records:
        if len(found) >= limit:
            break
        if r not in found:
            found.append(r)
    return found[:limit]


def sources_of(record: dict[str, Any]) -> list[str]:
    """The experts whose results a remembered run may hold; `UNRECORDED_SOURCE` when unmarked."""
    marks = record.get("sources")
    if not isinstance(marks, list):
        # Kept before marks were: its answer may quote anything its thread read, so fail closed.
        return [UNRECORDED_SOURCE]
    return [str(m) for m in marks]


def describe_run(r: dict[str, Any]) -> str:
    """One past run as the planner prompt shows it: question, plan, calls and answer, briefly."""
    steps = "; ".join(
        f"{t.get('expert')}: {t.get('task')}"
        + (f" [{t['tool']}({t.get('args')})]" if t.get("tool") else "")
        for t in r.get("plan", [])
    )
    calls = "; ".join(f"{c['expert']}.{c['tool']}({c['args']})" for c in r.get("tool_calls", []))
    text = (
        f"- Q: {r.get('question')}\n  plan: {steps or '(none)'}\n  calls: {calls or '(none)'}"
        f"\n  answer: {str(r.get('answer', ''))[:RESULT_CHARS]}"
    )
    return text[:RECALL_CHARS]


def describe_runs(runs: list[dict[str, Any]]) -> str:
    """Past runs for the planner prompt: question, plan and answer, briefly."""
    return "\n".join(describe_run(r) for r in runs) if runs else "(none)"
