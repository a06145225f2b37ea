"""Resolve `provider:model` strings into chat models, with a registry for local providers."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlparse

from langchain.chat_models import init_chat_model
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel

from common.settings import get_settings

ModelFactory = Callable[[str], BaseChatModel]
"""Builds a chat model from the part of the spec after the provider."""

_LOCAL_PROVIDERS: dict[str, ModelFactory] = {}

_KEY_SETTINGS = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "google_genai": "GOOGLE_API_KEY",
    "mistralai": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
}


class ModelConfigError(RuntimeError):
    """A model spec that cannot be turned into a usable chat model."""


def register_provider(name: str, factory: ModelFactory) -> None:
    """Register an in-process provider (no network), e.g. scripted test doubles."""
    _LOCAL_PROVIDERS[name] = factory


def split_model_spec(spec: str) -> tuple[str, str]:
    """Split `provider:model` or `provider/model` at whichever separator comes first."""
    cuts = [i for i in (spec.find(":"), spec.find("/")) if i > 0]
    if cuts and min(cuts) < len(spec) - 1:
        cut = min(cuts)
        return spec[:cut].strip(), spec[cut + 1 :].strip()
    raise ModelConfigError(
        f"Model {spec!r} is not of the form 'provider:model' (for example 'openai:gpt-4o-mini')."
    )


def _is_loopback(url: str | None) -> bool:
    host = urlparse(url).hostname if url else None
    return host in {"localhost", "127.0.0.1", "::1"} or bool(host and host.startswith("127."))


def load_chat_model(spec: str) -> BaseChatModel:
    """Return the chat model named by `spec`, failing with a sentence that says what to set."""
    provider, name = split_model_spec(spec)
    if provider in _LOCAL_PROVIDERS:
        return _LOCAL_PROVIDERS[provider](name)
    settings = get_settings()
    base_url = settings.openai_base_url or os.environ.get("OPENAI_BASE_URL")
    kwargs: dict[str, Any] = {}
    if provider == "openai" and base_url:
        kwargs["base_url"] = base_url
    if not settings.allow_model_requests and not (provider == "openai" and _is_loopback(base_url)):
        raise ModelConfigError(
            f"Model requests are disabled (ALLOW_MODEL_REQUESTS=false); refusing {spec!r}."
        )
    key = _KEY_SETTINGS.get(provider)
    if key and not os.environ.get(key) and not (provider == "openai" and base_url):
        raise ModelConfigError(
            f"No API key for model {spec!r}: set {key} in .env "
            "(or set MODEL to another provider, e.g. 'ollama:llama3.1')."
        )
    if provider == "openai" and base_url and not os.environ.get("OPENAI_API_KEY"):
        kwargs["api_key"] = "not-needed"
    try:
        model: BaseChatModel = init_chat_model(name, model_provider=provider, **kwargs)
    except (ImportError, ValueError) as exc:
        raise ModelConfigError(
            f"Cannot load model {spec!r} ({exc}): set MODEL (or --model) to provider:model, "
            "e.g. openai:gpt-4o-mini, and install the provider's package."
        ) from exc
    return model


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
