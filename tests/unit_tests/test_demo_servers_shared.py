"""The notes demo server shared by several processes: no lost write, never a broken store."""

from __future__ import annotations

import fcntl
import json
import multiprocessing
import os
import sys
from collections import Counter
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.server.mcpserver.exceptions import ToolError

from common.demo_servers import notes

WRITERS = 6
"""Processes writing to one store at the same time."""
NOTES_EACH = 40
"""Distinct notes each of them writes."""


def _use_store(store: Path, log: Path) -> None:
    os.environ["NOTES_FILE"] = str(store)
    os.environ["NOTES_LOG"] = str(log)


def _writer(store: str, log: str, worker: int, start: Any) -> None:
    """One process's share: its own distinct notes, all started at the same moment."""
    _use_store(Path(store), Path(log))
    start.wait()
    for k in range(NOTES_EACH):
        notes.write_note(f"w{worker}-n{k}", f"body of note {k} from writer {worker}")


def _crash_before_replace(store: str, log: str) -> None:
    """Write a note but die (no cleanup, like SIGKILL) after the temp file is written."""
    _use_store(Path(store), Path(log))
    os.replace = lambda *_: os._exit(9)
    notes.write_note("lost", "x" * 100_000)


def _log_titles(log: Path) -> list[str]:
    return [line.split(" ", 2)[2] for line in log.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A fresh notes file and log in a temporary directory, used by this process too."""
    paths = (tmp_path / "shared" / "notes.json", tmp_path / "notes.log")
    monkeypatch.setenv("NOTES_FILE", str(paths[0]))
    monkeypatch.setenv("NOTES_LOG", str(paths[1]))
    return paths


def test_concurrent_writers_in_several_processes_lose_nothing(store: tuple[Path, Path]) -> None:
    path, log = store
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    procs = [
        ctx.Process(target=_writer, args=(str(path), str(log), w, start)) for w in range(WRITERS)
    ]
    for proc in procs:
        proc.start()
    start.set()
    reads = 0
    try:
        # Read the store while they write: every version a reader can see is whole JSON.
        while any(proc.is_alive() for proc in procs):
            if path.exists():
                json.loads(path.read_text(encoding="utf-8"))
                reads += 1
    finally:
        for proc in procs:
            proc.join(timeout=120)
            if proc.is_alive():
                proc.kill()
                proc.join()
    assert [proc.exitcode for proc in procs] == [0] * WRITERS
    assert reads > 0

    expected = {f"w{w}-n{k}" for w in range(WRITERS) for k in range(NOTES_EACH)}
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert set(stored) == expected
    assert stored["w3-n7"] == "body of note 7 from writer 3"
    assert Counter(_log_titles(log)) == Counter(expected)
    # No temporary file is left behind next to the store.
    assert sorted(p.name for p in path.parent.iterdir()) == ["notes.json", "notes.json.lock"]


async def test_six_notes_server_processes_share_one_store(store: tuple[Path, Path]) -> None:
    path, log = store
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "common.demo_servers.notes"],
        env={"NOTES_FILE": str(path), "NOTES_LOG": str(log)},
    )
    async with AsyncExitStack() as stack:
        sessions: list[ClientSession] = []
        for _ in range(WRITERS):
            read, write = await stack.enter_async_context(stdio_client(params))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            sessions.append(session)

        async def write_all(server: int, session: ClientSession) -> None:
            for k in range(10):
                result = await session.call_tool(
                    "write_note", {"title": f"s{server}-{k}", "body": "b"}
                )
                assert not result.is_error, result.content

        async with anyio.create_task_group() as group:
            for server, session in enumerate(sessions):
                group.start_soon(write_all, server, session)

        listed = await sessions[0].call_tool("list_notes", {})
    expected = {f"s{s}-{k}" for s in range(WRITERS) for k in range(10)}
    assert set(json.loads(path.read_text(encoding="utf-8"))) == expected
    assert Counter(_log_titles(log)) == Counter(expected)
    assert not listed.is_error


def test_a_failed_replace_leaves_the_store_and_no_temp_file(
    store: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, log = store
    notes.write_note("kept", "before")
    before = path.read_bytes()

    def refuse(*_: Any) -> None:
        raise OSError("disk went away")

    with monkeypatch.context() as patched:
        patched.setattr(os, "replace", refuse)
        with pytest.raises(ToolError, match="disk went away"):
            notes.write_note("new", "after")

    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["notes.json", "notes.json.lock"]
    assert _log_titles(log) == ["kept"]
    # The lock was released: the next write goes through.
    notes.write_note("new", "after")
    assert json.loads(path.read_text(encoding="utf-8")) == {"kept": "before", "new": "after"}


def test_a_crash_before_the_replace_never_truncates_the_store(store: tuple[Path, Path]) -> None:
    path, log = store
    notes.write_note("kept", "before")
    before = path.read_bytes()

    proc = multiprocessing.get_context("spawn").Process(
        target=_crash_before_replace, args=(str(path), str(log))
    )
    proc.start()
    proc.join(timeout=120)
    assert proc.exitcode == 9

    assert path.read_bytes() == before
    leftovers = [
        p for p in path.parent.iterdir() if p.name not in {"notes.json", "notes.json.lock"}
    ]
    # The half-done write is in its own temporary file, never in the store itself.
    assert len(leftovers) == 1
    assert leftovers[0].name.endswith(".tmp")
    assert set(json.loads(leftovers[0].read_text(encoding="utf-8"))) == {"kept", "lost"}
    # The dead process holds no lock any more.
    fd = os.open(path.with_name("notes.json.lock"), os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(fd)
    assert notes.list_notes() == ["kept"]
    assert _log_titles(log) == ["kept"]
