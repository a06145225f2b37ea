"""An approved call runs once, and a rejected one never, even when the process is SIGKILLed.

Each test runs the graph in subprocesses on one SQLite thread (checkpointer and store): start,
answer the approval in a process that kills itself at a chosen point, then resume in a fresh
process. The notes server's own log counts the real executions.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.long_file]

DRIVER = Path(__file__).with_name("crash_driver.py")


BACKEND_ENV: dict[str, str] = {}


def phase(workdir: Path, *args: str) -> dict[str, Any]:
    """Run one driver phase; return its RESULT line (also for a killed process)."""
    proc = subprocess.run(
        [sys.executable, str(DRIVER), args[0], "--workdir", str(workdir), *args[1:]],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **BACKEND_ENV},
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert lines, f"no RESULT from {args} (rc={proc.returncode})\nstderr:\n{proc.stderr[-3000:]}"
    return dict(json.loads(lines[-1][len("RESULT ") :]))


def executions(workdir: Path) -> int:
    """Writes the notes server really performed."""
    log = workdir / "notes.log"
    return sum(" write " in line for line in log.read_text().splitlines()) if log.exists() else 0


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each scenario on SQLite files and on a PostgreSQL database of its own."""
    env = {"PERSISTENCE": request.param}
    if request.param == "postgres":
        env["DATABASE_URI"] = request.getfixturevalue("postgres_uri")
    monkeypatch.setattr(sys.modules[__name__], "BACKEND_ENV", env)
    return str(request.param)


@pytest.fixture
def workdir(tmp_path: Path, backend: str) -> Path:
    started = phase(tmp_path, "start")
    (request,) = started["interrupts"]
    assert [a["name"] for a in request["action_requests"]] == ["write_note"]
    assert executions(tmp_path) == 0
    return tmp_path


def test_killed_right_after_approval_runs_the_call_exactly_once(workdir: Path) -> None:
    assert phase(workdir, "answer", "--crash-at", "after_answer") == {"killed_at": "after_answer"}
    assert executions(workdir) == 0

    resumed = phase(workdir, "resume")

    assert executions(workdir) == 1
    assert resumed["interrupts"] == []
    assert resumed["tool_messages"][-1]["status"] == "success"
    assert resumed["statuses"] == ["completed"]
    assert resumed["answer"] == "Saved the note."


def test_killed_after_the_result_was_recorded_replays_it_without_resending(
    workdir: Path,
) -> None:
    assert phase(workdir, "answer", "--crash-at", "after_finish") == {"killed_at": "after_finish"}
    assert executions(workdir) == 1

    resumed = phase(workdir, "resume")

    assert executions(workdir) == 1
    assert resumed["interrupts"] == [], "a call that already ran must not be asked about again"
    assert resumed["tool_messages"][-1] == {
        "status": "success",
        "content": "Saved note 'crash-test' (1 characters).",
    }
    assert resumed["answer"] == "Saved the note."


def test_killed_while_the_call_was_in_flight_never_sends_it_twice(workdir: Path) -> None:
    assert phase(workdir, "answer", "--crash-at", "after_send") == {"killed_at": "after_send"}
    assert executions(workdir) == 1

    resumed = phase(workdir, "resume")

    # Whether the server ran it cannot be known from our side: it is reported, never resent.
    assert executions(workdir) == 1
    assert resumed["interrupts"] == []
    last = resumed["tool_messages"][-1]
    assert last["status"] == "error"
    assert "not sent again" in last["content"]
    # The model's words are kept, and the answer says plainly that the write may have happened.
    assert resumed["answer"].startswith("Saved the note.")
    assert "may have happened" in resumed["answer"]


def test_a_rejected_call_never_runs_across_a_kill_and_resume(workdir: Path) -> None:
    killed = phase(workdir, "answer", "--answer", "reject", "--crash-at", "after_reject")
    assert killed == {"killed_at": "after_reject"}

    resumed = phase(workdir, "resume")

    assert executions(workdir) == 0
    assert resumed["tool_messages"][-1]["status"] == "error"
    assert "declined" in resumed["tool_messages"][-1]["content"]
