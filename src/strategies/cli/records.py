"""What the project folder holds: threads and past runs, read without creating anything."""

from __future__ import annotations

import math
from typing import Any

from common.embeddings import configured_embeddings
from common.memory import SEMANTIC_MIN, search_runs, words
from common.memory import namespace as memory_namespace
from common.persistence import backend_of, open_persistence
from common.settings import get_settings
from strategies.cli.answers import is_approval


def nothing_saved(kind: str) -> bool:
    """Whether the SQLite file for `kind` ('checkpoints' or 'store') does not exist yet.

    Opening persistence would create it, so commands that only read check first.
    """
    settings = get_settings()
    if backend_of(settings) != "sqlite":
        return False
    path = settings.checkpoint_path if kind == "checkpoints" else settings.store_path
    return not path.exists()


async def list_threads() -> list[dict[str, Any]]:
    """Every thread with its last question, status and last update, newest first."""
    from common.messages import last_request
    from strategies.with_planner.graph import build_graph

    rows: list[dict[str, Any]] = []
    async with open_persistence() as (saver, store):
        graph = build_graph(checkpointer=saver, store=store)
        # Finish listing before reading states: the SQLite saver serialises its queries.
        latest: dict[str, str] = {}
        async for item in saver.alist(None):
            conf = item.config["configurable"]
            if not conf.get("checkpoint_ns"):
                latest.setdefault(str(conf["thread_id"]), str(item.checkpoint.get("ts", "")))
        for thread, updated in latest.items():
            state = await graph.aget_state({"configurable": {"thread_id": thread}})
            rows.append(
                {
                    "thread_id": thread,
                    "last_question": last_request(state.values.get("messages", [])),
                    "status": _status(state),
                    "updated": updated,
                }
            )
    rows.sort(key=lambda r: r["updated"], reverse=True)
    return rows


def _status(state: Any) -> str:
    return status_of(bool(state.next), [i.value for i in state.interrupts])


def status_of(has_next: bool, waits_on: list[Any]) -> str:
    """A thread's status in words, from whether it has steps left and its interrupt values."""
    if not has_next:
        return "done"
    if not waits_on:
        return "stopped mid-run"
    if all(is_approval(value) for value in waits_on):
        return "waiting for approval"
    return "waiting for an answer"


async def past_runs(query: str, user: str, limit: int) -> list[dict[str, Any]]:
    """The user's past runs matching `query` (by words, or by meaning with embeddings)."""
    async with open_persistence() as (_saver, store):
        if not query.strip():
            items = await store.asearch(memory_namespace(user), limit=limit)
            return [_shown(i.value) for i in items]
        embeddings = await configured_embeddings(get_settings().embedding_model)
        runs = await search_runs(store, user, query, limit=limit, embeddings=embeddings)
        target = await embeddings.aembed_query(query) if embeddings is not None else None
    # search_runs fills up with recent runs for the planner's sake; a search shows matches only.
    return [_shown(r) for r in runs if _matches(query, r, target)]


def _shown(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "embedding"}


def _matches(query: str, record: dict[str, Any], target: list[float] | None) -> bool:
    text = f"{record.get('question', '')} {record.get('answer', '')}"
    if set(words(query)) & set(words(text)):
        return True
    vector = record.get("embedding")
    if target is None or not vector:
        return False
    return _cosine(target, vector) >= SEMANTIC_MIN


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
