"""What each expert returned in a thread: the sources of the data-leaving check.

Every call an expert answered adds the text of its result (its output and the strings and
integers of its structured content, each cut to `SEEN_CHARS`) to a record in the
graph's store, under the thread and the expert, one item per call (keyed by the call, so a
re-run replaces its own item). An expert keeps its last `SEEN_RESULTS` results: older items are
deleted as new ones come. The record lives beside the checkpoints, not in them, and covers every
turn of the thread, so a text read in one turn and put into a URL three turns later is still
recognised; a graph compiled without a store keeps it in process memory, as the call ledger
does. A run without a thread has no record: its tasks' dependencies (`inputs`) are the sources.

Beside it, what the thread's open-world calls sent, by destination (`add_sent`): the strings of
each call's arguments (cut to `SENT_CHARS`), the last `SENT_CALLS` calls per destination, so the
parts of one value sent over several calls (an IBAN in two halves to one recipient) are added
up, in later turns and after a resume too.

And what the planner's prompts recalled of the user's past runs (`add_recalled`): each recalled
run's text as the prompt showed it, with its marks (`common.memory.sources_of`), the last
`RECALLED_RUNS`. It counts as results of each expert it is marked with, so text a past run read
from `mail` is `mail`'s data in this thread too; its question counts as the user's own words.

The gate reads all three when a task's round begins (`sources_for`), with the user's request as
the text that was asked to leave (`common.safety.leaving.Sources`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.config import get_config
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from common.guardrails.secrets import secret_key_kind
from common.safety.leaving import Sources
from common.served import caller
from common.served.identity import DEFAULT_USER, user_namespace
from strategies.with_planner.state import TaskRun

SEEN_RESULTS = 16
"""Results kept per expert and thread: the latest ones."""

SEEN_CHARS = 8_000
"""Characters kept of one result's text, and as many of its structured values (their
beginnings; the model is shown less of a tool's output): at most 256,000 per expert."""

SEEN_EXPERTS = 64
"""Experts of a thread whose results are read (a config rarely holds more)."""

SENT_CALLS = 8
"""Calls kept per destination and thread: the latest ones."""

SENT_CHARS = 4_000
"""Characters kept of what one call sent."""

SENT_DESTINATIONS = 64
"""Destinations of a thread whose sends are read."""

RECALLED_RUNS = 32
"""Recalled past runs kept per thread: the latest ones (a prompt recalls a few each turn)."""

_PROCESS_STORE = InMemoryStore()
"""The record of graphs compiled without a store: as durable as their in-memory state."""


def result_text(message: ToolMessage) -> str:
    """What a call's answer tells: its whole output, then its structured values, bounded."""
    text = str(message.additional_kwargs.get("full_output") or message.content)[:SEEN_CHARS]
    values = "\n".join(_leaves(message.artifact))[:SEEN_CHARS]
    return f"{text}\n{values}" if values else text


def _leaves(value: Any, depth: int = 0) -> Iterator[str]:
    """The strings and integers inside structured content (booleans and floats say little).

    A value under a key that names a secret keeps its label (`password: hunter22`), so a short
    secret of the result is recognised as one.
    """
    if depth > 32:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, int) and not isinstance(value, bool):
        yield str(value)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            labelled = isinstance(item, str | int) and secret_key_kind(str(key)) is not None
            if labelled and not isinstance(item, bool):
                yield f"{key}: {item}"
            else:
                yield from _leaves(item, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _leaves(item, depth + 1)


class SeenResults:
    """One thread's record of what each expert returned."""

    def __init__(self, store: BaseStore | None, thread_id: str, owner: str = DEFAULT_USER) -> None:
        self.store = store if store is not None else _PROCESS_STORE
        self.namespace = user_namespace("seen", owner, thread_id)
        self.sent_namespace = user_namespace("sent", owner, thread_id)
        self.recalled_namespace = user_namespace("recalled", owner, thread_id)

    async def add(self, expert: str, key: str, message: ToolMessage) -> None:
        """Record one answered call of `expert`; the expert's oldest results beyond the bound go."""
        namespace = (*self.namespace, _label(expert))
        value = {"expert": expert, "text": result_text(message)}
        await self._put_bounded(namespace, key, value, SEEN_RESULTS)

    async def texts(self) -> dict[str, list[str]]:
        """Each expert's latest results in this thread, newest first."""
        items = await self.store.asearch(self.namespace, limit=SEEN_RESULTS * SEEN_EXPERTS)
        items.sort(key=lambda item: item.created_at, reverse=True)
        found: dict[str, list[str]] = {}
        for item in items:
            kept = found.setdefault(str(item.value.get("expert") or item.namespace[-1]), [])
            if len(kept) < SEEN_RESULTS:
                kept.append(str(item.value.get("text") or ""))
        return found

    async def add_sent(self, to: str, key: str, text: str) -> None:
        """Record what one call sent to `to`; the destination's oldest calls beyond the bound go."""
        namespace = (*self.sent_namespace, _digest(to))
        value = {"to": to, "text": text[:SENT_CHARS]}
        await self._put_bounded(namespace, key, value, SENT_CALLS)

    async def add_recalled(self, sources: list[str], text: str, question: str) -> None:
        """Record a past run a prompt recalled: its text is data of each of `sources`."""
        value = {"sources": sources, "text": text, "question": question[:SEEN_CHARS]}
        key = _digest("\n".join([*sources, text]))
        await self._put_bounded(self.recalled_namespace, key, value, RECALLED_RUNS)

    async def recalled(self) -> list[dict[str, Any]]:
        """The past runs this thread's prompts recalled: sources, text and question each."""
        items = await self.store.asearch(self.recalled_namespace, limit=RECALLED_RUNS * 4)
        return [dict(item.value) for item in items]

    async def _put_bounded(
        self, namespace: tuple[str, ...], key: str, value: dict[str, Any], bound: int
    ) -> None:
        """Put `value` under `namespace`, then drop its oldest items beyond `bound`."""
        await self.store.aput(namespace, key, value, index=False)
        items = await self.store.asearch(namespace, limit=bound * 4)
        items.sort(key=lambda item: item.created_at, reverse=True)
        for old in items[bound:]:
            await self.store.adelete(namespace, old.key)

    async def sent(self) -> dict[str, list[str]]:
        """What the thread's calls sent, by destination, oldest first."""
        limit = SENT_CALLS * SENT_DESTINATIONS
        items = await self.store.asearch(self.sent_namespace, limit=limit)
        items.sort(key=lambda item: item.created_at)
        found: dict[str, list[str]] = {}
        for item in items:
            found.setdefault(str(item.value.get("to")), []).append(str(item.value.get("text")))
        return found


def _digest(to: str) -> str:
    """A destination as a store namespace label: short, without periods."""
    return hashlib.sha256(to.encode()).hexdigest()[:32]


def _label(expert: str) -> str:
    """The expert's name as a store namespace label, which may not hold a period."""
    return expert.replace("%", "%25").replace(".", "%2E")


def seen_for(runtime: Runtime[Any], state: Mapping[str, Any]) -> SeenResults | None:
    """The current thread's record (its owner's, whoever's run reads it); None without a thread."""
    thread_id = get_config().get("configurable", {}).get("thread_id")
    if thread_id is None:
        return None
    return SeenResults(runtime.store, str(thread_id), caller.of(runtime.context).records_owner)


async def sources_for(state: TaskRun, runtime: Runtime[Any]) -> Sources:
    """What a task's calls must not carry out unasked: other experts' results in the thread."""
    record = seen_for(runtime, state)
    if record is None:
        return Sources(_dependency_texts(state), asked=state.get("request") or "")
    texts = await record.texts()
    asked = [state.get("request") or ""]
    for run in await record.recalled():
        for source in run.get("sources") or ():
            texts.setdefault(str(source), []).append(str(run.get("text") or ""))
        asked.append(str(run.get("question") or ""))
    return Sources(texts, asked="\n".join(asked), sent=await record.sent())


async def read_by(state: Mapping[str, Any], runtime: Runtime[Any]) -> set[str] | None:
    """The experts whose data the thread holds: what it read, the marks of what it recalled.

    None without a thread, which keeps no record of either.
    """
    record = seen_for(runtime, state)
    if record is None:
        return None
    found = set(await record.texts())
    for run in await record.recalled():
        found.update(str(s) for s in run.get("sources") or ())
    return found


def _dependency_texts(state: TaskRun) -> dict[str, list[str]]:
    """The results of the task's dependencies, by expert: the text kept in state and the data."""
    found: dict[str, list[str]] = {}
    for out in state.get("inputs", {}).values():
        expert = out.get("expert")
        if not expert:
            continue
        full = out.get("full")
        text = (full["text"] if full else None) or out.get("result") or ""
        values = "\n".join(_leaves(out.get("data")))[:SEEN_CHARS]
        found.setdefault(expert, []).append(f"{text[:SEEN_CHARS]}\n{values}")
    return found
