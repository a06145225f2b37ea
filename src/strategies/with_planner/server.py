"""The graph `langgraph dev` and LangGraph Platform serve: `langgraph.json` points here.

Loading this module reads the settings on purpose, so a bad one stops the server at start with
its one-line ConfigError (or ModelConfigError) instead of failing every run; the served graph
gets RECURSION_LIMIT.
`graph.py` itself reads no settings at import, so importing the graph stays side-effect free.
"""

from __future__ import annotations

from common.settings import get_settings
from strategies.with_planner.context import turn_context
from strategies.with_planner.graph import build_graph

# A model the settings name that cannot load (unknown provider, no key) stops the server too.
turn_context(None)

graph = build_graph(recursion_limit=get_settings().recursion_limit)
"""The served graph (no checkpointer: the server brings its own)."""
