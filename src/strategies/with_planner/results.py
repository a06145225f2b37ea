"""Where a task's full result lives: the model sees a trimmed view, templates get every byte.

A task's `result` is the view the model reads (cut to `VIEW_CHARS`); when that view is not the
whole text, the task's `full` says where the whole text is. A full result up to `INLINE_CHARS`
stays in state; a larger one (text or structured data) is kept in the graph's store under the
thread, referenced by key, so the checkpointed state stays small. Without a store it stays in
state. Templates read the full value back (`Results.outputs`); one that cannot be read is a
`TemplateError`, never a shorter value.

An expert's own tool call is handled the same way one step earlier: its large output (and
artifact) leaves the ToolMessage for the store (`Results.keep_output`) and is read back whole when
the task's result is made (`Results.output_of`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypedDict
from uuid import uuid4

from langchain_core.messages import ToolMessage

from common.served import caller
from common.served.identity import DEFAULT_USER, user_namespace

if TYPE_CHECKING:
    from langgraph.runtime import Runtime
    from langgraph.store.base import BaseStore

# LangGraph is imported when a node asks for a thread's results (`results_for`), not with this
# module: the run context imports it (through `plans`) before the CLI starts its servers.

VIEW_CHARS = 2000
"""Characters of a task's result the model sees (the planner, the answer, dependent tasks)."""

INLINE_CHARS = 64_000
"""A full result (text or data as JSON) larger than this is kept in the store, not in state."""


class FullResult(TypedDict):
    """Where the untrimmed result of a task is, when its `result` is only a view of it."""

    text: str | None
    """The whole text, when it is kept in state."""
    key: str | None
    """Store key of the whole text and data, when they are kept out of state."""
    chars: int
    """Length of the whole text."""


def trim(text: str, limit: int = VIEW_CHARS) -> str:
    """Cut `text` to `limit` characters, saying so."""
    return text if len(text) <= limit else text[:limit] + f" … [{len(text) - limit} more chars]"


def result_fields(text: str, data: Any) -> dict[str, Any]:
    """The task fields for a result: the view, the data, and where the whole text is."""
    view = trim(text)
    full = FullResult(text=text, key=None, chars=len(text)) if view != text else None
    return {"result": view, "data": data, "full": full}


def json_chars(value: Any) -> int:
    """Length of `value` as JSON (how much room it takes in a checkpoint)."""
    if value is None:
        return 0
    if isinstance(value, str):
        return len(value)
    return len(json.dumps(value, ensure_ascii=False, default=str))


class Results:
    """A thread's large task results in the graph's store (or in state, without a store)."""

    def __init__(
        self, store: BaseStore | None, thread_id: str | None, owner: str = DEFAULT_USER
    ) -> None:
        self.store = store if thread_id is not None else None
        self.namespace = user_namespace("results", owner, str(thread_id))

    async def keep(self, task_id: str, changes: dict[str, Any]) -> dict[str, Any]:
        """`changes` with a large full text or data moved to the store, referenced by key."""
        full: FullResult | None = changes.get("full")
        text = full["text"] if full is not None else None
        data = changes.get("data")
        big_text = text is not None and len(text) > INLINE_CHARS
        big_data = json_chars(data) > INLINE_CHARS
        if self.store is None or not (big_text or big_data):
            return changes
        key = f"{task_id}:{uuid4().hex}"
        whole = text if text is not None else changes.get("result")
        await self.store.aput(self.namespace, key, {"text": whole, "data": data}, index=False)
        chars = len(whole or "")
        kept = FullResult(text=None, key=key, chars=chars)
        return {**changes, "full": kept, "data": None if big_data else data}

    async def outputs(self, inputs: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
        """What templates read for each dependency: its whole text and data, loaded if stored."""
        found: dict[str, dict[str, Any]] = {}
        for task_id, out in inputs.items():
            found[task_id] = dict(out)
            full: FullResult | None = out.get("full")
            if full is None or full["key"] is None or self.store is None:
                continue
            item = await self.store.aget(self.namespace, full["key"])
            if item is not None:
                found[task_id]["full"] = FullResult(
                    text=item.value["text"], key=None, chars=full["chars"]
                )
                found[task_id]["data"] = item.value["data"]
        return found

    async def keep_output(self, task_id: str, message: ToolMessage) -> ToolMessage:
        """`message` with a large full output or artifact moved to the store, referenced by key."""
        extra = message.additional_kwargs
        text = str(extra.get("full_output") or message.content)
        big_data = json_chars(message.artifact) > INLINE_CHARS
        if self.store is None or not (len(text) > INLINE_CHARS or big_data):
            return message
        key = f"{task_id}:{uuid4().hex}"
        await self.store.aput(
            self.namespace, key, {"text": text, "data": message.artifact}, index=False
        )
        kept = {k: v for k, v in extra.items() if k != "full_output"}
        kept |= {"output_key": key, "output_chars": len(text)}
        artifact = None if big_data else message.artifact
        return message.model_copy(update={"additional_kwargs": kept, "artifact": artifact})

    async def output_of(self, message: ToolMessage) -> tuple[str | None, Any]:
        """A call's whole output and artifact, read back if stored; text None if unreadable."""
        extra = message.additional_kwargs
        key = extra.get("output_key")
        if key is None:
            return str(extra.get("full_output") or message.content), message.artifact
        item = await self.store.aget(self.namespace, key) if self.store is not None else None
        if item is None:
            return None, message.artifact
        return item.value["text"], item.value["data"]


def results_for(runtime: Runtime[Any], state: Mapping[str, Any]) -> Results:
    """The current thread's results, in the graph's store when it has one (the owner's)."""
    from langgraph.config import get_config

    if runtime.store is None:
        return Results(None, None)
    thread_id = get_config().get("configurable", {}).get("thread_id")
    return Results(
        runtime.store,
        None if thread_id is None else str(thread_id),
        caller.of(runtime.context).records_owner,
    )
