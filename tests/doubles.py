"""Test doubles: a scripted chat model that supports `bind_tools` and structured output.

`install_scripted` registers the `scripted` provider (importing does nothing), so `scripted:NAME`
model specs resolve to installed models. Nothing here touches the network.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from pydantic import BaseModel, PrivateAttr

from common.models import LocalChatModel, register_provider

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


class ScriptedChatModel(LocalChatModel):
    """Replies from a script, in order; records what it was asked and with which tools."""

    script: list[Any]
    """Replies still to give."""
    name_: str = "scripted"
    """Name used in error messages."""
    delay_s: float = 0.0
    """Seconds each reply takes (for benchmarks)."""
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

    async def areply(self, messages: list[BaseMessage], tools: list[Any]) -> AIMessage:
        """The next scripted message, after `delay_s` (without blocking the loop)."""
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        return self._message(messages, tools)

    def structured(self, messages: list[BaseMessage], schema: Any) -> Any:
        """The next scripted item, recorded with the schema's name."""
        return self._next(messages, tools=[], schema=getattr(schema, "__name__", str(schema)))

    async def astructured(self, messages: list[BaseMessage], schema: Any) -> Any:
        """The next scripted item, after `delay_s`."""
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        return self.structured(messages, schema)


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
