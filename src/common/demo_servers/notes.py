"""Demo expert: notes kept in a JSON file, with irreversible write and delete tools.

`NOTES_FILE` names the store (default `.mcp-planner/notes.json`); when `NOTES_LOG` is set,
every write and delete is appended to that file, so tests can count executions.

Several processes may serve the same store (every Aegra instance starts its own servers): a
write or delete reads, changes and saves the file while holding an exclusive `fcntl.flock` on
the sibling `<store>.lock`, and appends its log line under the same lock. The file is replaced
atomically (a temporary file in the same directory, fsynced, then `os.replace`), so a reader
or a crash never sees a half-written store. POSIX only (flock), like the rest of this project.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

mcp = MCPServer("notes", instructions="Keep short notes: list, read, write and delete them.")

P = ParamSpec("P")
R = TypeVar("R")


def _reported(tool: Callable[P, R]) -> Callable[P, R]:
    """Let the client read why a tool failed (a full disk, an unreadable store, ...).

    The SDK passes on the text of a `ToolError` only, and withholds any other exception's.
    """

    @functools.wraps(tool)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return tool(*args, **kwargs)
        except ToolError:
            raise
        except Exception as e:
            raise ToolError(str(e)) from e

    return run


def _store() -> Path:
    return Path(os.environ.get("NOTES_FILE", ".mcp-planner/notes.json"))


def _lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


@contextmanager
def _locked() -> Iterator[None]:
    """Hold the store's exclusive inter-process lock (blocks until the other holder is done)."""
    path = _store()
    path.parent.mkdir(parents=True, exist_ok=True)
    # A separate lock file, because os.replace swaps the store's inode under any lock held on it.
    fd = os.open(_lock_path(path), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        # Closing the descriptor releases the lock, also when the body raised.
        os.close(fd)


def _load() -> dict[str, str]:
    # Unlocked reads are safe: the store is only ever replaced whole, never written in place.
    path = _store()
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _save(notes: dict[str, str]) -> None:
    """Replace the store atomically; call with the lock held."""
    path = _store()
    # A unique temporary name per writer: a fixed one would be shared by every process.
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(notes, indent=2, sort_keys=True))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    # The rename itself survives a power loss only once its directory entry is on disk.
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _log(action: str, title: str) -> None:
    """Append one line to NOTES_LOG, if set; call with the lock held."""
    log = os.environ.get("NOTES_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(f"{datetime.now(UTC).isoformat()} {action} {title}\n")


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
@_reported
def list_notes() -> list[str]:
    """List the titles of all notes."""
    return sorted(_load())


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
@_reported
def read_note(title: str) -> dict[str, Any]:
    """Read one note by its title."""
    notes = _load()
    if title not in notes:
        raise ToolError(f"No note titled {title!r}; existing: {', '.join(sorted(notes)) or 'none'}")
    return {"title": title, "body": notes[title]}


@mcp.tool(
    annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)
)
@_reported
def write_note(title: str, body: str) -> str:
    """Write a note, replacing any note with the same title."""
    with _locked():
        notes = _load()
        notes[title] = body
        _save(notes)
        _log("write", title)
    return f"Saved note {title!r} ({len(body)} characters)."


@mcp.tool(
    annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)
)
@_reported
def delete_note(title: str) -> str:
    """Delete a note by its title."""
    with _locked():
        notes = _load()
        if title not in notes:
            raise ToolError(f"No note titled {title!r}")
        del notes[title]
        _save(notes)
        _log("delete", title)
    return f"Deleted note {title!r}."


def main() -> None:
    """Serve over stdio."""
    mcp.run()


if __name__ == "__main__":
    main()
