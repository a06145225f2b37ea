"""Resolve `provider:model` strings into chat models, with a registry for local providers.

Every remote model gets the request timeout (`MODEL_TIMEOUT_S`), its client's retries
(`MODEL_MAX_RETRIES`: 429 and 5xx, honouring `Retry-After`) and a bound on each answer's length
(`MODEL_MAX_TOKENS`, so a model that never closes its JSON stops there); a call that still
fails to reach its model ends the node with one `ModelCallError` sentence (`model_errors`).
Each call is also awaited within an outer bound (`common.call_bounds`): a client may retry
beyond its settings (Gemini's GAPIC client, for 600 s). Azure OpenAI's endpoint and API version
are checked with its key (`common.provider_settings`), so one sentence names what is missing.

A remote model is built once per spec, resolved settings and running event loop, and reused:
building one costs about half a millisecond of CPU and it holds no per-call state (callbacks,
tags and run names come with each call's config). `IdentityCache` is written here rather than
taken from a library because its owners (chat models, event loops) cannot be dict keys
(pydantic models are unhashable) and must not share entries when an id is reused;
`functools.lru_cache` keys by hash, and no cache library is a dependency.

In-process models subclass `common.local_models.LocalChatModel`, kept apart so that importing
this module (every node does) defines no LangChain chat model class.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import sys
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Hashable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Generic, TypeVar
from urllib.parse import urlparse

from common.api_answers import NotACompletion, NotAnAPIAnswer, checked_clients
from common.cut_answers import AnswerCutError, length_error
from common.provider_errors import (
    ProviderError,
    google_error,
    provider_error,
    retry_after,
    status_of,
)
from common.provider_settings import build_problem, examples, listed, missing_settings
from common.settings import PROVIDER_KEYS, get_settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

ValueT = TypeVar("ValueT")

ModelFactory = Callable[[str], "BaseChatModel"]
"""Builds a chat model from the part of the spec after the provider."""

_LOCAL_PROVIDERS: dict[str, ModelFactory] = {}

_TIMEOUT_PROVIDERS = frozenset(
    {"openai", "azure_openai", "anthropic", "google_genai", "mistralai", "groq", "deepseek", "xai"}
)
"""Providers whose chat model takes `timeout` and `max_retries` (in seconds, per request)."""

NODE_NAMES = {
    "planner": "planner",
    "orchestrate": "orchestrate",
    "assess": "assess_task",
    "response": "generate_response",
    "irreversibility": "irreversibility_check",
}
"""The graph node each model role serves, as error messages name it."""

RETRY_ADVICE = "resume the thread to retry (`mcp-planner resume THREAD`, or invoke it with None)"
"""How to retry after a `ModelCallError`, when the caller has no more specific command."""


class ModelConfigError(RuntimeError):
    """A model spec that cannot be turned into a usable chat model."""


class UnknownProviderError(ModelConfigError):
    """A model spec whose provider is neither an installed chat-model provider nor a local one."""

    def __init__(self, spec: str, provider: str) -> None:
        self.spec = spec
        """The model spec as given."""
        self.provider = provider
        """The provider part of the spec."""
        super().__init__(f"Model {spec!r} {unknown_provider_problem(provider)}.")


class MissingKeyError(ModelConfigError):
    """A remote model whose provider's API key (or another setting it needs) is not set."""

    def __init__(self, spec: str, key: str, *more: str) -> None:
        self.spec = spec
        """The model spec as given."""
        self.key = listed((key, *more))
        """The environment variable(s) that must be set: `KEY`, or `A, B and C`."""
        self.unset = "they are not set" if more else f"{key} is not set"
        """`KEY is not set`, or `they are not set`."""
        self.them = "them" if more else key
        """`KEY`, or `them`: what to set."""
        self.example = examples((key, *more))
        """` (e.g. NAME=value)` for a setting whose form is not obvious, or ""."""
        super().__init__(
            f"Model {spec!r} needs {self.key}, which {'are' if more else 'is'} not set: set "
            f"{self.them} in .env or the environment{self.example}, or choose "
            "no model to run the keyless demo model offline:rules."
        )


def known_providers() -> list[str]:
    """Providers a spec may name: langchain's chat-model providers and the local ones."""
    from langchain.chat_models import base

    # langchain keeps the list private; without it, the providers this module knows.
    builtin = getattr(base, "_BUILTIN_PROVIDERS", None) or {*_TIMEOUT_PROVIDERS, "ollama"}
    return sorted({*builtin, *_LOCAL_PROVIDERS})


def unknown_provider_problem(provider: str) -> str:
    """What is wrong with an unknown provider, ending with the ones that exist."""
    return (
        f"names an unknown provider {provider!r}: use provider:model with one of "
        f"{', '.join(known_providers())} (e.g. openai:gpt-4o-mini)"
    )


class ModelCallError(RuntimeError):
    """A node's model could not be reached or kept failing: the run stops at its last checkpoint.

    Raised from the node so LangGraph keeps the thread where it was: resuming retries the
    node. `summary` says which node, model and endpoint setting, what failed and what to check.
    """

    def __init__(self, summary: str) -> None:
        super().__init__(summary)
        self.summary = summary

    def advice(self, retry: str = RETRY_ADVICE) -> str:
        """The one-line message, ending with how to retry (`retry`, e.g. a resume command)."""
        return f"{self.summary}, then {retry}."

    def __str__(self) -> str:
        return self.advice()


class IdentityCache(Generic[ValueT]):
    """A bounded, thread-safe LRU of values built for an owner object, by owner identity and key.

    Each entry keeps its owner alive, so the owner's id cannot be reused by another object while
    the entry exists: two owners never share a value, whether or not they compare equal.
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[tuple[int, Hashable], tuple[object, ValueT]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, owner: object, key: Hashable, build: Callable[[], ValueT]) -> ValueT:
        """The value kept for (`owner`, `key`), built by `build` on a miss (its errors raise)."""
        slot = (id(owner), key)
        with self._lock:
            hit = self._entries.get(slot)
            if hit is not None and hit[0] is owner:
                self._entries.move_to_end(slot)
                return hit[1]
        # Built outside the lock: two concurrent misses build twice, which is harmless.
        value = build()
        with self._lock:
            self._entries[slot] = (owner, value)
            self._entries.move_to_end(slot)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return value


MODEL_CACHE_SIZE = 64
"""Remote chat models kept: one per spec, settings and event loop in use."""

_MODELS: IdentityCache[BaseChatModel] = IdentityCache(MODEL_CACHE_SIZE)
_NO_LOOP = object()
"""The owner of models built outside any event loop."""


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
    if provider not in known_providers():
        raise UnknownProviderError(spec, provider)
    settings = get_settings()
    base_url = settings.openai_base_url or os.environ.get("OPENAI_BASE_URL")
    kwargs: dict[str, Any] = {}
    if provider == "openai" and base_url:
        kwargs["base_url"] = base_url
    key = PROVIDER_KEYS.get(provider)
    if key and not os.environ.get(key) and not (provider == "openai" and base_url):
        raise MissingKeyError(spec, key)
    if missing := missing_settings(provider):
        raise MissingKeyError(spec, *missing)
    if not settings.allow_model_requests and not (provider == "openai" and _is_loopback(base_url)):
        raise ModelConfigError(
            f"Model requests are disabled (ALLOW_MODEL_REQUESTS=false); refusing {spec!r}."
        )
    if provider == "openai" and base_url and not os.environ.get("OPENAI_API_KEY"):
        kwargs["api_key"] = "not-needed"
    kwargs.update(_limits(provider, settings.model_timeout_s, settings.model_max_retries))
    kwargs.update(_token_limit(provider, settings.model_max_tokens))
    if settings.model_temperature is not None:
        kwargs["temperature"] = settings.model_temperature
    cache_key = (
        provider,
        name,
        json.dumps(kwargs, sort_keys=True, default=repr),
        _client_env(provider),
    )
    return _MODELS.get(_loop_owner(), cache_key, lambda: _init_model(spec, provider, name, kwargs))


def _init_model(spec: str, provider: str, name: str, kwargs: dict[str, Any]) -> BaseChatModel:
    """A new chat model; one that cannot be built is a ModelConfigError naming what to fix.

    A missing package names the package to install; a setting the integration refuses, the
    setting (`common.provider_settings.build_problem`).
    """
    # Imported here: `langchain.chat_models` is only needed once a remote model is built.
    from langchain.chat_models import init_chat_model

    # Built here, not in the cache key's kwargs: each model gets clients of its own.
    kwargs = {**kwargs, **checked_clients(provider)}
    try:
        model: BaseChatModel = (
            _openai_model(provider, name, kwargs)
            if provider in ("openai", "azure_openai")
            else init_chat_model(name, model_provider=provider, **kwargs)
        )
    except ImportError as exc:
        raise ModelConfigError(missing_package_problem(spec, provider, exc)) from exc
    except _build_errors() as exc:
        raise ModelConfigError(build_problem(spec, exc)) from exc
    return model


def _openai_model(provider: str, name: str, kwargs: dict[str, Any]) -> BaseChatModel:
    """`init_chat_model`'s (Azure)ChatOpenAI, as the subclass that sends messages as body data.

    An OpenAI-compatible server (`base_url`) gets the subclass that also shapes requests for it
    (`common.openai_compatible`).
    """
    try:
        # Imported here for the same reason as `init_chat_model`: only OpenAI models need it.
        from common.openai_compatible import (
            BodyAzureChatOpenAI,
            BodyChatOpenAI,
            CompatibleChatOpenAI,
        )
    except ImportError as exc:  # in `init_chat_model`'s words, so the advice names the package
        raise ImportError(
            "Unable to import langchain_openai. Please install with `pip install -U "
            "langchain-openai`"
        ) from exc

    if provider == "azure_openai":
        return BodyAzureChatOpenAI(model=name, **kwargs)
    model_class = CompatibleChatOpenAI if "base_url" in kwargs else BodyChatOpenAI
    return model_class(model=name, **kwargs)


def _build_errors() -> tuple[type[Exception], ...]:
    """Errors an integration raises for a setting it cannot use (openai's client: OpenAIError)."""
    client = getattr(sys.modules.get("openai"), "OpenAIError", None)
    found: list[type[Exception]] = [ValueError]
    if isinstance(client, type) and issubclass(client, Exception):
        found.append(client)
    return tuple(found)


_PIP_INSTALL = re.compile(r"pip install (?:-U )?([A-Za-z0-9_.\-\[\]]+)")
"""The package an integration's import error tells to install."""


def missing_package_problem(spec: str, provider: str, exc: ImportError) -> str:
    """One sentence: the provider's integration package is not installed, and how to get it."""
    named = _PIP_INSTALL.search(str(exc))
    package = named.group(1) if named else f"langchain-{provider.replace('_', '-')}"
    return (
        f"Model {spec!r} needs the {package} package, which is not installed: run "
        f"`pip install {package}`, or set MODEL (or --model) to another provider:model."
    )


_CLIENT_ENV_MARKS = ("API_KEY", "BASE_URL", "API_BASE", "ENDPOINT", "PROXY", "ORGANIZATION")
"""Parts of environment variable names that provider clients read when a model is built."""
_CLIENT_ENV = re.compile("|".join(map(re.escape, _CLIENT_ENV_MARKS)))
"""Any of `_CLIENT_ENV_MARKS` in a name (one scan of it, not one per mark)."""


def _client_env(provider: str) -> str:
    """A digest of the environment a provider's client reads at build time (keys, URLs).

    Part of the model cache key, so a changed key or endpoint builds a new model; a digest,
    so the cache holds no second copy of a secret.
    """
    prefix = provider.upper().split("_")[0] + "_"
    seen = sorted(
        (k, v) for k, v in os.environ.items() if k.startswith(prefix) or _CLIENT_ENV.search(k)
    )
    return hashlib.sha256(json.dumps(seen).encode()).hexdigest()


def _loop_owner() -> object:
    """The running event loop, or a marker outside one.

    Some clients (e.g. Ollama's) keep an HTTP connection pool per model, tied to the loop
    that used it first: a model is never shared between loops.
    """
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return _NO_LOOP


def _limits(provider: str, timeout: float, retries: int) -> dict[str, Any]:
    """The timeout and retry arguments `provider`'s chat model accepts (none it would reject)."""
    if provider in _TIMEOUT_PROVIDERS:
        return {"timeout": timeout, "max_retries": retries}
    if provider == "ollama":
        # ChatOllama has no timeout field; its httpx client takes one.
        return {"client_kwargs": {"timeout": timeout}}
    return {}


_TOKEN_FIELDS = {
    **dict.fromkeys(
        ("openai", "azure_openai", "anthropic", "mistralai", "groq", "deepseek", "xai"),
        "max_tokens",
    ),
    "google_genai": "max_output_tokens",
    "ollama": "num_predict",
}
"""Each provider's chat-model field bounding the length of one answer, in tokens."""


def _token_limit(provider: str, tokens: int) -> dict[str, Any]:
    """The answer-length argument `provider`'s chat model takes (`MODEL_MAX_TOKENS`), if any."""
    field = _TOKEN_FIELDS.get(provider)
    return {field: tokens} if field else {}


_CLIENT_ERRORS = (
    ("openai", "APIConnectionError"),
    ("openai", "APIStatusError"),
    ("httpx", "HTTPError"),
    ("httpx2", "HTTPError"),
    ("anthropic", "APIConnectionError"),
    ("anthropic", "APIStatusError"),
)
"""Client libraries' errors that mean the endpoint gave no usable answer (after retries)."""


def transport_errors() -> tuple[type[BaseException], ...]:
    """Errors that mean the request did not get a usable answer from the endpoint.

    Read from the client libraries already imported, not imported here: a library that was
    never imported cannot have raised, and importing the provider SDKs (`openai.types` alone
    is about half a second) would slow every process start, including runs that use none.
    """
    found: list[type[BaseException]] = [ConnectionError, TimeoutError]
    for module, name in _CLIENT_ERRORS:
        error = getattr(sys.modules.get(module), name, None)
        if isinstance(error, type) and issubclass(error, BaseException):
            found.append(error)
    return tuple(found)


@asynccontextmanager
async def model_errors(role: str, spec: str) -> AsyncIterator[None]:
    """Turn a transport error of `role`'s model call into one `ModelCallError` sentence.

    Gemini's are google-api-core errors, or langchain-google-genai's own raised from one. An
    answer stopped at its length limit (`common.cut_answers`) is the sentence naming the limits.
    """
    try:
        yield
    except Exception as exc:
        cut = length_error(exc)
        if cut is not None:
            raise ModelCallError(describe_cut(role, spec, cut)) from exc
        if not isinstance(exc, transport_errors()) and google_error(exc) is None:
            raise
        raise ModelCallError(describe_failure(role, spec, exc)) from exc


def describe_cut(role: str, spec: str, cut: AnswerCutError) -> str:
    """Which node's model stopped its answer at the length limit, and which limits to raise."""
    provider = spec.partition(":")[0] if ":" in spec else spec.partition("/")[0]
    base_url = get_settings().openai_base_url or os.environ.get("OPENAI_BASE_URL")
    where, _ = _endpoint(provider, base_url)
    return f"The {NODE_NAMES.get(role, role)} node's model {spec!r} at {where} {cut.problem()}"


def describe_failure(role: str, spec: str, exc: BaseException) -> str:
    """Which node's model failed, where, how, and what to do (without the retry advice)."""
    settings = get_settings()
    provider = spec.partition(":")[0] if ":" in spec else spec.partition("/")[0]
    node = NODE_NAMES.get(role, role)
    base_url = settings.openai_base_url or os.environ.get("OPENAI_BASE_URL")
    where, check = _endpoint(provider, base_url)
    status = status_of(exc)
    tried = _tried(settings.model_max_retries)
    head = f"The {node} node's model {spec!r} at {where}"
    page = next((e for e in _chain(exc) if isinstance(e, NotAnAPIAnswer | NotACompletion)), None)
    if isinstance(page, NotACompletion):
        return (
            f"{head} answered something that is not a chat completion ({page}): a fault of the "
            f"server at {check} or of a proxy in front of it, not of the model; check that server"
        )
    if page is not None:
        return (
            f"{head} answered with a page, not the API ({page}); check {check}: it must be "
            "the API's base URL (e.g. http://127.0.0.1:8080/v1), not a web page or a proxy's"
        )
    if status is not None and not _past_deadline(exc):
        problem = _status_problem(status, tried, provider_error(exc))
        return f"{head} {problem}; {_status_advice(exc, provider, node, check)}"
    if _is_timeout(exc):
        limit = f"MODEL_TIMEOUT_S={settings.model_timeout_s:g}"
        return f"{head} did not answer within {limit} ({tried}); check {check}, or raise {limit}"
    return f"{head} could not be reached ({_root_cause(exc)}); check {check} or the network"


def model_label(model: BaseChatModel) -> str:
    """A model's name for log lines: its model name, else its type."""
    for attr in ("model_name", "model"):
        name = getattr(model, attr, None)
        if isinstance(name, str) and name:
            return repr(name)
    return type(model).__name__


def _endpoint(provider: str, base_url: str | None) -> tuple[str, str]:
    """Where the provider's requests go, as a setting, and the setting to check."""
    if provider == "openai" and base_url:
        return f"OPENAI_BASE_URL={base_url}", "OPENAI_BASE_URL"
    if provider == "openai":
        return "api.openai.com (OPENAI_BASE_URL unset)", "OPENAI_BASE_URL"
    return f"the {provider} API", f"the {provider} endpoint"


def _chain(exc: BaseException) -> list[BaseException]:
    """`exc` and the errors behind it, outermost first (bounded: chains may be long)."""
    chain = [exc]
    while len(chain) < 20:
        behind = chain[-1].__cause__ or chain[-1].__context__
        if behind is None or behind in chain:
            break
        chain.append(behind)
    return chain


def _is_timeout(exc: BaseException) -> bool:
    """Whether the request, or the error behind it, was a timeout."""
    return _past_deadline(exc) or any(
        isinstance(e, TimeoutError) or "Timeout" in type(e).__name__ for e in _chain(exc)
    )


def _past_deadline(exc: BaseException) -> bool:
    """Whether a Gemini request ran out of its own time (DEADLINE_EXCEEDED, which carries 504)."""
    return type(google_error(exc)).__name__ == "DeadlineExceeded"


def _root_cause(exc: BaseException) -> str:
    """The innermost reason a connection failed, in a few words (e.g. "connection refused")."""
    chain = _chain(exc)
    if any(isinstance(e, ConnectionRefusedError) for e in chain):
        return "connection refused"
    innermost = chain[-1]
    text = " ".join(str(innermost).split())
    if "refused" in text.lower():
        return "connection refused"
    return (text[:120] or type(innermost).__name__).rstrip(".")


NOT_RETRIED = "not retried: MODEL_MAX_RETRIES=0"
"""How a failure is described when the client's retries are off."""


def _tried(retries: int) -> str:
    """How often the client retried before giving up, as the failure sentence says it."""
    if retries <= 0:
        return NOT_RETRIED
    return f"after {retries} retr{'y' if retries == 1 else 'ies'}"


def _status_problem(status: int, tried: str, error: ProviderError) -> str:
    """What an HTTP status that survived the client's retries means, with the provider's words."""
    words = error.words()
    if status in (401, 403):
        return f"refused the key ({error.said(status)})"
    if status == 404:
        return f"does not serve this model ({error.said(status)})"
    detail = f"{tried}{'; ' + words if words else ''}"
    once = tried == NOT_RETRIED
    if status == 429:
        return f"{'answered' if once else 'kept answering'} 429 Too Many Requests ({detail})"
    if status >= 500:
        return f"{'failed' if once else 'kept failing'} with HTTP {status} ({detail})"
    return f"refused the request ({error.said(status)})"


def _status_advice(exc: BaseException, provider: str, node: str, endpoint: str) -> str:
    """What to do about an HTTP status: the setting to fix, wait, or report a bug."""
    status = status_of(exc) or 0
    if status in (401, 403):
        key = PROVIDER_KEYS.get(provider, "the provider's API key setting")
        return f"set {key} to a key this endpoint accepts"
    if status == 404:
        return "set MODEL (or the node's *_MODEL setting) to a model this endpoint serves"
    if status == 429:
        wait = retry_after(exc)
        if wait is not None:
            return f"wait {wait:g} s (the provider's Retry-After)"
        return "wait for the account's rate limit to allow more (or raise MODEL_MAX_RETRIES)"
    if status >= 500:
        return f"check {endpoint}, or wait and retry"
    return f"the request the {node} node sent is a bug: please report it with this message"
