"""Long threads: a finished task keeps its calls, not its exchange, so turns stay the same size."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver

from strategies.with_planner.graph import build_graph
from tests.doubles import calls, tool_call
from tests.unit_tests.helpers import Thread, done, note_actions, plan, task, unique

ECHO_PLAN = plan(task("t1", "testkit", "echo alpha"))
TURNS = 10
SLACK_BYTES = 512


def echo_scripts(turns: int) -> dict[str, list[Any]]:
    """Every turn: one orchestrated task echoes 'alpha', and the answer says so."""
    return {
        "planner": [ECHO_PLAN] * turns,
        "orchestrate": [calls(tool_call("echo", {"text": "alpha"}))] * turns,
        "assess": [done()] * turns,
        "response": ["alpha"] * turns,
    }


def thread_bytes(saver: InMemorySaver, thread_id: str) -> int:
    """Bytes a thread takes in the saver: checkpoints, channel values and pending writes."""
    total = 0
    for checkpoints in saver.storage[thread_id].values():
        for checkpoint, metadata, _parent in checkpoints.values():
            total += len(checkpoint[1]) + len(metadata[1])
    total += sum(len(v[1]) for k, v in saver.blobs.items() if k[0] == thread_id)
    for key, writes in saver.writes.items():
        if key[0] == thread_id:
            total += sum(len(w[2][1]) for w in writes.values())
    return total


def messages_bytes(saver: InMemorySaver, values: dict[str, Any]) -> int:
    """Bytes of the conversation alone, serialised as the saver does."""
    return len(saver.serde.dumps_typed(values["messages"])[1])


async def test_an_ended_turn_keeps_each_tasks_calls_and_no_exchange(scripted: Any) -> None:
    ctx, _ = scripted(**echo_scripts(1))
    thread = Thread(ctx)

    await thread.send("Echo alpha")

    state = await thread.values()
    assert state["plan"] == []
    (t1,) = state["previous_plan"]
    assert t1["status"] == "completed"
    assert t1["result"] == "alpha"
    assert t1["messages"] == []
    assert [(c["name"], c["args"], c["status"], c["output"]) for c in t1["calls"]] == [
        ("echo", {"text": "alpha"}, "success", "alpha")
    ]
    assert (await thread.answer()).text.startswith("alpha")


async def test_a_task_waiting_for_approval_keeps_its_exchange_and_goes_on(
    scripted: Any, workdir: Path
) -> None:
    title = unique("long-thread")
    write = calls(tool_call("write_note", {"title": title, "body": "hi"}, call_id="w1"))
    ctx, _ = scripted(
        planner=[plan(task("t1", "notes", "Save the note"))],
        orchestrate=[write],
        assess=[done()],
        response=["Saved."],
    )
    thread = Thread(ctx)
    await thread.send("Save a note")

    (waiting,) = (await thread.values())["plan"]
    assert waiting["status"] == "awaiting_approval"
    sent = [m for m in waiting["messages"] if isinstance(m, AIMessage) and m.tool_calls]
    assert [c["id"] for m in sent for c in m.tool_calls] == ["w1"]

    await thread.resume({"decisions": [{"type": "approve"}]})

    assert note_actions(workdir, title) == ["write"]
    (t1,) = (await thread.values())["previous_plan"]
    assert t1["status"] == "completed"
    assert t1["messages"] == []
    assert [(c["id"], c["name"], c["status"]) for c in t1["calls"]] == [
        ("w1", "write_note", "success")
    ]


async def test_a_turn_adds_no_more_bytes_late_in_a_thread_than_early(scripted: Any) -> None:
    ctx, _ = scripted(**echo_scripts(TURNS))
    saver = InMemorySaver()
    thread = Thread(ctx, graph=build_graph(saver))
    sizes, conversation = [0], [0]

    for _ in range(TURNS):
        await thread.send("Echo alpha")
        sizes.append(thread_bytes(saver, thread.thread_id))
        conversation.append(messages_bytes(saver, await thread.values()))

    added = [after - before for before, after in pairwise(sizes)]
    # The conversation is stored again each time it changes (the request, the plan's line,
    # the answer); the slack covers checkpoint counters that gain a digit.
    conversation_growth = 3 * (conversation[TURNS] - conversation[3])
    assert added[TURNS - 1] - added[2] <= conversation_growth + SLACK_BYTES
    assert all(t["messages"] == [] for t in (await thread.values())["previous_plan"])
