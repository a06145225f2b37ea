"""MCP experts: configuration, persistent sessions and the registry nodes talk to.

The registry (`ExpertRegistry`, `get_registry`) is imported from its module on first use
(PEP 562), not with the package: it and its sessions import the MCP SDK, whose own package
import loads its server side too (MCPServer, Starlette, uvicorn), and building or drawing the
graph needs none of it (`tests/unit_tests/test_cli_startup.py`). The other names import no SDK.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
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

_FROM_REGISTRY = frozenset({"ExpertRegistry", "get_registry"})
"""The names imported from `common.mcp.registry` when first asked for."""

if not TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        """Import the registry's names the first time one is asked for."""
        if name not in _FROM_REGISTRY:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(import_module("common.mcp.registry"), name)
        globals()[name] = value
        return value
