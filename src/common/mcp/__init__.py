"""MCP experts: configuration, persistent sessions and the registry nodes talk to.

The names below are imported from their modules on first use (PEP 562), not with the package:
the registry and its sessions import the MCP SDK, whose own package import loads its server side
too (FastMCP, Starlette, uvicorn), and building or drawing the graph needs none of it
(`tests/unit_tests/test_cli_startup.py`).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from common.mcp.config import McpConfig, McpConfigError, ServerConfig, load_mcp_config
    from common.mcp.errors import ExpertUnavailable
    from common.mcp.loader import prestart, registry_for
    from common.mcp.outcome import (
        MediaBlock,
        OutcomeStatus,
        ToolOutcome,
        blocks_of,
        is_error,
        outcome,
    )
    from common.mcp.registry import ExpertRegistry, get_registry

__all__ = [
    "ExpertRegistry",
    "ExpertUnavailable",
    "McpConfig",
    "McpConfigError",
    "MediaBlock",
    "OutcomeStatus",
    "ServerConfig",
    "ToolOutcome",
    "blocks_of",
    "get_registry",
    "is_error",
    "load_mcp_config",
    "outcome",
    "prestart",
    "registry_for",
]

_HOMES = {
    **dict.fromkeys(("McpConfig", "McpConfigError", "ServerConfig", "load_mcp_config"), "config"),
    "ExpertUnavailable": "errors",
    **dict.fromkeys(("prestart", "registry_for"), "loader"),
    **dict.fromkeys(
        ("MediaBlock", "OutcomeStatus", "ToolOutcome", "blocks_of", "is_error", "outcome"),
        "outcome",
    ),
    **dict.fromkeys(("ExpertRegistry", "get_registry"), "registry"),
}
"""The module of `common.mcp` that defines each exported name."""

if not TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        """Import an exported name from its module the first time it is asked for."""
        home = _HOMES.get(name)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(import_module(f"{__name__}.{home}"), name)
        globals()[name] = value
        return value
