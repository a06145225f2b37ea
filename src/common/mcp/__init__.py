"""MCP experts: configuration, persistent sessions and the registry nodes talk to."""

from common.mcp.config import McpConfig, McpConfigError, ServerConfig, load_mcp_config
from common.mcp.loader import prestart, registry_for
from common.mcp.outcome import (
    MediaBlock,
    OutcomeStatus,
    ToolOutcome,
    blocks_of,
    is_error,
    outcome,
)
from common.mcp.registry import ExpertRegistry, ExpertUnavailable, get_registry

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
