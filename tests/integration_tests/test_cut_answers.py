"""An answer cut at its length limit (`finish_reason: "length"`), on every method and call.

The scripted OpenAI-compatible endpoint answers with the exact completion a server sends when
the answer hits `max_tokens` or the end of its context: the content (or the forced call's
arguments) stops mid-JSON, `finish_reason` is `length`. The requests go through langchain-openai
and the openai client unchanged, whose `.parse()` raises `LengthFinishReasonError` for
json_schema and json_mode. Each run ends in the one sentence naming MODEL_MAX_TOKENS and the
server's context, without asking the model again, and resumes once the limit is raised.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from common.settings import get_settings
from strategies.cli.drive import run_thread
from strategies.cli.exits import EXIT_FAILED
from strategies.cli.outcome import Outcome
from strategies.with_planner.context import Context
from tests.integration_tests.openai_stub import OpenAIStub
from tests.unit_tests.helpers import run_cli

pytestmark = pytest.mark.integration

MODEL = "openai:smollm2"
REQUEST = {"messages": [{"role": "user", "content": "How many WID-1 are in stock?"}]}
PLAN = {
    "decision": "replace",
    "plan": [
        {
            "id": "t1",
            "expert": "inventory",
            "task": "Stock of WID-1",
            "depends_on": [],
            "critical": True,
            "tool": None,
            "args_json": None,
        }
    ],
    "next_task": 0,
    "clarification": None,
    "not_covered": [],
}
CALL = {"tool_calls": [{"name": "get_stock", "arguments": {"sku": "WID-1"}}]}
DONE = {"completed": True, "reason": "stock read"}
ANSWER = {"content": "WID-1 has 120 units in stock."}
SENTENCE = (
    "stopped its answer at the length limit (finish_reason length; prompt 4057 tokens, "
    "answer 30): raise MODEL_MAX_TOKENS (now 30), or give the server a larger context "
    "(llama.cpp: --ctx-size / n_ctx) or a shorter prompt (PLANNER_TOOL_BUDGET, "
    "CONVERSATION_TOKEN_BUDGET), then run `mcp-planner resume cut` to retry."
)
"""How the one line ends (after which node's model, at which endpoint)."""


def cut(content: str | None = None, call: tuple[str, str] | None = None) -> dict[str, Any]:
    """A completion cut at 30 tokens: `content`, or a call (name, arguments) stopped mid-JSON."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if call is not None:
        name, arguments = call
        function = {"name": name, "arguments": arguments}
        message["tool_calls"] = [{"id": "call_0", "type": "function", "function": function}]
    completion = {
        "id": "chatcmpl-cut",
        "object": "chat.completion",
        "created": 0,
        "model": "smollm2",
        "choices": [{"index": 0, "message": message, "finish_reason": "length"}],
        "usage": {"prompt_tokens": 4057, "completion_tokens": 30, "total_tokens": 4087},
    }
    return {"completion": completion}


def answer(method: str, name: str, value: dict[str, Any]) -> dict[str, Any]:
    """A structured answer as `method` gets it: a forced call, or JSON text."""
    if method == "function_calling":
        return {"tool_calls": [{"name": name, "arguments": value}]}
    return {"content": json.dumps(value)}


CUT_PLAN_TEXT = cut('{"decision": "replace", "plan": [{"id": "t1", "expert": "inv')
CUT_PLAN_CALL = cut(call=("PlannerResult", '{"decision": "replace", "plan": [{"id": "t1", "ex'))
CUT_PLAN = {"json_schema": CUT_PLAN_TEXT, "json_mode": CUT_PLAN_TEXT}


@pytest.fixture
def inventory(mcp_config: dict[str, Any]) -> dict[str, Any]:
    """The inventory expert alone, its read annotations trusted (no analyser call)."""
    entry = {**mcp_config["mcpServers"]["inventory"], "trust_annotations": True}
    return {"mcpServers": {"inventory": entry}}


@pytest.fixture
def limits(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """MODEL_MAX_TOKENS=30, no client retries, checkpoints in `tmp_path`; `use(method, url)`."""
    settings = get_settings()
    monkeypatch.setattr(settings, "model_max_tokens", 30)
    monkeypatch.setattr(settings, "model_max_retries", 0)
    monkeypatch.setattr(settings, "persistence", "sqlite")
    monkeypatch.setattr(settings, "checkpoint_path", tmp_path / "checkpoints.sqlite")
    monkeypatch.setattr(settings, "store_path", tmp_path / "store.sqlite")

    def use(method: str, url: str) -> None:
        monkeypatch.setattr(settings, "structured_output_method", method)
        monkeypatch.setattr(settings, "openai_base_url", url)

    return use


async def _run(config: dict[str, Any], payload: Any) -> Outcome:
    """The thread `cut` run (or with None resumed) as the CLI runs it."""
    ctx = Context(mcp_config=config, model=MODEL)
    return await run_thread(payload, "cut", ctx, "mcp-planner resume cut")


def _ends_in_the_sentence(outcome: Outcome, node: str, url: str) -> None:
    """The run failed with the one line naming the node, the limits, and the resume command."""
    assert outcome.status == "failed", outcome
    assert outcome.exit_code == EXIT_FAILED
    assert outcome.error == f"The {node} node's model {MODEL!r} at OPENAI_BASE_URL={url} {SENTENCE}"


@pytest.mark.parametrize("method", ["function_calling", "json_schema", "json_mode"])
async def test_a_cut_plan_ends_in_the_sentence_on_every_method_and_resumes(
    inventory: dict[str, Any], limits: Any, method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply = CUT_PLAN.get(method, CUT_PLAN_CALL)
    with OpenAIStub([reply]) as stub:
        limits(method, stub.base_url)
        outcome = await _run(inventory, REQUEST)
    _ends_in_the_sentence(outcome, "planner", stub.base_url)
    assert len(stub.requests) == 1  # not asked again: the same limits cut it again
    script = [answer(method, "PlannerResult", PLAN), CALL, answer(method, "Assessment", DONE)]
    with OpenAIStub([*script, ANSWER]) as healed:
        limits(method, healed.base_url)
        monkeypatch.setattr(get_settings(), "model_max_tokens", 4096)
        resumed = await _run(inventory, None)
    assert resumed.status == "completed", resumed
    assert resumed.answer.startswith("WID-1 has 120 units")


@pytest.mark.parametrize(
    ("script", "node"),
    [
        ([{"content": json.dumps(PLAN)}, cut(call=("get_stock", '{"sk'))], "orchestrate"),
        ([{"content": json.dumps(PLAN)}, CALL, cut('{"completed": tr')], "assess_task"),
    ],
    ids=["tool-round", "assessor"],
)
async def test_a_cut_answer_of_a_later_node_ends_in_the_sentence(
    inventory: dict[str, Any], limits: Any, script: list[dict[str, Any]], node: str
) -> None:
    with OpenAIStub(script) as stub:
        limits("json_schema", stub.base_url)
        outcome = await _run(inventory, REQUEST)
    _ends_in_the_sentence(outcome, node, stub.base_url)
    assert len(stub.requests) == len(script)


async def test_a_cut_plain_answer_is_shown_with_the_limit_named(
    inventory: dict[str, Any], limits: Any
) -> None:
    """Prose cut short still says something: kept, the limit named, the run completed."""
    script = [{"content": json.dumps(PLAN)}, CALL, {"content": json.dumps(DONE)}]
    with OpenAIStub([*script, cut("WID-1 has 120 un")]) as stub:
        limits("json_schema", stub.base_url)
        outcome = await _run(inventory, REQUEST)
    assert outcome.status == "completed", outcome
    assert outcome.answer.startswith("WID-1 has 120 un")
    assert "stopped its answer at the length limit" in outcome.answer
    assert "raise MODEL_MAX_TOKENS (now 30)" in outcome.answer


def test_the_cli_says_one_line_and_exits_1_for_a_cut_json_mode_plan(tmp_path: Path) -> None:
    servers = {
        "inventory": {
            "command": sys.executable,
            "args": ["-m", "common.demo_servers.inventory"],
            "trust_annotations": True,
        }
    }
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    for setting in ("CHECKPOINT_PATH", "STORE_PATH", "DATABASE_URI", "PERSISTENCE"):
        env.pop(setting, None)
    with OpenAIStub([CUT_PLAN_TEXT]) as stub:
        env.update(
            MODEL=MODEL,
            OPENAI_BASE_URL=stub.base_url,
            OPENAI_API_KEY="sk-local",
            MODEL_MAX_TOKENS="30",
            MODEL_MAX_RETRIES="0",
            STRUCTURED_OUTPUT_METHOD="json_mode",
        )
        done = run_cli(
            ["run", "--new", "--thread", "cut", "How many WID-1 are in stock?"], tmp_path, env
        )
    assert done.returncode == EXIT_FAILED, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    [line] = [x for x in done.stderr.splitlines() if "MODEL_MAX_TOKENS" in x]
    assert line.endswith(SENTENCE), done.stderr
    assert f"planner node's model {MODEL!r} at OPENAI_BASE_URL={stub.base_url}" in line
