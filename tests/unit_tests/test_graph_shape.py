"""The graph's topology: a Mermaid snapshot, the main edge set and the task subgraph's edges.

Studio (and `GET /assistants/{id}/graph?xray=true`) draws `get_graph(xray=True)`: the task
subgraph shows there under the node that runs it, `advance`, its nodes named `advance:<node>`.
"""

from __future__ import annotations

import os
from pathlib import Path

from common.settings import get_settings
from strategies.with_planner import graph as graph_module
from strategies.with_planner.graph import build_graph, build_task_graph

SNAPSHOT = Path(graph_module.__file__).with_name("graph.mmd")
"""The drawing shipped with the package, which `mcp-planner graph` prints."""
ARCHITECTURE = Path(__file__).parents[2] / "docs" / "architecture.md"
GRAPH_HEADING = "## The graph"

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

MAIN_NODES = (
    "planner",
    "irreversibility_check",
    "request_approval",
    "await_approval",
    "generate_response",
)

XRAY_NODES = {
    "__start__",
    *MAIN_NODES,
    "advance:__start__",
    *(f"advance:{name}" for name in TASK_NODES),
    "advance:__end__",
    "__end__",
}
"""Every node of the card as Studio draws it: the task loop inside `advance`, which it replaces."""


def readme_drawing() -> str:
    """The Mermaid block under docs/architecture.md's graph heading, without its fences."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split(GRAPH_HEADING + "\n", 1)[1]
    block = section.split("```mermaid\n", 1)[1]
    return block.split("```", 1)[0]


def test_xray_drawing_shows_every_node_of_the_card() -> None:
    drawn = build_graph().get_graph(xray=True)
    assert set(drawn.nodes) == XRAY_NODES
    edges = {(e.source, e.target) for e in drawn.edges}
    # The subgraph is wired where advance was: entered after the check, left to the routes.
    assert ("irreversibility_check", "advance:__start__") in edges
    assert ("advance:__end__", "generate_response") in edges
    assert ("advance:orchestrate", "advance:call_tool") in edges


def test_the_architecture_drawing_is_the_graph() -> None:
    drawing = build_graph().get_graph(xray=True).draw_mermaid()
    assert readme_drawing() == drawing, (
        f"docs/architecture.md's drawing under {GRAPH_HEADING!r} is out of date: paste "
        "`mcp-planner graph` there"
    )


def test_mermaid_drawing_matches_the_snapshot() -> None:
    drawing = build_graph().get_graph(xray=True).draw_mermaid()
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
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


def test_the_config_without_the_card_serves_the_same_graph() -> None:
    """`langgraph.noui.json` (for machines without Node.js) is langgraph.json without `ui`."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    full = json.loads((root / "langgraph.json").read_text())
    plain = json.loads((root / "langgraph.noui.json").read_text())
    assert "ui" in full
    assert "ui" not in plain
    assert {k: v for k, v in full.items() if k != "ui"} == plain
