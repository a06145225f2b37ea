"""Per-run knobs (LangGraph runtime context), JSON-serialisable, defaults from settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from common.dates import system_clock
from common.guardrails import GuardrailConfig
from common.settings import MAX_TASK_ATTEMPTS_CAP, ApprovalMode, get_settings


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

    strategy: Literal["exploratory", "conservative"] = field(
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
        if self.max_parallel < 1 or self.max_steps < 1:
            raise ValueError("max_parallel and max_steps must be at least 1")
        if not 1 <= self.max_task_attempts <= MAX_TASK_ATTEMPTS_CAP:
            raise ValueError(
                f"max_task_attempts must be between 1 and {MAX_TASK_ATTEMPTS_CAP}, "
                f"got {self.max_task_attempts}"
            )
        if self.tool_timeout_s <= 0:
            raise ValueError(f"tool_timeout_s must be positive, got {self.tool_timeout_s}")

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
