"""Test doubles: a scripted chat model that supports `bind_tools` and structured output.

`install_scripted` registers the `scripted` provider (importing does nothing), so `scripted:NAME`
model specs resolve to installed models. Nothing here touches the network.

Scripts may write planner and analyser answers in their short form (only the fields a test is
about, a direct step's `args` as an object, the analyser's `reasons` as a map): `wire_answer`
turns them into what a model is asked to send (`PlannerResult` with every field and
`args_json`, `IrreversibilityAnalysis` with every field and `reasons` as items), so the graph
always reads the wire form. Answers already in the wire form, and malformed ones, pass as given.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from pydantic import BaseModel, PrivateAttr

from common.local_models import LocalChatModel
from common.models import register_provider

ScriptItem = AIMessage | str | dict[str, Any] | BaseModel | Exception | Callable[..., Any]
"""One scripted reply: a message, text, structured data, an error to raise, or a function."""

_ids = itertools.count(1)
_INSTALLED: dict[str, ScriptedChatModel] = {}


def tool_call(
    name: str, args: dict[str, Any] | None = None, call_id: str | None = None
) -> dict[str, Any]:
    """A tool call dict for an AIMessage."""
    return {"name": name, "args": args or {}, "id": call_id or f"call_{next(_ids)}"}


def calls(*items: dict[str, Any], content: str = "") -> AIMessage:
    """An AI message carrying the given tool calls."""
    return AIMessage(content=content, tool_calls=list(items))


HOLD_S = 60.0
"""How long a held reply waits for its check before the test fails (only a broken order waits)."""


class ScriptedChatModel(LocalChatModel):
    """Replies from a script, in order; records what it was asked and with which tools."""

    script: list[Any]
    """Replies still to give."""
    name_: str = "scripted"
    """Name used in error messages."""
    delay_s: float = 0.0
    """Seconds each reply takes (for benchmarks)."""
    hold: Any = None
    """A check the async replies wait for (polled, failing after HOLD_S): an order, not a clock."""
    _log: list[dict[str, Any]] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every request so far: `messages`, `tools` (names) and `schema`."""
        return self._log

    def _next(self, messages: Sequence[BaseMessage], **meta: Any) -> Any:
        self._log.append({"messages": list(messages), **meta})
        if not self.script:
            raise AssertionError(
                f"ScriptedChatModel {self.name_!r} has no reply left for request "
                f"#{len(self._log)} ({meta})"
            )
        item = self.script.pop(0)
        if callable(item) and not isinstance(item, BaseModel):
            item = item(list(messages), meta)
        if isinstance(item, Exception):
            raise item
        return item

    def _message(self, messages: list[BaseMessage], tools: list[Any]) -> AIMessage:
        names = [t.get("function", t).get("name") for t in tools]
        item = self._next(messages, tools=names, schema=None)
        message = AIMessage(content=item) if isinstance(item, str) else item
        if not isinstance(message, AIMessage):
            raise AssertionError(f"{self.name_!r}: expected a message reply, got {item!r}")
        return message

    def reply(self, messages: list[BaseMessage], tools: list[Any]) -> AIMessage:
        """The next scripted message, after `delay_s`."""
        if self.delay_s:
            time.sleep(self.delay_s)
        return self._message(messages, tools)

    async def _wait(self) -> None:
        """Sleep `delay_s`, then wait until `hold()` holds (failing after HOLD_S)."""
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        deadline = time.monotonic() + HOLD_S
        while self.hold is not None and not self.hold():
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name_!r}: what it waited for never came")
            await asyncio.sleep(0.005)

    async def areply(self, messages: list[BaseMessage], tools: list[Any]) -> AIMessage:
        """The next scripted message, after `_wait` (without blocking the loop)."""
        await self._wait()
        return self._message(messages, tools)

    def structured(self, messages: list[BaseMessage], schema: Any) -> Any:
        """The next scripted item in the wire form, recorded with the schema's name."""
        name = getattr(schema, "__name__", str(schema))
        return wire_answer(self._next(messages, tools=[], schema=name), name)

    async def astructured(self, messages: list[BaseMessage], schema: Any) -> Any:
        """The next scripted item, after `_wait`."""
        await self._wait()
        return self.structured(messages, schema)


_STEP_DEFAULTS: dict[str, Any] = {"depends_on": [], "critical": True, "tool": None}
_PLANNER_DEFAULTS: dict[str, Any] = {
    "decision": "replace",
    "plan": [],
    "next_task": 0,
    "clarification": None,
    "not_covered": [],
}
_ANALYSIS_DEFAULTS: dict[str, Any] = {"blocked_tools": [], "read_only_tools": [], "reasons": []}


def wire_step(step: Any) -> Any:
    """A planner task in the wire form: every field, `args` JSON-encoded as `args_json`."""
    if not isinstance(step, dict):
        return step
    out = {**_STEP_DEFAULTS, **{k: v for k, v in step.items() if k != "args"}}
    if "args_json" not in step:
        args = step.get("args")
        out["args_json"] = None if args is None else json.dumps(args)
    return out


def wire_answer(item: Any, schema: str) -> Any:
    """A scripted planner or analyser answer in the wire form; anything else as given."""
    if not isinstance(item, dict):
        return item
    if schema == "PlannerResult":
        answer = {**_PLANNER_DEFAULTS, **item}
        if isinstance(answer["plan"], list):
            answer["plan"] = [wire_step(t) for t in answer["plan"]]
        return answer
    if schema == "IrreversibilityAnalysis":
        answer = {**_ANALYSIS_DEFAULTS, **item}
        if isinstance(answer["reasons"], dict):
            answer["reasons"] = [{"tool": k, "reason": v} for k, v in answer["reasons"].items()]
        return answer
    return item


def analysis(**fields: Any) -> Any:
    """An `IrreversibilityAnalysis` from its short form (omitted lists empty, reasons a map)."""
    from common.safety.verdict import IrreversibilityAnalysis

    return IrreversibilityAnalysis.model_validate(wire_answer(fields, "IrreversibilityAnalysis"))


def install_scripted(model: ScriptedChatModel, name: str | None = None) -> str:
    """Make `model` resolvable and return its spec, e.g. `scripted:planner-3`."""
    key = name or f"{model.name_}-{next(_ids)}"
    register_provider("scripted", _factory)
    _INSTALLED[key] = model
    return f"scripted:{key}"


def _factory(name: str) -> BaseChatModel:
    if name not in _INSTALLED:
        raise KeyError(f"No scripted model {name!r} is installed")
    return _INSTALLED[name]
