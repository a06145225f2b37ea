"""`LocalChatModel`: the chat-model plumbing of in-process models (offline rules, test doubles).

Kept apart from `common.models` so that resolving a spec does not define a LangChain chat model
class: subclassing `BaseChatModel` imports LangChain's model, callback and output-parser layers
(and LangSmith's tracers with them), which only a process that runs an in-process model needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel


class LocalChatModel(BaseChatModel):
    """An in-process chat model (no network): the chat-model plumbing, written once.

    A subclass answers `reply` (a chat turn, given the bound tools) and `structured` (an item
    for `with_structured_output`: data, a pydantic object, or a text or message that did not
    fit the schema); the async forms default to the sync ones.
    """

    def reply(self, messages: list[BaseMessage], tools: list[Any]) -> AIMessage:
        """The answer to one chat turn."""
        raise NotImplementedError

    async def areply(self, messages: list[BaseMessage], tools: list[Any]) -> AIMessage:
        """The answer to one chat turn, asynchronously."""
        return self.reply(messages, tools)

    def structured(self, messages: list[BaseMessage], schema: Any) -> Any:
        """The item a structured-output call returns before validation into `schema`."""
        raise NotImplementedError

    async def astructured(self, messages: list[BaseMessage], schema: Any) -> Any:
        """The structured item, asynchronously."""
        return self.structured(messages, schema)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = self.reply(messages, list(kwargs.get("tools") or []))
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = await self.areply(messages, list(kwargs.get("tools") or []))
        return ChatResult(generations=[ChatGeneration(message=message)])

    def bind_tools(
        self, tools: Sequence[Any], **kwargs: Any
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tool specs; they reach `reply` as given."""
        return self.bind(tools=list(tools), **kwargs)

    def with_structured_output(
        self, schema: Any, *, include_raw: bool = False, **kwargs: Any
    ) -> Runnable[LanguageModelInput, Any]:
        """`structured`'s item validated into `schema`.

        With `include_raw`, a text or message item comes back unparsed as `raw`, the way a
        provider's answer that did not fit the schema does.
        """

        def respond(value: LanguageModelInput) -> Any:
            return _structured_result(
                self.structured(_messages(value), schema), schema, include_raw
            )

        async def arespond(value: LanguageModelInput) -> Any:
            item = await self.astructured(_messages(value), schema)
            return _structured_result(item, schema, include_raw)

        return RunnableLambda(respond, afunc=arespond)


def _messages(value: LanguageModelInput) -> list[BaseMessage]:
    return list(value) if isinstance(value, list) else [value]  # type: ignore[list-item]


def _structured_result(item: Any, schema: Any, include_raw: bool) -> Any:
    if include_raw and isinstance(item, str | AIMessage):
        raw = item if isinstance(item, AIMessage) else AIMessage(content=item)
        return {"raw": raw, "parsed": None, "parsing_error": None}
    parsed = item
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        parsed = schema.model_validate(item.model_dump() if isinstance(item, BaseModel) else item)
    if not include_raw:
        return parsed
    return {"raw": AIMessage(content=str(item)), "parsed": parsed, "parsing_error": None}
