"""approval_mode: interrupt asks once per step, plan_only defers until go-ahead, auto runs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.doubles import calls, tool_call
from tests.unit_tests.guard_helpers import Expert, chat_server, db_server, servers, verdict
from tests.unit_tests.helpers import Thread, done, not_done, plan, system_prompt, task, unique

CHAT_TASK = plan(task("t1", "chat", "talk to the team"))
ANNOUNCE_IS_IRREVERSIBLE = "IRREVERSIBLE: YES\nBLOCKED_TOOLS: announce, post_message"
NOTHING_IRREVERSIBLE = "IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE"


def post(text: str, call_id: str = "post", channel: str = "general") -> dict[str, Any]:
    return tool_call("post_message", {"channel": channel, "text": text}, call_id=call_id)


def chat_thread(
    scripted: Any, chat: Expert, mode: str = "interrupt", **roles: list[Any]
) -> tuple[Thread, dict[str, Any]]:
    scripts: dict[str, list[Any]] = {
        "planner": [CHAT_TASK],
        "irreversibility": [ANNOUNCE_IS_IRREVERSIBLE],
        "assess": [done()],
        "response": ["Done."],
        **roles,
    }
    ctx, models = scripted(**scripts)
    ctx["mcp_config"] = servers(chat=chat.entry())
    ctx["approval_mode"] = mode
    return Thread(ctx), models


# --- interrupt ----------------------------------------------------------------------------------


async def test_one_interrupt_per_step_holds_every_blocked_call(scripted: Any) -> None:
    chat = chat_server()
    first, second = unique("announce"), unique("post")
    step = calls(
        tool_call("get_messages", {"channel": "general"}, call_id="read"),
        tool_call("announce", {"text": first}, call_id="ann"),
        post(second),
    )
    thread, _ = chat_thread(scripted, chat, orchestrate=[step])

    await thread.send("Read the channel, announce and post")

    (request,) = await thread.interrupts()
    actions = request["action_requests"]
    assert [(a["name"], a["args"]) for a in actions] == [
        ("announce", {"text": first}),
        ("post_message", {"channel": "general", "text": second}),
    ]
    assert [c["action_name"] for c in request["review_configs"]] == ["announce", "post_message"]
    assert chat.runs.calls == []

    nodes = await thread.resume({"decisions": [{"type": "approve"}, {"type": "approve"}]})

    assert "generate_response" in nodes
    assert await thread.interrupts() == []
    assert chat.runs.names() == ["get_messages", "announce", "post_message"]


async def test_edit_runs_the_edited_call_instead(scripted: Any) -> None:
    chat = chat_server()
    draft, final = unique("draft"), unique("final")
    thread, _ = chat_thread(scripted, chat, orchestrate=[calls(post(draft))])
    await thread.send("Post an update")

    edited = {"name": "post_message", "args": {"channel": "news", "text": final}}
    await thread.resume({"decisions": [{"type": "edit", "edited_action": edited}]})

    assert chat.runs.calls == [("post_message", {"channel": "news", "text": final})]
    (reply,) = await thread.tool_messages()
    assert reply.status == "success"
    assert str(reply.content).startswith("Note: the user edited this call to ")
    assert final in str(reply.content)
    assert draft not in str(reply.content)


async def test_an_edit_held_for_another_reason_is_asked_again_then_runs_as_written(
    scripted: Any,
) -> None:
    db = db_server()
    ctx, _ = scripted(
        planner=[plan(task("t1", "db", "tidy the logs"))],
        irreversibility=[],
        orchestrate=[calls(tool_call("run_query", {"query": "DELETE FROM logs WHERE id = 1"}))],
        assess=[done()],
        response=["Dropped."],
    )
    ctx["mcp_config"] = servers(db=db.entry(trust_annotations=True))
    thread = Thread(ctx)
    await thread.send("Remove log 1")
    (request,) = await thread.interrupts()
    assert "SQL DELETE" in request["action_requests"][0]["description"]

    edited = {"name": "run_query", "args": {"query": "DROP TABLE logs"}}
    await thread.resume({"decisions": [{"type": "edit", "edited_action": edited}]})

    # The question named a DELETE; the edit drops a table: asked about, saying why, not run.
    (again,) = await thread.interrupts()
    (asked,) = again["action_requests"]
    assert asked["args"] == {"query": "DROP TABLE logs"}
    assert "your edit is held for a reason of its own" in asked["description"]
    assert db.runs.calls == []

    await thread.resume({"decisions": [{"type": "approve"}]})

    assert await thread.interrupts() == []
    assert db.runs.calls == [("run_query", {"query": "DROP TABLE logs"})]
    (reply,) = await thread.tool_messages()
    assert str(reply.content).startswith("Note: the user edited this call to ")
    assert "DROP TABLE logs" in str(reply.content)


async def test_reject_never_runs_and_the_model_is_told(scripted: Any) -> None:
    chat = chat_server()
    text = unique("rejected")
    thread, models = chat_thread(
        scripted,
        chat,
        orchestrate=[calls(post(text)), "The user did not want it posted."],
        assess=[not_done("declined"), done("nothing more to do")],
        response=["Not posted."],
    )

    await thread.send("Post it")
    await thread.resume({"decisions": [{"type": "reject", "message": "wrong channel"}]})

    assert chat.runs.calls == []
    second_round = models["orchestrate"].requests[1]["messages"]
    (told,) = [m for m in second_round if m.type == "tool"]
    assert told.status == "error"
    assert "The user declined to run 'post_message'" in str(told.content)
    assert "wrong channel" in str(told.content)
    assert (await thread.answer()).content == "Not posted."


@pytest.mark.parametrize(
    "bad",
    [
        {"decisions": [{"type": "approve"}]},
        {"decisions": [{"type": "approve"}, {"type": "sure"}]},
        {"decision": "approve"},
        "approve both",
    ],
)
async def test_malformed_resume_asks_again_and_runs_nothing(scripted: Any, bad: Any) -> None:
    chat = chat_server()
    step = calls(tool_call("announce", {"text": "a"}, call_id="ann"), post("b"))
    thread, _ = chat_thread(scripted, chat, orchestrate=[step])
    await thread.send("Announce and post")

    await thread.resume(bad)

    (request,) = await thread.interrupts()
    assert "nothing ran" in request["error"]
    assert len(request["action_requests"]) == 2
    assert chat.runs.calls == []
    assert await thread.tool_messages() == []

    await thread.resume({"decisions": [{"type": "reject"}, {"type": "approve"}]})

    assert chat.runs.names() == ["post_message"]


def held_args(text: str) -> dict[str, Any]:
    return {"channel": "general", "text": text}


# --- plan_only ----------------------------------------------------------------------------------


async def plan_only_turn(
    scripted: Any, **extra: list[Any]
) -> tuple[Thread, dict[str, Any], Expert, str]:
    """A plan_only turn that reads, and holds back one post, whose text is returned."""
    chat = chat_server()
    text = unique("held")
    step = calls(tool_call("get_messages", {"channel": "general"}, call_id="read"), post(text))
    scripts: dict[str, list[Any]] = {
        "orchestrate": [step],
        "response": ["Proposed: post the summary.", *extra.pop("response", [])],
        **extra,
    }
    thread, models = chat_thread(scripted, chat, "plan_only", **scripts)
    await thread.send("Summarise #general and post the summary")
    return thread, models, chat, text


async def test_plan_only_holds_blocked_calls_and_lists_them_in_the_answer(scripted: Any) -> None:
    thread, models, chat, text = await plan_only_turn(scripted)

    assert await thread.interrupts() == []
    assert chat.runs.names() == ["get_messages"]
    state = await thread.values()
    (held,) = state["deferred"]
    assert (held["expert"], held["name"], held["id"]) == ("chat", "post_message", "post")
    assert held["args"] == {"channel": "general", "text": text}
    prompt = system_prompt(models["response"].requests[-1])
    expected = json.dumps({"channel": "general", "text": text}, sort_keys=True)
    assert f"- chat: post_message({expected})" in prompt
    replies = {m.tool_call_id: m for m in await thread.tool_messages()}
    assert replies["read"].status == "success"
    assert replies["post"].status == "error"
    assert "plan_only" in str(replies["post"].content)


async def test_go_ahead_runs_exactly_the_recorded_calls_without_replanning(
    scripted: Any,
) -> None:
    thread, models, chat, text = await plan_only_turn(
        scripted, irreversibility=[ANNOUNCE_IS_IRREVERSIBLE] * 2, response=["Posted it."]
    )

    nodes = await thread.send("go ahead")

    # The held call becomes a direct step (call_tool alone): no orchestrator, no second plan.
    assert nodes == ["planner", "irreversibility_check", "advance", "generate_response"]
    assert len(models["planner"].requests) == 1
    assert len(models["orchestrate"].requests) == 1
    assert len(models["assess"].requests) == 1
    assert chat.runs.calls == [
        ("get_messages", {"channel": "general"}),
        ("post_message", {"channel": "general", "text": text}),
    ]
    state = await thread.values()
    assert state["deferred"] == []
    (approved,) = state["previous_plan"]
    assert (approved["id"], approved["status"]) == ("approved-1", "completed")
    assert (approved["tool"], approved["args"]) == ("post_message", held_args(text))
    # The approval keeps the definition the held call was shown with: it runs only while unchanged.
    kept = dict(approved["approval"])
    assert kept.pop("definition")["description"] == "Post a message in a channel."
    assert kept == {"type": "approve"}
    # The call is still irreversible this turn: the recorded approval is what let it run.
    assert verdict(state, "chat", "post_message")["irreversible"] is True
    assert state["guard"]["analysis"] == "ok"
    last_tool = (await thread.tool_messages())[-1]
    assert last_tool.status == "success"
    assert last_tool.content == "posted in #general"
    assert (await thread.answer()).content == "Posted it."


async def test_a_reject_message_in_resume_format_runs_nothing(scripted: Any) -> None:
    thread, models, chat, _ = await plan_only_turn(
        scripted, irreversibility=[ANNOUNCE_IS_IRREVERSIBLE] * 2, response=["Left it."]
    )

    answer = json.dumps({"decisions": [{"type": "reject", "message": "no"}]})
    nodes = await thread.send(answer)

    assert nodes == ["planner", "irreversibility_check", "advance", "generate_response"]
    assert len(models["planner"].requests) == 1
    assert chat.runs.names() == ["get_messages"]
    state = await thread.values()
    assert state["deferred"] == []
    (declined,) = state["previous_plan"]
    assert (declined["id"], declined["status"]) == ("approved-1", "failed")
    assert len(declined["declined"]) == 1
    assert "post_message" in declined["declined"][0]
    last_tool = (await thread.tool_messages())[-1]
    assert last_tool.status == "error"
    assert "declined" in str(last_tool.content)
    assert (await thread.answer()).content == "Left it."


async def test_another_request_drops_the_deferred_actions(scripted: Any) -> None:
    thread, models, chat, _ = await plan_only_turn(
        scripted, planner=[CHAT_TASK, plan(), plan()], response=["It is noon.", "Nothing to do."]
    )

    await thread.send("what time is it?")

    assert len(models["planner"].requests) == 2
    assert (await thread.values())["deferred"] == []
    assert (await thread.answer()).content == "It is noon."

    await thread.send("go ahead")

    assert len(models["planner"].requests) == 3
    assert chat.runs.names() == ["get_messages"]


async def test_calls_held_in_every_round_of_a_task_are_all_recorded(scripted: Any) -> None:
    chat = chat_server()
    first, second = unique("held-first"), unique("held-second")
    thread, models = chat_thread(
        scripted,
        chat,
        "plan_only",
        orchestrate=[calls(post(first, "p1")), calls(post(second, "p2"))],
        assess=[not_done("one more post"), done()],
        response=["Proposed two posts."],
    )

    await thread.send("Post two updates")

    assert chat.runs.calls == []
    held = (await thread.values())["deferred"]
    assert [(h["id"], h["args"]["text"]) for h in held] == [("p1", first), ("p2", second)]
    prompt = system_prompt(models["response"].requests[0])
    for text in (first, second):
        assert f"- chat: post_message({json.dumps(held_args(text), sort_keys=True)})" in prompt


async def test_a_second_go_ahead_runs_its_own_held_call(scripted: Any) -> None:
    chat = chat_server()
    first, second = unique("first"), unique("second")
    thread, _ = chat_thread(
        scripted,
        chat,
        "plan_only",
        planner=[CHAT_TASK, CHAT_TASK],
        irreversibility=[ANNOUNCE_IS_IRREVERSIBLE] * 4,
        orchestrate=[calls(post(first, "p1")), calls(post(second, "p2"))],
        assess=[done(), done()],
        response=["Proposed.", "Posted.", "Proposed again.", "Posted again."],
    )
    thread.ctx["now"] = "2025-10-12T10:00:00+00:00"

    await thread.send("Post the first update")
    await thread.send("go ahead")
    await thread.send("Post the second update")
    await thread.send("go ahead")

    assert chat.runs.calls == [
        ("post_message", held_args(first)),
        ("post_message", held_args(second)),
    ]
    (approved,) = (await thread.values())["previous_plan"]
    assert approved["result"] == "posted in #general"


# --- auto ---------------------------------------------------------------------------------------


async def test_auto_runs_without_asking_and_without_the_analyser(scripted: Any) -> None:
    chat = chat_server()
    text = unique("auto")
    thread, models = chat_thread(scripted, chat, "auto", orchestrate=[calls(post(text))])

    nodes = await thread.send("Post it")

    assert await thread.interrupts() == []
    assert "generate_response" in nodes
    assert chat.runs.calls == [("post_message", {"channel": "general", "text": text})]
    assert models["irreversibility"].requests == []
    state = await thread.values()
    assert state["guard"]["analysis"] == "skipped"
    assert verdict(state, "chat", "post_message")["irreversible"] is True
    assert state["guard_stats"]["llm_skipped"] == 1
