"""Wire the per-task subgraph: orchestrate → call_tool → assess_task, on the task's own messages."""

from __future__ import annotations

from functools import cache
from typing import Any

from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from strategies.with_planner import routing
from strategies.with_planner.context import Context
from strategies.with_planner.nodes.assess import assess_task
from strategies.with_planner.nodes.call_tool import call_tool
from strategies.with_planner.nodes.orchestrate import orchestrate
from strategies.with_planner.state import TaskInput, TaskOutput, TaskRun


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


@cache
def task_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    """The compiled per-task subgraph, built once per process."""
    return build_task_graph()
