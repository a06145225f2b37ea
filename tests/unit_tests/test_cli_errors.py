"""Every mistake a person can make with `mcp-planner` is one line on stderr and exit 2, and
nothing runs or is created before it is reported."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from common.settings import get_settings
from strategies.cli.app import app
from tests.doubles import ScriptedChatModel, install_scripted
from tests.unit_tests.helpers import invoke_cli, run_cli

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def one_line(result: Any) -> str:
    """The single stderr line of a refused command (no traceback, nothing else)."""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return str(lines[0])


def unused_model() -> str:
    return install_scripted(ScriptedChatModel(script=[], name_="never-called"))


@pytest.mark.parametrize("mode", ["bogus", "Interrupt", "plan-only", "", " auto"])
def test_a_bad_mode_is_refused_before_anything_runs(
    chdir_tmp: Path, mcp_config: dict[str, Any], mode: str
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    result = runner.invoke(
        app, ["run", "delete everything", "--mode", mode, "--model", unused_model()]
    )
    assert result.exit_code == 2
    assert one_line(result) == (
        f"--mode {mode!r} is not an approval mode: use one of interrupt, plan_only, auto."
    )
    assert result.stdout == ""
    assert not (chdir_tmp / ".mcp-planner").exists()


def test_the_reported_bug_a_bogus_mode_deletes_nothing(tmp_path: Path) -> None:
    """`run --mode bogus 'delete the note titled "keep"'` once deleted the note with exit 0."""
    notes = tmp_path / "notes.json"
    notes.write_text(json.dumps({"keep": "important"}))
    log = tmp_path / "notes.log"
    config = {
        "mcpServers": {
            "notes": {
                "command": "python",
                "args": ["-m", "common.demo_servers.notes"],
                "env": {"NOTES_FILE": str(notes), "NOTES_LOG": str(log)},
            }
        }
    }
    (tmp_path / "mcp.json").write_text(json.dumps(config))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MODEL", "OPENAI"))}
    done = run_cli(["run", "--mode", "bogus", 'delete the note titled "keep"'], tmp_path, env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "--mode 'bogus' is not an approval mode: use one of interrupt, plan_only, auto."
    ]
    assert json.loads(notes.read_text()) == {"keep": "important"}
    assert not log.exists()
    assert not (tmp_path / ".mcp-planner").exists()


def test_a_missing_mcp_json_is_reported_before_anything_is_created(chdir_tmp: Path) -> None:
    result = runner.invoke(app, ["run", "hello"])
    assert result.exit_code == 2
    line = one_line(result)
    assert line.startswith("No MCP config file 'mcp.json' in ")
    assert "pass --config PATH or set MCP_CONFIG" in line
    assert "context" not in line
    assert not (chdir_tmp / ".mcp-planner").exists()


def test_a_missing_config_file_named_explicitly_says_which_name_to_fix(
    chdir_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (chdir_tmp / "mcp.json").write_text('{"mcpServers": {}}')
    flag = runner.invoke(app, ["tools", "--config", "nope.json"])
    monkeypatch.setenv("MCP_CONFIG", "nope.json")
    get_settings.cache_clear()  # settings are read once per process
    try:
        env = runner.invoke(app, ["tools"])
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()

    assert flag.exit_code == 2
    assert one_line(flag).endswith(
        ": correct the path, or leave --config out to use mcp.json in this folder."
    )
    assert env.exit_code == 2
    assert "(MCP_CONFIG) not found in " in one_line(env)
    assert one_line(env).endswith(
        ": correct MCP_CONFIG, or unset it to use mcp.json in this folder."
    )


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "MCP config file 'cfg.json' (--config) not found in "),
        ("{not json", "MCP config file 'cfg.json' is not valid JSON: "),
        (json.dumps({"servers": {}}), 'cfg.json: expected an object {"mcpServers": {...}}'),
        (json.dumps({"mcpServers": {"x": {"comand": "y"}}}), "server 'x'"),
    ],
)
def test_a_bad_config_file_is_one_line(chdir_tmp: Path, content: str | None, expected: str) -> None:
    if content is not None:
        (chdir_tmp / "cfg.json").write_text(content)
    for command in (["run", "hi", "--model", unused_model()], ["tools"], ["chat"]):
        result = runner.invoke(app, [*command, "--config", "cfg.json"])
        assert result.exit_code == 2, (command, result.output)
        assert expected in one_line(result)
    assert not (chdir_tmp / ".mcp-planner").exists()


def test_a_model_that_cannot_load_is_one_line(chdir_tmp: Path, mcp_config: dict[str, Any]) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    result = runner.invoke(app, ["run", "hi", "--model", "nonsense"])
    assert result.exit_code == 2
    assert "'nonsense' is not of the form 'provider:model'" in one_line(result)
    assert not (chdir_tmp / ".mcp-planner").exists()


def test_resume_of_an_unknown_thread_is_one_line_and_creates_nothing(
    chdir_tmp: Path, mcp_config: dict[str, Any]
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    result = runner.invoke(app, ["resume", "nope", "--model", unused_model()])
    assert result.exit_code == 2
    assert one_line(result) == "No thread 'nope' here (mcp-planner threads lists them)."
    assert not (chdir_tmp / ".mcp-planner").exists()


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--decisions", "{nope"], "--decisions is not valid JSON: "),
        (["--decisions", "[]"], '--decisions must be a JSON object {"decisions": [...]}'),
        (["--decisions", '{"decisions": [{"type": "maybe"}]}'], "--decisions: Expected"),
        (
            ["--decisions", '{"decisions": [{"type": "aprove"}]}'],
            "(decision 1: type 'aprove' is not one of 'approve', 'edit', 'reject')",
        ),
        (
            [
                "--decisions",
                '{"decisions": [{"type": "approve"}, {"type": "approve", "remember": "yes"}]}',
            ],
            "(decision 2: 'remember' must be true or false)",
        ),
        (
            [
                "--decisions",
                '{"decisions": [{"type": "edit", "edited_action": {"name": "w", "args": []}}]}',
            ],
            "(decision 1: 'edited_action.args' must be an object)",
        ),
        (["--decisions", '{"decisions": [{}]}'], '(decision 1 has no "type")'),
        (["--approve", "--reject"], "Give one of --approve, --reject or --decisions"),
        (["--message", "why"], "--message goes with --reject"),
    ],
)
def test_bad_resume_answers_are_one_line(
    chdir_tmp: Path, mcp_config: dict[str, Any], options: list[str], expected: str
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    result = runner.invoke(app, ["resume", "any", *options, "--model", unused_model()])
    assert result.exit_code == 2
    assert expected in one_line(result)
    assert not (chdir_tmp / ".mcp-planner").exists()


def test_run_json_reports_an_error_as_one_object(chdir_tmp: Path) -> None:
    result = runner.invoke(app, ["run", "hi", "--mode", "bogus", "--json"])
    assert result.exit_code == 2
    outcome = json.loads(result.stdout)
    assert outcome["status"] == "error"
    assert outcome["error"] == one_line(result)
    assert outcome["exit_code"] == 2
    assert {"thread_id", "pending", "answer", "tasks", "problems"} <= set(outcome)


def test_a_bad_setting_is_one_line_in_every_command(tmp_path: Path) -> None:
    env = {**os.environ, "MAX_TASK_ATTEMPTS": "many"}
    for command in (["run", "hi"], ["resume", "x"], ["threads"], ["history"], ["tools"]):
        done = invoke_cli(command, tmp_path, env)
        assert done.returncode == 2, (command, done.stderr)
        (line,) = done.stderr.strip().splitlines()
        assert "MAX_TASK_ATTEMPTS" in line
        assert "'many'" in line
    assert not (tmp_path / ".mcp-planner").exists()


def test_postgres_without_a_database_uri_is_one_line(
    chdir_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (chdir_tmp / "mcp.json").write_text('{"mcpServers": {}}')
    monkeypatch.setenv("PERSISTENCE", "postgres")
    monkeypatch.delenv("DATABASE_URI", raising=False)
    get_settings.cache_clear()  # settings are read once per process
    try:
        for command in (["threads"], ["history"]):
            result = runner.invoke(app, command)
            assert result.exit_code == 2, result.output
            assert "PERSISTENCE='postgres' needs DATABASE_URI" in one_line(result)
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()


def unwritable_folder(parent: Path) -> Path:
    """A folder path under `parent` in which nothing can be created.

    A read-only folder (mode 555) stops every user but root, and tests may run as root (in a
    container, in CI), where permissions stop nothing: there the folder's name is taken by a
    regular file, so nothing can be created under it either.
    """
    folder = parent / "locked"
    if os.geteuid() == 0:
        folder.write_text("a file where a folder should be")
    else:
        folder.mkdir()
        folder.chmod(0o555)
    return folder


def assert_refused_naming(done: Any, path: Path, setting: str) -> None:
    """Exit 2 and one sentence naming the file's full path and the setting to change."""
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert repr(str(path.absolute())) in line
    assert f"set {setting} to a file in a folder you can write to" in line


@pytest.mark.parametrize("setting", ["CHECKPOINT_PATH", "STORE_PATH"])
def test_a_path_setting_in_an_unwritable_place_is_one_line(tmp_path: Path, setting: str) -> None:
    (tmp_path / "mcp.json").write_text('{"mcpServers": {}}')
    path = unwritable_folder(tmp_path) / "planner.sqlite"
    env = {**os.environ, setting: str(path)}

    done = invoke_cli(["run", "hi"], tmp_path, env)

    assert_refused_naming(done, path, setting)


def test_an_unwritable_working_folder_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "mcp.json").write_text('{"mcpServers": {}}')
    unwritable_folder(tmp_path).rename(tmp_path / ".mcp-planner")
    path = tmp_path / ".mcp-planner" / "checkpoints.sqlite"
    env = {k: v for k, v in os.environ.items() if k not in ("CHECKPOINT_PATH", "STORE_PATH")}

    done = invoke_cli(["run", "hi"], tmp_path, env)

    assert_refused_naming(done, path, "CHECKPOINT_PATH")


def test_a_path_setting_naming_a_folder_is_one_line(tmp_path: Path) -> None:
    # SQLite's own refusal ("unable to open database file"), whoever runs the test.
    (tmp_path / "mcp.json").write_text('{"mcpServers": {}}')
    path = tmp_path / "store.sqlite"
    path.mkdir()

    done = invoke_cli(["run", "hi"], tmp_path, {**os.environ, "STORE_PATH": str(path)})

    assert_refused_naming(done, path, "STORE_PATH")
    assert "(it is a folder)" in done.stderr


def test_typer_usage_errors_stay_typers(chdir_tmp: Path) -> None:
    result = runner.invoke(app, ["run"])
    assert result.exit_code == 2
    assert "Missing argument" in result.stderr


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"MODEL": "foo:bar"}, "MODEL is 'foo:bar', which names an unknown provider 'foo'"),
        (
            {"MODEL": "openai:gpt-4o"},
            "MODEL is 'openai:gpt-4o', which needs OPENAI_API_KEY, and OPENAI_API_KEY is not set: "
            "set OPENAI_API_KEY in .env or the environment, or unset MODEL to run the keyless "
            "demo model offline:rules.",
        ),
        ({"PLANNER_MODEL": "anthropic:x"}, "unset PLANNER_MODEL to run the keyless demo model"),
    ],
)
def test_a_model_the_user_set_that_cannot_load_is_one_line_not_a_fallback(
    tmp_path: Path, mcp_config: dict[str, Any], env: dict[str, str], expected: str
) -> None:
    (tmp_path / "mcp.json").write_text(json.dumps(mcp_config))
    request = "How many units of WID-1 are in stock"
    done = invoke_cli(["run", request], tmp_path, {**os.environ, **env})
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert expected in line
    assert "offline:rules" not in done.stdout
    assert not (tmp_path / ".mcp-planner").exists()


def test_a_model_option_without_its_key_says_how_to_run_keyless(
    chdir_tmp: Path, mcp_config: dict[str, Any]
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    result = runner.invoke(app, ["run", "hi", "--model", "openai:gpt-4o"])
    assert result.exit_code == 2
    assert "needs OPENAI_API_KEY" in one_line(result)
    assert "leave out --model to run the keyless demo model offline:rules" in one_line(result)


def test_with_no_model_set_and_no_key_the_demo_runs_keyless(
    tmp_path: Path, mcp_config: dict[str, Any]
) -> None:
    (tmp_path / "mcp.json").write_text(json.dumps(mcp_config))
    (tmp_path / ".env").write_text((ROOT / ".env.example").read_text())
    env = {k: v for k, v in os.environ.items() if not k.endswith("MODEL")}
    done = run_cli(["run", "How many units of WID-1 are in stock"], tmp_path, env)
    assert done.returncode == 0, done.stderr
    assert "offline:rules" in done.stdout + done.stderr


def test_an_empty_model_option_says_what_to_give(chdir_tmp: Path) -> None:
    (chdir_tmp / "mcp.json").write_text('{"mcpServers": {}}')
    for command in (["run", "hello"], ["chat"]):
        result = runner.invoke(app, [*command, "--model", " "])
        assert result.exit_code == 2, result.output
        assert one_line(result) == (
            "--model is empty: give provider:model (e.g. openai:gpt-4o-mini), or leave --model "
            "out to use MODEL."
        )
    assert not (chdir_tmp / ".mcp-planner").exists()
