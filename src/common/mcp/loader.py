"""Turn a run's `mcp_config` (or the MCP_CONFIG file) into a registry, without blocking the loop."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from common.mcp.config import McpConfig, load_mcp_config
from common.mcp.registry import ExpertRegistry
from common.settings import get_settings

_FILE_CACHE: dict[tuple[str, float], McpConfig] = {}
_RAW_CACHE: dict[str, McpConfig] = {}


def _load_file(path: Path) -> McpConfig:
    mtime = path.stat().st_mtime if path.exists() else -1.0
    key = (str(path.resolve()), mtime)
    if key not in _FILE_CACHE:
        _FILE_CACHE[key] = load_mcp_config(None, path)
    return _FILE_CACHE[key]


async def registry_for(raw: dict[str, Any] | None) -> ExpertRegistry:
    """The registry for a run: `raw` when given, else the MCP_CONFIG file (read in a thread)."""
    settings = get_settings()
    if raw is None:
        config = await asyncio.to_thread(_load_file, settings.mcp_config)
    else:
        key = json.dumps(raw, sort_keys=True)
        if key not in _RAW_CACHE:
            _RAW_CACHE[key] = load_mcp_config(raw, settings.mcp_config)
        config = _RAW_CACHE[key]
    return ExpertRegistry(config, settings.mcp_startup_timeout_s)
