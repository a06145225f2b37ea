"""Approvals: irreversible calls pause for a human; approve, edit and reject do what they say."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage

from tests.doubles import calls, tool_call
from tests.unit_tests.helpers import (
    Thread,
    done,
    log_lines,
    not_done,
    note_actions,
    per_task,
    plan,
    system_prompt,
    task,
    unique,
)

NOTES_TASK = plan(task("t1", "notes", "Save the note"))


def write_note(title: str, body: str = "hello", call_id: str = "w1") -> Any:
    return calls(tool_call("write_note", {"title": title, "body": body}, call_id=call_id))


async def test_write_note_pauses_with_the_approval_request(scripted: Any, workdir: Path) -> None:
    title = unique("approval-shape")
    ctx, _ = scripted(planner=[NOTES_TASK], orchestrate=[write_note(title)])
    thread = Thread(ctx)

    nodes = await thread.send("Save a note")

    # The task stops before its call; the graph says why in the conversation, then asks.
    assert nodes == [
        "planner",
        "irreversibility_check",
        "orchestrate",
        "call_tool",
        "advance",
        "request_approval",
    ]
    (request,) = await thread.interrupts()
    (action,) = request["action_requests"]
    assert set(action) == {"name", "args", "description"}
    assert action["name"] == "write_note"
    assert action["args"] == {"title": title, "body": "hello"}
    description = action["description"]
    assert "'notes'" in description
    assert "'write_note'" in description
    assert "irreversible" in description
    assert request["review_configs"] == [
        {"action_name": "write_note", "allowed_decisions": ["approve", "edit", "reject"]}
    ]
    assert "error" not in request
    assert note_actions(workdir, title) == []
    assert await thread.tool_messages() == []
    # Before asking, the conversation says in words what waits and why (every UI shows it).
    question = (await thread.values())["messages"][-1]
    assert isinstance(question, AIMessage)
    assert "notes: `write_note(" in question.text
    assert title in question.text
    assert "Why approval:" in question.text
    assert "Approve, edit or reject" in question.text


async def test_approve_runs_the_call_exactly_once(scripted: Any, workdir: Path) -> None:
    title = unique("approved")
    ctx, _ = scripted(
        planner=[NOTES_TASK],
        orchestrate=[write_note(title, "approved body")],
        assess=[done()],
        response=["Saved."],
    )
    thread = Thread(ctx)
    await thread.send("Save a note")

    nodes = await thread.resume({"decisions": [{"type": "approve"}]})

    assert nodes == [
        "await_approval",
        "call_tool",
        "assess_task",
        "advance",
        "generate_response",
    ]
    assert note_actions(workdir, title) == ["write"]
    assert f'"{title}": "approved body"' in (workdir / "notes.json").read_text()
    (reply,) = await thread.tool_messages()
    assert reply.tool_call_id == "w1"
    assert reply.status == "success"
    assert f"Saved note '{title}'" in str(reply.content)
    assert (await thread.answer()).content == "Saved."


async def test_edit_runs_the_edited_call_and_says_so(scripted: Any, workdir: Path) -> None:
    proposed, edited = unique("proposed"), unique("edited")
    ctx, _ = scripted(
        planner=[NOTES_TASK],
        orchestrate=[write_note(proposed, "draft")],
        assess=[done()],
        response=["Saved the edited note."],
    )
    thread = Thread(ctx)
    await thread.send("Save a note")

    edit = {"name": "write_note", "args": {"title": edited, "body": "final"}}
    await thread.resume({"decisions": [{"type": "edit", "edited_action": edit}]})

    assert note_actions(workdir, proposed) == []
    assert note_actions(workdir, edited) == ["write"]
    (reply,) = await thread.tool_messages()
    assert reply.status == "success"
    content = str(reply.content)
    assert content.startswith("Note: the user edited this call to ")
    assert edited in content
    assert f"Saved note '{edited}'" in content


async def test_reject_never_runs_and_is_reported(scripted: Any, workdir: Path) -> None:
    title = unique("rejected")
    ctx, models = scripted(
        planner=[NOTES_TASK],
        orchestrate=[write_note(title, "secret")],
        assess=[not_done("the user declined the write")],
        response=["I did not save the note because you declined."],
    )
    ctx["max_task_attempts"] = 1
    thread = Thread(ctx)
    await thread.send("Save a note")

    await thread.resume({"decisions": [{"type": "reject", "message": "not now"}]})

    assert note_actions(workdir, title) == []
    (reply,) = await thread.tool_messages()
    assert reply.status == "error"
    assert reply.tool_call_id == "w1"
    assert "The user declined to run 'write_note'" in str(reply.content)
    assert "not now" in str(reply.content)
    state = await thread.values()
    (finished,) = state["previous_plan"]
    assert len(finished["declined"]) == 1
    assert "write_note" in finished["declined"][0]
    assert title in finished["declined"][0]
    prompt = system_prompt(models["response"].requests[0])
    assert f"declined by the user: {finished['declined'][0]}" in prompt


@pytest.mark.parametrize(
    ("bad_value", "error_part"),
    [
        ({"decisions": [{"type": "maybe"}]}, "maybe"),
        ({"decisions": []}, "Expected 1 decision(s)"),
        ({"decisions": [{"type": "approve"}, {"type": "approve"}]}, "got 2"),
        ("yes", 'Expected {"decisions"'),
    ],
)
async def test_malformed_answer_re_asks_and_runs_nothing(
    scripted: Any, workdir: Path, bad_value: Any, error_part: str
) -> None:
    title = unique("malformed")
    ctx, _ = scripted(
        planner=[NOTES_TASK],
        orchestrate=[write_note(title)],
        assess=[done()],
        response=["Saved."],
    )
    thread = Thread(ctx)
    await thread.send("Save a note")

    nodes = await thread.resume(bad_value)

    assert nodes == []
    (request,) = await thread.interrupts()
    assert "nothing ran" in request["error"]
    assert error_part in request["error"]
    assert request["action_requests"][0]["args"]["title"] == title
    assert note_actions(workdir, title) == []
    assert await thread.tool_messages() == []

    await thread.resume({"decisions": [{"type": "approve"}]})

    assert await thread.interrupts() == []
    assert note_actions(workdir, title) == ["write"]
    assert (await thread.answer()).content == "Saved."


async def test_only_irreversible_calls_of_a_message_are_held(scripted: Any, workdir: Path) -> None:
    title = unique("mixed")
    ctx, _ = scripted(
        planner=[NOTES_TASK],
        orchestrate=[
            calls(
                tool_call("list_notes", {}, call_id="list"),
                tool_call("write_note", {"title": title, "body": "b"}, call_id="write"),
            )
        ],
        assess=[done()],
        response=["ok"],
    )
    thread = Thread(ctx)
    await thread.send("List notes and save one")

    (request,) = await thread.interrupts()
    assert [a["name"] for a in request["action_requests"]] == ["write_note"]
    assert await thread.tool_messages() == []

    await thread.resume({"decisions": [{"type": "approve"}]})

    replies = {m.tool_call_id: m for m in await thread.tool_messages()}
    assert set(replies) == {"list", "write"}
    assert all(m.status == "success" for m in replies.values())
    assert note_actions(workdir, title) == ["write"]


async def test_read_only_tools_never_interrupt(scripted: Any) -> None:
    ctx, _ = scripted(
        planner=[plan(task("t1", "inventory", "stock"), task("t2", "notes", "list"))],
        orchestrate=per_task(
            {
                "t1": [calls(tool_call("get_stock", {"sku": "WID-1"}), tool_call("list_products"))],
                "t2": [calls(tool_call("list_notes", {}))],
            }
        ),
        assess=[done(), done()],
        response=["ok"],
    )
    thread = Thread(ctx)

    nodes = await thread.send("Look things up")

    assert nodes[-1] == "generate_response"
    assert await thread.interrupts() == []
    assert [m.status for m in await thread.tool_messages()] == ["success"] * 3


async def test_auto_mode_runs_irreversible_calls_without_asking(
    scripted: Any, workdir: Path
) -> None:
    title = unique("auto")
    ctx, _ = scripted(
        planner=[NOTES_TASK], orchestrate=[write_note(title)], assess=[done()], response=["ok"]
    )
    ctx["approval_mode"] = "auto"
    thread = Thread(ctx)

    nodes = await thread.send("Save a note")

    assert "generate_response" in nodes
    assert await thread.interrupts() == []
    assert note_actions(workdir, title) == ["write"]


async def test_plan_only_mode_holds_the_call_and_records_it(scripted: Any, workdir: Path) -> None:
    title = unique("deferred")
    ctx, models = scripted(
        planner=[NOTES_TASK],
        orchestrate=[write_note(title, "later", call_id="d1")],
        assess=[not_done("the write is awaiting approval")],
        response=["The note is proposed, awaiting your approval."],
    )
    ctx["approval_mode"] = "plan_only"
    ctx["max_task_attempts"] = 1
    thread = Thread(ctx)

    nodes = await thread.send("Save a note")

    assert "generate_response" in nodes
    assert await thread.interrupts() == []
    assert note_actions(workdir, title) == []
    state = await thread.values()
    (held,) = state["deferred"]
    assert held["id"] == "d1"
    assert held["expert"] == "notes"
    assert held["name"] == "write_note"
    assert held["args"] == {"title": title, "body": "later"}
    assert "destructiveHint" in held["reason"]
    (reply,) = await thread.tool_messages()
    assert reply.status == "error"
    assert "plan_only" in str(reply.content)
    # The answer is written from the plan: the held call is listed as a proposed next step.
    prompt = system_prompt(models["response"].requests[0])
    proposed = prompt.split("held back for the user's approval")[1]
    assert f"- notes: write_note({json.dumps(held['args'], sort_keys=True)})" in proposed


async def test_destructive_testkit_tool_needs_approval_and_reject_leaves_no_trace(
    scripted: Any, workdir: Path
) -> None:
    scope = unique("scope")
    ctx, _ = scripted(
        planner=[plan(task("t1", "testkit", "clean up"))],
        orchestrate=[calls(tool_call("delete_everything", {"scope": scope}))],
        assess=[not_done("declined")],
        response=["Nothing was deleted."],
    )
    ctx["max_task_attempts"] = 1
    thread = Thread(ctx)
    await thread.send("Delete everything")
    (request,) = await thread.interrupts()
    assert request["action_requests"][0]["name"] == "delete_everything"

    await thread.resume({"decisions": [{"type": "reject"}]})

    assert not any(scope in line for line in log_lines(workdir / "testkit.log"))
    assert (await thread.answer()).content == "Nothing was deleted."


async def test_one_decision_per_request_in_order(scripted: Any, workdir: Path) -> None:
    kept, dropped = unique("kept"), unique("dropped")
    ctx, _ = scripted(
        planner=[NOTES_TASK],
        orchestrate=[
            calls(
                tool_call("write_note", {"title": kept, "body": "1"}, call_id="k"),
                tool_call("write_note", {"title": dropped, "body": "2"}, call_id="d"),
            )
        ],
        assess=[done()],
        response=["Saved one, skipped one."],
    )
    thread = Thread(ctx)
    await thread.send("Save two notes")
    (request,) = await thread.interrupts()
    assert [a["args"]["title"] for a in request["action_requests"]] == [kept, dropped]

    await thread.resume({"decisions": [{"type": "approve"}, {"type": "reject"}]})

    assert note_actions(workdir, kept) == ["write"]
    assert note_actions(workdir, dropped) == []
    replies = {m.tool_call_id: m for m in await thread.tool_messages()}
    assert replies["k"].status == "success"
    assert replies["d"].status == "error"
    assert "declined" in str(replies["d"].content)
