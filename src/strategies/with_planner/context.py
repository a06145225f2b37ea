"""Per-run knobs (LangGraph runtime context), JSON-serialisable, defaults from settings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from typing import Any, Literal, get_args

from common.guardrails import GuardrailConfig
from common.models import ModelConfigError, load_chat_model
from common.safety.policy import ApprovalMode, ApprovalModeError, parse_approval_mode
from common.settings import MAX_TASK_ATTEMPTS_CAP, get_settings
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


@dataclass(kw_only=True)
class Context:
    """Runtime context of the with_planner graph; every field is optional."""

    mcp_config: dict[str, Any] | None = field(
        default=None,
        metadata={"description": 'MCP servers as {"mcpServers": {...}}; default: MCP_CONFIG file.'},
    )
    """MCP servers as `{"mcpServers": {...}}`; None reads the MCP_CONFIG file."""

    model: str = field(
        default_factory=lambda: get_settings().model,
        metadata={"description": "Default model for every node, 'provider:model'."},
    )
    """Default model for every node, `provider:model`."""

    planner_model: str | None = field(
        default_factory=lambda: get_settings().planner_model,
        metadata={"description": "Model that writes the plan; default: model."},
    )
    """Model that writes the plan."""

    orchestrate_model: str | None = field(
        default_factory=lambda: get_settings().orchestrate_model,
        metadata={"description": "Model that calls an expert's tools; default: model."},
    )
    """Model that calls an expert's tools."""

    assess_model: str | None = field(
        default_factory=lambda: get_settings().assess_model,
        metadata={"description": "Model that judges whether a task is done; default: model."},
    )
    """Model that judges whether a task is done."""

    response_model: str | None = field(
        default_factory=lambda: get_settings().response_model,
        metadata={"description": "Model that writes the final answer; default: model."},
    )
    """Model that writes the final answer."""

    irreversibility_model: str | None = field(
        default_factory=lambda: get_settings().irreversibility_model,
        metadata={"description": "Model that analyses irreversibility; default: model."},
    )
    """Model that analyses irreversibility."""

    approval_mode: ApprovalMode = field(
        default_factory=lambda: get_settings().approval_mode,
        metadata={
            "description": "interrupt: ask a human; plan_only: hold irreversible calls; "
            "auto: run everything (logged)."
        },
    )
    """How irreversible calls are handled."""

    max_task_attempts: int = field(
        default_factory=lambda: get_settings().max_task_attempts,
        metadata={"description": "Orchestrate rounds per task before it fails."},
    )
    """Orchestrate rounds per task before it fails."""

    tool_timeout_s: float = field(
        default_factory=lambda: get_settings().tool_timeout_s,
        metadata={"description": "Seconds one MCP tool call may take."},
    )
    """Seconds one MCP tool call may take."""

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


def _check_mode(ctx: Context) -> str | None:
    try:
        parse_approval_mode(ctx.approval_mode, "context approval_mode")
    except ApprovalModeError as exc:
        return str(exc).rstrip(".")
    return None


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
        _whole("max_task_attempts", ctx.max_task_attempts, 1, MAX_TASK_ATTEMPTS_CAP),
        _whole("max_parallel", ctx.max_parallel, 1),
        _whole("max_steps", ctx.max_steps, 1),
    ]
    timeout = ctx.tool_timeout_s
    if type(timeout) not in (int, float) or not 0 < timeout < float("inf"):
        problems.append(
            f"context tool_timeout_s {_shown(timeout)} is invalid: expected a positive number "
            "of seconds"
        )
    return "; ".join(p for p in problems if p) or None


def _check_texts(ctx: Context) -> str | None:
    problems = []
    for name in ("model", *(f"{r}_model" for r in MODEL_ROLES), "user_id", "now"):
        value = getattr(ctx, name)
        optional = name not in ("model", "user_id")
        if (value is None and optional) or (type(value) is str and value.strip()):
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


_CHECKS = (_check_mode, _check_strategy, _check_numbers, _check_texts)


def make_context(values: Mapping[str, Any] | None = None) -> Context:
    """A validated Context from a dict (CLI, SDK, embedding app); one-line ContextError if not."""
    values = dict(values or {})
    unknown = sorted(set(values) - {f.name for f in fields(Context)})
    if unknown:
        allowed = ", ".join(f.name for f in fields(Context))
        raise ContextError(
            f"context has unknown field(s) {', '.join(map(repr, unknown))}: allowed are {allowed}."
        )
    return Context(**values)


def explicit_models(ctx: Context) -> bool:
    """Whether the run names models of its own (else they are the settings' defaults)."""
    settings = get_settings()
    if ctx.model != settings.model:
        return True
    return any(
        getattr(ctx, f"{role}_model") != getattr(settings, f"{role}_model") for role in MODEL_ROLES
    )


def resolve_models(ctx: Context, explicit: bool) -> tuple[Context, str | None]:
    """Check every node's model loads; with none chosen and none usable, use `offline:rules`.

    The one rule for the keyless demo, used by the CLI and by the graph (so `langgraph dev` and
    any server behave alike): a model the caller chose that cannot load is an error
    (ModelConfigError); the settings' default without a key falls back, and the returned
    announcement says so.
    """
    try:
        for role in MODEL_ROLES:
            load_chat_model(ctx.model_for(role))
    except ModelConfigError:
        if explicit:
            raise
        offline = replace(
            ctx,
            model=OFFLINE_MODEL,
            planner_model=None,
            orchestrate_model=None,
            assess_model=None,
            response_model=None,
            irreversibility_model=None,
        )
        return offline, ANNOUNCEMENT
    return ctx, None
