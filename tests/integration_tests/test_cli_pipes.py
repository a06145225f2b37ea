"""`mcp-planner` in pipelines (issue 43): an output closed early, and the request on stdin.

`mcp-planner run '...' | head -1` and `threads | head -1` exited 1 with no sentence: the reader
closed the pipe and the next write failed (rich's broken-pipe exit, or click's). Now a closed
output ends every command with one sentence on stderr and exit 141 (128 + SIGPIPE), never a
traceback or Python's "Exception ignored ... BrokenPipeError"; a run stops as at Ctrl-C, its
thread saved and resumable, with nothing started after the close. `run -` reads the request from
standard input (a pipe, a here-doc); empty input is a usage error (exit 2), and approvals then
wait as without a terminal (exit 3).

Every case is the real `mcp-planner` process in a fresh folder holding the demo's mcp.json, on
the keyless offline:rules model. The output is closed deterministically: either before the
command writes at all (the read end closed at once), or after the reader took one line from a
pipe made smaller than what the command still has to write (so its next write must block and
then fail, however fast the command runs).
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

from strategies.cli.request import EMPTY_STDIN
from tests.integration_tests.test_newcomer_round4 import STOCK, clean_env, one_sentence, planner

pytestmark = pytest.mark.integration

BIN = Path(sys.executable).parent
CLOSED = "Stopped: the output was closed (whatever read it has ended)"
"""How the sentence of a command whose output was closed begins."""
STRAY = ("Traceback", "Exception ignored", "BrokenPipeError")
"""What Python prints for a broken pipe nobody handled."""
RESUME = re.compile(r"The thread is saved: (mcp-planner resume (\S+).*)$")


@pytest.fixture
def here(tmp_path: Path, mcp_config: dict[str, Any]) -> Path:
    """A fresh folder holding mcp.json with the inventory and notes demo experts."""
    servers = {k: mcp_config["mcpServers"][k] for k in ("inventory", "notes")}
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return tmp_path


@pytest.fixture
def notes_file(mcp_config: dict[str, Any]) -> Path:
    """The notes expert's store (shared by the session: each test writes its own title)."""
    return Path(mcp_config["mcpServers"]["notes"]["env"]["NOTES_FILE"])


def _env() -> dict[str, str]:
    """The environment `planner` gives the command: no model key, no model named."""
    return clean_env()


def _start(here: Path, args: tuple[str, ...], stdout: int) -> subprocess.Popen[str]:
    """`mcp-planner ARGS` in `here`, writing to the descriptor `stdout`; stdin is empty."""
    return subprocess.Popen(
        [str(BIN / "mcp-planner"), *args],
        cwd=here,
        env=_env(),
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
    )


def into_closed_output(here: Path, *args: str) -> tuple[int, str]:
    """Run the command with a stdout nobody reads any more; its exit code and stderr."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        process = _start(here, args, write_end)
    finally:
        os.close(write_end)
    _, err = process.communicate(timeout=120)
    return process.returncode, err


def first_line_then_close(here: Path, *args: str) -> tuple[bytes, int, str]:
    """Read the command's first line from a one-page pipe, then close it (as `head -1`)."""
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)
    try:
        process = _start(here, args, write_end)
    finally:
        os.close(write_end)
    first = b""
    while not first.endswith(b"\n"):
        byte = os.read(read_end, 1)
        if not byte:
            break
        first += byte
    os.close(read_end)
    _, err = process.communicate(timeout=120)
    return first, process.returncode, err


def last_line(stderr: str) -> str:
    """The last line on stderr, after checking that Python reported nothing unhandled."""
    assert not [line for line in stderr.splitlines() if line.startswith(STRAY)], stderr
    assert "Exception ignored" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert lines, "nothing on stderr"
    return lines[-1]


def test_a_run_whose_output_closes_stops_before_its_next_call_and_resumes(
    here: Path, notes_file: Path
) -> None:
    title = f"pipe-{uuid4().hex[:8]}"
    request = f'How many units of WID-1 are in stock, then write a note titled "{title}"'
    # auto: the note would be written without asking, were the run not stopped.
    code, err = into_closed_output(here, "run", "--mode", "auto", request)
    assert code == 141, err
    line = last_line(err)
    assert line.startswith(f"{CLOSED}. The thread is saved: mcp-planner resume "), line
    found = RESUME.search(line)
    assert found is not None, line
    assert found.group(1).endswith("--mode auto"), line
    assert title not in (notes_file.read_text() if notes_file.exists() else "")
    # Saved like after Ctrl-C: the printed command continues the run where it stopped.
    resumed = planner(here, "resume", found.group(2), "--mode", "auto")
    assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr
    assert title in notes_file.read_text()


def test_a_run_read_one_line_at_a_time_ends_with_141_when_the_reader_stops(here: Path) -> None:
    # Its answer (the whole catalogue, as a table) is larger than the one-page pipe.
    first, code, err = first_line_then_close(here, "run", "List all products")
    assert first.decode() == "· planner\n"
    assert code == 141, err
    line = last_line(err)
    assert line.startswith(f"{CLOSED}. The thread is saved: mcp-planner resume "), line


@pytest.mark.parametrize(
    "args",
    [
        ("threads",),
        ("threads", "--json"),
        ("audit",),
        ("history",),
        ("graph",),
        ("tools",),
        # Help and the version are printed while the arguments are read, by Typer's console.
        ("--help",),
        ("--version",),
        ("run", "--help"),
    ],
    ids=" ".join,
)
def test_a_command_whose_output_is_closed_ends_in_one_sentence_with_141(
    here: Path, args: tuple[str, ...]
) -> None:
    code, err = into_closed_output(here, *args)
    assert code == 141, err
    assert last_line(err) == f"{CLOSED} before everything was shown."


def _with_stdin(here: Path, text: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`mcp-planner ARGS` reading `text` on stdin, as `echo ... | mcp-planner ...` does."""
    return subprocess.run(
        [str(BIN / "mcp-planner"), *args],
        cwd=here,
        env=_env(),
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_run_dash_reads_the_request_from_stdin(here: Path) -> None:
    done = _with_stdin(here, f"{STOCK}\n", "run", "--json", "-")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    outcome = json.loads(done.stdout)
    assert [t["task"] for t in outcome["tasks"]] == ["How many units of WID-1 are in stock"]
    assert '"stock": 120' in outcome["tasks"][0]["result"]


def test_a_here_doc_request_of_several_lines_waits_for_approval_with_exit_3(
    here: Path, notes_file: Path
) -> None:
    title = f"pipe-{uuid4().hex[:8]}"
    heredoc = f'{STOCK},\nthen write a note titled "{title}"\n'
    done = _with_stdin(here, heredoc, "run", "-")
    assert done.returncode == 3, done.stdout[-2000:] + done.stderr
    assert "(no terminal to ask in)" in done.stdout
    assert re.search(
        r"^Approve: mcp-planner resume \S+ --question \S+ --approve$", done.stdout, re.M
    )
    assert f'write_note {{"title": "{title}"' in done.stdout  # the second line reached the plan
    assert title not in (notes_file.read_text() if notes_file.exists() else "")


@pytest.mark.parametrize("text", ["", " \n\n\t\n"], ids=["empty", "blank"])
def test_run_dash_with_nothing_on_stdin_is_a_usage_error(here: Path, text: str) -> None:
    done = _with_stdin(here, text, "run", "-")
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr
    assert one_sentence(done) == EMPTY_STDIN
    assert json.loads(planner(here, "threads", "--json").stdout) == []  # no thread made for it


def test_a_request_typed_at_a_terminal_leaves_no_terminal_to_ask_on(here: Path) -> None:
    """`run -` at a terminal: the request ends with Ctrl-D, so approvals wait (exit 3)."""
    title = f"pipe-{uuid4().hex[:8]}"
    controller, terminal = pty.openpty()
    try:
        # Typed ahead: the line, then Ctrl-D (end of input) at the start of the next line.
        os.write(controller, f'{STOCK}, then write a note titled "{title}"\n\x04'.encode())
        done = subprocess.run(
            [str(BIN / "mcp-planner"), "run", "-"],
            cwd=here,
            env=_env(),
            stdin=terminal,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        os.close(terminal)
        os.close(controller)
    assert done.returncode == 3, done.stdout[-2000:] + done.stderr
    assert "Type the request, then Ctrl-D on a line of its own" in done.stderr
    assert "(no terminal to ask in)" in done.stdout
    assert f'write_note {{"title": "{title}"' in done.stdout


def test_the_help_shows_exit_141_and_how_run_reads_stdin() -> None:
    from typer.testing import CliRunner

    from strategies.cli.app import app

    def words(*args: str) -> str:
        return " ".join(CliRunner().invoke(app, list(args)).stdout.replace("│", " ").split())

    assert "141 stopped because the output was closed" in words("--help")
    assert "141 stopped because the output was closed" in words("run", "--help")
    assert "or - to read it from standard input" in words("run", "--help")
