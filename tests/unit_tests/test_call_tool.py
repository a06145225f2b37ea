"""call_tool: every call answered with its own ToolMessage; failures become error messages."""

from __future__ import annotations

from typing import Any

from tests.doubles import calls, tool_call
from tests.unit_tests.helpers import Thread, done, plan, task, unique


async def test_several_calls_in_one_message_each_get_their_tool_message(scripted: Any) -> None:
    first, second = unique("one"), unique("two")
    ctx, _ = scripted(
        planner=[plan(task("t1", "testkit", "echo two words"))],
        orchestrate=[
            calls(
                tool_call("echo", {"text": first}, call_id="call-a"),
                tool_call("echo", {"text": second}, call_id="call-b"),
            ),
        ],
        assess=[done()],
        response=["Both words came back."],
    )
    thread = Thread(ctx)

    nodes = await thread.send("Echo two words")

    assert nodes[2:6] == ["orchestrate", "call_tool", "assess_task", "advance"]
    replies = {m.tool_call_id: m for m in await thread.tool_messages()}
    assert set(replies) == {"call-a", "call-b"}
    assert replies["call-a"].content == first
    assert replies["call-b"].content == second
    assert all(m.status == "success" and m.name == "echo" for m in replies.values())
    state = await thread.values()
    assert state["previous_plan"][0]["result"] == f"{first}\n{second}"


async def test_tool_error_becomes_an_error_message_and_the_run_goes_on(scripted: Any) -> None:
    reason = unique("disk on fire")
    ctx, models = scripted(
        planner=[plan(task("t1", "testkit", "try the failing tool"))],
        orchestrate=[calls(tool_call("fail", {"message": reason})), "The tool failed."],
        assess=[{"completed": False, "reason": "the tool failed"}, done()],
        response=["It failed."],
    )
    thread = Thread(ctx)

    await thread.send("Try it")

    (reply,) = await thread.tool_messages()
    assert reply.status == "error"
    assert reason in str(reply.content)
    assert str(reply.content).startswith("Error (tool_error):")
    assert (await thread.answer()).content == "It failed."
    seen = models["orchestrate"].requests[1]["messages"]
    assert any(m.type == "tool" and m.content == reply.content for m in seen)


async def test_timeout_becomes_an_error_message_and_the_session_still_works(
    scripted: Any,
) -> None:
    word = unique("after-timeout")
    ctx, _ = scripted(
        planner=[plan(task("t1", "testkit", "call the slow tool, then echo"))],
        orchestrate=[
            calls(
                tool_call("slow", {"seconds": 60}, call_id="slow-1"),
                tool_call("echo", {"text": word}, call_id="echo-1"),
            ),
            "The slow tool timed out.",
        ],
        assess=[done()],
        response=["Timed out."],
    )
    ctx["tool_timeout_s"] = 3  # far above an echo on a busy machine, far below the slow call
    thread = Thread(ctx)

    await thread.send("Be slow")

    replies = {m.tool_call_id: m for m in await thread.tool_messages()}
    assert replies["slow-1"].status == "error"
    assert "did not answer within 3s" in str(replies["slow-1"].content)
    assert str(replies["slow-1"].content).startswith("Error (timeout):")
    assert replies["echo-1"].status == "success"
    assert replies["echo-1"].content == word


async def test_unknown_tool_name_lists_the_experts_tools(scripted: Any) -> None:
    ctx, _ = scripted(
        planner=[plan(task("t1", "inventory", "look up stock"))],
        orchestrate=[
            calls(tool_call("get_inventory", {"sku": "WID-1"}, call_id="bad")),
            calls(tool_call("get_stock", {"sku": "WID-1"}, call_id="good")),
            "120 in stock.",
        ],
        assess=[not_done_after_error(), done()],
        response=["There are 120 blue widgets."],
    )
    thread = Thread(ctx)

    await thread.send("How many blue widgets?")

    replies = {m.tool_call_id: m for m in await thread.tool_messages()}
    bad = str(replies["bad"].content)
    assert replies["bad"].status == "error"
    assert "has no tool 'get_inventory'" in bad
    assert "list_products, get_stock, search_products" in bad
    assert replies["good"].status == "success"
    assert '"stock": 120' in str(replies["good"].content)


async def test_a_tool_of_another_expert_is_unknown_here(scripted: Any) -> None:
    ctx, _ = scripted(
        planner=[plan(task("t1", "inventory", "look up stock"))],
        orchestrate=[calls(tool_call("echo", {"text": "x"}, call_id="wrong")), "gave up"],
        assess=[done()],
        response=["ok"],
    )
    thread = Thread(ctx)
    await thread.send("hi")
    (reply,) = await thread.tool_messages()
    assert reply.status == "error"
    assert "Expert 'inventory' has no tool 'echo'" in str(reply.content)


def not_done_after_error() -> dict[str, Any]:
    return {"completed": False, "reason": "the tool name was wrong"}
