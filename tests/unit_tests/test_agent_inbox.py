"""Approvals in Agent Chat UI's format, and a pending approval never dropped silently."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage
from langgraph.constants import END
from langgraph.types import Command

from common.safety.approval import (
    NOT_USED,
    REFUSED_ANSWER,
    RESOLVED_REASON,
    ApprovalFormatError,
    ApproveDecision,
    EditDecision,
    PendingCall,
    RejectDecision,
    resolved_without_answer,
)
from common.safety.inbox import (
    IGNORED,
    INTERRUPT_FORMATS,
    InterruptFormatError,
    inbox_request,
    parse_inbox_answer,
    parse_interrupt_format,
    typed_args,
)
from strategies.with_planner.context import ContextError, make_context
from strategies.with_planner.nodes.approve import NOT_RUN_HEADING
from strategies.with_planner.resume import needs_screening, screen_payload
from tests.doubles import calls, tool_call
from tests.unit_tests.helpers import (
    Thread,
    done,
    note_actions,
    plan,
    task,
    unique,
)
from tests.unit_tests.test_parallel_plans import Recorder, records_server, setup, step

CALL = PendingCall(
    id="c1",
    expert="notes",
    name="write_note",
    args={"title": "stock", "body": "14 units"},
    reason="it overwrites a note (source: annotation)",
)
SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "count": {"type": "integer"},
        "ratio": {"type": "number"},
        "urgent": {"type": "boolean"},
        "ids": {"type": "array", "items": {"type": "string"}},
        "meta": {"type": "object"},
        "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    },
}
NOTES_TASK = plan(task("t1", "notes", "Save the note"))


def write_note(title: str, body: str = "hello", call_id: str = "w1") -> Any:
    return calls(tool_call("write_note", {"title": title, "body": body}, call_id=call_id))


def inbox(ctx: dict[str, Any]) -> dict[str, Any]:
    return {**ctx, "interrupt_format": "agent_inbox"}


def accept(call: PendingCall = CALL) -> list[dict[str, Any]]:
    return [{"type": "accept", "args": {"action": call["name"], "args": call["args"]}}]


# --- the format: requests, answers, types ------------------------------------------------------


def test_one_call_per_request_with_every_button_allowed() -> None:
    (item,) = inbox_request(CALL)
    assert item["action_request"] == {"action": "write_note", "args": CALL["args"]}
    assert item["config"] == {
        "allow_accept": True,
        "allow_edit": True,
        "allow_respond": True,
        "allow_ignore": True,
    }
    assert "**notes**" in item["description"]
    assert "`write_note`" in item["description"]
    assert "it overwrites a note" in item["description"]
    (again,) = inbox_request(CALL, error=f"{REFUSED_ANSWER}bad")
    assert again["description"].startswith(f"**{REFUSED_ANSWER}bad**")


def test_the_four_answers() -> None:
    assert parse_inbox_answer(accept(), CALL) == ApproveDecision(type="approve")
    assert parse_inbox_answer([{"type": "accept", "args": None}], CALL).type == "approve"
    edit = [{"type": "edit", "args": {"action": "write_note", "args": {"title": "t2"}}}]
    decision = parse_inbox_answer(edit, CALL)
    assert isinstance(decision, EditDecision)
    assert decision.edited_action.name == "write_note"
    assert decision.edited_action.args == {"title": "t2"}
    assert parse_inbox_answer([{"type": "response", "args": " not today "}], CALL) == (
        RejectDecision(type="reject", message="not today")
    )
    assert parse_inbox_answer([{"type": "ignore", "args": None}], CALL) == (
        RejectDecision(type="reject", message=IGNORED)
    )


def test_the_other_formats_answer_and_a_closed_question_are_read_too() -> None:
    assert parse_inbox_answer({"decisions": [{"type": "approve"}]}, CALL).type == "approve"
    assert parse_inbox_answer(resolved_without_answer(), CALL) == RejectDecision(
        type="reject", message=RESOLVED_REASON
    )


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (None, "empty"),
        ({NOT_USED: "too late"}, "too late"),
        ("x" * 60_000, "characters long"),
        ([], "one answer in a list"),
        (accept() * 2, "one answer in a list"),
        ({"type": "accept"}, "one answer in a list"),
        ([{"type": "Accept"}], "Expected"),
        ([{"type": "approve"}], "Expected"),
        ([{"type": "accept", "extra": 1}], "Expected"),
        ([{"type": "accept", "args": {"action": "write_note", "args": {}}}], "unchanged"),
        ([{"type": "accept", "args": {"action": "delete_note", "args": CALL["args"]}}], "edit"),
        ([{"type": "edit", "args": None}], "an edit needs"),
        ([{"type": "edit", "args": {"action": "delete_note", "args": {}}}], "not the tool"),
        ([{"type": "edit", "args": {"action": "write_note"}}], "an edit needs"),
        ([{"type": "response", "args": ""}], "non-empty string"),
        ([{"type": "response", "args": None}], "non-empty string"),
        ({"decisions": [{"type": "approve"}] * 2}, "Expected 1 decision"),
    ],
)
def test_a_bad_answer_is_refused_with_one_sentence(value: Any, says: str) -> None:
    with pytest.raises(ApprovalFormatError) as exc:
        parse_inbox_answer(value, CALL)
    assert says in str(exc.value)
    assert "\n" not in str(exc.value)


def test_text_box_strings_get_the_schemas_types() -> None:
    sent = {
        "title": "42",
        "count": " 7 ",
        "ratio": "0.5",
        "urgent": "true",
        "ids": '["a", "b"]',
        "meta": '{"k": 1}',
        "limit": "null",
        "free": "text",
    }
    assert typed_args(sent, SCHEMA, {}) == {
        "title": "42",
        "count": 7,
        "ratio": 0.5,
        "urgent": True,
        "ids": ["a", "b"],
        "meta": {"k": 1},
        "limit": None,
        "free": "text",
    }
    # Without a declared type, a string that replaces a non-string value is read as JSON.
    assert typed_args({"n": "3", "s": "3"}, {}, {"n": 1, "s": "x"}) == {"n": 3, "s": "3"}
    # Values that are not strings are left for the schema check.
    assert typed_args({"count": 7.5}, SCHEMA, {}) == {"count": 7.5}


@pytest.mark.parametrize(
    ("key", "text", "says"),
    [
        ("count", "seven", "whole number"),
        ("count", "7.5", "whole number"),
        ("ratio", "NaN", "number"),
        ("ratio", "1_000", "number"),
        ("urgent", "True", "boolean"),
        ("urgent", "yes", "boolean"),
        ("ids", '{"a": 1}', "JSON list"),
        ("meta", "[1]", "JSON object"),
        ("limit", "none", "whole number or null"),
    ],
)
def test_a_string_that_is_not_the_declared_type_is_refused(key: str, text: str, says: str) -> None:
    edit = [{"type": "edit", "args": {"action": "write_note", "args": {key: text}}}]
    with pytest.raises(ApprovalFormatError) as exc:
        parse_inbox_answer(edit, CALL, SCHEMA)
    assert f"edit: {key} " in str(exc.value)
    assert says in str(exc.value)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)
ANSWER_TYPES = st.sampled_from(
    ["accept", "edit", "response", "ignore", "Accept", "approve", "reject", "", "ACCEPT"]
)
ANSWERS = st.one_of(
    JSON,
    st.lists(st.fixed_dictionaries({"type": ANSWER_TYPES, "args": JSON}), max_size=2),
    st.builds(
        lambda t, a: [{"type": t, "args": {"action": "write_note", "args": a}}], ANSWER_TYPES, JSON
    ),
    st.just(accept()),
)


@settings(max_examples=300, deadline=None)
@given(value=ANSWERS)
def test_any_answer_is_a_decision_or_one_refusal_and_only_an_unchanged_accept_approves(
    value: Any,
) -> None:
    try:
        decision = parse_inbox_answer(value, CALL, SCHEMA)
    except ApprovalFormatError:
        return
    if isinstance(decision, ApproveDecision):
        assert value in (accept(), [{"type": "accept", "args": None}]) or (
            isinstance(value, dict) and value.get("decisions") == [{"type": "approve"}]
        )
    if isinstance(decision, EditDecision):
        assert decision.edited_action.name == "write_note"


@pytest.mark.parametrize("value", ["agent-inbox", "Agent_Inbox", "HITL", "", " hitl", None, 1])
def test_the_format_is_a_closed_set(value: Any) -> None:
    with pytest.raises(InterruptFormatError) as exc:
        parse_interrupt_format(value, "INTERRUPT_FORMAT")
    assert str(exc.value).startswith(f"INTERRUPT_FORMAT {value!r} is not an interrupt format")
    assert all(f in str(exc.value) for f in INTERRUPT_FORMATS)
    with pytest.raises(ContextError, match="context interrupt_format"):
        make_context({"interrupt_format": value})


def test_mark_as_resolved_closes_every_waiting_question() -> None:
    close = Command(goto=END)
    assert screen_payload(close, []) is close
    screened = screen_payload(close, ["a" * 32])
    assert screened.resume == resolved_without_answer()
    both = screen_payload(close, ["a" * 32, "b" * 32])
    assert both.resume == {i: resolved_without_answer() for i in ("a" * 32, "b" * 32)}
    # A jump elsewhere, or one that carries an answer, is not a close.
    assert not needs_screening(Command(goto="planner"))
    assert not needs_screening(Command(goto=END, update={"messages": []}))
    assert needs_screening(close)


# --- the graph in agent_inbox mode -------------------------------------------------------------


async def test_accept_in_the_inbox_runs_the_call_once(scripted: Any, workdir: Path) -> None:
    title = unique("inbox-accept")
    ctx, _ = scripted(
        planner=[NOTES_TASK], orchestrate=[write_note(title)], assess=[done()], response=["Saved."]
    )
    thread = Thread(inbox(ctx))
    await thread.send("Save a note")

    (request,) = await thread.interrupts()
    (item,) = request
    assert item["action_request"] == {
        "action": "write_note",
        "args": {"title": title, "body": "hello"},
    }
    question = (await thread.values())["messages"][-1]
    assert isinstance(question, AIMessage)
    assert "write_note" in question.text
    assert "Accept, edit, respond" in question.text
    assert note_actions(workdir, title) == []

    await thread.resume([{"type": "accept", "args": item["action_request"]}])

    assert note_actions(workdir, title) == ["write"]
    assert (await thread.answer()).content == "Saved."


async def test_an_inbox_edit_runs_the_edited_text(scripted: Any, workdir: Path) -> None:
    proposed, edited = unique("inbox-proposed"), unique("inbox-edited")
    ctx, _ = scripted(
        planner=[NOTES_TASK],
        orchestrate=[write_note(proposed)],
        assess=[done()],
        response=["Saved."],
    )
    thread = Thread(inbox(ctx))
    await thread.send("Save a note")

    action = {"action": "write_note", "args": {"title": edited, "body": "changed"}}
    await thread.resume([{"type": "edit", "args": action}])

    assert note_actions(workdir, proposed) == []
    assert note_actions(workdir, edited) == ["write"]
    assert '"changed"' in (workdir / "notes.json").read_text()


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ([{"type": "response", "args": "wrong title"}], "wrong title"),
        ([{"type": "ignore", "args": None}], IGNORED),
    ],
)
async def test_respond_and_ignore_run_nothing_and_say_why(
    scripted: Any, workdir: Path, answer: Any, reason: str
) -> None:
    title = unique("inbox-declined")
    ctx, _ = scripted(
        planner=[NOTES_TASK],
        orchestrate=[write_note(title)],
        assess=[done("the user declined")],
        response=[""],
    )
    ctx["max_task_attempts"] = 1
    thread = Thread(inbox(ctx))
    await thread.send("Save a note")

    await thread.resume(answer)

    assert note_actions(workdir, title) == []
    declined = [m for m in await thread.tool_messages() if m.status == "error"]
    assert declined
    assert reason in str(declined[0].content)
    text = str((await thread.answer()).content)
    assert "Declined by you:" in text
    assert "write_note" in text


async def test_parallel_calls_are_asked_one_per_interrupt_with_typed_edits(
    scripted: Any,
) -> None:
    rec = Recorder()
    ctx, _ = setup(
        scripted,
        records_server(rec),
        [
            plan(
                step("t1", "save_report", {"title": "first", "ids": ["a"], "count": 1}),
                step("t2", "save_report", {"title": "second", "ids": ["b"], "count": 1}),
            )
        ],
        gated_saves=True,
    )
    thread = Thread(inbox(ctx))
    await thread.send("Save two reports.")

    ((first,),) = await thread.interrupts()
    assert first["action_request"]["args"]["title"] == "first"
    # A text box's "two" is no count: refused, asked again, nothing runs.
    bad = {"action": "save_report", "args": {"title": "first", "ids": '["a"]', "count": "two"}}
    await thread.resume([{"type": "edit", "args": bad}])
    ((again,),) = await thread.interrupts()
    assert again["description"].startswith(f"**{REFUSED_ANSWER}edit: count 'two'")
    good = {"action": "save_report", "args": {"title": "first", "ids": '["a", "z"]', "count": "2"}}
    await thread.resume([{"type": "edit", "args": good}])
    ((second,),) = await thread.interrupts()
    assert second["action_request"]["args"]["title"] == "second"
    assert rec.runs == []

    await thread.resume([{"type": "ignore", "args": None}])

    assert rec.labels() == ["save:first"]
    assert rec.runs[0].args == {"title": "first", "ids": ["a", "z"], "count": 2}
    assert await thread.interrupts() == []


# --- a pending approval is never dropped silently ---------------------------------------------


@pytest.mark.parametrize("interrupt_format", ["hitl", "agent_inbox"])
async def test_a_new_message_while_waiting_runs_nothing_and_the_answer_names_the_call(
    scripted: Any, workdir: Path, interrupt_format: str
) -> None:
    held, fresh = unique("held"), unique("fresh")
    ctx, _ = scripted(
        planner=[NOTES_TASK, NOTES_TASK],
        orchestrate=[write_note(held), write_note(fresh, call_id="w2")],
        assess=[done()],
        response=["Saved the second note."],
    )
    thread = Thread({**ctx, "interrupt_format": interrupt_format})
    await thread.send("Save a note")
    assert len(await thread.interrupts()) == 1

    await thread.send("Actually, save another one")

    # The new turn stops at its own approval: the held call is gone from the questions.
    (request,) = await thread.interrupts()
    assert held not in str(request)
    assert fresh in str(request)
    values = await thread.values()
    assert [c["args"]["title"] for c in values["abandoned"]] == [held]
    (old,) = values["previous_plan"]
    assert old["status"] == "cancelled"
    assert "a new message arrived" in old["error"]

    approve = (
        {"decisions": [{"type": "approve"}]}
        if interrupt_format == "hitl"
        else [{"type": "accept", "args": None}]
    )
    await thread.resume(approve)

    assert note_actions(workdir, held) == []
    assert note_actions(workdir, fresh) == ["write"]
    text = str((await thread.answer()).content)
    assert text.startswith("Saved the second note.")
    assert NOT_RUN_HEADING in text
    assert "- notes: write_note(" in text
    assert held in text
    report = (await thread.values())["report"]
    assert report["ok"] is False
    assert any(held in p for p in report["problems"])
    assert (await thread.values())["abandoned"] == []


async def test_a_new_message_that_ends_at_the_planner_still_names_the_call(
    scripted: Any, workdir: Path
) -> None:
    held = unique("held-clarify")
    ctx, _ = scripted(
        planner=[NOTES_TASK, {"plan": [], "clarification": "Which note?"}],
        orchestrate=[write_note(held)],
    )
    thread = Thread(ctx)
    await thread.send("Save a note")

    await thread.send("hmm")

    text = str((await thread.answer()).content)
    assert text.startswith("Which note?")
    assert NOT_RUN_HEADING in text
    assert held in text
    assert note_actions(workdir, held) == []
    assert await thread.interrupts() == []


@pytest.mark.parametrize("interrupt_format", ["hitl", "agent_inbox"])
async def test_mark_as_resolved_declines_and_the_answer_says_so(
    scripted: Any, workdir: Path, interrupt_format: str
) -> None:
    title = unique("resolved")
    ctx, _ = scripted(
        planner=[NOTES_TASK],
        orchestrate=[write_note(title)],
        assess=[done("declined")],
        response=[""],
    )
    ctx["max_task_attempts"] = 1
    thread = Thread({**ctx, "interrupt_format": interrupt_format})
    await thread.send("Save a note")

    await thread.send(Command(goto=END))

    assert await thread.interrupts() == []
    assert note_actions(workdir, title) == []
    declined = [m for m in await thread.tool_messages() if m.status == "error"]
    assert RESOLVED_REASON in str(declined[0].content)
    text = str((await thread.answer()).content)
    assert "Declined by you:" in text
    assert title in text


async def test_a_decision_is_given_to_its_call_only_not_to_a_later_call_with_the_same_id(
    scripted: Any, workdir: Path
) -> None:
    first, second = unique("first"), unique("second")
    ctx, _ = scripted(
        planner=[NOTES_TASK],
        # The model reuses the call id "w1" in its second round (some providers do).
        orchestrate=[write_note(first), write_note(second)],
        assess=[{"completed": False, "reason": "one more"}, done()],
        response=["Saved both."],
    )
    thread = Thread(inbox(ctx))
    await thread.send("Save two notes")
    await thread.resume([{"type": "accept", "args": None}])

    ((request,),) = await thread.interrupts()
    assert request["action_request"]["args"]["title"] == second
    assert note_actions(workdir, first) == ["write"]
    assert note_actions(workdir, second) == []
