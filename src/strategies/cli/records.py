"""What the project folder holds: threads and past runs, read without creating anything.

Persistence (LangGraph's checkpointers and stores) is imported by the readers that open it, not
by `nothing_saved`: `tools` asks whether a store exists before it would read one.
"""

from __future__ import annotations

import math
from typing import Any

from common.settings import backend_of, get_settings
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
    """Every thread with its last question, status and last update, newest first.

    Read from each thread's latest checkpoint, without building the graph: listing threads
    needs neither LangGraph's graph runtime nor the experts' and models' modules.
    """
    from common.messages import last_request
    from common.persistence import open_checkpointer

    rows: list[dict[str, Any]] = []
    async with open_checkpointer() as saver:
        # Finish listing before reading the latest tuples: the SQLite saver serialises queries.
        latest: dict[str, str] = {}
        async for item in saver.alist(None):
            conf = item.config["configurable"]
            if not conf.get("checkpoint_ns"):
                latest.setdefault(str(conf["thread_id"]), str(item.checkpoint.get("ts", "")))
        for thread, updated in latest.items():
            found = await saver.aget_tuple({"configurable": {"thread_id": thread}})
            if found is None:
                continue
            values = found.checkpoint["channel_values"]
            rows.append(
                {
                    "thread_id": thread,
                    "last_question": last_request(values.get("messages", [])),
                    "status": status_of(has_next(found.checkpoint), interrupts_of(found)),
                    "updated": updated,
                }
            )
    rows.sort(key=lambda r: r["updated"], reverse=True)
    return rows


TRIGGER_PREFIX = "branch:to:"
"""LangGraph's channel that schedules the node named after it (as `graph.aget_state` reads)."""
SEND_CHANNEL = "__pregel_tasks"
"""LangGraph's channel of `Send`s still to run."""
INTERRUPT_WRITE = "__interrupt__"
"""The pending write LangGraph saves for a task that is waiting on an interrupt."""


def has_next(checkpoint: Any) -> bool:
    """Whether the checkpoint has steps left: a node's trigger updated since it last ran.

    The rule LangGraph's `StateSnapshot.next` follows (a trigger channel holding a value newer
    than the version its node saw, or a pending `Send`); a test holds the two together.
    """
    values = checkpoint["channel_values"]
    seen = checkpoint["versions_seen"]
    for channel, version in checkpoint["channel_versions"].items():
        if channel not in values:
            continue
        node = channel.removeprefix(TRIGGER_PREFIX) if channel.startswith(TRIGGER_PREFIX) else ""
        if channel == "__start__":
            node = channel
        if node and str(version) > str(seen.get(node, {}).get(channel, "")):
            return True
    return bool(values.get(SEND_CHANNEL))


def interrupts_of(found: Any) -> list[Any]:
    """The values the thread's waiting tasks were interrupted with."""
    waits: list[Any] = []
    for _task, channel, value in found.pending_writes or []:
        if channel == INTERRUPT_WRITE:
            waits += [getattr(i, "value", i) for i in value]
    return waits


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
    from common.embeddings import configured_embeddings
    from common.memory import namespace as memory_namespace
    from common.memory import search_runs
    from common.persistence import open_persistence

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
    from common.memory import SEMANTIC_MIN, words

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
