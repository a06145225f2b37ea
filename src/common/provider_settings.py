"""The settings a provider's chat model cannot be built without, beyond its API key.

Azure OpenAI's needs an endpoint, a credential and an API version: without them
langchain-openai's `AzureChatOpenAI` fails while it is built, with the openai client's
`OpenAIError` ("Missing credentials") or a pydantic `ValidationError` ("Must provide either the
`api_version` argument or the `OPENAI_API_VERSION` environment variable"), one at a time. They
are checked here first so one sentence names every missing one (`missing_settings`); an error
the integration still raises while building names its settings in `build_problem`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from pydantic import ValidationError

AZURE_SETTINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("AZURE_OPENAI_ENDPOINT", ("AZURE_OPENAI_ENDPOINT",)),
    ("AZURE_OPENAI_API_KEY", ("AZURE_OPENAI_API_KEY", "OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN")),
    ("OPENAI_API_VERSION", ("OPENAI_API_VERSION",)),
)
"""Each setting `AzureChatOpenAI` needs, and the environment variables it accepts it from."""

WORKLOAD_IDENTITY = ("AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_FEDERATED_TOKEN_FILE")
"""Variables that together give `AzureChatOpenAI` a credential without a key (langchain-openai)."""

EXAMPLES = {
    "AZURE_OPENAI_ENDPOINT": "AZURE_OPENAI_ENDPOINT=https://RESOURCE.openai.azure.com/",
    "OPENAI_API_VERSION": "OPENAI_API_VERSION=2024-10-21",
}
"""An example value of each setting whose form is not obvious."""


def missing_settings(provider: str) -> list[str]:
    """The settings `provider`'s chat model needs that no environment variable gives."""
    if provider != "azure_openai":
        return []
    keyless = all(os.environ.get(name) for name in WORKLOAD_IDENTITY)
    return [
        setting
        for setting, sources in AZURE_SETTINGS
        if not any(os.environ.get(name) for name in sources)
        and not (keyless and setting == "AZURE_OPENAI_API_KEY")
    ]


def listed(names: Sequence[str]) -> str:
    """`A`, `A and B`, `A, B and C`."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def examples(names: Sequence[str]) -> str:
    """` (e.g. NAME=value)` for those of `names` with an example, or ""."""
    shown = [EXAMPLES[name] for name in names if name in EXAMPLES]
    return f" (e.g. {', '.join(shown)})" if shown else ""


_ENV_NAME = re.compile(r"`([A-Z][A-Z0-9]*_[A-Z0-9_]+)`")
"""An environment variable an integration's error names, quoted as they quote it."""

ERROR_CHARS = 200
"""Longest part of an integration's error kept in the sentence."""


def build_problem(spec: str, exc: BaseException) -> str:
    """One sentence for an error the integration raised building `spec`'s model: what to set."""
    text = " ".join(_message(exc).split())
    said = text if len(text) <= ERROR_CHARS else text[:ERROR_CHARS] + " …"
    # The integrations' messages offer their variables as alternatives ("either ... or").
    names = list(dict.fromkeys(_ENV_NAME.findall(text)))
    if names:
        return (
            f"Model {spec!r} cannot be built ({said}): set {' or '.join(names)} in .env or the "
            f"environment{examples(names)}, or set MODEL (or --model) to another provider:model."
        )
    return (
        f"Model {spec!r} cannot be built ({said}): check its provider's settings, or set MODEL "
        "(or --model) to another provider:model."
    )


def _message(exc: BaseException) -> str:
    """What went wrong: a pydantic error's messages without its input (the model's arguments)."""
    if isinstance(exc, ValidationError):
        return "; ".join(str(e["msg"]) for e in exc.errors()) or str(exc)
    return str(exc)
