"""The OpenAI chat models: messages sent as body data, and requests compatible servers take.

For OpenAI-compatible servers (`openai:` with `OPENAI_BASE_URL`): langchain-openai writes
requests for OpenAI's own API, and two of its choices are refused or ignored by servers that
implement the older shape of the chat-completions API (llama.cpp's, LM Studio's, others):
- an assistant message with `tool_calls` and no text is sent with `content: null`, which
  llama-cpp-python's server refuses (HTTP 500, "Input should be a valid string") and which
  mlx-openai-server and mistral-common's OpenAI endpoint also reject or drop; `""` is what those
  servers take, and OpenAI's API documents `content` as a string (or null) there, so the
  message means the same. OpenAI itself keeps langchain's null (some Ollama templates render
  `""` differently, and OpenAI's examples use null).
- the answer's length is sent as `max_completion_tokens`, which llama.cpp's server does not
  know (it ignores it and generates to the context limit); `max_tokens`, which every
  compatible server takes, is sent instead.

Every `openai:` and `azure_openai:` model (a compatible server's too) is built from these
classes: its messages reach the openai client as body data (`messages_as_body`), the same JSON.

A subclass rather than a wrapper: the payload is built inside `ChatOpenAI`, after the messages
are converted, and `_get_request_payload` is the one hook langchain-openai gives for it.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import LanguageModelInput
from langchain_openai import AzureChatOpenAI, ChatOpenAI

_JSON_LEAVES = (str, int, float, bool, type(None))
"""Values a request body holds as they are (JSON's own)."""


class MessagesAsBody:
    """Sends a langchain-openai model's converted messages to the openai client as body data."""

    def _get_request_payload(
        self,
        input_: LanguageModelInput,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """langchain-openai's request body, shaped (`_shaped`), its messages as body data."""
        payload: dict[str, Any] = super()._get_request_payload(  # type: ignore[misc]
            input_, stop=stop, **kwargs
        )
        return messages_as_body(self._shaped(payload))

    def _shaped(self, payload: dict[str, Any]) -> dict[str, Any]:
        """The body as this model's server takes it: OpenAI's own, unchanged."""
        return payload

    @classmethod
    def _stock(cls) -> type[Any]:
        """The langchain-openai class this one subclasses (ChatOpenAI, AzureChatOpenAI)."""
        return next(k for k in cls.__mro__ if k.__module__.startswith("langchain_openai"))

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        """The stock class's name, as traces, Studio and event streams have always shown it."""
        own = name or getattr(self, "name", None) or self._stock().__name__
        stock_name: str = super().get_name(suffix, name=own)  # type: ignore[misc]
        return stock_name

    @classmethod
    def lc_id(cls) -> list[str]:
        """The stock class's serialization id: a serialized model loads as LangChain's own."""
        stock_id: list[str] = cls._stock().lc_id()
        return stock_id


class BodyChatOpenAI(MessagesAsBody, ChatOpenAI):
    """`ChatOpenAI` whose converted messages reach the openai client as body data."""


class BodyAzureChatOpenAI(MessagesAsBody, AzureChatOpenAI):
    """`AzureChatOpenAI` whose converted messages reach the openai client as body data."""


class CompatibleChatOpenAI(BodyChatOpenAI):
    """`ChatOpenAI` whose requests an OpenAI-compatible server (llama.cpp, LM Studio) takes."""

    def _shaped(self, payload: dict[str, Any]) -> dict[str, Any]:
        """The request body, with empty content for tool-call messages and `max_tokens`."""
        return compatible_payload(payload)


def messages_as_body(payload: dict[str, Any]) -> dict[str, Any]:
    """`payload` with its chat messages moved into `extra_body` (in place; returned).

    Why: the openai client's `create` walks every typed parameter through its request transform
    (`_async_transform_recursive`), checking each message against a union of TypedDicts; for
    messages that are JSON already (langchain-openai converts them to dicts of strings) its
    output equals its input, and it costs about 1 ms of CPU per call of a planner's prompt
    (issue 45). `extra_body` is merged over the transformed body key by key, so `messages`
    keeps its place and the JSON sent is the same to the byte (`test_openai_body.py`). Messages
    holding anything but JSON values (a file object, a date) keep the typed path, where the
    transform formats them; so does a body whose `extra_body` names messages already.
    """
    messages = payload.get("messages")
    extra = payload.get("extra_body") or {}
    if not isinstance(messages, list) or not isinstance(extra, dict) or "messages" in extra:
        return payload
    if not _json_only(messages):
        return payload
    payload["extra_body"] = {"messages": messages, **extra}
    payload["messages"] = []
    return payload


MAX_DEPTH = 64
"""Nesting past which messages keep the typed path (a sender's content is not walked deeper)."""


def _json_only(value: Any, depth: int = 0) -> bool:
    """Whether `value` is made of dicts with string keys, lists and JSON leaves only."""
    if depth > MAX_DEPTH:
        return False
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_only(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return all(_json_only(v, depth + 1) for v in value)
    return type(value) in _JSON_LEAVES


def compatible_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """`payload` as an OpenAI-compatible server takes it (changed in place and returned)."""
    for message in payload.get("messages") or []:
        if message.get("role") == "assistant" and message.get("content") is None:
            message["content"] = ""
    if "max_completion_tokens" in payload:
        payload["max_tokens"] = payload.pop("max_completion_tokens")
    return payload
