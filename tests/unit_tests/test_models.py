"""Model specs: `provider:model` and `provider/model`, missing keys, and the test-time refusal."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from common.models import ModelConfigError, load_chat_model, split_model_spec
from common.settings import get_settings


@pytest.fixture
def fresh_settings(monkeypatch: pytest.MonkeyPatch, chdir_tmp: Path) -> Iterator[None]:
    """Settings re-read from the (patched) environment, away from any `.env`; restored after."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.fixture
def requests_allowed(monkeypatch: pytest.MonkeyPatch, fresh_settings: None) -> None:
    monkeypatch.setenv("ALLOW_MODEL_REQUESTS", "true")
    get_settings.cache_clear()


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("openai:gpt-4o-mini", ("openai", "gpt-4o-mini")),
        ("openai/gpt-4o-mini", ("openai", "gpt-4o-mini")),
        ("ollama:llama3.1:8b", ("ollama", "llama3.1:8b")),
        ("openrouter:meta-llama/llama-3-8b", ("openrouter", "meta-llama/llama-3-8b")),
        (" anthropic : claude-3-5-haiku ", ("anthropic", "claude-3-5-haiku")),
    ],
)
def test_spec_is_split_into_provider_and_model(spec: str, expected: tuple[str, str]) -> None:
    assert split_model_spec(spec) == expected


def test_slash_spec_with_a_tagged_model_splits_at_the_slash() -> None:
    """`provider/model:tag` (Ollama tags, OpenRouter `:free`) must split at the first separator.

    Bug: split_model_spec tries ':' before '/', so "ollama/llama3.1:8b" gives provider
    "ollama/llama3.1" and model "8b".
    """
    assert split_model_spec("ollama/llama3.1:8b") == ("ollama", "llama3.1:8b")


@pytest.mark.parametrize("spec", ["gpt-4o-mini", ":gpt-4o", "openai:", "/x"])
def test_malformed_spec_says_the_expected_form(spec: str) -> None:
    with pytest.raises(ModelConfigError, match="'provider:model'"):
        split_model_spec(spec)


@pytest.mark.parametrize("spec", ["openai:gpt-4o-mini", "openai/gpt-4o-mini"])
def test_both_spellings_load_the_same_openai_model(
    spec: str, requests_allowed: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    model = load_chat_model(spec)
    assert type(model).__name__ == "BodyChatOpenAI"
    assert getattr(model, "model_name", None) == "gpt-4o-mini"


def test_missing_api_key_names_the_setting(requests_allowed: None) -> None:
    with pytest.raises(ModelConfigError) as info:
        load_chat_model("openai/gpt-4o-mini")
    assert "OPENAI_API_KEY" in str(info.value)
    assert "'openai/gpt-4o-mini'" in str(info.value)


def test_remote_models_are_refused_while_tests_run(
    fresh_settings: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With their keys set: the guard, not a missing key, refuses them.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    assert get_settings().allow_model_requests is False
    with pytest.raises(ModelConfigError, match="ALLOW_MODEL_REQUESTS=false"):
        load_chat_model("openai:gpt-4o-mini")
    with pytest.raises(ModelConfigError, match="ALLOW_MODEL_REQUESTS=false"):
        load_chat_model("anthropic:claude-3-5-haiku")


def test_local_openai_compatible_server_is_allowed_without_a_key(
    fresh_settings: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    get_settings.cache_clear()
    model = load_chat_model("openai:llama3.1")
    assert getattr(model, "openai_api_base", None) == "http://127.0.0.1:11434/v1"
    assert getattr(model, "model_name", None) == "llama3.1"


def test_scripted_models_resolve_without_network(scripted: Any) -> None:
    scripted()  # installing a scripted model registers the provider (importing does not)
    with pytest.raises(KeyError, match="No scripted model 'nobody'"):
        load_chat_model("scripted:nobody")


@pytest.mark.parametrize(
    ("spec", "key", "class_name"),
    [
        ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY", "ChatAnthropic"),
        ("google_genai:gemini-2.0-flash", "GOOGLE_API_KEY", "ChatGoogleGenerativeAI"),
        ("ollama:llama3.2", None, "ChatOllama"),
    ],
)
def test_other_providers_load_through_their_integrations(
    spec: str,
    key: str | None,
    class_name: str,
    monkeypatch: pytest.MonkeyPatch,
    requests_allowed: None,
) -> None:
    if key:
        monkeypatch.setenv(key, "k")
    assert type(load_chat_model(spec)).__name__ == class_name


def test_a_provider_whose_package_is_missing_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, requests_allowed: None
) -> None:
    # langchain-mistralai is not a dependency: its import fails as any missing package's does.
    monkeypatch.setenv("MISTRAL_API_KEY", "k")
    with pytest.raises(ModelConfigError) as refused:
        load_chat_model("mistralai:mistral-small-latest")
    assert str(refused.value) == (
        "Model 'mistralai:mistral-small-latest' needs the langchain-mistralai package, which "
        "is not installed: run `pip install langchain-mistralai`, or set MODEL (or --model) to "
        "another provider:model."
    )


def test_every_openai_model_sends_its_messages_as_body_data(
    requests_allowed: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from common.openai_compatible import BodyChatOpenAI, CompatibleChatOpenAI

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert type(load_chat_model("openai:gpt-4o-mini")) is BodyChatOpenAI
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    get_settings.cache_clear()
    assert type(load_chat_model("openai:local")) is CompatibleChatOpenAI
