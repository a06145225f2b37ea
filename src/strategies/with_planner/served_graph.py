"""The served graph checks a run's context itself, before any node (or expert) starts.

The auth handlers refuse a context that would configure the server at the API edge; this is the
second check, inside the graph `server.py` serves, so a way around the edge (a server version
that passes context another way, a deployment without the auth module) still cannot choose
the commands the server runs or loosen its guard. The run fails with `context_rule.refusal`'s
sentence, a ContextError, before its first step. Studio's own user is trusted, as at the edge;
embedding never uses it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph

from common.served.context_rule import check_served_run
from strategies.with_planner.context import ContextError
from strategies.with_planner.resume import ScreenedGraph


def _checked(context: Any, config: RunnableConfig | None) -> None:
    """Raise ContextError when a served run's context sets what a client may not."""
    why = check_served_run(context, config)
    if why is not None:
        raise ContextError(why)


class ServedGraph(ScreenedGraph):
    """A screened graph whose every run's context is checked as a client's before it starts."""

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """`astream`, refusing a context a served client may not set."""
        _checked(kwargs.get("context"), config)
        async for chunk in super().astream(input, config, **kwargs):
            yield chunk

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        """`stream`, refusing a context a served client may not set."""
        _checked(kwargs.get("context"), config)
        yield from super().stream(input, config, **kwargs)


def served(graph: CompiledStateGraph[Any, Any, Any, Any]) -> ServedGraph:
    """A copy of `graph` that checks each run's context as a served client's."""
    # Built the way `resume.screening` builds its copy, so the server's copies keep the class.
    kept = {k: v for k, v in graph.__dict__.items() if k != "__orig_class__"}
    return ServedGraph(**kept)
