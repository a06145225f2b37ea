"""The graph's topology: a Mermaid snapshot, the main edge set and the task subgraph's edges."""

from __future__ import annotations

import os
from pathlib import Path

from common.settings import get_settings
from strategies.with_planner import graph as graph_module
from strategies.with_planner.graph import build_graph
from strategies.with_planner.task_graph import build_task_graph

SNAPSHOT = Path(__file__).parent / "snapshots" / "graph.mmd"

EXPECTED_EDGES = {
    ("__start__", "planner", False),
    ("planner", "planner", True),
    ("planner", "irreversibility_check", True),
    ("planner", "generate_response", True),
    ("planner", "__end__", True),
    ("irreversibility_check", "advance", False),
    ("advance", "advance", True),
    ("advance", "planner", True),
    ("advance", "generate_response", True),
    ("advance", "request_approval", True),
    ("request_approval", "await_approval", False),
    ("await_approval", "advance", False),
    ("generate_response", "__end__", False),
}
"""The plan loop: planner → irreversibility_check → advance (rounds of tasks) → generate_response,
with advance → request_approval → await_approval → advance when tasks stop for approval."""

EXPECTED_TASK_EDGES = {
    ("__start__", "orchestrate", True),
    ("__start__", "call_tool", True),
    ("orchestrate", "orchestrate", True),
    ("orchestrate", "call_tool", True),
    ("orchestrate", "assess_task", True),
    ("orchestrate", "__end__", True),
    ("call_tool", "orchestrate", True),
    ("call_tool", "assess_task", True),
    ("call_tool", "__end__", True),
    ("assess_task", "orchestrate", True),
    ("assess_task", "__end__", True),
}
"""One task's loop; a direct step starts at call_tool; an unusable answer gets another round."""

TASK_NODES = ("orchestrate", "call_tool", "assess_task")


def test_mermaid_drawing_matches_the_snapshot() -> None:
    drawing = build_graph().get_graph().draw_mermaid()
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
        SNAPSHOT.write_text(drawing, encoding="utf-8")
    assert SNAPSHOT.exists(), f"{SNAPSHOT} is missing: run with UPDATE_SNAPSHOTS=1"
    assert drawing == SNAPSHOT.read_text(encoding="utf-8"), (
        "The graph's topology changed; if intended, rerun with UPDATE_SNAPSHOTS=1"
    )


def test_every_edge_is_declared() -> None:
    drawn = build_graph().get_graph()
    edges = {(e.source, e.target, e.conditional) for e in drawn.edges}
    assert edges == EXPECTED_EDGES
    # The task loop runs inside advance (the scheduler): none of its nodes is a main-graph node.
    assert not set(TASK_NODES) & set(drawn.nodes)
    assert "run_task" not in drawn.nodes


def test_task_subgraph_edges() -> None:
    drawn = build_task_graph().get_graph()
    edges = {(e.source, e.target, e.conditional) for e in drawn.edges}
    assert edges == EXPECTED_TASK_EDGES


def test_served_graph_has_no_checkpointer_and_an_explicit_recursion_limit() -> None:
    served = graph_module.graph
    assert served.checkpointer is None
    assert served.name == "with_planner"
    assert served.config is not None
    assert served.config["recursion_limit"] == get_settings().recursion_limit


def test_every_context_field_has_a_description_for_studio() -> None:
    from strategies.with_planner.graph import graph

    schema = graph.get_context_jsonschema()
    assert schema is not None
    missing = [name for name, prop in schema["properties"].items() if not prop.get("description")]
    assert missing == []
    assert {"mcp_config", "model", "approval_mode", "max_parallel", "user_id"} <= set(
        schema["properties"]
    )
