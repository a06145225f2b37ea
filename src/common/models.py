"""Resolve `provider:model` strings into chat models, with a registry for local providers."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

from langchain.chat_models import init_chat_model
from langchain_core.language_models import BaseChatModel

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
