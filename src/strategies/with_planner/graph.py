"""Wire the with_planner graph: nodes, conditional edges, and the compiled entry points."""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from common.settings import get_settings
from strategies.with_planner import routing
from strategies.with_planner.context import Context
from strategies.with_planner.nodes import (
    advance,
    assess_task,
    call_tool,
    generate_response,
    irreversibility_check,
    orchestrate,
    planner,
)
from strategies.with_planner.state import InputState, State


def build_graph(
    checkpointer: BaseCheckpointSaver[Any] | None = None, store: BaseStore | None = None
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the graph, optionally with a checkpointer and a store (for embedding)."""
    builder = StateGraph(State, context_schema=Context, input_schema=InputState)
    builder.add_node("planner", planner)
    builder.add_node("irreversibility_check", irreversibility_check)
    builder.add_node("orchestrate", orchestrate)
    builder.add_node("call_tool", call_tool)
    builder.add_node("assess_task", assess_task)
    builder.add_node("advance", advance)
    builder.add_node("generate_response", generate_response)

    builder.add_edge(START, "planner")
    builder.add_conditional_edges("planner", routing.after_planner)
    builder.add_edge("irreversibility_check", "orchestrate")
    builder.add_conditional_edges("orchestrate", routing.after_orchestrate)
    builder.add_conditional_edges("call_tool", routing.after_call_tool)
    builder.add_conditional_edges("assess_task", routing.after_assess)
    builder.add_conditional_edges("advance", routing.after_advance)
    builder.add_edge("generate_response", "__end__")

    compiled = builder.compile(checkpointer=checkpointer, store=store, name="with_planner")
    return compiled.with_config(recursion_limit=get_settings().recursion_limit)


graph = build_graph()
"""The graph served by `langgraph dev` (no checkpointer: the server brings its own)."""
