"""The graph's topology: a Mermaid snapshot and the expected edge set."""

from __future__ import annotations

import os
from pathlib import Path

from common.settings import get_settings
from strategies.with_planner import graph as graph_module
from strategies.with_planner.graph import build_graph

SNAPSHOT = Path(__file__).parent / "snapshots" / "graph.mmd"

EXPECTED_EDGES = {
    ("__start__", "planner", False),
    ("planner", "planner", True),
    ("planner", "irreversibility_check", True),
    ("planner", "generate_response", True),
    ("planner", "call_tool", True),
    ("planner", "__end__", True),
    ("irreversibility_check", "orchestrate", False),
    ("orchestrate", "call_tool", True),
    ("orchestrate", "assess_task", True),
    ("orchestrate", "advance", True),
    ("call_tool", "orchestrate", True),
    ("call_tool", "assess_task", True),
    ("call_tool", "advance", True),
    ("call_tool", "generate_response", True),
    ("assess_task", "orchestrate", True),
    ("assess_task", "advance", True),
    ("advance", "orchestrate", True),
    ("advance", "generate_response", True),
    ("generate_response", "__end__", False),
}


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
    edges = {(e.source, e.target, e.conditional) for e in build_graph().get_graph().edges}
    assert edges == EXPECTED_EDGES


def test_served_graph_has_no_checkpointer_and_an_explicit_recursion_limit() -> None:
    served = graph_module.graph
    assert served.checkpointer is None
    assert served.name == "with_planner"
    assert served.config is not None
    assert served.config["recursion_limit"] == get_settings().recursion_limit
