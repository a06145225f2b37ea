"""The chat model for OpenAI-compatible servers (`openai:` with `OPENAI_BASE_URL`).

langchain-openai writes requests for OpenAI's own API, and two of its choices are refused or
ignored by servers that implement the older shape of the chat-completions API (llama.cpp's,
LM Studio's, several others):
- an assistant message with `tool_calls` and no text is sent with `content: null`, which
  llama-cpp-python's server refuses (HTTP 500, "Input should be a valid string") and which
  mlx-openai-server and mistral-common's OpenAI endpoint also reject or drop; `""` is what those
  servers take, and OpenAI's API documents `content` as a string (or null) there, so the
  message means the same. OpenAI itself keeps langchain's null (some Ollama templates render
  `""` differently, and OpenAI's examples use null).
- the answer's length is sent as `max_completion_tokens`, which llama.cpp's server does not
  know (it ignores it and generates to the context limit); `max_tokens`, which every
  compatible server takes, is sent instead.

A subclass rather than a wrapper: the payload is built inside `ChatOpenAI`, after the messages
are converted, and `_get_request_payload` is the one hook langchain-openai gives for it.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import LanguageModelInput
from langchain_openai import ChatOpenAI


class CompatibleChatOpenAI(ChatOpenAI):
    """`ChatOpenAI` whose requests an OpenAI-compatible server (llama.cpp, LM Studio) takes."""

    def _get_request_payload(
        self,
        input_: LanguageModelInput,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """The request body, with empty content for tool-call messages and `max_tokens`."""
        payload: dict[str, Any] = super()._get_request_payload(input_, stop=stop, **kwargs)
        return compatible_payload(payload)


def compatible_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """`payload` as an OpenAI-compatible server takes it (changed in place and returned)."""
    for message in payload.get("messages") or []:
        if message.get("role") == "assistant" and message.get("content") is None:
            message["content"] = ""
    if "max_completion_tokens" in payload:
        payload["max_tokens"] = payload.pop("max_completion_tokens")
    return payload
