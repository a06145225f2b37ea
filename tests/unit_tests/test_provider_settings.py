"""A model that cannot be built names the setting to fix, never "install the provider's package"."""

from __future__ import annotations

import pytest
from langchain_openai import AzureChatOpenAI
from pydantic import ValidationError

from common.models import MissingKeyError, load_chat_model
from common.provider_settings import build_problem
from common.settings import get_settings

AZURE = "azure_openai:gpt-4o-mini"


@pytest.fixture
def azure_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No Azure or OpenAI settings in the environment; model requests allowed."""
    for name in (
        "AZURE_OPENAI_ENDPOINT",
        "AZURE_OPENAI_API_KEY",
        "AZURE_OPENAI_AD_TOKEN",
        "AZURE_CLIENT_ID",
        "OPENAI_API_KEY",
        "OPENAI_API_BASE",
        "OPENAI_API_VERSION",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(get_settings(), "allow_model_requests", True)
    return monkeypatch


def test_azure_with_nothing_set_names_its_three_settings(azure_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(MissingKeyError) as caught:
        load_chat_model(AZURE)
    assert str(caught.value) == (
        f"Model {AZURE!r} needs AZURE_OPENAI_ENDPOINT, AZURE_OPENAI_API_KEY and "
        "OPENAI_API_VERSION, which are not set: set them in .env or the environment (e.g. "
        "AZURE_OPENAI_ENDPOINT=https://RESOURCE.openai.azure.com/, "
        "OPENAI_API_VERSION=2024-10-21), or choose no model to run the keyless demo model "
        "offline:rules."
    )


def test_azure_with_an_ad_token_needs_no_key(azure_env: pytest.MonkeyPatch) -> None:
    azure_env.setenv("AZURE_OPENAI_AD_TOKEN", "t")
    azure_env.setenv("AZURE_OPENAI_ENDPOINT", "https://made-up.openai.azure.com/")
    with pytest.raises(MissingKeyError) as caught:
        load_chat_model(AZURE)
    assert caught.value.key == "OPENAI_API_VERSION"


def test_azure_with_its_settings_is_built(azure_env: pytest.MonkeyPatch) -> None:
    azure_env.setenv("AZURE_OPENAI_API_KEY", "k")
    azure_env.setenv("AZURE_OPENAI_ENDPOINT", "https://made-up.openai.azure.com/")
    azure_env.setenv("OPENAI_API_VERSION", "2024-10-21")
    assert isinstance(load_chat_model(AZURE), AzureChatOpenAI)


def test_the_integrations_own_refusal_names_the_variable_it_quotes() -> None:
    with pytest.raises(ValidationError) as caught:
        AzureChatOpenAI(
            model="gpt-4o-mini", api_key="k", azure_endpoint="https://made-up.openai.azure.com/"
        )
    text = build_problem(AZURE, caught.value)
    assert text.startswith(f"Model {AZURE!r} cannot be built (Value error, Must provide either")
    assert "set OPENAI_API_VERSION in .env or the environment (e.g. OPENAI_API_VERSION=" in text
    assert "input_value" not in text  # the model's arguments are not repeated
    assert "install" not in text


def test_the_clients_own_refusal_offers_the_variables_it_names(
    azure_env: pytest.MonkeyPatch,
) -> None:
    from openai import AzureOpenAI, OpenAIError

    with pytest.raises(OpenAIError) as caught:
        AzureOpenAI(api_version="2024-10-21", azure_endpoint="https://made-up.openai.azure.com/")
    text = build_problem(AZURE, caught.value)
    assert text.startswith(f"Model {AZURE!r} cannot be built (Missing credentials. ")
    assert "set AZURE_OPENAI_API_KEY or AZURE_OPENAI_AD_TOKEN in .env or the environment, " in text
