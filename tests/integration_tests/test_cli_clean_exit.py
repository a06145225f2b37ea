"""Short CLI commands end with their own output only: no asyncio report of an orphan failure.

After `mcp-planner run ''` (now refused before anything starts; a one-character request, which
the graph's guard refuses, takes its place) the demo experts were still starting when the
command closed them, and asyncio printed "Future exception was never retrieved ... Expert
'notes' is unavailable" to stderr although the experts were healthy. Each command runs a few
times, since how far the starts got when the command ended varies from run to run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.integration_tests.test_cli_server import planner

pytestmark = pytest.mark.integration

RUNS = 3
STRAY = ("never retrieved", "Traceback", "Unclosed", "Exception ignored")
"""What asyncio and the interpreter print for a failure or resource nobody handled."""


@pytest.fixture
def here(tmp_path: Path, mcp_config: dict[str, Any]) -> Path:
    """A fresh folder holding mcp.json with the inventory and notes demo experts."""
    servers = {k: mcp_config["mcpServers"][k] for k in ("inventory", "notes")}
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return tmp_path


def stray_lines(stderr: str) -> list[str]:
    """Lines of `stderr` that report something left unhandled."""
    return [line for line in stderr.splitlines() if any(s in line for s in STRAY)]


def test_a_refused_request_ends_with_its_answer_only(here: Path) -> None:
    for _ in range(RUNS):
        done = planner(here, "run", "x", "--model", "offline:rules")
        assert "Your request is too short" in done.stdout, done.stdout + done.stderr
        assert stray_lines(done.stderr) == [], done.stderr


def test_resuming_a_finished_thread_ends_with_one_sentence(here: Path) -> None:
    first = planner(here, "run", "How many units of GAD-7 are in stock", "--json")
    assert first.returncode == 0, first.stderr
    thread = json.loads(first.stdout)["thread_id"]
    assert stray_lines(first.stderr) == [], first.stderr
    for _ in range(RUNS):
        again = planner(here, "resume", thread, "--approve")
        assert again.returncode == 2
        assert again.stderr.strip() == (
            f"Thread {thread!r} is not waiting for approval: there is nothing to answer."
        )
