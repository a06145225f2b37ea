"""The answer says what was not done whatever the model writes: failures, cancellations and calls
whose outcome is unknown are added from state, and an empty answer becomes that summary."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage

from common.safety.execution import CallLedger
from strategies.with_planner.nodes.respond import UNKNOWN_HEADING
from tests.doubles import tool_call
from tests.unit_tests.helpers import (
    Thread,
    done,
    log_lines,
    note_actions,
    plan,
    task,
    unique,
)


def _step(tid: str, tool: str, **args: Any) -> dict[str, Any]:
    """A direct step on the testkit server."""
    return {"id": tid, "expert": "testkit", "task": tool, "tool": tool, "args": args}


async def test_a_model_that_says_done_does_not_hide_a_failed_task(scripted: Any) -> None:
    ctx, _ = scripted(
        planner=[{"plan": [_step("t1", "fail", message="disk full")]}], response=["Done."]
    )
    thread = Thread(ctx)
    await thread.send("Try it")
    answer = str((await thread.answer()).content)
    assert answer.startswith("Done.")
    assert "Not done:\n- t1 (testkit: fail) failed" in answer
    assert "disk full" in answer
    assert (await thread.values())["report"]["ok"] is False


async def test_a_blank_answer_becomes_the_summary_of_what_was_done(scripted: Any) -> None:
    word = uuid.uuid4().hex
    ctx, _ = scripted(planner=[{"plan": [_step("t1", "echo", text=word)]}], response=["  \n\t "])
    thread = Thread(ctx)
    await thread.send("Echo it")
    answer = str((await thread.answer()).content)
    assert answer.startswith("Done:\n- t1 (testkit: echo): ")
    assert word in answer
    assert (await thread.values())["report"] == {"ok": True, "problems": []}


async def test_a_task_cancelled_by_the_step_budget_is_named(scripted: Any) -> None:
    first = _step("t1", "echo", text="one")
    second = {**_step("t2", "echo", text="two"), "depends_on": ["t1"]}
    ctx, _ = scripted(planner=[{"plan": [first, second]}], response=["All done!"])
    thread = Thread({**ctx, "max_steps": 1})
    await thread.send("Echo twice")
    answer = str((await thread.answer()).content)
    assert answer.startswith("All done!")
    assert "- t2 (testkit: echo) cancelled: the step budget of 1" in answer
    report = (await thread.values())["report"]
    assert report["ok"] is False
    assert any(p.startswith("t2 ") for p in report["problems"])


async def test_an_empty_answer_names_what_the_user_declined(scripted: Any) -> None:
    scope = uuid.uuid4().hex
    ctx, _ = scripted(
        planner=[{"plan": [_step("t1", "delete_everything", scope=scope)]}], response=[""]
    )
    thread = Thread(ctx)
    await thread.send("Wipe it")
    await thread.resume({"decisions": [{"type": "reject", "message": "not today"}]})
    answer = str((await thread.answer()).content)
    assert answer.startswith("Declined by you:\n- t1 (testkit): delete_everything(")
    assert scope in answer
    assert (await thread.values())["report"] == {"ok": True, "problems": []}


async def test_a_call_of_unknown_outcome_is_reported_even_when_the_task_completed(
    scripted: Any, workdir: Path
) -> None:
    # The ledger says the write was sent but never answered (the process died mid-call): it is
    # not sent again, and the answer says it may have happened, whatever the model claims.
    title = unique("unknown")
    write = AIMessage(
        "",
        id="orchestrate-1",
        tool_calls=[tool_call("write_note", {"title": title, "body": "b"}, call_id="w1")],
    )
    ctx, _ = scripted(
        planner=[plan(task("t1", "notes", "save the note"))],
        orchestrate=[write, "The note is saved."],
        assess=[done()],
        response=["Saved."],
    )
    thread = Thread(ctx)
    args = {"title": title, "body": "b"}
    await CallLedger(None, thread.thread_id).started(
        "orchestrate-1:w1", "notes", "write_note", args
    )

    await thread.send("Save a note")

    assert await thread.interrupts() == []
    assert note_actions(workdir, title) == []
    answer = str((await thread.answer()).content)
    assert answer.startswith("Saved.")
    assert f"{UNKNOWN_HEADING}\n- t1 (notes: save the note): write_note(" in answer
    assert title in answer
    assert "may have happened. Check 'notes'" in answer
    report = (await thread.values())["report"]
    assert report["ok"] is False
    assert len(report["problems"]) == 1
    assert "may have happened" in report["problems"][0]


async def test_a_direct_step_of_unknown_outcome_is_not_called_not_done(
    scripted: Any, workdir: Path
) -> None:
    scope = uuid.uuid4().hex
    ctx, _ = scripted(
        planner=[{"plan": [_step("t1", "delete_everything", scope=scope)]}], response=[""]
    )
    thread = Thread(ctx)
    await thread.send("Wipe it")
    # The approved call was sent and the process died before it answered: the ledger says so.
    (waiting,) = (await thread.values())["awaiting"]
    await CallLedger(None, thread.thread_id).started(
        waiting["key"], "testkit", "delete_everything", {"scope": scope}
    )

    await thread.resume({"decisions": [{"type": "approve"}]})

    assert not any(scope in line for line in log_lines(workdir / "testkit.log"))
    answer = str((await thread.answer()).content)
    assert answer.startswith(f"{UNKNOWN_HEADING}\n- t1 (testkit: delete_everything): ")
    assert "Not done" not in answer
    report = (await thread.values())["report"]
    assert report["ok"] is False
    assert [p.split(":")[0] for p in report["problems"]] == ["t1 (testkit"]
