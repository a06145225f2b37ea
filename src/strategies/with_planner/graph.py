"""Wire the with_planner graph: the plan loop and its entry points.

`advance` runs each round of tasks (`scheduler`), a task on the `run_task` subgraph
(`task_graph.build_task_graph`) or, for a direct step, on `call_tool` alone.
"""

from __future__ import annotations

import warnings
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from common.settings import RECURSION_LIMIT, get_settings
from strategies.with_planner import routing
from strategies.with_planner.context import Context
from strategies.with_planner.nodes import (
    advance,
    await_approval,
    generate_response,
    irreversibility_check,
    planner,
    request_approval,
)
from strategies.with_planner.resume import screening
from strategies.with_planner.state import InputState, State


def build_graph(
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    store: BaseStore | None = None,
    recursion_limit: int | None = None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the graph, optionally with a checkpointer and a store (for embedding).

    Give a store with a durable checkpointer: the ledger that keeps an approved call from
    running twice after a crash lives in it (without one it is kept in this process only).
    `recursion_limit` defaults to the RECURSION_LIMIT setting, read when this is called.
    """
    if checkpointer is not None and store is None and not isinstance(checkpointer, InMemorySaver):
        warnings.warn(
            "build_graph: a durable checkpointer without a store keeps the approved-call ledger "
            "in memory, so a call cut off by a crash could run again after a restart; pass "
            "store=... (e.g. common.persistence.sqlite_store).",
            stacklevel=2,
        )
    builder = StateGraph(State, context_schema=Context, input_schema=InputState)
    builder.add_node("planner", planner)
    builder.add_node("irreversibility_check", irreversibility_check)
    builder.add_node("advance", advance)
    builder.add_node("request_approval", request_approval)
    builder.add_node("await_approval", await_approval)
    builder.add_node("generate_response", generate_response)

    builder.add_edge(START, "planner")
    builder.add_conditional_edges("planner", routing.after_planner)
    builder.add_edge("irreversibility_check", "advance")
    builder.add_conditional_edges(
        "advance",
        routing.dispatch,
        ["request_approval", "planner", "advance", "generate_response"],
    )
    builder.add_edge("request_approval", "await_approval")
    builder.add_edge("await_approval", "advance")
    builder.add_edge("generate_response", "__end__")

    # Screened: resumes LangGraph would drop or crash on reach the asking node as refusals.
    compiled = screening(
        builder.compile(checkpointer=checkpointer, store=store, name="with_planner")
    )
    limit = recursion_limit if recursion_limit is not None else get_settings().recursion_limit
    return compiled.with_config(recursion_limit=limit)


# Importing this module reads no settings: the bound is the default limit, which covers the
# longest run any allowed budgets permit (a run's config may still raise it).
graph = build_graph(recursion_limit=RECURSION_LIMIT)
"""The graph with the default limits and no checkpointer (`server.graph` is the served one)."""
