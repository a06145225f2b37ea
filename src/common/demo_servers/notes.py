"""Demo expert: notes kept in a JSON file, with irreversible write and delete tools.

`NOTES_FILE` names the store (default `.mcp-planner/notes.json`); when `NOTES_LOG` is set,
every write and delete is appended to that file, so tests can count executions.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

mcp = FastMCP("notes", instructions="Keep short notes: list, read, write and delete them.")


def _store() -> Path:
    return Path(os.environ.get("NOTES_FILE", ".mcp-planner/notes.json"))


def _load() -> dict[str, str]:
    path = _store()
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _save(notes: dict[str, str]) -> None:
    path = _store()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(notes, indent=2, sort_keys=True), encoding="utf-8")
    tmp.replace(path)


def _log(action: str, title: str) -> None:
    log = os.environ.get("NOTES_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(f"{datetime.now(UTC).isoformat()} {action} {title}\n")


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False))
def list_notes() -> list[str]:
    """List the titles of all notes."""
    return sorted(_load())


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False))
def read_note(title: str) -> dict[str, Any]:
    """Read one note by its title."""
    notes = _load()
    if title not in notes:
        raise ValueError(
            f"No note titled {title!r}; existing: {', '.join(sorted(notes)) or 'none'}"
        )
    return {"title": title, "body": notes[title]}


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True))
def write_note(title: str, body: str) -> str:
    """Write a note, replacing any note with the same title."""
    notes = _load()
    notes[title] = body
    _save(notes)
    _log("write", title)
    return f"Saved note {title!r} ({len(body)} characters)."


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True))
def delete_note(title: str) -> str:
    """Delete a note by its title."""
    notes = _load()
    if title not in notes:
        raise ValueError(f"No note titled {title!r}")
    del notes[title]
    _save(notes)
    _log("delete", title)
    return f"Deleted note {title!r}."


def main() -> None:
    """Serve over stdio."""
    mcp.run()


if __name__ == "__main__":
    main()
