"""One configuration path: settings -> a validated Context, the same for the CLI and the server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from common.mcp.config import anchor_to_file
from common.models import ModelConfigError
from common.settings import RECURSION_LIMIT, Settings, get_settings, worst_case_steps
from strategies.cli.setup import build_context
from strategies.with_planner.context import (
    FROM_SETTINGS,
    UNSET,
    Context,
    context_from,
    explicit_models,
    make_context,
    turn_context,
)
from strategies.with_planner.offline import OFFLINE_MODEL

ROOT = Path(__file__).resolve().parents[2]


def test_a_partial_context_is_filled_from_the_settings_once() -> None:
    settings = get_settings()
    given = Context(max_parallel=2, approval_mode="plan_only")  # as LangGraph builds it
    assert given.model is UNSET
    assert given.tool_timeout_s is UNSET
    ctx = context_from(settings, given)
    assert ctx.approval_mode == "plan_only"
    assert ctx.max_parallel == 2
    assert ctx.model == settings.model
    assert ctx.tool_timeout_s == settings.tool_timeout_s
    assert ctx.max_task_attempts == settings.max_task_attempts
    assert all(getattr(ctx, name) is not UNSET for name in FROM_SETTINGS)
    assert given.model is UNSET  # the caller's object is left as it was


def test_an_explicit_none_is_a_value_not_a_default() -> None:
    ctx = context_from(get_settings(), {"model": "scripted:x", "planner_model": None})
    assert ctx.planner_model is None
    assert ctx.model_for("planner") == "scripted:x"


def test_the_cli_and_the_graph_share_one_rule_for_a_chosen_model() -> None:
    assert explicit_models({"model": "openai:gpt-4o"})
    assert explicit_models(Context(assess_model="openai:gpt-4o"))
    assert not explicit_models({})
    assert not explicit_models(Context(max_steps=3))
    assert not explicit_models({"planner_model": None})


def test_unusable_default_models_fall_back_to_offline_and_say_so() -> None:
    ctx, notice = turn_context({})
    assert ctx.model_for("planner") == OFFLINE_MODEL
    assert notice
    with pytest.raises(ModelConfigError, match="the run's context model is 'openai:gpt-4o'"):
        turn_context({"model": "openai:gpt-4o"})


def test_a_model_setting_the_user_set_is_chosen_not_a_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = get_settings()
    # The set of fields given is patched first, so undoing leaves the settings as they were.
    monkeypatch.setattr(settings, "__pydantic_fields_set__", set(settings.model_fields_set))
    monkeypatch.setattr(settings, "planner_model", "openai:gpt-4o")
    with pytest.raises(ModelConfigError, match="unset PLANNER_MODEL to run the keyless"):
        turn_context({})


def test_the_cli_builds_the_same_typed_context(chdir_tmp: Path, mcp_config: dict[str, Any]) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))
    ctx = build_context(None, "plan_only", None)
    assert ctx.model == OFFLINE_MODEL
    assert ctx.approval_mode == "plan_only"
    # The file's relative paths are anchored to its folder (servers without `cwd` run there).
    assert ctx.mcp_config == anchor_to_file(mcp_config, chdir_tmp / "mcp.json")
    assert {s["cwd"] for s in ctx.mcp_config["mcpServers"].values()} == {str(chdir_tmp.resolve())}
    with pytest.raises(ModelConfigError):
        build_context("openai:gpt-4o", None, None)


def test_make_context_keeps_the_model_fields_unset_when_none_was_named() -> None:
    ctx = make_context({"max_steps": 5})
    assert ctx.model is UNSET
    assert ctx.approval_mode == get_settings().approval_mode
    named = make_context({"model": "scripted:x"})
    assert named.planner_model == get_settings().planner_model


def test_importing_the_graph_reads_no_settings() -> None:
    env = {**os.environ, "MAX_TASK_ATTEMPTS": "zero", "PYTHONPATH": str(ROOT / "src")}
    code = (
        "import strategies.with_planner.graph as g\n"
        "from common.settings import RECURSION_LIMIT\n"
        "assert g.graph.config['recursion_limit'] == RECURSION_LIMIT\n"
        "from common.settings import get_settings, ConfigError\n"
        "try:\n    get_settings()\nexcept ConfigError:\n    print('settings refused')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "settings refused" in done.stdout


def test_the_default_limit_covers_the_largest_allowed_budgets() -> None:
    largest = Settings(max_planner_retries=10, max_plan_tasks=50)
    assert worst_case_steps(largest) < RECURSION_LIMIT


def test_an_unknown_provider_is_refused_even_for_a_chosen_model() -> None:
    with pytest.raises(ModelConfigError, match="names an unknown provider 'foo'"):
        turn_context({"model": "foo:bar"})
