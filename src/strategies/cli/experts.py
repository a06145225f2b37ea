"""Starting a run's experts first thing, and loading what its guard will need meanwhile.

Imported before the graph: it loads the MCP SDK's launcher and nothing of LangGraph.
"""

from __future__ import annotations

from typing import Any

from common.mcp.loader import prestart
from common.safety.parts import preload_lexicon


async def start_experts(raw: dict[str, Any] | None) -> None:
    """Launch every expert of the run's config, then begin loading the guard's lexicon.

    The lexicon loads while the servers start and the graph is imported, unless every server is
    sandboxed (the guard then reads no tool's name).
    """
    registry = await prestart(raw)
    if not all(cfg.sandboxed for cfg in registry.config.servers.values()):
        preload_lexicon()
