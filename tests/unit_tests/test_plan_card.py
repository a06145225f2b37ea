"""The plan card's props (`plan_card.card_props`) and its UI messages on a real run's stream."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from common.safety.approval import PendingCall
from strategies.cli.render import PlanBoard
from strategies.with_planner.plan_card import (
    KEPT_CARDS,
    card_id,
    card_props,
    message_id,
    one_line,
    summary,
)
from strategies.with_planner.plans import TaskState, new_task_state
from strategies.with_planner.state import Awaiting
from tests.unit_tests.helpers import Thread, plan
from tests.unit_tests.test_parallel_plans import Recorder, lookup, records_server, setup


def _task(tid: str, *deps: str, **changes: Any) -> TaskState:
    t = new_task_state({"id": tid, "expert": "inventory", "task": f"look up {tid}"})
    return TaskState(**{**t, "depends_on": list(deps), **changes})  # type: ignore[typeddict-item]


def _call(name: str, **args: Any) -> PendingCall:
    return PendingCall(id="c1", expert="notes", name=name, args=args, reason="destructive")


def test_props_show_status_duration_line_and_steps() -> None:
    plan_ = [
        _task(
            "t1",
            status="completed",
            result='{\n  "stock": 120\n}',
            started_at="2026-01-01T10:00:00+00:00",
            ended_at="2026-01-01T10:00:03+00:00",
        ),
        _task("t2", status="failed", error="Unknown SKU 'NOPE'\nmore"),
        _task("t3", "t1", "t2", status="skipped", error="t2 failed"),
        _task("t4", "t3", status="ready"),
    ]
    props = card_props(plan_)
    rows = {t["id"]: t for t in props["tasks"]}
    assert [t["id"] for t in props["tasks"]] == ["t1", "t2", "t3", "t4"]
    assert rows["t1"]["status"] == "completed"
    assert rows["t1"]["seconds"] == 3
    assert rows["t1"]["line"] == '{ "stock": 120 }'
    assert rows["t2"]["line"] == "Unknown SKU 'NOPE' more"
    assert rows["t3"]["depends_on"] == ["t1", "t2"]
    assert rows["t4"]["status"] == "pending", "ready is shown as pending"
    assert rows["t4"]["seconds"] is None
    assert rows["t4"]["line"] is None
    assert [rows[t]["level"] for t in ("t1", "t2", "t3", "t4")] == [0, 0, 1, 2]
    assert props["status"] == "failed"
    assert props["final"] is False
    assert props["go_ahead"] == []


def test_held_calls_by_task_and_plan_only_go_ahead() -> None:
    waiting = _task("t4", status="awaiting_approval")
    awaiting = [Awaiting(task_id="t4", key="k", call=_call("write_note", title="x"))]
    props = card_props([waiting], awaiting=awaiting)
    assert props["tasks"][0]["held"] == ['notes: write_note({"title": "x"})']
    assert props["tasks"][0]["status"] == "awaiting_approval"

    done = _task("t1", status="completed", result="held")
    final = card_props([done], deferred=[_call("delete_note", title="y")], final=True)
    assert final["final"] is True
    assert final["go_ahead"] == ['notes: delete_note({"title": "y"})']
    assert final["tasks"][0]["held"] == []


def test_one_line_cuts_and_summary_gives_the_steps() -> None:
    assert one_line("a\n\n  b   c", 100) == "a b c"
    assert one_line("x" * 50, 10) == "x" * 9 + "…"
    plan_ = [_task("t1"), _task("t2"), _task("t3", "t1", "t2")]
    assert summary(plan_) == "Plan: t1 (inventory), t2 (inventory); then t3 (inventory)."


async def test_a_run_sends_one_card_update_per_step_and_the_cli_ignores_them(
    scripted: Any,
) -> None:
    rec = Recorder()
    ctx, _ = setup(
        scripted,
        records_server(rec),
        [plan(lookup("t1", "a"), lookup("t2", "b"), lookup("t3", "c", "t1", "t2"))],
    )
    thread = Thread(ctx)
    payload = {"messages": [{"role": "user", "content": "Look up a and b, then c."}]}
    chunks = [
        chunk
        async for chunk in thread.graph.astream(
            payload, thread.config, context=ctx, stream_mode="custom"
        )
    ]
    cards = [c for c in chunks if c.get("type") == "ui"]
    changes = [c for c in chunks if c.get("event") in ("task_start", "task_end")]
    # The plan, at most one update per task state change, and the final card.
    assert 2 <= len(cards) <= 1 + len(changes) + 1
    assert len({c["id"] for c in cards}) == 1
    last = cards[-1]
    assert last["props"]["final"] is True
    assert [t["status"] for t in last["props"]["tasks"]] == ["completed"] * 3

    values = await thread.values()
    turn = values["turn"]["turn_of"]
    assert [m["id"] for m in values["ui"]] == [card_id(turn)]
    plan_line, answer = values["messages"][1], values["messages"][-1]
    assert isinstance(plan_line, AIMessage)
    assert plan_line.id == message_id(turn)
    assert plan_line.content == "Plan: t1 (records), t2 (records); then t3 (records)."
    assert answer is not plan_line
    assert "Plan:" not in str(answer.content)
    assert values["ui"][0]["metadata"]["message_id"] == plan_line.id

    # The CLI's live table reads events by their "event" key: a card changes nothing.
    board = PlanBoard()
    for chunk in chunks:
        board.apply(chunk)
    assert {t: row["status"] for t, row in board.tasks.items()} == {
        "t1": "completed",
        "t2": "completed",
        "t3": "completed",
    }


async def test_cards_kept_in_state_are_bounded(scripted: Any) -> None:
    rec = Recorder()
    turns = 5
    ctx, _ = setup(
        scripted,
        records_server(rec),
        [plan(lookup("t1", "a"))] * turns,
        response=["Done."] * turns,
    )
    thread = Thread(ctx)
    for n in range(turns):
        await thread.send(f"Look up a, turn {n}.")
    values = await thread.values()
    # Only the latest plan's card stays: every card update is a new version of the channel.
    assert len(values["ui"]) == KEPT_CARDS == 1
    assert values["ui"][-1]["id"] == card_id(values["turn"]["turn_of"])
