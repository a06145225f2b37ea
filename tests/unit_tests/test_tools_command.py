"""`mcp-planner tools`: every configured tool with its deterministic classification, no model."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import common.models
import common.safety.analysis
import strategies.with_planner.context
from strategies.cli.app import app

runner = CliRunner()
FIELDS = {"server", "tool", "irreversible", "source", "reason", "remembered"}
NOTES_TOOLS = {"list_notes", "read_note", "write_note", "delete_note"}
INVENTORY_TOOLS = {"list_products", "get_stock", "search_products"}


@pytest.fixture(autouse=True)
def _no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading any model, or running the analysis, fails the test."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the tools command must not use a model")

    monkeypatch.setattr(common.models, "load_chat_model", refuse)
    monkeypatch.setattr(strategies.with_planner.context, "load_chat_model", refuse)
    monkeypatch.setattr(common.safety.analysis, "analyse", refuse)


def write_config(directory: Path, mcp_config: dict[str, Any], **extra: Any) -> Path:
    demo = mcp_config["mcpServers"]
    servers = {
        "inventory": demo["inventory"],
        "notes": demo["notes"],
        "scratch": {**demo["notes"], "sandboxed": True},
        **extra,
    }
    path = directory / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


def listed(result: Any) -> dict[tuple[str, str], dict[str, Any]]:
    rows = json.loads(result.stdout)
    assert isinstance(rows, list)
    assert all(set(row) == FIELDS for row in rows)
    return {(row["server"], row["tool"]): row for row in rows}


def test_json_lists_every_tool_with_its_classification(
    tmp_path: Path, mcp_config: dict[str, Any]
) -> None:
    path = write_config(tmp_path, mcp_config)

    result = runner.invoke(app, ["tools", "--config", str(path), "--json"])

    assert result.exit_code == 0, result.output
    rows = listed(result)
    assert set(rows) == (
        {("inventory", t) for t in INVENTORY_TOOLS}
        | {("notes", t) for t in NOTES_TOOLS}
        | {("scratch", t) for t in NOTES_TOOLS}
    )
    for tool in ("write_note", "delete_note"):
        row = rows[("notes", tool)]
        assert (row["irreversible"], row["source"]) == (True, "annotation")
        assert "destructiveHint" in row["reason"]
    for tool in ("list_notes", "read_note"):
        assert rows[("notes", tool)]["irreversible"] is False
    for tool in INVENTORY_TOOLS:
        row = rows[("inventory", tool)]
        assert (row["irreversible"], row["source"]) == (False, "annotation")
        assert "readOnlyHint" in row["reason"]
    for tool in NOTES_TOOLS:
        row = rows[("scratch", tool)]
        assert (row["irreversible"], row["source"]) == (False, "config")
        assert "sandboxed" in row["reason"]


def test_config_patterns_decide_before_annotations(
    tmp_path: Path, mcp_config: dict[str, Any]
) -> None:
    strict = {**mcp_config["mcpServers"]["inventory"], "irreversible_tools": ["get_*"]}
    path = write_config(tmp_path, mcp_config, strict_inventory=strict)

    result = runner.invoke(app, ["tools", "--config", str(path), "--json"])

    assert result.exit_code == 0, result.output
    rows = listed(result)
    row = rows[("strict_inventory", "get_stock")]
    assert (row["irreversible"], row["source"]) == (True, "config")
    assert "'get_*'" in row["reason"]
    assert rows[("strict_inventory", "list_products")]["irreversible"] is False


def test_a_broken_server_exits_1_and_names_its_error(
    tmp_path: Path, mcp_config: dict[str, Any]
) -> None:
    crash = "import sys; sys.stderr.write('kaput'); sys.exit(3)"
    path = write_config(
        tmp_path, mcp_config, broken={"command": sys.executable, "args": ["-c", crash]}
    )

    result = runner.invoke(app, ["tools", "--config", str(path), "--json"])

    assert result.exit_code == 1
    stderr = " ".join(result.stderr.split())
    assert "Expert 'broken' is unavailable" in stderr
    assert "kaput" in stderr
    rows = listed(result)
    assert ("notes", "write_note") in rows
    assert not any(server == "broken" for server, _ in rows)


def test_the_table_lists_the_tools(tmp_path: Path, mcp_config: dict[str, Any]) -> None:
    path = write_config(tmp_path, mcp_config)

    result = runner.invoke(app, ["tools", "--config", str(path)])

    assert result.exit_code == 0, result.output
    out = result.stdout
    for word in ("write_note", "delete_note", "get_stock", "scratch", "inventory"):
        assert word in out
    assert "irreversible" in out
    assert "reversible" in out.replace("irreversible", "")
    assert "config" in out
    assert "annotation" in out


def test_an_unreadable_config_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{not json", encoding="utf-8")

    result = runner.invoke(app, ["tools", "--config", str(path), "--json"])

    assert result.exit_code == 2
    assert "not valid JSON" in " ".join(result.stderr.split())
    assert result.stdout == ""


def test_the_table_says_which_servers_may_let_data_leave(
    tmp_path: Path, mcp_config: dict[str, Any]
) -> None:
    free = {**mcp_config["mcpServers"]["inventory"], "data_may_leave": True}
    path = write_config(tmp_path, mcp_config, catalogue=free)

    result = runner.invoke(app, ["tools", "--config", str(path)])

    assert result.exit_code == 0, result.output
    assert "data_may_leave: true on catalogue." in " ".join(result.stdout.split())
