"""Tool lists remembered on disk, so a planner can plan while the servers are still starting.

An entry is keyed by a hash of everything that decides which server is launched (transport,
the resolved command, args, env, cwd, url, headers): a changed launch is a miss, and neither
the file name nor the file holds a secret from `env` or `headers` in clear. The file holds only
the tools' metadata, as the server listed it. The cache is an accelerator, never an authority:
the registry checks every call against the live list, and a cache that cannot be read or
written is simply no cache (a miss, logged). Writes go to a temporary file renamed into place,
so a reader never sees half an entry.

The default folder follows the XDG base directory rule by hand (two lines), rather than adding
a dependency for it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from mcp.types import Tool
from pydantic import ValidationError

from common.mcp.config import ServerConfig
from common.mcp.transports import resolve_command

FORMAT_VERSION = 1
"""Bumped when the entry layout changes, so old entries are misses, not errors."""
logger = logging.getLogger(__name__)


def default_cache_dir() -> Path:
    """`$XDG_CACHE_HOME/mcp-planner/tools`, `~/.cache/mcp-planner/tools` without it."""
    # os.path, not pathlib: every tool call of a run asks (a tenth of a millisecond in pathlib).
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        home = os.path.expanduser("~")
        if home.startswith("~"):  # as `Path.home()`: no home directory is an error
            raise RuntimeError("Could not determine home directory.")
        base = os.path.join(home, ".cache")
    return Path(os.path.join(base, "mcp-planner", "tools"))


def cache_key(config: ServerConfig) -> str:
    """A hash of the server's launch: the same server, the same key; any change, another key."""
    launch: dict[str, Any] = {
        "version": FORMAT_VERSION,
        "transport": config.resolved_transport,
        # `python` means this interpreter: another venv may hold another version of the server.
        "command": resolve_command(config.command) if config.command else None,
        "args": config.args,
        "env": config.env,
        "cwd": config.cwd,
        "url": config.url,
        "headers": config.headers,
        "inprocess": config.inprocess,
    }
    raw = json.dumps(launch, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(raw.encode()).hexdigest()


class ToolCache:
    """Tool lists by server launch, one small JSON file per server in `directory`."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        """Where the entries live (created on the first write)."""

    def _path(self, config: ServerConfig) -> Path:
        return self.directory / f"{cache_key(config)}.json"

    def load(self, config: ServerConfig) -> list[Tool] | None:
        """The remembered tools of the server, or None (no entry, unreadable, or stale format)."""
        path = self._path(config)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            logger.info("MCP tool cache entry %s is unreadable, ignored: %r", path, exc)
            return None
        return _tools_of(data, path)

    def store(self, config: ServerConfig, tools: list[Tool]) -> bool:
        """Remember the live tools of the server; False when the cache cannot be written."""
        entry = {
            "version": FORMAT_VERSION,
            "tools": [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools],
        }
        try:
            _write_atomically(self._path(config), json.dumps(entry, sort_keys=True))
        except OSError as exc:
            logger.info("MCP tool cache %s is not writable, not cached: %r", self.directory, exc)
            return False
        return True


def _tools_of(data: Any, path: Path) -> list[Tool] | None:
    if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION:
        return None
    try:
        return [Tool.model_validate(t) for t in data.get("tools", [])]
    except (TypeError, ValidationError) as exc:
        logger.info("MCP tool cache entry %s does not hold tools, ignored: %r", path, exc)
        return None


def _write_atomically(path: Path, text: str) -> None:
    # Private folder: the tool lists say which servers a user runs.
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
