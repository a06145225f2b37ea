"""Answers the graph cannot use: nothing runs, the question comes back with a short error.

`Command(resume=None)`, answers keyed by interrupt ids that are not waiting, and oversized answers
are screened (`strategies.with_planner.resume.entered`) into the stand-in every asking node
refuses like any other invalid answer; the echo of a bad answer is a short prefix, and the
checkpoint never holds an oversized answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from common.safety.approval import ECHO_CHARS, REFUSED_ANSWER, ApprovalFormatError, parse_decisions
from strategies.with_planner.graph import build_graph
from strategies.with_planner.resume import entered, screen_resume
from tests.doubles import calls, tool_call
from tests.unit_tests.helpers import Thread, done, note_actions, per_task, plan, task, unique

NOTES_TASK = plan(task("t1", "notes", "save a note"))
HUGE = "x" * 200_000
APPROVE = {"decisions": [{"type": "approve"}]}


async def _paused_on_write(scripted: Any, title: str) -> Thread:
    """A thread waiting for approval of one `write_note` call."""
    write = calls(tool_call("write_note", {"title": title, "body": "b"}, call_id="w1"))
    ctx, _ = scripted(
        planner=[NOTES_TASK], orchestrate=[write], assess=[done()], response=["Saved."]
    )
    thread = Thread(ctx)
    await thread.send("Save a note")
    return thread


async def _answer(thread: Thread, value: Any) -> list[str]:
    """Resume the thread as a client would: the compiled graph screens the value itself."""
    return await thread.send(Command(resume=value))


async def _pending_ids(thread: Thread) -> list[str]:
    snapshot = await thread.graph.aget_state(thread.config)
    return [i.id for i in snapshot.interrupts]


def _checkpoint_bytes(thread: Thread) -> bytes:
    """Everything the in-memory checkpointer holds, as the bytes it stored."""
    saver = thread.graph.checkpointer
    found: list[bytes] = []

    def walk(value: Any) -> None:
        if isinstance(value, bytes | bytearray):
            found.append(bytes(value))
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list | tuple):
            for v in value:
                walk(v)

    walk(saver.storage)
    walk(saver.writes)
    walk(saver.blobs)
    return b"".join(found)


async def _refused_then_approved(thread: Thread, workdir: Path, title: str, value: Any) -> str:
    """Answer with `value`: nothing runs and the request comes back; then approving works."""
    nodes = await _answer(thread, value)
    assert nodes == []
    (request,) = await thread.interrupts()
    assert request["error"].startswith(REFUSED_ANSWER)
    assert request["action_requests"][0]["args"]["title"] == title
    assert note_actions(workdir, title) == []
    assert await thread.tool_messages() == []
    error = str(request["error"])

    await _answer(thread, APPROVE)

    assert await thread.interrupts() == []
    assert note_actions(workdir, title) == ["write"]
    assert (await thread.answer()).content == "Saved."
    return error


async def test_a_none_answer_runs_nothing_and_asks_again(scripted: Any, workdir: Path) -> None:
    title = unique("none")
    thread = await _paused_on_write(scripted, title)
    error = await _refused_then_approved(thread, workdir, title, None)
    assert "empty (None)" in error
    assert '{"type": "approve"}' in error


async def test_an_answer_to_an_unknown_interrupt_id_is_refused_not_ignored(
    scripted: Any, workdir: Path
) -> None:
    title = unique("bogus-id")
    thread = await _paused_on_write(scripted, title)
    (waiting,) = await _pending_ids(thread)
    bogus = "0" * 32
    error = await _refused_then_approved(thread, workdir, title, {bogus: APPROVE})
    assert bogus in error
    assert waiting in error


async def test_an_answer_keyed_by_the_waiting_id_is_used(scripted: Any, workdir: Path) -> None:
    title = unique("by-id")
    thread = await _paused_on_write(scripted, title)
    (waiting,) = await _pending_ids(thread)
    await _answer(thread, {waiting: APPROVE})
    assert await thread.interrupts() == []
    assert note_actions(workdir, title) == ["write"]


async def test_an_oversized_answer_is_refused_echoed_short_and_not_checkpointed(
    scripted: Any, workdir: Path
) -> None:
    title = unique("huge")
    thread = await _paused_on_write(scripted, title)
    await _answer(thread, HUGE)
    (request,) = await thread.interrupts()
    assert request["error"].startswith(REFUSED_ANSWER)
    assert "200002 characters" in request["error"]
    assert len(request["error"]) < 1_000
    assert b"x" * 1_000 not in _checkpoint_bytes(thread)
    await _answer(thread, APPROVE)
    assert note_actions(workdir, title) == ["write"]


async def test_an_unscreened_bad_answer_is_echoed_as_a_short_prefix(
    scripted: Any, workdir: Path
) -> None:
    # A caller that skips the screen still gets a short error, never the whole value back.
    title = unique("unscreened")
    thread = await _paused_on_write(scripted, title)
    fields = {k: v for k, v in thread.graph.__dict__.items() if k != "__orig_class__"}
    thread.graph = CompiledStateGraph(**fields)  # the same graph and checkpointer, unscreened
    await thread.resume({"note": HUGE})
    (request,) = await thread.interrupts()
    assert request["error"].startswith(REFUSED_ANSWER)
    assert len(request["error"]) < 1_000
    assert note_actions(workdir, title) == []


async def test_ask_user_refuses_none_and_oversized_answers(scripted: Any) -> None:
    question = "Which SKU do you mean?"
    ctx, models = scripted(
        planner=[plan(task("t1", "inventory", "stock of the user's product"))],
        orchestrate=[
            calls(tool_call("ask_user", {"question": question}, call_id="ask-1")),
            "Done.",
        ],
        assess=[done()],
        response=["There are 14."],
    )
    thread = Thread(ctx)
    await thread.send("How many of my product are in stock?")

    for bad, part in [(None, "empty (None)"), (HUGE, "200002 characters")]:
        assert await _answer(thread, bad) == []
        (value,) = await thread.interrupts()
        assert value["action_requests"][0]["args"] == {"question": question}
        assert value["error"].startswith(REFUSED_ANSWER)
        assert part in value["error"]
        assert len(value["error"]) < 1_000

    await _answer(thread, "GAD-7")
    assert await thread.interrupts() == []
    (finished,) = (await thread.values())["previous_plan"]
    assert finished["status"] == "completed"
    # Only the usable answer reached the expert's orchestrator.
    second_round = models["orchestrate"].requests[1]["messages"]
    humans = [m.content for m in second_round if isinstance(m, HumanMessage)]
    assert "GAD-7" in humans
    assert all(h != HUGE for h in humans)


async def test_a_screened_graph_refuses_a_none_resume_itself(scripted: Any, workdir: Path) -> None:
    # Clients (the dev server, the SDK) resume the graph directly: the graph screens it.
    title = unique("graph-none")
    write = calls(tool_call("write_note", {"title": title, "body": "b"}, call_id="w1"))
    ctx, _ = scripted(
        planner=[NOTES_TASK], orchestrate=[write], assess=[done()], response=["Saved."]
    )
    thread = Thread(ctx, graph=build_graph(InMemorySaver()))
    await thread.send("Save a note")

    assert await thread.resume(None) == []
    (request,) = await thread.interrupts()
    assert request["error"].startswith(REFUSED_ANSWER)
    assert note_actions(workdir, title) == []

    result = await thread.graph.ainvoke(Command(resume=APPROVE), thread.config, context=ctx)
    assert result["messages"][-1].content == "Saved."
    assert note_actions(workdir, title) == ["write"]
    # A new message on the finished thread is not a resume: it passes unscreened.
    snapshot = await thread.graph.aget_state(thread.config)
    kwargs: dict[str, Any] = {}
    assert entered({"messages": []}, thread.config, snapshot, kwargs) == {"messages": []}
    assert kwargs["context"]["caller"].identity == "default", "the caller is set all the same"


async def test_the_parallel_tasks_request_is_asked_again_after_a_none_resume(
    scripted: Any, workdir: Path
) -> None:
    titles = {tid: unique(f"parallel-{tid}") for tid in ("t1", "t2")}

    def write(tid: str) -> Any:
        args = {"title": titles[tid], "body": "b"}
        return calls(tool_call("write_note", args, call_id=f"w-{tid}"))

    ctx, _ = scripted(
        planner=[plan(task("t1", "notes", "save one"), task("t2", "notes", "save two"))],
        orchestrate=per_task({tid: [write(tid)] for tid in titles}),
        assess=[done()] * 2,
        response=["Saved both."],
    )
    thread = Thread(ctx, graph=build_graph(InMemorySaver()))
    await thread.send("Save two notes")
    (request,) = await thread.interrupts()
    assert len(request["action_requests"]) == 2

    assert await thread.resume(None) == []

    (request,) = await thread.interrupts()
    assert len(request["action_requests"]) == 2
    assert request["error"].startswith(REFUSED_ANSWER)
    assert all(note_actions(workdir, title) == [] for title in titles.values())


def test_screen_passes_usable_answers_unchanged() -> None:
    assert screen_resume(APPROVE, ["a" * 32]) is APPROVE
    assert screen_resume("GAD-7", ["a" * 32]) == "GAD-7"
    answers = {"a" * 32: APPROVE}
    assert screen_resume(answers, ["a" * 32, "b" * 32]) is answers


def test_screen_sends_the_stand_in_to_every_waiting_question() -> None:
    waiting = ["a" * 32, "b" * 32]
    screened_value = screen_resume({"c" * 32: APPROVE}, waiting)
    assert set(screened_value) == set(waiting)
    for stand_in in screened_value.values():
        with pytest.raises(ApprovalFormatError, match="not waiting"):
            parse_decisions(stand_in, 1)
    with pytest.raises(ApprovalFormatError, match="names no question"):
        parse_decisions(screen_resume({}, waiting[:1]), 1)


def test_the_echo_of_a_bad_answer_is_a_short_prefix() -> None:
    with pytest.raises(ApprovalFormatError) as info:
        parse_decisions({"decisions": [{"type": "maybe", "why": "y" * 10_000}]}, 1)
    assert len(str(info.value)) < 2 * ECHO_CHARS + 400
