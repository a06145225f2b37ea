"""Wire the with_planner graph: the plan loop, the per-task subgraph and their entry points.

`advance` runs each round of tasks (`scheduler`), a task on the `run_task` subgraph built here
or, for a direct step, on `call_tool` alone. Both are handed to `advance` so LangGraph sees the
subgraph in its closure and draws it (`get_graph(xray=True)`, what Studio shows).
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
from strategies.with_planner import plan_card, routing
from strategies.with_planner.context import Context
from strategies.with_planner.nodes import (
    assess_task,
    await_approval,
    call_tool,
    generate_response,
    irreversibility_check,
    make_advance,
    orchestrate,
    planner,
    request_approval,
)
from strategies.with_planner.resume import screening
from strategies.with_planner.state import InputState, State, TaskInput, TaskOutput, TaskRun


def build_task_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    """The per-task loop: orchestrate → call_tool → assess_task, on the task's own messages."""
    builder = StateGraph(
        TaskRun, context_schema=Context, input_schema=TaskInput, output_schema=TaskOutput
    )
    builder.add_node("orchestrate", orchestrate)
    builder.add_node("call_tool", call_tool)
    builder.add_node("assess_task", assess_task)
    builder.add_conditional_edges(START, routing.task_start)
    builder.add_conditional_edges("orchestrate", routing.after_orchestrate)
    builder.add_conditional_edges("call_tool", routing.after_call_tool)
    builder.add_conditional_edges("assess_task", routing.after_assess)
    return builder.compile(name="run_task")


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
    # The plan card (generative UI) rides on the nodes that make and answer a plan.
    builder.add_node("planner", plan_card.on_planner(planner))
    builder.add_node("irreversibility_check", irreversibility_check)
    builder.add_node("advance", make_advance(build_task_graph(), call_tool))
    builder.add_node("request_approval", request_approval)
    builder.add_node("await_approval", await_approval)
    builder.add_node("generate_response", plan_card.on_answer(generate_response))

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


graph: CompiledStateGraph[Any, Any, Any, Any]
"""The graph with the default limits and no checkpointer (declared here, built by `__getattr__`)."""

_built: dict[str, CompiledStateGraph[Any, Any, Any, Any]] = {}


def __getattr__(name: str) -> Any:
    """`graph`: the graph with the default limits and no checkpointer, built on first use.

    (`server.graph` is the served one.) Built when first read, not when this module is
    imported: a CLI run builds its own graph with its checkpointer and store, and compiling
    this one too would only lengthen its start. Reading it reads no settings: the bound is the
    default limit, which covers the longest run any allowed budgets permit (a run's config may
    still raise it).
    """
    if name != "graph":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if "graph" not in _built:
        _built["graph"] = build_graph(recursion_limit=RECURSION_LIMIT)
    return _built["graph"]
