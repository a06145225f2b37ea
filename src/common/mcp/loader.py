"""Turn a run's `mcp_config` (or the MCP_CONFIG file) into a registry, without blocking the loop.

The registry and the tool cache (both on the MCP SDK) are imported by the first call, not with
this module: nodes import `registry_for` while the graph is only being built.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from common.mcp.config import McpConfig, load_mcp_config
from common.settings import Settings, get_settings

if TYPE_CHECKING:
    from common.mcp.registry import ExpertRegistry
    from common.mcp.tool_cache import ToolCache

K = TypeVar("K", bound=Hashable)

CACHE_SIZE = 32
"""Parsed configurations kept per cache; each run's `mcp_config` may differ, so bound them."""


class _LruCache(Generic[K]):
    """A small thread-safe least-recently-used map to parsed configurations."""

    def __init__(self, maxsize: int) -> None:
        self._maxsize = maxsize
        self._items: OrderedDict[K, McpConfig] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K, make: Callable[[], McpConfig]) -> McpConfig:
        """The value for `key`, made (outside the lock) and stored when missing."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self._maxsize:
                self._items.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._items)


_FILE_CACHE: _LruCache[tuple[str, float]] = _LruCache(CACHE_SIZE)
_RAW_CACHE: _LruCache[str] = _LruCache(CACHE_SIZE)


def config_key(raw: dict[str, Any]) -> str | None:
    """A digest of `raw` that ignores key order; None when it is not JSON data.

    Hashing keeps a cache entry small however large the config; a config that is not JSON
    (a Path, mixed key types, NaN) is parsed uncached, and parsing says what is wrong with it.
    """
    try:
        text = json.dumps(raw, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        return None
    return hashlib.sha256(text.encode()).hexdigest()


def _load_file(path: Path) -> McpConfig:
    mtime = path.stat().st_mtime if path.exists() else -1.0
    return _FILE_CACHE.get((str(path.resolve()), mtime), lambda: load_mcp_config(None, path))


async def registry_for(raw: dict[str, Any] | None) -> ExpertRegistry:
    """The registry for a run: `raw` when given, else the MCP_CONFIG file (read in a thread)."""
    from common.mcp.registry import ExpertRegistry

    settings = get_settings()
    if raw is None:
        config = await asyncio.to_thread(_load_file, settings.mcp_config)
    else:
        key = config_key(raw)
        parse = partial(load_mcp_config, raw, settings.mcp_config)
        config = parse() if key is None else _RAW_CACHE.get(key, parse)
    return ExpertRegistry(config, settings.mcp_startup_timeout_s, tool_cache(settings))


def tool_cache(settings: Settings) -> ToolCache:
    """The tool cache in MCP_TOOL_CACHE_DIR, else in the user's cache folder."""
    from common.mcp.tool_cache import ToolCache, default_cache_dir

    return ToolCache(settings.mcp_tool_cache_dir or default_cache_dir())


async def prestart(raw: dict[str, Any] | None) -> ExpertRegistry:
    """Begin starting every expert of the run's config; return once their servers are launched.

    Call it first thing on the loop that runs the graph: the servers initialize in their own
    processes while this one builds and starts the graph.
    """
    registry = await registry_for(raw)
    registry.start_all()
    await registry.launched()
    return registry
