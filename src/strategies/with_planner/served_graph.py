"""The served graph checks a run's context itself, before any node (or expert) starts.

The auth handlers refuse a context that would configure the server at the API edge; this is the
second check, inside the graph `server.py` serves, so a way around the edge (a server version
that passes context another way, a deployment without the auth module) still cannot choose
the commands the server runs or loosen its guard. The run fails with `served.refusal`'s
sentence, a ContextError, before its first step. Studio's own user is trusted, as at the edge;
embedding never uses it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import fields, is_dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph_sdk.auth.types import StudioUser

from common.served.caller import auth_identity
from common.served.context_rule import refusal
from common.settings import get_settings
from strategies.with_planner.context import ContextError
from strategies.with_planner.resume import ScreenedGraph


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


def check_served_run(context: Any, config: RunnableConfig | None) -> None:
    """Raise ContextError when a served run's context sets what a client may not.

    LangGraph Studio's own user is trusted here as at the API edge (`auth._studio`).
    """
    configurable = (config or {}).get("configurable") or {}
    if isinstance(configurable.get("langgraph_auth_user"), StudioUser):
        return
    settings = get_settings()
    caller = auth_identity(configurable) if settings.auth_on else None
    why = refusal(client_fields(context), settings, caller)
    if why is not None:
        raise ContextError(why)


class ServedGraph(ScreenedGraph):
    """A screened graph whose every run's context is checked as a client's before it starts."""

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """`astream`, refusing a context a served client may not set."""
        check_served_run(kwargs.get("context"), config)
        async for chunk in super().astream(input, config, **kwargs):
            yield chunk

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        """`stream`, refusing a context a served client may not set."""
        check_served_run(kwargs.get("context"), config)
        yield from super().stream(input, config, **kwargs)


def served(graph: CompiledStateGraph[Any, Any, Any, Any]) -> ServedGraph:
    """A copy of `graph` that checks each run's context as a served client's."""
    # Built the way `resume.screening` builds its copy, so the server's copies keep the class.
    kept = {k: v for k, v in graph.__dict__.items() if k != "__orig_class__"}
    return ServedGraph(**kept)
