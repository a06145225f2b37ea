"""The graph's topology: a Mermaid snapshot, the main edge set and the task subgraph's edges."""

from __future__ import annotations

import os
from pathlib import Path

from common.settings import get_settings
from strategies.with_planner import graph as graph_module
from strategies.with_planner.graph import build_graph, build_task_graph

SNAPSHOT = Path(__file__).parent / "snapshots" / "graph.mmd"

EXPECTED_EDGES = {
    ("__start__", "planner", False),
    ("planner", "planner", True),
    ("planner", "irreversibility_check", True),
    ("planner", "generate_response", True),
    ("planner", "__end__", True),
    ("irreversibility_check", "advance", False),
    ("advance", "run_task", True),
    ("advance", "planner", True),
    ("advance", "generate_response", True),
    ("advance", "request_approval", True),
    ("run_task", "advance", False),
    ("request_approval", "await_approval", False),
    ("await_approval", "advance", False),
    ("generate_response", "__end__", False),
}
"""The plan loop: planner → irreversibility_check → advance ⇄ run_task → generate_response,
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
    # The task loop is hidden behind run_task: none of its nodes is a node of the main graph.
    assert not set(TASK_NODES) & set(drawn.nodes)


def test_task_subgraph_edges() -> None:
    drawn = build_task_graph().get_graph()
    edges = {(e.source, e.target, e.conditional) for e in drawn.edges}
    assert edges == EXPECTED_TASK_EDGES


def test_xray_drawing_shows_the_task_loop_inside_run_task() -> None:
    drawn = build_graph().get_graph(xray=True)
    for node in TASK_NODES:
        assert f"run_task:{node}" in drawn.nodes
    assert "run_task" not in drawn.nodes
    edges = {(e.source, e.target, e.conditional) for e in drawn.edges}
    # The subgraph's edges appear under its prefix, wired to the main loop through advance.
    inner = {
        (_prefixed(source), _prefixed(target), conditional)
        for source, target, conditional in EXPECTED_TASK_EDGES
    }
    assert inner <= edges
    assert ("advance", "run_task:__start__", True) in edges
    assert ("run_task:__end__", "advance", False) in edges
    mermaid = drawn.draw_mermaid()
    assert "subgraph run_task" in mermaid
    for node in TASK_NODES:
        assert f"run_task\\3a{node}({node})" in mermaid


def _prefixed(node: str) -> str:
    return f"run_task:{node}"


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
