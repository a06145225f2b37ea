"""Whole runs send only requests a provider accepts: tool names, tool counts, histories.

Every request a scripted model records is checked against the providers' documented rules
(`check_requests`): tool names `^[a-zA-Z0-9_-]{1,64}$` starting with a letter (OpenAI,
Anthropic, Gemini), at most 128 tools, and each tool message right after the call it answers,
every call answered. The builders must get this right on their own: the repair before each
model call (`common.history.provider_history`) logs a warning, which fails these tests.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from mcp.server.mcpserver import MCPServer

from common.history import history_problems
from common.mcp.inprocess import register_inprocess_server
from tests.doubles import ScriptedChatModel, calls, tool_call
from tests.unit_tests.guard_helpers import (
    DESTRUCTIVE,
    READ_ONLY,
    Executions,
    Expert,
    servers,
)
from tests.unit_tests.helpers import Thread, done, not_done, plan, task, unique

PROVIDER_NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9_-]{0,63}$")
MAX_TOOLS = 128
REPAIRED = "repaired a tool-call history"

DOTTED = "tracker.issues/read"
LONG_70 = "tracker.repositories." + "archive_and_delete_" * 2 + "all_of_them"
assert len(LONG_70) == 70


def check_requests(models: dict[str, ScriptedChatModel], caplog: pytest.LogCaptureFixture) -> int:
    """Assert every recorded request is one the providers accept; return how many there were."""
    seen = 0
    for role, model in models.items():
        for number, request in enumerate(model.requests):
            where = f"{role} request #{number}"
            messages: list[BaseMessage] = request["messages"]
            assert history_problems(messages) == [], where
            tools = request.get("tools") or []
            assert len(tools) <= MAX_TOOLS, where
            named = [*tools, *_names_in(messages)]
            assert all(PROVIDER_NAME.match(n) for n in named), (where, named)
            seen += 1
    assert REPAIRED not in caplog.text
    return seen


def _names_in(messages: list[BaseMessage]) -> list[str]:
    names: list[str] = []
    for m in messages:
        if isinstance(m, AIMessage):
            names += [c["name"] for c in m.tool_calls]
        if isinstance(m, ToolMessage) and m.name:
            names.append(m.name)
    return names


def bound_as(prefix: str, args: dict[str, Any], call_id: str) -> Callable[..., Any]:
    """A call to the offered tool whose bound name starts with `prefix` (the model's view)."""

    def reply(messages: list[Any], meta: dict[str, Any]) -> AIMessage:
        (name,) = [n for n in meta["tools"] if n.startswith(prefix)]
        return calls(tool_call(name, args, call_id=call_id))

    return reply


def tracker_server() -> Expert:
    """An expert whose tool names no provider takes as they are: dotted, slashed, 70 long."""
    runs = Executions()
    mcp = MCPServer(unique("tracker"))

    @mcp.tool(name=DOTTED, description="Read one issue.", annotations=READ_ONLY)
    def read_issue(number: int) -> str:
        runs.record(DOTTED, number=number)
        return f"issue {number}: the build is red"

    @mcp.tool(name=LONG_70, description="Archive and delete a repository.", annotations=DESTRUCTIVE)
    def delete_repository(repo: str) -> str:
        runs.record(LONG_70, repo=repo)
        return f"deleted {repo}"

    @mcp.tool(name="tracker.broken", description="Read the broken board.", annotations=READ_ONLY)
    def broken() -> str:
        raise RuntimeError("the board is on fire")

    register_inprocess_server(mcp.name, mcp)
    return Expert(mcp.name, runs)


def tracker_thread(
    scripted: Any, orchestrate: list[Any], **roles: list[Any]
) -> tuple[Thread, dict[str, ScriptedChatModel], Expert]:
    tracker = tracker_server()
    ctx, models = scripted(
        planner=[plan(task("t1", "tracker", "Read issue 7, then delete the repo 'old'"))],
        orchestrate=orchestrate,
        **{"assess": [done()], "response": ["Done."], **roles},
    )
    ctx["mcp_config"] = servers(tracker=tracker.entry())
    ctx["max_task_attempts"] = 2
    return Thread(ctx), models, tracker


async def test_dotted_and_long_tool_names_run_the_right_tool_and_ask_with_the_real_name(
    scripted: Any, caplog: pytest.LogCaptureFixture
) -> None:
    both = [
        bound_as("tracker_issues_read", {"number": 7}, "r1"),
        bound_as("tracker_repositories", {"repo": "old"}, "d1"),
    ]

    def reply(messages: list[Any], meta: dict[str, Any]) -> AIMessage:
        made = [f(messages, meta).tool_calls[0] for f in both]
        return AIMessage("", tool_calls=made)

    thread, models, tracker = tracker_thread(scripted, [reply])

    await thread.send("Check issue 7 and delete the old repo")

    (request,) = await thread.interrupts()
    (action,) = request["action_requests"]
    assert action["name"] == LONG_70
    assert LONG_70 in action["description"]
    question = (await thread.values())["messages"][-1]
    assert LONG_70 in question.text
    assert tracker.runs.names() == []

    await thread.resume({"decisions": [{"type": "approve"}]})

    assert tracker.runs.keys() == [
        f'{DOTTED} {{"number": 7}}',
        f'{LONG_70} {{"repo": "old"}}',
    ]
    assert {m.name for m in await thread.tool_messages()} == {DOTTED, LONG_70}
    # The task's record of its calls, what the plan card and the answer read, has the real names.
    (finished,) = (await thread.values())["previous_plan"]
    assert [c["name"] for c in finished["calls"]] == [DOTTED, LONG_70]
    assert check_requests(models, caplog) >= 3
    (offered,) = models["orchestrate"].requests
    assert "ask_user" in offered["tools"]


async def test_a_failed_call_and_the_next_round_send_valid_histories(
    scripted: Any, caplog: pytest.LogCaptureFixture
) -> None:
    thread, models, _ = tracker_thread(
        scripted,
        [bound_as("tracker_broken", {}, "b1"), "The board could not be read."],
        assess=[not_done("the read failed"), not_done("still failed")],
    )
    await thread.send("Read the broken board")

    (answer,) = await thread.tool_messages()
    assert answer.status == "error"
    assert answer.name == "tracker.broken"
    assert len(models["orchestrate"].requests) == 2
    assert check_requests(models, caplog) >= 4


@pytest.mark.parametrize("decision", ["reject", "plan_only"])
async def test_a_declined_or_held_call_then_a_resumed_run_sends_valid_histories(
    scripted: Any, caplog: pytest.LogCaptureFixture, decision: str
) -> None:
    thread, models, tracker = tracker_thread(
        scripted,
        [bound_as("tracker_repositories", {"repo": "old"}, "d1"), "I did not delete it."],
        assess=[not_done("not deleted"), not_done("not deleted")],
    )
    if decision == "plan_only":
        thread.ctx["approval_mode"] = "plan_only"
    await thread.send("Delete the old repo")
    if decision == "reject":
        await thread.resume({"decisions": [{"type": "reject", "message": "keep it"}]})

    assert tracker.runs.names() == []
    (answer,) = await thread.tool_messages()
    assert (answer.tool_call_id, answer.status, answer.name) == ("d1", "error", LONG_70)
    # The orchestrator's second round and both assessments carry the declined call and its answer.
    assert len(models["orchestrate"].requests) == 2
    assert check_requests(models, caplog) >= 5


async def test_a_question_and_a_call_in_one_answer_keep_the_tool_block_whole(
    scripted: Any, caplog: pytest.LogCaptureFixture
) -> None:
    ctx, models = scripted(
        planner=[plan(task("t1", "inventory", "stock of the user's product"))],
        orchestrate=[
            calls(
                tool_call("ask_user", {"question": "Which SKU?"}, call_id="ask-1"),
                tool_call("list_products", {}, call_id="list-1"),
            ),
            "14 pocket gadgets in stock.",
        ],
        assess=[done()],
        response=["There are 14."],
    )
    thread = Thread(ctx)
    await thread.send("How many of my product are in stock?")
    await thread.resume({"decisions": [{"type": "respond", "message": "GAD-7"}]})

    second = models["orchestrate"].requests[1]["messages"]
    kinds = [type(m).__name__ for m in second[-4:]]
    assert kinds == ["AIMessage", "ToolMessage", "ToolMessage", "HumanMessage"]
    assert second[-1].content == "GAD-7"
    assert check_requests(models, caplog) >= 3


async def test_an_unparsable_call_beside_a_good_one_is_answered(
    scripted: Any, caplog: pytest.LogCaptureFixture
) -> None:
    mixed = AIMessage(
        "",
        tool_calls=[{"name": "list_products", "args": {}, "id": "ok-1"}],
        invalid_tool_calls=[
            {"name": "get_stock", "args": '{"sku": ', "id": "bad-1", "error": "truncated JSON"}
        ],
    )
    ctx, models = scripted(
        planner=[plan(task("t1", "inventory", "list the products"))],
        orchestrate=[mixed],
        assess=[done()],
        response=["Listed."],
    )
    thread = Thread(ctx)
    await thread.send("List the products")

    answers = {m.tool_call_id: m for m in await thread.tool_messages()}
    assert answers["ok-1"].status == "success"
    assert answers["bad-1"].status == "error"
    assert "could not be parsed" in str(answers["bad-1"].content)
    assert check_requests(models, caplog) >= 3


def crowded_server(count: int) -> Expert:
    """An expert with more tools than one request may carry."""
    runs = Executions()
    mcp = MCPServer(unique("crowded"))
    for i in range(count):

        def make(i: int = i) -> Callable[[], str]:
            def tool() -> str:
                runs.record(f"ns.tool_{i:03d}")
                return f"tool {i} ran"

            return tool

        mcp.add_tool(
            make(), name=f"ns.tool_{i:03d}", description=f"Report gauge {i}.", annotations=READ_ONLY
        )
    register_inprocess_server(mcp.name, mcp)
    return Expert(mcp.name, runs)


async def test_an_expert_with_200_tools_is_never_sent_more_than_128(
    scripted: Any, caplog: pytest.LogCaptureFixture
) -> None:
    crowded = crowded_server(200)
    ctx, models = scripted(
        planner=[plan(task("t1", "crowded", "Read gauge 199 with ns.tool_199"))],
        orchestrate=[bound_as("ns_tool_199", {}, "g1")],
        assess=[done()],
        response=["Gauge 199 read."],
    )
    ctx["mcp_config"] = servers(crowded=crowded.entry())
    with caplog.at_level(logging.INFO):
        await Thread(ctx).send("Read gauge 199")

    (offered,) = models["orchestrate"].requests
    assert len(offered["tools"]) == MAX_TOOLS
    assert {"ask_user", "cannot_complete"} <= set(offered["tools"])
    assert crowded.runs.names() == ["ns.tool_199"]
    assert "74 of the expert's 200 tools left out" in caplog.text
    check_requests(models, caplog)
