"""Per-run knobs (LangGraph runtime context), JSON-serialisable, defaults from settings.

One path from configuration to a run: `context_from(settings, given)` validates what the caller
gave (CLI options, an SDK or server context dict, an embedding app) and fills every field the
caller left out from the settings, once. A `Context` that LangGraph builds from a partial dict
(the server, the SDK) leaves those fields UNSET until the turn's first step fills them (the
planner's `start_turn`; `context_of` for any later step).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from copy import copy
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import datetime
from enum import Enum
from typing import Any, Literal, get_args

from common.guardrails.config import GuardrailConfig
from common.models import (
    MissingKeyError,
    ModelConfigError,
    UnknownProviderError,
    load_chat_model,
    unknown_provider_problem,
)
from common.safety.inbox import InterruptFormat, parse_interrupt_format
from common.safety.policy import ApprovalMode, parse_approval_mode
from common.served.caller import Caller
from common.settings import MAX_TASK_ATTEMPTS_CAP, Settings, chosen_models, get_settings
from strategies.with_planner.dates import system_clock
from strategies.with_planner.offline import ANNOUNCEMENT, OFFLINE_MODEL


class ContextError(ValueError):
    """A run context that cannot be used: one sentence naming field, value and what is allowed."""


Strategy = Literal["exploratory", "conservative"]
"""Strategy profile of a run."""

STRATEGIES: tuple[str, ...] = get_args(Strategy)
"""The allowed strategy profiles."""

MODEL_ROLES = ("planner", "orchestrate", "assess", "response", "irreversibility")
"""Node roles that may have a model of their own."""

MODEL_FIELDS: tuple[str, ...] = ("model", *(f"{role}_model" for role in MODEL_ROLES))
"""The fields that name a model."""

FROM_SETTINGS: tuple[str, ...] = (
    *MODEL_FIELDS,
    "approval_mode",
    "interrupt_format",
    "max_task_attempts",
    "tool_timeout_s",
    "conversation_token_budget",
)
"""Fields whose default is the setting of the same name: unset until `context_from` fills them."""

_NOT_MODELS = tuple(name for name in FROM_SETTINGS if name not in MODEL_FIELDS)


class Unset(Enum):
    """Marks a field the caller left out, so the settings' value fills it (None is a value)."""

    UNSET = "unset"


UNSET: Any = Unset.UNSET
"""Default of every FROM_SETTINGS field; typed as the field, so filled contexts read plainly."""


def _unset() -> Any:
    # A factory, not a default: the JSON schema (Studio's form) then shows no default value
    # for the caller to send back, as when these defaults were read from the settings.
    return UNSET


@dataclass(kw_only=True)
class Context:
    """Runtime context of the with_planner graph; every field is optional.

    A FROM_SETTINGS field left out is UNSET until `context_from` (or `filled`) sets it.
    """

    mcp_config: dict[str, Any] | None = field(
        default=None,
        metadata={"description": 'MCP servers as {"mcpServers": {...}}; default: MCP_CONFIG file.'},
    )
    """MCP servers as `{"mcpServers": {...}}`; None reads the MCP_CONFIG file."""

    model: str = field(
        default_factory=_unset,
        metadata={"description": "Default model for every node, 'provider:model'."},
    )
    """Default model for every node, `provider:model`."""

    planner_model: str | None = field(
        default_factory=_unset,
        metadata={"description": "Model that writes the plan; default: model."},
    )
    """Model that writes the plan."""

    orchestrate_model: str | None = field(
        default_factory=_unset,
        metadata={"description": "Model that calls an expert's tools; default: model."},
    )
    """Model that calls an expert's tools."""

    assess_model: str | None = field(
        default_factory=_unset,
        metadata={"description": "Model that judges whether a task is done; default: model."},
    )
    """Model that judges whether a task is done."""

    response_model: str | None = field(
        default_factory=_unset,
        metadata={"description": "Model that writes the final answer; default: model."},
    )
    """Model that writes the final answer."""

    irreversibility_model: str | None = field(
        default_factory=_unset,
        metadata={"description": "Model that analyses irreversibility; default: model."},
    )
    """Model that analyses irreversibility."""

    approval_mode: ApprovalMode = field(
        default_factory=_unset,
        metadata={
            "description": "interrupt: ask a human; plan_only: hold irreversible calls; "
            "auto: run everything (logged)."
        },
    )
    """How irreversible calls are handled."""

    interrupt_format: InterruptFormat = field(
        default_factory=_unset,
        metadata={
            "description": "hitl: one approval interrupt per step in HumanInTheLoopMiddleware's "
            "format; agent_inbox: one call per interrupt in Agent Inbox's format (Agent Chat UI)."
        },
    )
    """How approval questions are asked."""

    max_task_attempts: int = field(
        default_factory=_unset,
        metadata={"description": "Orchestrate rounds per task before it fails."},
    )
    """Orchestrate rounds per task before it fails."""

    tool_timeout_s: float = field(
        default_factory=_unset,
        metadata={"description": "Seconds one MCP tool call may take."},
    )
    """Seconds one MCP tool call may take."""

    conversation_token_budget: int = field(
        default_factory=_unset,
        metadata={
            "description": "Tokens of conversation a model gets: the recent turns verbatim "
            "plus a summary of older ones (older messages leave the thread's state)."
        },
    )
    """Tokens of conversation a model gets: recent turns verbatim plus a summary of older ones."""

    max_parallel: int = field(
        default=4,
        metadata={"description": "Tasks run at the same time, at most."},
    )
    """Tasks run at the same time, at most."""

    max_steps: int = field(
        default=40,
        metadata={"description": "Orchestrate rounds and direct calls per turn, across tasks."},
    )
    """Orchestrate rounds and direct calls per turn, across all tasks."""

    strategy: Strategy = field(
        default="exploratory",
        metadata={
            "description": "conservative: one tool call per orchestrate turn, at most 2 "
            "attempts, direct steps preferred; exploratory: as configured."
        },
    )
    """Strategy profile."""

    user_id: str = field(
        default="default",
        metadata={"description": "Whose memory of past runs to use; never shared between users."},
    )
    """Whose memory of past runs to read and write."""

    guardrails: dict[str, Any] | None = field(
        default=None,
        metadata={
            "description": "Guardrail overrides for this run (keys of GuardrailConfig), merged "
            "over the GUARDRAILS setting."
        },
    )
    """Guardrail overrides for this run, merged over the settings."""

    caller: Caller | None = field(
        default=None,
        metadata={"description": "Set where the run enters the graph: who sent it (never sent)."},
    )
    """Who sent the run, on whose thread (`common.served.caller`): set by the graph's entry."""

    now: str | None = field(
        default=None,
        metadata={"description": "Fixed current time (ISO 8601) for reproducible runs."},
    )
    """Fixed current time (ISO 8601); None uses the system clock."""

    def __post_init__(self) -> None:
        # Every field is checked where it enters: a context dict from the SDK, the dev server
        # or an embedding app is coerced into this class before the first node runs.
        problems = [p for p in (check(self) for check in _CHECKS) if p]
        if problems:
            raise ContextError("; ".join(problems) + ".")

    def filled(self) -> Context:
        """A copy with every unset field taken from the process settings."""
        return context_from(get_settings(), self)

    def guardrail_config(self) -> GuardrailConfig:
        """The settings' guardrails with this run's overrides applied."""
        base = get_settings().guardrails
        if not self.guardrails:
            return base
        return GuardrailConfig.model_validate({**base.model_dump(), **self.guardrails})

    def task_attempts(self) -> int:
        """Attempts per task under the strategy profile."""
        cap = 2 if self.strategy == "conservative" else MAX_TASK_ATTEMPTS_CAP
        return min(self.max_task_attempts, cap)

    def current_time(self) -> datetime:
        """The run's notion of now: `now` when given, else the system clock."""
        if self.now:
            moment = datetime.fromisoformat(self.now)
            return moment if moment.tzinfo else moment.astimezone()
        return system_clock()

    def model_for(self, role: str) -> str:
        """The model spec for a node role (`planner`, `orchestrate`, ...), else `model`."""
        value: str | None = getattr(self, f"{role}_model")
        return value or self.model


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_closed(value: object, parse: Callable[[object, str], object], source: str) -> str | None:
    """Why a closed-set field's value is refused (the parser's sentence), or None."""
    if value is UNSET:
        return None
    try:
        parse(value, source)
    except ValueError as exc:
        return str(exc).rstrip(".")
    return None


def _check_mode(ctx: Context) -> str | None:
    return _check_closed(ctx.approval_mode, parse_approval_mode, "context approval_mode")


def _check_format(ctx: Context) -> str | None:
    return _check_closed(ctx.interrupt_format, parse_interrupt_format, "context interrupt_format")


def _check_strategy(ctx: Context) -> str | None:
    if type(ctx.strategy) is str and ctx.strategy in STRATEGIES:
        return None
    return f"context strategy {_shown(ctx.strategy)} is not allowed: use one of " + ", ".join(
        STRATEGIES
    )


def _whole(name: str, value: object, low: int, high: int | None = None) -> str | None:
    ok = type(value) is int and value >= low and (high is None or value <= high)
    if ok:
        return None
    bounds = f"from {low} to {high}" if high is not None else f"of {low} or more"
    return f"context {name} {_shown(value)} is invalid: expected a whole number {bounds}"


def _check_numbers(ctx: Context) -> str | None:
    problems = [
        _whole("max_parallel", ctx.max_parallel, 1),
        _whole("max_steps", ctx.max_steps, 1),
    ]
    if ctx.conversation_token_budget is not UNSET:
        problems.append(_whole("conversation_token_budget", ctx.conversation_token_budget, 100))
    if ctx.max_task_attempts is not UNSET:
        problems.append(
            _whole("max_task_attempts", ctx.max_task_attempts, 1, MAX_TASK_ATTEMPTS_CAP)
        )
    timeout = ctx.tool_timeout_s
    if timeout is not UNSET and (
        type(timeout) not in (int, float) or not 0 < timeout < float("inf")
    ):
        problems.append(
            f"context tool_timeout_s {_shown(timeout)} is invalid: expected a positive number "
            "of seconds"
        )
    return "; ".join(p for p in problems if p) or None


def _check_texts(ctx: Context) -> str | None:
    problems = []
    for name in (*MODEL_FIELDS, "user_id", "now"):
        value = getattr(ctx, name)
        optional = name not in ("model", "user_id")
        if value is UNSET or (value is None and optional) or (type(value) is str and value.strip()):
            continue
        problems.append(f"context {name} {_shown(value)} is invalid: expected a non-empty string")
    for name in ("mcp_config", "guardrails"):
        value = getattr(ctx, name)
        if value is not None and not isinstance(value, dict):
            problems.append(f"context {name} {_shown(value)} is invalid: expected a JSON object")
    if type(ctx.now) is str and ctx.now.strip():
        try:
            datetime.fromisoformat(ctx.now)
        except ValueError:
            problems.append(f"context now {_shown(ctx.now)} is invalid: expected ISO 8601 time")
    return "; ".join(problems) or None


def _check_caller(ctx: Context) -> str | None:
    if ctx.caller is None or isinstance(ctx.caller, Caller):
        return None
    return "context caller is set where the run enters the graph, never given: leave it out"


_CHECKS = (
    _check_mode,
    _check_format,
    _check_strategy,
    _check_numbers,
    _check_texts,
    _check_caller,
)


def _validated(values: Mapping[str, Any] | None) -> Context:
    """A Context of exactly the caller's values (unknown fields refused), left out ones unset."""
    values = dict(values or {})
    unknown = sorted(set(values) - {f.name for f in fields(Context)})
    if unknown:
        allowed = ", ".join(f.name for f in fields(Context))
        raise ContextError(
            f"context has unknown field(s) {', '.join(map(repr, unknown))}: allowed are {allowed}."
        )
    return Context(**values)


def _filled(ctx: Context, settings: Settings, names: tuple[str, ...]) -> Context:
    # No new validation: the caller's values were checked when `ctx` was built, the settings
    # when they were read; a copy, so the caller's object stays as it was.
    ctx = copy(ctx)
    for name in names:
        if getattr(ctx, name) is UNSET:
            setattr(ctx, name, getattr(settings, name))
    return ctx


def context_from(settings: Settings, given: Context | Mapping[str, Any] | None = None) -> Context:
    """The run's context: the caller's values, validated, over the settings' defaults.

    The one place a setting becomes a run's default (CLI, server, embedding app).
    """
    ctx = given if isinstance(given, Context) else _validated(given)
    return _filled(ctx, settings, FROM_SETTINGS)


def kept_settings(ctx: Context) -> dict[str, Any]:
    """The settings a turn keeps: every field but the caller (each run has its own)."""
    kept = copy(ctx)
    kept.caller = None
    return {k: v for k, v in asdict(kept).items() if k != "caller"}


def make_context(values: Mapping[str, Any] | None = None) -> Context:
    """A validated Context from a dict (CLI, SDK, embedding app); one-line ContextError if not.

    Unset fields come from the settings; when the caller named no model, the model fields stay
    unset for `resolve_models`, which may fall back to `offline:rules`.
    """
    ctx = _validated(values)
    names = FROM_SETTINGS if explicit_models(ctx) else _NOT_MODELS
    return _filled(ctx, get_settings(), names)


def explicit_models(given: Context | Mapping[str, Any]) -> bool:
    """Whether the caller chose a model: its values name one (the settings' are defaults).

    The one rule for "the caller chose a model", used by the CLI and by the graph: a chosen
    model that cannot load is an error; a default one may fall back to `offline:rules`.
    """
    get = given.get if isinstance(given, Mapping) else lambda name, _: getattr(given, name)
    return any(get(name, UNSET) not in (UNSET, None) for name in MODEL_FIELDS)


def turn_context(
    given: Context | Mapping[str, Any] | None,
    settings: Settings | None = None,
    *,
    labels: Mapping[str, str] | None = None,
    check_chosen: bool = True,
) -> tuple[Context, str | None]:
    """The validated, complete context of a turn, and the offline announcement if it applies.

    Models nobody chose that cannot load fall back to `offline:rules`. A model the caller or
    the settings chose that cannot load is a ModelConfigError naming where it was set: the
    caller's fields by `labels` (e.g. {"model": "--model"}), else as the run's context field.
    The graph passes `check_chosen=False`: a model its caller named fails where it is used.
    """
    process = settings or get_settings()
    ctx = context_from(process, given)
    named = given if given is not None else {}
    callers = [n for n in MODEL_FIELDS if explicit_models({n: _get(named, n)})]
    if callers and not check_chosen:
        return ctx, None
    origins = {n: (labels or {}).get(n, f"the run's context {n}") for n in callers}
    origins.update({n: n.upper() for n in chosen_models(process) if n not in origins})
    return resolve_models(ctx, origins)


def _get(given: Context | Mapping[str, Any], name: str) -> Any:
    return given.get(name, UNSET) if isinstance(given, Mapping) else getattr(given, name)


def resolve_models(ctx: Context, origins: Mapping[str, str]) -> tuple[Context, str | None]:
    """Check every node's model loads; with none chosen and none usable, use `offline:rules`.

    The one rule for the keyless demo, used by the CLI and by the graph (so `langgraph dev` and
    any server behave alike): a model someone chose (`origins`: field -> where it was set) that
    cannot load is an error naming where it was set; a default without a key falls back, and
    the returned announcement says so. Unset fields are filled from the settings first.
    """
    ctx = context_from(get_settings(), ctx)
    for role in MODEL_ROLES:
        field_name = f"{role}_model" if getattr(ctx, f"{role}_model") else "model"
        try:
            load_chat_model(ctx.model_for(role))
        except ModelConfigError as exc:
            if origins:
                raise _refusal(exc, field_name, origins) from exc
            return _offline(ctx), ANNOUNCEMENT
    return ctx, None


def _refusal(exc: ModelConfigError, field_name: str, origins: Mapping[str, str]) -> Exception:
    """The error for a chosen model that cannot load, naming where it was chosen."""
    where = origins.get(field_name) or next(iter(origins.values()))
    keyless = f"unset {where}" if where.isupper() else f"leave out {where}"
    if isinstance(exc, MissingKeyError):
        return ModelConfigError(
            f"{where} is {exc.spec!r}, which needs {exc.key}, and {exc.unset}: set "
            f"{exc.them} in .env or the environment{exc.example}, or {keyless} to run the keyless "
            f"demo model {OFFLINE_MODEL}."
        )
    if isinstance(exc, UnknownProviderError):
        return ModelConfigError(
            f"{where} is {exc.spec!r}, which {unknown_provider_problem(exc.provider)}."
        )
    return exc


def _offline(ctx: Context) -> Context:
    """`ctx` running every node on `offline:rules`."""
    return replace(
        ctx,
        model=OFFLINE_MODEL,
        planner_model=None,
        orchestrate_model=None,
        assess_model=None,
        response_model=None,
        irreversibility_model=None,
    )
