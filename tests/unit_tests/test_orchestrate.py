"""orchestrate: only the task's expert tools, asking the user, giving up, unreachable experts."""

from __future__ import annotations

import sys
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from tests.doubles import calls, tool_call
from tests.unit_tests.helpers import Thread, done, not_done, per_task, plan, system_prompt, task

CONTROL = {"ask_user", "cannot_complete"}
INVENTORY = {"list_products", "get_stock", "search_products"}
NOTES = {"list_notes", "read_note", "write_note", "delete_note"}
MAIN_NODES = {"planner", "irreversibility_check", "advance", "generate_response"}


def request_for(requests: list[dict[str, Any]], tid: str) -> dict[str, Any]:
    """The one orchestrator request made for task `tid`."""
    (found,) = [r for r in requests if f"Your task ({tid}):" in system_prompt(r)]
    return found


async def test_only_the_current_experts_tools_are_bound(scripted: Any) -> None:
    ctx, models = scripted(
        planner=[plan(task("t1", "inventory", "stock of WID-1"), task("t2", "notes", "list"))],
        orchestrate=per_task(
            {
                "t1": [calls(tool_call("get_stock", {"sku": "WID-1"}))],
                "t2": [calls(tool_call("list_notes"))],
            }
        ),
        assess=[done(), done()],
        response=["ok"],
    )
    await Thread(ctx).send("Stock, then notes")

    # The two tasks are independent, so they run in parallel: find each one's request.
    requests = models["orchestrate"].requests
    assert len(requests) == 2
    first, second = request_for(requests, "t1"), request_for(requests, "t2")
    assert set(first["tools"]) == INVENTORY | CONTROL
    assert set(second["tools"]) == NOTES | CONTROL
    assert not set(first["tools"]) & NOTES
    assert not set(second["tools"]) & INVENTORY
    assert "'inventory'" in system_prompt(first)
    assert "Your task (t1): stock of WID-1" in system_prompt(first)
    assert "Your task (t2): list" in system_prompt(second)


async def test_ask_user_interrupts_and_the_answer_comes_back(scripted: Any) -> None:
    question = "Which SKU do you mean?"
    ctx, models = scripted(
        planner=[plan(task("t1", "inventory", "stock of the user's product"))],
        orchestrate=[
            calls(tool_call("ask_user", {"question": question}, call_id="ask-1")),
            calls(tool_call("get_stock", {"sku": "GAD-7"})),
            "14 pocket gadgets in stock.",
        ],
        assess=[not_done("need to report"), done()],
        response=["There are 14."],
    )
    thread = Thread(ctx)

    nodes = await thread.send("How many of my product are in stock?")

    # The task hands the question up; the graph states it in the conversation, then asks it.
    assert nodes == [
        "planner",
        "irreversibility_check",
        "orchestrate",
        "call_tool",
        "advance",
        "request_approval",
    ]
    (value,) = await thread.interrupts()
    assert value["action_requests"][0]["name"] == "ask_user"
    assert value["action_requests"][0]["args"] == {"question": question}
    assert value["review_configs"] == [
        {"action_name": "ask_user", "allowed_decisions": ["respond", "reject"]}
    ]
    stated = (await thread.values())["messages"][-1]
    assert isinstance(stated, AIMessage)
    assert question in str(stated.content)
    # What Studio reads of a paused thread.
    studio = await thread.graph.aget_state(thread.config, subgraphs=True)
    assert [i.value["action_requests"][0]["name"] for i in studio.interrupts] == ["ask_user"]

    nodes = await thread.resume({"decisions": [{"type": "respond", "message": "GAD-7"}]})

    # The user's answer goes straight back to the orchestrator: no assessment, no attempt used.
    assert nodes[:4] == ["await_approval", "call_tool", "orchestrate", "call_tool"]
    # The answer lives in the task's own exchange, right after the ask_user acknowledgement.
    state = await thread.values()
    (finished,) = state["previous_plan"]
    second_round = models["orchestrate"].requests[1]["messages"]
    humans = [m for m in second_round if isinstance(m, HumanMessage) and m.content == "GAD-7"]
    assert len(humans) == 1
    tool_ack = next(m for m in second_round if getattr(m, "tool_call_id", None) == "ask-1")
    assert second_round.index(tool_ack) + 1 == second_round.index(humans[0])
    assert not any(m.content == "GAD-7" for m in state["messages"])
    assert finished["status"] == "completed"
    assert finished["attempts"] == 2
    assert (await thread.answer()).content == "There are 14."
    assert len(models["assess"].requests) == 2


async def test_cannot_complete_fails_the_task_and_the_next_one_runs(scripted: Any) -> None:
    reason = "No tool here can book flights."
    ctx, models = scripted(
        planner=[plan(task("t1", "testkit", "book a flight"), task("t2", "testkit", "echo hi"))],
        orchestrate=per_task(
            {
                "t1": [calls(tool_call("cannot_complete", {"reason": reason}))],
                "t2": [calls(tool_call("echo", {"text": "hi"}))],
            }
        ),
        assess=[done()],
        response=["I could not book the flight."],
    )
    thread = Thread(ctx)

    nodes = await thread.send("Book a flight and say hi")

    # Both tasks run in the first round; t1 ends at call_tool without an assessment.
    main = [n for n in nodes if n in MAIN_NODES]
    assert main == ["planner", "irreversibility_check", "advance", "generate_response"]
    assert sorted(n for n in nodes if n not in MAIN_NODES) == sorted(
        ["orchestrate", "call_tool", "orchestrate", "call_tool", "assess_task"]
    )
    (assessed,) = models["assess"].requests
    assert "Task: echo hi" in system_prompt(assessed)
    state = await thread.values()
    first, second = state["previous_plan"]
    assert first["status"] == "failed"
    assert first["error"] == reason
    assert second["status"] == "completed"
    assert len(models["planner"].requests) == 1
    assert f"error: {reason}" in system_prompt(models["response"].requests[0])


async def test_unavailable_expert_fails_its_task_and_others_still_run(
    scripted: Any, mcp_config: dict[str, Any]
) -> None:
    ctx, models = scripted(
        planner=[plan(task("t1", "ghost", "haunt"), task("t2", "testkit", "echo hi"))],
        orchestrate=[calls(tool_call("echo", {"text": "hi"}))],
        assess=[done()],
        response=["The ghost expert is down; the echo worked."],
    )
    servers = {
        **mcp_config["mcpServers"],
        "ghost": {"command": "/nonexistent/cmd", "description": "Never starts."},
    }
    ctx["mcp_config"] = {"mcpServers": servers}
    thread = Thread(ctx)

    nodes = await thread.send("Haunt, then echo")

    # Both run in one round; the ghost task fails in orchestrate without a model call.
    main = [n for n in nodes if n in MAIN_NODES]
    assert main == ["planner", "irreversibility_check", "advance", "generate_response"]
    assert sorted(n for n in nodes if n not in MAIN_NODES) == sorted(
        ["orchestrate", "orchestrate", "call_tool", "assess_task"]
    )
    planner_prompt = system_prompt(models["planner"].requests[0])
    assert "- ghost: Never starts. [currently unavailable:" in planner_prompt
    state = await thread.values()
    first, second = state["previous_plan"]
    assert first["status"] == "failed"
    assert "Expert 'ghost' is unavailable" in first["error"]
    assert second["status"] == "completed"
    (only,) = models["orchestrate"].requests
    assert "Your task (t2):" in system_prompt(only)
    assert "ghost" in str(state["guard"]["unavailable"])
    assert "Expert 'ghost' is unavailable" in system_prompt(models["response"].requests[0])


async def test_server_that_exits_at_start_is_named_with_its_stderr(scripted: Any) -> None:
    ctx, _ = scripted(
        planner=[plan(task("t1", "broken", "anything"))],
        response=["The broken expert failed to start."],
    )
    ctx["mcp_config"] = {
        "mcpServers": {
            "broken": {
                "command": sys.executable,
                "args": ["-c", "import sys; sys.stderr.write('token expired xyz\\n'); sys.exit(1)"],
            }
        }
    }
    thread = Thread(ctx)

    await thread.send("Use the broken expert")

    (failed,) = (await thread.values())["previous_plan"]
    assert failed["status"] == "failed"
    assert "Expert 'broken' is unavailable" in failed["error"]
    assert "token expired xyz" in failed["error"]
