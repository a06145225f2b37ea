"""Crash tests: an approved call runs at most once across a SIGKILL and a resume from SQLite.

Each test drives one thread through real processes (`crash_driver.py`), all on one SQLite
checkpoint file: a first process stops at the approval interrupt of `write_note`; a second answers
it and is SIGKILLed at a precise point; a third, new process resumes the thread from its
checkpoint. The notes demo server appends every executed write to NOTES_LOG: that file, not the
graph's state, is the count of executions.

What the tests establish (see each test):
- killed after the approval, before anything was sent: the resume sends the call, once;
- killed after the call ran: it is never sent again; the resume either replays the stored result
  (when the result task was committed) or says the outcome is unknown and that it was not resent;
- killed between the start marker and the send: the call is withheld (at most once, not exactly
  once: nothing can tell this case from a send cut off in flight);
- a rejected call never runs, across a kill and a resume;
- two strict xfails document defects: the start marker is not durable before the send (a slow
  checkpoint store makes the call run twice), and an approval given in the CLI's resume form
  (keyed by interrupt id) is lost by a crash, so the same call is asked for again after it ran.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.integration_tests.crash_driver import committed_writes, is_marker, is_result, is_resume

pytestmark = pytest.mark.integration

DRIVER = Path(__file__).with_name("crash_driver.py")
THREAD = "crash-thread"
TITLE = "crash-test note"
PROCESS_TIMEOUT_S = 120.0
ANSWER = f"Finished the note request for {TITLE!r}."
SAVED = f"Saved note {TITLE!r} (10 characters)."
UNKNOWN = "whether it ran is unknown, so it was not sent again"
DECLINED = "The user declined to run 'write_note'. Their reason: not now"


@dataclass
class Proc:
    """One finished driver process."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    def explain(self) -> str:
        return (
            f"driver {' '.join(self.args)} exited with {self.returncode}\n"
            f"--- stdout ---\n{self.stdout[-4000:]}\n--- stderr ---\n{self.stderr[-4000:]}"
        )

    def result(self) -> dict[str, Any]:
        """The `RESULT {json}` line the driver printed."""
        lines = [line for line in self.stdout.splitlines() if line.startswith("RESULT ")]
        if not lines:
            pytest.fail(f"no RESULT line\n{self.explain()}")
        data: dict[str, Any] = json.loads(lines[-1].removeprefix("RESULT "))
        return data


@dataclass
class CrashThread:
    """A thread's working directory: SQLite checkpoints, notes store and the server's log."""

    workdir: Path

    def run(self, phase: str, *options: str) -> Proc:
        args = [phase, "--workdir", str(self.workdir), "--thread", THREAD, "--title", TITLE]
        args += options
        try:
            done = subprocess.run(
                [sys.executable, str(DRIVER), *args],
                cwd=self.workdir,  # no stray .env is read
                capture_output=True,
                text=True,
                timeout=PROCESS_TIMEOUT_S,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        except subprocess.TimeoutExpired as exc:
            pytest.fail(
                f"driver {' '.join(args)} did not finish within {PROCESS_TIMEOUT_S:g}s\n"
                f"--- stdout ---\n{exc.stdout!r}\n--- stderr ---\n{exc.stderr!r}"
            )
        return Proc(args, done.returncode, done.stdout, done.stderr)

    def finish(self, phase: str, *options: str) -> dict[str, Any]:
        """Run a phase that must exit normally; its result."""
        proc = self.run(phase, *options)
        if proc.returncode != 0:
            pytest.fail(f"the {phase} phase failed\n{proc.explain()}")
        return proc.result()

    def crash(self, phase: str, point: str, *options: str) -> Proc:
        """Run a phase that must SIGKILL itself at `point`."""
        proc = self.run(phase, "--crash-at", point, *options)
        if proc.returncode != -signal.SIGKILL:
            pytest.fail(f"the {phase} phase was not killed at {point}\n{proc.explain()}")
        return proc

    def log(self) -> list[str]:
        """The notes server's own log: one line per executed write or delete."""
        path = self.workdir / "notes.log"
        return path.read_text(encoding="utf-8").splitlines() if path.exists() else []

    def executions(self) -> int:
        """How many times the server executed write_note for our title."""
        return sum(1 for line in self.log() if line.endswith(f" write {TITLE}"))

    def writes(self) -> list[dict[str, Any]]:
        """Pending writes of the latest checkpoint, as committed in the SQLite file."""
        return committed_writes(self.workdir / "checkpoints.sqlite", THREAD)

    def evidence(self) -> str:
        return f"notes log: {self.log()}\ncommitted writes: {self.writes()}"


def check(condition: bool, message: str) -> None:
    """A precondition: failing it is a broken test setup, never the expected failure of an xfail."""
    if not condition:
        pytest.fail(message)


@pytest.fixture(scope="module")
def paused_thread(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A thread stopped at the approval interrupt of write_note (first process, run once)."""
    workdir = tmp_path_factory.mktemp("paused")
    started = CrashThread(workdir).finish("start")
    (pending,) = started["interrupts"]
    (action,) = pending["value"]["action_requests"]
    assert action["name"] == "write_note"
    assert action["args"] == {"title": TITLE, "body": "crash test"}
    assert started["tool_messages"] == []
    assert CrashThread(workdir).log() == []
    return workdir


@pytest.fixture
def thread(paused_thread: Path, tmp_path: Path) -> CrashThread:
    """A private copy of the paused thread: its own checkpoint file, notes store and log."""
    workdir = tmp_path / f"thread-{uuid.uuid4().hex[:6]}"
    workdir.mkdir()
    for path in paused_thread.glob("checkpoints.sqlite*"):
        shutil.copy2(path, workdir / path.name)
    return CrashThread(workdir)


def assert_finished(resumed: dict[str, Any]) -> None:
    assert resumed["interrupts"] == [], f"the resumed run stopped again: {resumed['interrupts']}"
    assert resumed["asked_again"] == [], f"approval was asked again: {resumed['asked_again']}"
    assert resumed["last_message"] == {"type": "ai", "content": ANSWER}


def test_killed_after_approval_before_sending_runs_the_call_once(thread: CrashThread) -> None:
    killed = thread.crash("approve", "before_marker").result()

    assert killed["resume"] == {"decisions": [{"type": "approve"}]}
    assert thread.executions() == 0, thread.evidence()
    check(
        any(is_resume(w) for w in thread.writes()), f"approval not committed\n{thread.evidence()}"
    )

    resumed = thread.finish("resume")

    assert thread.executions() == 1, thread.evidence()
    assert_finished(resumed)
    assert resumed["tool_messages"] == [
        {"name": "write_note", "status": "success", "content": SAVED}
    ]
    assert [t["status"] for t in resumed["plan"]] == ["completed"]


def test_killed_after_the_result_was_stored_replays_it(thread: CrashThread) -> None:
    killed = thread.crash("approve", "after_result").result()

    assert killed["stored"]["status"] == "ok"
    assert thread.executions() == 1, thread.evidence()

    resumed = thread.finish("resume")

    # The stored result of the tool_call task is replayed: not sent again, reported as done.
    assert thread.executions() == 1, thread.evidence()
    assert_finished(resumed)
    assert resumed["tool_messages"] == [
        {"name": "write_note", "status": "success", "content": SAVED}
    ]
    assert [t["status"] for t in resumed["plan"]] == ["completed"]


def test_killed_as_the_server_ran_the_call_never_sends_it_again(thread: CrashThread) -> None:
    thread.crash("approve", "on_log_line")

    assert thread.executions() == 1, thread.evidence()
    writes = thread.writes()
    check(
        any(is_marker(w) for w in writes),
        "the server ran the call before its start marker was committed (the race that "
        "test_slow_checkpoint_storage_does_not_make_the_call_run_twice forces)\n"
        + thread.evidence(),
    )
    result_stored = any(is_result(w) for w in writes)

    resumed = thread.finish("resume")

    assert thread.executions() == 1, thread.evidence()
    assert_finished(resumed)
    (message,) = resumed["tool_messages"]
    if result_stored:  # the kill came after the result task was committed (rare): replayed
        assert message == {"name": "write_note", "status": "success", "content": SAVED}
    else:  # what happens in practice: marker from a dead process, no result, so withheld
        assert message["status"] == "error"
        assert message["content"].startswith("Error (interrupted): ")
        assert UNKNOWN in message["content"]
        assert [t["status"] for t in resumed["plan"]] == ["failed"]


def test_killed_between_start_marker_and_send_withholds_the_call(thread: CrashThread) -> None:
    killed = thread.crash("approve", "after_marker").result()

    assert killed["marker"].endswith(":call_write_1")
    check(any(is_marker(w) for w in thread.writes()), f"no marker\n{thread.evidence()}")

    resumed = thread.finish("resume")

    # At most once: the call never went out, but nothing can tell this from a send cut off in
    # flight, so it is withheld and reported as unknown instead of being sent.
    assert thread.executions() == 0, thread.evidence()
    assert_finished(resumed)
    (message,) = resumed["tool_messages"]
    assert message["status"] == "error"
    assert UNKNOWN in message["content"]
    assert [t["status"] for t in resumed["plan"]] == ["failed"]


def test_rejected_call_never_runs_across_a_kill_and_resume(thread: CrashThread) -> None:
    thread.crash("reject", "on_decline")

    assert thread.executions() == 0, thread.evidence()
    check(
        any(is_resume(w) for w in thread.writes()), f"rejection not committed\n{thread.evidence()}"
    )

    resumed = thread.finish("resume")

    assert thread.log() == [], thread.evidence()
    assert_finished(resumed)
    assert resumed["tool_messages"] == [
        {"name": "write_note", "status": "error", "content": DECLINED}
    ]
    assert [t["status"] for t in resumed["plan"]] == ["failed"]


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="BUG: the start marker of a gated call is a LangGraph @task result, which LangGraph "
    "stores with a fire-and-forget put_writes (every durability mode); run_once sends the call "
    "without waiting for it, so when storage lags the send (a few ms suffice) a crash leaves no "
    "marker and the resumed process sends the approved call a second time.",
)
def test_slow_checkpoint_storage_does_not_make_the_call_run_twice(thread: CrashThread) -> None:
    thread.crash("approve", "on_log_line", "--slow-task-results", "0.5")

    check(thread.executions() == 1, f"kill did not follow the write\n{thread.evidence()}")
    writes = thread.writes()
    check(any(is_resume(w) for w in writes), f"approval not committed\n{thread.evidence()}")
    # The call was executed, yet no start marker reached the file before the crash.
    check(not any(is_marker(w) for w in writes), f"marker was stored\n{thread.evidence()}")

    resumed = thread.finish("resume")

    check(resumed["last_message"] == {"type": "ai", "content": ANSWER}, f"{resumed}")
    assert thread.executions() == 1, (
        f"write_note ran twice\nnotes log: {thread.log()}\nwrites committed before the crash "
        f"(an approval, no start marker): {writes}"
    )


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="BUG: an approval sent keyed by interrupt id (the CLI's Command(resume={id: ...})) "
    "is kept only in memory until call_tool completes; a crash after the call ran loses it, "
    "the resumed thread asks to approve the call again, and rejecting then reports the call "
    "as declined although it ran.",
)
def test_cli_resume_form_approval_survives_a_crash_after_the_call(thread: CrashThread) -> None:
    thread.crash("approve", "after_result", "--resume-form", "map")

    check(thread.executions() == 1, thread.evidence())
    check(not any(is_resume(w) for w in thread.writes()), f"{thread.evidence()}")

    # If the thread asks again, the user now says no.
    resumed = thread.finish("resume", "--resume-form", "map", "--answer", "reject")

    check(thread.executions() == 1, f"write_note ran twice\n{thread.evidence()}")
    (message,) = resumed["tool_messages"]
    observed = {"approval asked again": bool(resumed["asked_again"]), "reported": message}
    # Expected: the stored result is replayed and nobody is asked about a call that already ran.
    # Observed today: asked again, and the reply to the reject reports a call that ran as declined.
    assert observed == {
        "approval asked again": False,
        "reported": {"name": "write_note", "status": "success", "content": SAVED},
    }
