"""An approval means what the person was shown: the same tool, the same question, the same text.

Through the graph in-process with `Command(resume=...)` (what the SDK sends on a server too).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langgraph.types import Command

from common.safety.approval import REFUSED_ANSWER, PendingCall
from strategies.with_planner.deferred import release_held_calls
from tests.doubles import calls, tool_call
from tests.unit_tests.helpers import Thread, done, log_lines, note_actions, plan, task, unique

NOTES_TASK = plan(task("t1", "notes", "Save the note"))
FETCH_TASK = plan(task("t1", "testkit", "Open the page"))
NOT_THE_TOOL = "an edit may change the arguments, not the tool"


def write_note(title: str, call_id: str = "w1") -> Any:
    return calls(tool_call("write_note", {"title": title, "body": "b"}, call_id=call_id))


def keep_note(workdir: Path) -> str:
    """A note that exists, so that a delete of it would succeed (and show in the log)."""
    title = unique("keep")
    path = workdir / "notes.json"
    notes = json.loads(path.read_text()) if path.exists() else {}
    path.write_text(json.dumps({**notes, title: "kept"}))
    return title


def notes(workdir: Path) -> dict[str, str]:
    return dict(json.loads((workdir / "notes.json").read_text()))


# --- an edit changes arguments, not the call -------------------------------------------------


async def test_a_hitl_edit_naming_another_tool_is_refused_and_runs_nothing(
    scripted: Any, workdir: Path
) -> None:
    keep, title = keep_note(workdir), unique("asked")
    ctx, _ = scripted(
        planner=[NOTES_TASK], orchestrate=[write_note(title)], assess=[done()], response=["ok"]
    )
    thread = Thread(ctx)
    await thread.send("Save a note")

    swap = {"name": "delete_note", "args": {"title": keep}}
    await thread.resume({"decisions": [{"type": "edit", "edited_action": swap}]})

    # Nothing ran; the same question is asked again, saying why in one sentence.
    (again,) = await thread.interrupts()
    assert again["error"].startswith(REFUSED_ANSWER)
    assert NOT_THE_TOOL in again["error"]
    assert [a["name"] for a in again["action_requests"]] == ["write_note"]
    assert note_actions(workdir, keep) == []
    assert notes(workdir)[keep] == "kept"
    assert await thread.tool_messages() == []

    await thread.resume({"decisions": [{"type": "approve"}]})
    assert note_actions(workdir, title) == ["write"]
    assert note_actions(workdir, keep) == []


@pytest.mark.parametrize(
    "answer",
    [
        lambda keep: [{"type": "edit", "args": {"action": "delete_note", "args": {"title": keep}}}],
        lambda keep: {
            "decisions": [
                {"type": "edit", "edited_action": {"name": "delete_note", "args": {"title": keep}}}
            ]
        },
    ],
    ids=["inbox-edit", "hitl-answer-to-inbox"],
)
async def test_an_agent_inbox_edit_naming_another_tool_is_refused(
    scripted: Any, workdir: Path, answer: Any
) -> None:
    keep, title = keep_note(workdir), unique("inbox-asked")
    ctx, _ = scripted(planner=[NOTES_TASK], orchestrate=[write_note(title)])
    thread = Thread({**ctx, "interrupt_format": "agent_inbox"})
    await thread.send("Save a note")

    await thread.resume(answer(keep))

    ((again,),) = await thread.interrupts()
    assert again["action_request"]["action"] == "write_note"
    assert "not the tool" in again["description"].split("\n\n")[0]
    assert note_actions(workdir, keep) == []
    assert notes(workdir)[keep] == "kept"


async def test_an_edit_held_for_a_reason_of_its_own_is_asked_again_saying_why(
    scripted: Any, workdir: Path
) -> None:
    proposed = f"https://shop.example/orders/{unique('o')}/cancel"
    edited = f"https://shop.example/items/{unique('i')}?action=delete"
    ctx, _ = scripted(
        planner=[FETCH_TASK],
        orchestrate=[calls(tool_call("fetch_page", {"url": proposed}, call_id="f1"))],
        assess=[done()],
        response=["Opened."],
    )
    thread = Thread(ctx)
    await thread.send("Open the page")
    (first,) = await thread.interrupts()
    assert "('cancel')" in first["action_requests"][0]["description"]

    edit = {"name": "fetch_page", "args": {"url": edited}}
    await thread.resume({"decisions": [{"type": "edit", "edited_action": edit}]})

    # The edited URL acts differently ('delete'): the edited call is asked about, not run.
    (again,) = await thread.interrupts()
    (request,) = again["action_requests"]
    assert request["args"] == {"url": edited}
    assert "your edit is held for a reason of its own" in request["description"]
    assert "('delete')" in request["description"]
    assert "asked about again" in (await thread.values())["messages"][-1].text
    log = log_lines(workdir / "testkit.log")
    assert f"fetch_page {edited}" not in log
    assert f"fetch_page {proposed}" not in log

    # Approving that question runs the edit as shown, once, and is not asked a third time.
    await thread.resume({"decisions": [{"type": "approve"}]})
    assert await thread.interrupts() == []
    log = log_lines(workdir / "testkit.log")
    assert log.count(f"fetch_page {edited}") == 1
    assert f"fetch_page {proposed}" not in log


# --- answers are bound to their question -----------------------------------------------------


async def test_an_answer_for_a_replaced_question_is_refused_and_runs_nothing(
    scripted: Any, workdir: Path
) -> None:
    first, keep = unique("first"), keep_note(workdir)
    ctx, _ = scripted(
        planner=[NOTES_TASK, NOTES_TASK],
        orchestrate=[
            write_note(first),
            calls(tool_call("delete_note", {"title": keep}, call_id="d1")),
        ],
        assess=[done()],
        response=["Deleted."],
    )
    thread = Thread(ctx)
    await thread.send("Write note A")
    (shown,) = (await thread.graph.aget_state(thread.config)).interrupts

    # A second message replaces the question the reviewer is looking at.
    await thread.send("Actually, delete the note")
    (current,) = (await thread.graph.aget_state(thread.config)).interrupts
    assert current.id != shown.id
    assert current.value["action_requests"][0]["name"] == "delete_note"

    # The approve prepared for "write note A" does not approve the deletion.
    await thread.send(Command(resume={shown.id: {"decisions": [{"type": "approve"}]}}))
    (again,) = (await thread.graph.aget_state(thread.config)).interrupts
    assert again.value["action_requests"][0]["name"] == "delete_note"
    assert "not waiting" in again.value["error"]
    assert notes(workdir)[keep] == "kept"
    assert note_actions(workdir, first) == []

    # Keyed by the question now shown, the answer is used.
    await thread.send(Command(resume={again.id: {"decisions": [{"type": "approve"}]}}))
    assert keep not in notes(workdir)
    assert note_actions(workdir, first) == []


def test_a_released_held_call_cannot_be_edited_into_another_tool() -> None:
    held = PendingCall(
        id="c1", expert="notes", name="write_note", args={"title": "a"}, reason="why"
    )
    swap = {"name": "delete_note", "args": {"title": "keep"}}
    message = json.dumps({"decisions": [{"type": "edit", "edited_action": swap}]})

    released = release_held_calls(message, [held], max_tasks=5)

    assert isinstance(released, str)
    assert released.startswith("I did not run the proposed actions: ")
    assert NOT_THE_TOOL in released
