"""The graph `langgraph dev` and LangGraph Platform serve: `langgraph.json` points here.

Loading this module reads the settings on purpose, so a bad one (or a model the settings name
that cannot load) stops the server at start with its one sentence, printed last, and exit code
2, instead of failing every run; the served graph gets RECURSION_LIMIT and checks each run's
context as a client's.
`graph.py` itself reads no settings at import, so importing the graph stays side-effect free.
"""

from __future__ import annotations

import os
import shutil

from common.served.context_rule import check_served_fields
from common.served.startup import checked_or_stop
from common.settings import ConfigError, Settings
from strategies.with_planner.context import turn_context
from strategies.with_planner.graph import build_graph
from strategies.with_planner.served_graph import served

NO_NODE = (
    "langgraph dev bundles the plan card (the `ui` entry of langgraph.json) with npx, which is "
    "not on PATH: install Node.js (with npm), or serve the graph without the card: "
    "langgraph dev --config langgraph.noui.json"
)
"""Why a server that must bundle UI components cannot, and what to do."""


def _graph_checks(settings: Settings) -> None:
    """What the graph adds to the start-up checks: its models, and Node.js for the card."""
    check_served_fields(settings)
    # A model the settings name that cannot load (unknown provider, no key) stops it too.
    turn_context(None)
    # The server sets LANGGRAPH_UI when langgraph.json declares components; without npx its
    # bundler dies with a traceback that does not say why.
    if os.environ.get("LANGGRAPH_UI") and shutil.which("npx") is None:
        raise ConfigError(NO_NODE)


graph = served(build_graph(recursion_limit=checked_or_stop(_graph_checks).recursion_limit))
"""The served graph (no checkpointer: the server brings its own); it checks each run's context
as a client's (`served_graph`), behind the auth handlers' check."""
