"""offline:rules, the keyless demo model: plans by keywords, runs, asks approval, answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from strategies.cli import prompts
from strategies.cli.app import app
from strategies.with_planner.offline import parse_experts, plan_request
from strategies.with_planner.plans import PlannerResult, planned_tasks

PROMPT = """Experts:
- inventory: Product catalogue
  tools: list_products(): List every product with its SKU and stock; get_stock(sku): Get the \
stock level of one product by SKU.
- notes: Team notes
  tools: list_notes(): List the titles of all notes; write_note(title, body): Write a note
"""


def test_the_tool_listing_of_the_planner_prompt_is_read() -> None:
    experts = parse_experts(PROMPT)
    assert [t[0] for t in experts["inventory"]] == ["list_products", "get_stock"]
    assert experts["notes"][1] == ("write_note", ["title", "body"], "Write a note")


def test_clauses_become_direct_steps_with_filled_and_chained_arguments() -> None:
    answer = PlannerResult.model_validate(
        plan_request('How many units of WID-1 are in stock, then write a note titled "x"', PROMPT)
    )
    (first, second), problems = planned_tasks(answer)
    assert problems == []
    assert (first["tool"], first["args"]) == ("get_stock", {"sku": "WID-1"})
    assert second["tool"] == "write_note"
    assert second["args"] == {"title": "x", "body": "${t1.result}"}
    assert second["depends_on"] == ["t1"]


def test_a_request_no_tool_matches_gets_an_empty_plan() -> None:
    assert plan_request("Tell me a joke", PROMPT)["plan"] == []


def test_the_demo_runs_without_any_api_key(
    chdir_tmp: Path, mcp_config: dict[str, Any], workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prompts, "stdin_is_terminal", lambda: True)
    config = {"mcpServers": {k: mcp_config["mcpServers"][k] for k in ("inventory", "notes")}}
    (chdir_tmp / "mcp.json").write_text(json.dumps(config))
    result = CliRunner().invoke(
        app,
        [
            "run",
            'How many units of GAD-7 are in stock, then write a note titled "offline-demo"',
            "--config",
            "mcp.json",
        ],
        input="a\n",
    )
    assert result.exit_code == 0, result.output
    assert "offline:rules" in result.output
    assert "Approve write_note?" in result.output
    # The live plan table ends with every task's final status.
    final_table = result.output.rsplit("Plan", 1)[1].split("Answer", 1)[0]
    # Not a terminal: ASCII borders, one row per task after the header.
    rows = [line for line in final_table.splitlines() if line.startswith("|  | t")]
    assert len(rows) == 2
    assert all("completed" in row for row in rows)
    note = json.loads((workdir / "notes.json").read_text())["offline-demo"]
    assert '"stock": 14' in note


def test_run_json_prints_the_outcome_for_scripts(
    chdir_tmp: Path, mcp_config: dict[str, Any]
) -> None:
    config = {"mcpServers": {"inventory": mcp_config["mcpServers"]["inventory"]}}
    (chdir_tmp / "mcp.json").write_text(json.dumps(config))
    result = CliRunner().invoke(
        app, ["run", "How many units of WID-2 are in stock", "--config", "mcp.json", "--json"]
    )
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.stdout)
    assert outcome["exit_code"] == 0
    assert outcome["status"] == "completed"
    (task,) = outcome["tasks"]
    assert task["status"] == "completed"
    assert '"stock": 0' in task["result"]


def test_chat_keeps_one_thread_over_several_turns(
    chdir_tmp: Path, mcp_config: dict[str, Any]
) -> None:
    config = {"mcpServers": {"inventory": mcp_config["mcpServers"]["inventory"]}}
    (chdir_tmp / "mcp.json").write_text(json.dumps(config))
    turns = "How many units of WID-1 are in stock\nHow many units of GAD-7 are in stock\nexit\n"
    result = CliRunner().invoke(
        app, ["chat", "--thread", "chat-1", "--config", "mcp.json"], input=turns
    )
    assert result.exit_code == 0, result.output
    assert result.output.count("Answer") == 2
    assert '"stock": 120' in result.output
    assert '"stock": 14' in result.output
    threads = json.loads(CliRunner().invoke(app, ["threads", "--json"]).stdout)
    assert [t["thread_id"] for t in threads] == ["chat-1"]
