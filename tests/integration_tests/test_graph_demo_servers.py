"""The whole graph over real stdio demo servers: read stock, then write a note after approval."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from strategies.with_planner.graph import build_graph
from tests.doubles import calls, tool_call

pytestmark = pytest.mark.integration

DONE = {"completed": True, "reason": "The tool result shows it is done."}


def _stock_from(messages: list[Any]) -> int:
    """The stock figure the orchestrator was shown: t1's result, given to t2 as its input."""
    prompt = str(messages[0].content)
    match = re.search(r'"stock": (\d+)', prompt)
    if match is None:
        raise AssertionError(f"no stock figure from t1 in t2's prompt:\n{prompt}")
    return int(match.group(1))


def _write_note(title_prefix: str) -> Any:
    """An orchestrate reply that writes a note built from the earlier task's stock figure."""

    def reply(messages: list[Any], meta: dict[str, Any]) -> AIMessage:
        stock = _stock_from(messages)
        title = f"{title_prefix} stock {stock}"
        args = {"title": title, "body": f"WID-1 has {stock} units in stock."}
        return calls(tool_call("write_note", args))

    return reply


async def test_two_task_plan_with_approval(
    scripted: Any, workdir: Path, thread_config: Any
) -> None:
    prefix = f"it-{uuid.uuid4().hex[:6]}"
    plan = {
        "decision": "replace",
        "next_task": 0,
        "plan": [
            {"id": "t1", "expert": "inventory", "task": "Get the stock level of SKU WID-1."},
            {
                "id": "t2",
                "expert": "notes",
                "task": "Write a note recording WID-1's stock.",
                "depends_on": ["t1"],
            },
        ],
    }
    answer = "WID-1 has 120 units; I saved a note about it."
    ctx, models = scripted(
        planner=[plan],
        orchestrate=[calls(tool_call("get_stock", {"sku": "WID-1"})), _write_note(prefix)],
        assess=[DONE, DONE],
        response=[answer],
    )
    graph = build_graph(checkpointer=InMemorySaver())
    config = thread_config()
    request = {"messages": [{"role": "user", "content": "Check WID-1 stock and note it down."}]}

    paused = await graph.ainvoke(request, config, context=ctx)

    (pending,) = paused["__interrupt__"]
    (action,) = pending.value["action_requests"]
    title = f"{prefix} stock 120"
    assert action["name"] == "write_note"
    assert action["args"] == {"title": title, "body": "WID-1 has 120 units in stock."}
    assert pending.value["review_configs"][0]["allowed_decisions"] == ["approve", "edit", "reject"]
    notes_file = workdir / "notes.json"
    assert title not in (json.loads(notes_file.read_text()) if notes_file.exists() else {})

    final = await graph.ainvoke(
        Command(resume={"decisions": [{"type": "approve"}]}), config, context=ctx
    )

    assert "__interrupt__" not in final
    assert final["messages"][-1].content == answer
    assert json.loads(notes_file.read_text())[title] == "WID-1 has 120 units in stock."
    log = (workdir / "notes.log").read_text().splitlines()
    assert len([line for line in log if line.endswith(f"write {title}")]) == 1

    state = (await graph.aget_state(config)).values
    previous = state["previous_plan"]
    assert [(t["id"], t["expert"], t["status"]) for t in previous] == [
        ("t1", "inventory", "completed"),
        ("t2", "notes", "completed"),
    ]
    assert all("120" in (t["result"] or "") for t in previous)
    assert state["plan"] == []
    assert all(not m.script for role, m in models.items() if role != "irreversibility")
    tools_offered = [r["tools"] for r in models["orchestrate"].requests]
    assert "get_stock" in tools_offered[0]
    assert "write_note" not in tools_offered[0]
    assert "write_note" in tools_offered[1]
    assert "get_stock" not in tools_offered[1]
