"""MCP experts: configuration, persistent sessions and the registry nodes talk to."""

from common.mcp.config import McpConfig, McpConfigError, ServerConfig, load_mcp_config
from common.mcp.loader import registry_for
from common.mcp.registry import ExpertRegistry, ExpertUnavailable, ToolOutcome, get_registry

__all__ = [
    "ExpertRegistry",
    "ExpertUnavailable",
    "McpConfig",
    "McpConfigError",
    "ServerConfig",
    "ToolOutcome",
    "get_registry",
    "load_mcp_config",
    "registry_for",
]
