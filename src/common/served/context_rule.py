"""What a served client may put in a run's context: every `Context` field, classified once.

Served, the run context is the server's configuration: which commands run as MCP servers
(`mcp_config`), the guardrails, the models, how irreversible calls are handled. A client may
only tighten what the operator set; fields the operator lists in SERVED_CONTEXT_FIELDS are
trusted to clients (a risk the docs spell out). `refusal` says why a context is refused, in one
sentence naming the field, or None; the auth handlers ask it when a run, an assistant or a cron
is created, before anything runs. Embedding (`build_graph` in-process) never asks: the
embedding application is trusted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from functools import cache
from typing import Any, Literal

from langgraph_sdk.auth.types import StudioUser

from common.served.caller import USER_KEY, auth_identity
from common.settings import MODEL_SETTINGS, ConfigError, Settings, get_settings

Access = Literal["operator", "tighten", "client", "identity", "graph"]
"""Who may set a field served: the operator only, a client only to tighten, any client, only
as the caller's own identity, or nobody but the graph's entry."""

ACCESS: dict[str, Access] = {
    "mcp_config": "operator",
    **dict.fromkeys(MODEL_SETTINGS, "operator"),
    "guardrails": "operator",
    "approval_mode": "tighten",
    "max_task_attempts": "tighten",
    "tool_timeout_s": "tighten",
    "conversation_token_budget": "tighten",
    "max_parallel": "tighten",
    "max_steps": "tighten",
    "interrupt_format": "client",
    "strategy": "client",
    "now": "client",
    "user_id": "identity",
    "caller": "graph",
}
"""Every Context field and who may set it served (a test checks none is missing)."""

STRICTNESS = ("auto", "interrupt", "plan_only")
"""Approval modes from the one that asks least to the one that holds most."""


@cache
def _defaults() -> dict[str, Any]:
    """Each Context field's own default (imported late: the auth module loads this cheaply)."""
    from strategies.with_planner.context import Context

    return {f.name: f.default for f in fields(Context)}


def check_served_fields(settings: Settings) -> None:
    """Refuse a SERVED_CONTEXT_FIELDS entry that names no context field (ConfigError)."""
    unknown = [name for name in settings.served_context_fields if name not in ACCESS]
    if unknown:
        raise ConfigError(
            f"Setting SERVED_CONTEXT_FIELDS names {', '.join(map(repr, unknown))}, which is no "
            f"run context field: use some of {', '.join(ACCESS)}."
        )


def refusal(given: Mapping[str, Any], settings: Settings, caller: str | None = None) -> str | None:
    """Why a served client may not run with the context `given`, or None when it may.

    `caller` is the authenticated identity (None on a server without auth, one local user).
    Fields that are no Context field are left alone: the server drops them before the run.
    """
    for name, value in given.items():
        access = ACCESS.get(name)
        if access is None or name in settings.served_context_fields:
            continue
        if access == "operator":
            return (
                f"The run context field {name!r} is set by the server's operator, not by a "
                "client: leave it out (the operator may allow it in SERVED_CONTEXT_FIELDS)."
            )
        if access == "graph":
            return (
                f"The run context field {name!r} is set by the server to who you are: leave it out."
            )
        if access == "identity" and caller is not None and value != caller:
            return (
                f"The run context field 'user_id' names {value!r}, but you are signed in as "
                f"{caller!r}: leave it out, the run's user is the signed-in identity."
            )
        if access == "tighten" and (why := _loosens(name, value, settings)):
            return why
    return None


def _loosens(name: str, value: Any, settings: Settings) -> str | None:
    """Why `value` asks for more than the operator allows for `name`, or None."""
    if name == "approval_mode":
        server = settings.approval_mode
        if value in STRICTNESS and STRICTNESS.index(value) < STRICTNESS.index(server):
            allowed = ", ".join(STRICTNESS[STRICTNESS.index(server) :])
            return (
                f"The run context field 'approval_mode' {value!r} asks less than the server's "
                f"{server!r}: a client may choose only {allowed}."
            )
        return None
    # The operator's limit: the setting of the same name, else the field's own default.
    limit = getattr(settings, name) if name in Settings.model_fields else _defaults()[name]
    if isinstance(value, int | float) and not isinstance(value, bool) and value > limit:
        return (
            f"The run context field {name!r} {value!r} is above the server's {limit!r}: a "
            "client may only lower it."
        )
    return None


def client_fields(context: Any) -> dict[str, Any]:
    """The fields a run's context sets: a dict as sent, or a Context's non-default fields."""
    if isinstance(context, Mapping):
        return dict(context)
    if is_dataclass(context) and not isinstance(context, type):
        return {
            f.name: getattr(context, f.name)
            for f in fields(context)
            if getattr(context, f.name) != f.default
        }
    return {}


def check_served_run(context: Any, config: Mapping[str, Any] | None) -> str | None:
    """Why a served run's context sets what a client may not, or None (the graph's own check).

    LangGraph Studio's own user is trusted as at the API edge (`handlers._studio`): without auth.
    """
    configurable = (config or {}).get("configurable") or {}
    settings = get_settings()
    if isinstance(configurable.get(USER_KEY), StudioUser) and not settings.auth_on:
        # Without auth Studio is the one local user; with auth it is trusted with nothing.
        return None
    caller = auth_identity(configurable) if settings.auth_on else None
    return refusal(client_fields(context), settings, caller)
