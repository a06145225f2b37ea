"""Model endpoint faults through the whole graph, with the real langchain-openai client.

Each fault: what the user sees, how long it takes, and that the thread is resumable (resumed
once the endpoint is healthy, the run completes with the tool called once).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from common.models import ModelCallError
from common.settings import get_settings
from strategies.cli.drive import run_thread
from strategies.cli.exits import EXIT_FAILED
from strategies.with_planner.context import Context
from strategies.with_planner.graph import build_graph
from tests.bounds import sooner_than
from tests.integration_tests.faulty_openai import (
    EMPTY_CONTENT,
    MALFORMED_JSON,
    NO_CHOICES,
    RATE_LIMITED,
    SCHEMA_MISMATCH,
    SERVER_ERROR,
    STALL_S,
    FaultyOpenAI,
    Reply,
    refused_url,
    stall,
)

pytestmark = pytest.mark.integration

CUT_S = 3.0
"""The model timeout of the stall tests: a tenth of the stall, and far above a normal reply."""

MODEL = "openai:gpt-4o-mini"
PLAN: Reply = {
    "content": json.dumps(
        {
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
    )
}
CALL: Reply = {"tool_calls": [{"name": "get_stock", "arguments": {"sku": "WID-1"}}]}
DONE: Reply = {"content": json.dumps({"completed": True, "reason": "stock read"})}
ANSWER: Reply = {"content": "WID-1 has 120 units in stock."}
REQUEST = {"messages": [{"role": "user", "content": "How many WID-1 are in stock?"}]}


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Point the models at `url` with `retries` client retries and a timeout that no normal
    reply comes near (a stall test sets a short one)."""

    def use(url: str, retries: int = 0, timeout: float = 60.0) -> None:
        settings = get_settings()
        monkeypatch.setattr(settings, "openai_base_url", url)
        monkeypatch.setattr(settings, "model_timeout_s", timeout)
        monkeypatch.setattr(settings, "model_max_retries", retries)

    return use


@pytest.fixture
def inventory(mcp_config: dict[str, Any]) -> dict[str, Any]:
    """The inventory expert alone, its read annotations trusted (no analyser call)."""
    entry = {**mcp_config["mcpServers"]["inventory"], "trust_annotations": True}
    return {"mcpServers": {"inventory": entry}}


class Run:
    """One thread of the graph on an in-memory checkpointer."""

    def __init__(self, config: dict[str, Any], thread: str) -> None:
        self.graph = build_graph(InMemorySaver())
        self.thread = {"configurable": {"thread_id": thread}}
        self.ctx = {"mcp_config": config, "model": MODEL}

    async def invoke(self, payload: Any) -> tuple[dict[str, Any], float]:
        """Run (or with None resume) the thread; its final values and the seconds taken."""
        began = time.monotonic()
        values = await self.graph.ainvoke(payload, self.thread, context=self.ctx)
        return values, time.monotonic() - began

    async def fails(self, payload: Any) -> tuple[ModelCallError, float]:
        """Run the thread expecting a model failure; the error and the seconds taken."""
        began = time.monotonic()
        with pytest.raises(ModelCallError) as caught:
            await self.graph.ainvoke(payload, self.thread, context=self.ctx)
        return caught.value, time.monotonic() - began


def completed(values: dict[str, Any]) -> None:
    """The turn answered and its one task completed."""
    (task,) = values["previous_plan"]
    assert task["status"] == "completed", task
    assert '"stock": 120' in task["result"]
    assert values["report"]["ok"], values["report"]


def tool_requests(stub: FaultyOpenAI) -> int:
    """How many requests offered the expert's tools (orchestrate rounds)."""
    return sum(1 for r in stub.requests if r.get("tools"))


async def test_500_then_ok_is_retried_by_the_client(inventory: Any, endpoint: Any) -> None:
    with FaultyOpenAI([SERVER_ERROR, PLAN, CALL, DONE, ANSWER]) as stub:
        endpoint(stub.base_url, retries=2)
        values, _ = await Run(inventory, "fault-500").invoke(REQUEST)
    completed(values)
    assert values["messages"][-1].content.startswith("WID-1 has 120 units")
    assert len(stub.requests) == 5


async def test_429_with_retry_after_waits_then_succeeds(inventory: Any, endpoint: Any) -> None:
    with FaultyOpenAI([PLAN, RATE_LIMITED, CALL, DONE, ANSWER]) as stub:
        endpoint(stub.base_url, retries=2)
        values, took = await Run(inventory, "fault-429").invoke(REQUEST)
    completed(values)
    # Retry-After: 1 is honoured (the client's own backoff would wait about 0.5 s).
    assert took >= 1.0


async def test_connection_refused_names_node_model_and_setting_then_resumes(
    inventory: Any, endpoint: Any
) -> None:
    url = refused_url()
    endpoint(url, retries=1)
    run = Run(inventory, "fault-refused")
    error, _ = await run.fails(REQUEST)
    message = str(error)
    assert message.startswith(
        f"The planner node's model '{MODEL}' at OPENAI_BASE_URL={url} could not be reached "
        "(connection refused); check OPENAI_BASE_URL or the network, then resume the thread"
    ), message
    assert "\n" not in message
    with FaultyOpenAI([PLAN, CALL, DONE, ANSWER]) as stub:
        endpoint(stub.base_url)
        values, _ = await run.invoke(None)
    completed(values)


async def test_a_resume_after_an_unreachable_model_keeps_the_turns_model(
    inventory: Any, endpoint: Any
) -> None:
    """The turn's settings are checkpointed before its first model call: a resume that names
    another model (here the keyless one) still runs the turn on the model it began with."""
    endpoint(refused_url())
    run = Run(inventory, "fault-frozen-model")
    error, _ = await run.fails(REQUEST)
    assert f"model '{MODEL}'" in str(error)
    run.ctx = {"mcp_config": inventory, "model": "offline:rules"}
    with FaultyOpenAI([PLAN, CALL, DONE, ANSWER]) as stub:
        endpoint(stub.base_url)
        values, _ = await run.invoke(None)
    completed(values)
    # Planner, orchestrator, assessor and answer writer: all on the turn's own model.
    assert len(stub.requests) == 4
    assert values["turn"]["run_context"]["model"] == MODEL


async def test_a_stalled_orchestrator_times_out_and_the_task_resumes(
    inventory: Any, endpoint: Any
) -> None:
    with FaultyOpenAI([PLAN, stall()]) as stub:
        endpoint(stub.base_url, retries=0, timeout=CUT_S)
        run = Run(inventory, "fault-stall")
        error, took = await run.fails(REQUEST)
        assert "The orchestrate node's model" in str(error)
        said = "did not answer within MODEL_TIMEOUT_S=3 (not retried: MODEL_MAX_RETRIES=0)"
        assert said in str(error)
        assert took < sooner_than(STALL_S), "cut by the timeout, not the stall"
        stub.heal([CALL, DONE, ANSWER])
        values, _ = await run.invoke(None)
    completed(values)
    # The planner is not asked again: the thread resumed at the task that stalled.
    assert sum(1 for r in stub.requests if "response_format" in r) == 2
    assert tool_requests(stub) == 2


async def test_persistent_500_at_the_assessor_stops_the_run_resumably(
    inventory: Any, endpoint: Any
) -> None:
    with FaultyOpenAI([PLAN, CALL, SERVER_ERROR, SERVER_ERROR]) as stub:
        endpoint(stub.base_url, retries=1)
        run = Run(inventory, "fault-500-assess")
        error, _ = await run.fails(REQUEST)
        assert "The assess_task node's model" in str(error)
        assert 'kept failing with HTTP 500 (after 1 retry; "stub status 500")' in str(error)
        stub.heal([DONE, ANSWER])
        values, _ = await run.invoke(None)
    completed(values)
    assert tool_requests(stub) == 1


async def test_a_stalled_answer_writer_resumes_without_rerunning_the_task(
    inventory: Any, endpoint: Any
) -> None:
    with FaultyOpenAI([PLAN, CALL, DONE, stall()]) as stub:
        endpoint(stub.base_url, retries=0, timeout=CUT_S)
        run = Run(inventory, "fault-stall-answer")
        error, took = await run.fails(REQUEST)
        assert "The generate_response node's model" in str(error)
        assert took < sooner_than(STALL_S), "cut by the timeout, not the stall"
        stub.heal([ANSWER])
        values, _ = await run.invoke(None)
    completed(values)
    assert values["messages"][-1].content.startswith("WID-1 has 120 units")
    assert tool_requests(stub) == 1


@pytest.mark.parametrize(
    "fault", [EMPTY_CONTENT, SCHEMA_MISMATCH], ids=["empty", "schema-mismatch"]
)
async def test_a_malformed_plan_costs_one_planner_retry(
    inventory: Any, endpoint: Any, fault: Reply
) -> None:
    with FaultyOpenAI([fault, PLAN, CALL, DONE, ANSWER]) as stub:
        endpoint(stub.base_url)
        values, _ = await Run(inventory, "fault-bad-plan").invoke(REQUEST)
    completed(values)
    assert len(stub.requests) == 5


async def test_an_empty_orchestrator_round_is_fed_back_and_retried(
    inventory: Any, endpoint: Any
) -> None:
    with FaultyOpenAI([PLAN, EMPTY_CONTENT, CALL, DONE, ANSWER]) as stub:
        endpoint(stub.base_url)
        values, _ = await Run(inventory, "fault-bad-round").invoke(REQUEST)
    completed(values)
    (task,) = values["previous_plan"]
    assert task["attempts"] == 2
    feedback = stub.requests[2]["messages"][-1]["content"]
    assert feedback.startswith("Your last answer could not be used:")


async def test_an_empty_final_answer_leaves_the_deterministic_answer(
    inventory: Any, endpoint: Any
) -> None:
    with FaultyOpenAI([PLAN, CALL, DONE, EMPTY_CONTENT]) as stub:
        endpoint(stub.base_url)
        values, _ = await Run(inventory, "fault-bad-answer").invoke(REQUEST)
        assert len(stub.requests) == 4
    (task,) = values["previous_plan"]
    assert task["status"] == "completed"
    assert str(values["messages"][-1].content).strip()


NODES = {
    "planner": [],
    "orchestrate": [PLAN],
    "assess_task": [PLAN, CALL],
    "generate_response": [PLAN, CALL, DONE],
}
"""Each node whose model call is tested, and the answers that lead the run to it."""


@pytest.mark.parametrize("node", list(NODES))
@pytest.mark.parametrize(
    ("fault", "named"),
    [(MALFORMED_JSON, "not JSON: "), (NO_CHOICES, "a completion with an empty choices list")],
    ids=["malformed-json", "no-choices"],
)
async def test_a_body_that_is_no_completion_stops_the_node_naming_the_server(
    inventory: Any, endpoint: Any, node: str, fault: Reply, named: str
) -> None:
    """The server's fault, not the model's: the model is not asked again; the thread resumes."""
    before = NODES[node]
    with FaultyOpenAI([*before, fault]) as stub:
        endpoint(stub.base_url)
        run = Run(inventory, f"fault-body-{node}")
        error, _ = await run.fails(REQUEST)
        message = str(error)
        assert message.startswith(
            f"The {node} node's model '{MODEL}' at OPENAI_BASE_URL={stub.base_url} answered "
            f"something that is not a chat completion (HTTP 200, {named}"
        ), message
        assert "a fault of the server at OPENAI_BASE_URL" in message
        assert len(stub.requests) == len(before) + 1
        stub.heal([PLAN, CALL, DONE, ANSWER][len(before) :])
        values, _ = await run.invoke(None)
    completed(values)
    # The tool ran once: one orchestrate round with the tools (two where the first one failed).
    assert tool_requests(stub) == (2 if node == "orchestrate" else 1)


async def test_the_cli_prints_one_line_and_exits_1_with_the_resume_command(
    inventory: Any, endpoint: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    settings = get_settings()
    monkeypatch.setattr(settings, "persistence", "sqlite")
    monkeypatch.setattr(settings, "checkpoint_path", tmp_path / "checkpoints.sqlite")
    monkeypatch.setattr(settings, "store_path", tmp_path / "store.sqlite")
    url = refused_url()
    endpoint(url)
    ctx = Context(mcp_config=inventory, model=MODEL)
    hint = "mcp-planner resume cli-fault"
    outcome = await run_thread(REQUEST, "cli-fault", ctx, hint)
    assert outcome.status == "failed"
    assert outcome.exit_code == EXIT_FAILED
    assert outcome.resume == hint
    assert outcome.error is not None
    assert f"at OPENAI_BASE_URL={url} could not be reached (connection refused)" in outcome.error
    assert outcome.error.endswith(f"then run `{hint}` to retry.")
    with FaultyOpenAI([PLAN, CALL, DONE, ANSWER]) as stub:
        endpoint(stub.base_url)
        resumed = await run_thread(None, "cli-fault", ctx, hint)
    assert resumed.status == "completed", resumed
    assert resumed.answer.startswith("WID-1 has 120 units")
