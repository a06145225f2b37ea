"""The CLI answers the question it showed: keyed by its id, the same tool, or exit 2.

A question another terminal answered first is not answered again: the second answer is refused
with one line naming who answered, exit 2.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from langgraph.types import Interrupt
from typer.testing import CliRunner

from strategies.cli import drive, prompts
from strategies.cli.answers import check_unanswered
from strategies.cli.app import app
from strategies.cli.drive import resume_command
from tests.unit_tests.helpers import note_actions, run_cli, unique
from tests.unit_tests.test_cli_scripts import notes, write_note_model

runner = CliRunner()
QUESTION = re.compile(r"--question (\w+)")
OFFLINE = ("--model", "offline:rules")


@pytest.fixture(autouse=True)
def _no_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prompts, "stdin_is_terminal", lambda: False)


def waiting_thread(chdir: Path, mcp_config: dict[str, Any], title: str) -> tuple[str, str, str]:
    """A thread waiting to write note `title`: (thread, model, the printed question id)."""
    (chdir / "mcp.json").write_text(json.dumps(mcp_config))
    model, thread = write_note_model(title), unique("cli-bound")
    waiting = runner.invoke(app, ["run", "Save", "--thread", thread, "--new", "--model", model])
    assert waiting.exit_code == 3, waiting.output
    found = QUESTION.search(waiting.stdout)
    assert found is not None, waiting.stdout
    assert f"(question {found[1]})" in waiting.stdout
    return thread, model, found[1]


def test_resume_decisions_editing_into_another_tool_exits_2_and_runs_nothing(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path
) -> None:
    title = unique("cli-swap")
    thread, model, _ = waiting_thread(chdir_tmp, mcp_config, title)
    swap = {"name": "delete_note", "args": {"title": "keep"}}
    decisions = json.dumps({"decisions": [{"type": "edit", "edited_action": swap}]})

    refused = runner.invoke(app, ["resume", thread, "--model", model, "--decisions", decisions])

    assert refused.exit_code == 2, refused.output
    (line,) = refused.stderr.strip().splitlines()
    assert "edits 'write_note' into 'delete_note'" in line
    assert "not the tool" in line
    assert title not in notes(workdir)
    # The question still waits, unchanged.
    listed = json.loads(runner.invoke(app, ["threads", "--json"]).stdout)
    assert {t["thread_id"]: t["status"] for t in listed}[thread] == "waiting for approval"


def test_resume_with_a_stale_question_id_exits_2_and_the_right_one_is_used(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path
) -> None:
    title = unique("cli-stale")
    thread, model, question = waiting_thread(chdir_tmp, mcp_config, title)
    stale = "0" * 32

    refused = runner.invoke(
        app, ["resume", thread, "--model", model, "--question", stale, "--approve"]
    )

    assert refused.exit_code == 2, refused.output
    (line,) = refused.stderr.strip().splitlines()
    assert f"Question {stale} is not the one waiting on thread {thread!r}" in line
    assert question in line
    assert title not in notes(workdir)

    done = runner.invoke(
        app, ["resume", thread, "--model", model, "--question", question, "--approve"]
    )
    assert done.exit_code == 0, done.output
    assert notes(workdir)[title] == "from a script"


def test_question_without_an_answer_is_a_usage_error(chdir_tmp: Path) -> None:
    result = runner.invoke(app, ["resume", "t", "--question", "0" * 32])
    assert result.exit_code == 2
    assert "--question goes with the answer it binds" in result.stderr


def test_answers_are_keyed_by_the_question_shown_even_for_one() -> None:
    asked = Interrupt(value={"action_requests": []}, id="a" * 32)
    command = resume_command([asked], [{"decisions": []}])
    assert command.resume == {"a" * 32: {"decisions": []}}


# --- two terminals answering one question ------------------------------------------------------


def offline_question(chdir: Path, mcp_config: dict[str, Any], title: str) -> str:
    """A thread of the keyless model waiting to write note `title` (another process may resume)."""
    (chdir / "mcp.json").write_text(json.dumps(mcp_config))
    thread = unique("cli-twice")
    request = f'How many units of WID-1 are in stock, then write a note titled "{title}"'
    waiting = runner.invoke(app, ["run", request, "--thread", thread, "--new", *OFFLINE])
    assert waiting.exit_code == 3, waiting.output
    return thread


def other_terminal_approves(chdir: Path, thread: str) -> None:
    """Another terminal (another process) approves the question the thread waits on."""
    done = run_cli(["resume", thread, "--approve", *OFFLINE], chdir, dict(os.environ))
    assert done.returncode == 0, done.stderr


def test_a_second_terminals_answer_is_refused_saying_who_answered_first(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    title = unique("twice")
    thread = offline_question(chdir_tmp, mcp_config, title)

    def ask(value: Any) -> Any:
        # While this terminal asks, another one answers the same question.
        other_terminal_approves(chdir_tmp, thread)
        return {"decisions": [{"type": "approve"}]}

    monkeypatch.setattr(prompts, "stdin_is_terminal", lambda: True)
    monkeypatch.setattr(prompts, "ask_in_terminal", ask)
    second = runner.invoke(app, ["resume", thread, *OFFLINE])

    assert second.exit_code == 2, second.output
    # After the keyless model's announcement, one line.
    line = second.stderr.strip().splitlines()[-1]
    assert "was already answered by 'default' at " in line
    assert "your answer was not used and nothing ran" in line
    assert f"mcp-planner resume {thread}" in line
    assert note_actions(workdir, title) == ["write"]


def test_an_answer_overtaken_on_its_way_is_refused_too(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    title = unique("overtaken")
    thread = offline_question(chdir_tmp, mcp_config, title)

    def checked(*args: Any) -> None:
        # The question still waited when checked; the other answer lands before this one.
        check_unanswered(*args)
        other_terminal_approves(chdir_tmp, thread)

    monkeypatch.setattr(drive, "check_unanswered", checked)
    second = runner.invoke(app, ["resume", thread, "--approve", *OFFLINE])

    assert second.exit_code == 2, second.output
    assert "was already answered by 'default' at " in second.stderr
    assert note_actions(workdir, title) == ["write"]


def test_a_bound_answer_after_the_thread_finished_says_who_answered_it(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path
) -> None:
    title = unique("cli-late")
    thread, model, qid = waiting_thread(chdir_tmp, mcp_config, title)
    bound = ["resume", thread, "--model", model, "--question", qid, "--approve"]
    first = runner.invoke(app, bound)
    assert first.exit_code == 0, first.output

    late = runner.invoke(app, bound)

    assert late.exit_code == 2, late.output
    (line,) = late.stderr.strip().splitlines()
    assert line.startswith(f"Question {qid} was already answered by 'default' at ")
    assert "so your answer was not used and nothing ran" in line
    assert note_actions(workdir, title).count("write") == 1
