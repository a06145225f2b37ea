"""A long conversation at a flat cost: the models get the latest turns and a summary of the rest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.messages.utils import count_tokens_approximately
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.runtime import Runtime
from langgraph.store.memory import InMemoryStore

from common.safety.analysis import AnalysisRecord
from strategies.with_planner.context import Context
from strategies.with_planner.conversation import (
    TurnSummary,
    compact,
    read_history,
    render_summary,
    tokens,
)
from strategies.with_planner.graph import build_graph
from strategies.with_planner.nodes.planner import start_turn
from strategies.with_planner.state import State, Turn, merge_turn
from tests.doubles import calls, tool_call
from tests.unit_tests.helpers import Thread, done, note_actions, plan, task, unique

BUDGET = 300
TURNS = 12
PADDING = "with enough words around it to make the turn take a fair share of the budget"


def request(n: int) -> str:
    """The request of turn n: a marker only that turn has, and some padding."""
    return f"Tell me about marker-{n}, {PADDING}."


def answer(n: int) -> str:
    """The answer of turn n."""
    return f"Answer {n}: marker-{n} is fine.\nMore detail the summary leaves out."


def chat_scripts(turns: int) -> dict[str, list[Any]]:
    """Turns that need no expert: an empty plan, then the answer."""
    return {"planner": [plan()] * turns, "response": [answer(n) for n in range(1, turns + 1)]}


def conversation_tokens(request: dict[str, Any]) -> int:
    """Tokens of the conversation a model was sent: the summary section and the messages."""
    system, *rest = request["messages"]
    assert isinstance(system, SystemMessage)
    summary = str(system.content).partition("\n\nEarlier turns of this conversation")[2]
    return tokens(summary) + count_tokens_approximately(rest)


async def long_thread(
    scripted: Any, turns: int = TURNS, budget: int = BUDGET, **graph: Any
) -> tuple[Thread, Any]:
    """A thread of `turns` chat turns at `budget` tokens, and its scripted models."""
    ctx, models = scripted(**chat_scripts(turns))
    ctx["conversation_token_budget"] = budget
    thread = Thread(ctx, **graph)
    for n in range(1, turns + 1):
        await thread.send(request(n))
    return thread, models


async def test_the_models_get_no_more_conversation_than_the_budget_however_long_the_thread(
    scripted: Any,
) -> None:
    thread, models = await long_thread(scripted)

    for role in ("planner", "response"):
        sent = [conversation_tokens(r) for r in models[role].requests]
        assert max(sent) <= BUDGET, (role, sent)
    values = await thread.values()
    assert len(values["messages"]) < 2 * TURNS
    assert values["messages"][-1].text.startswith(f"Answer {TURNS}")


async def test_a_question_about_turn_2_finds_it_in_the_summary_the_models_get(
    scripted: Any,
) -> None:
    # Room for every older request in the summary, not for the turns themselves.
    thread, models = await long_thread(scripted, budget=450)

    kept = " ".join(m.text for m in (await thread.values())["messages"])
    assert "marker-2," not in kept  # turn 2 left the thread's messages...
    for role in ("planner", "response"):
        last = str(models[role].requests[-1]["messages"][0].content)
        assert "Turn 2: Tell me about marker-2" in last  # ...and reaches the models summarised
    assert "Turn 2:" in render_summary((await thread.values())["summary"])


async def test_the_turns_that_left_the_messages_are_kept_whole_in_the_store(
    scripted: Any,
) -> None:
    store = InMemoryStore()
    thread, _ = await long_thread(scripted, graph=build_graph(InMemorySaver(), store))

    history = await read_history(store, "default", thread.thread_id)
    assert await store.asearch(("mcp_planner", "conversation", "default"), limit=1), (
        "under its owner"
    )
    first = history[0]
    assert first["turn"] == 1
    texts = [m["data"]["content"] for m in first["messages"]]
    assert texts == [request(1), answer(1)]
    assert [h["turn"] for h in history] == list(range(1, len(history) + 1))
    assert len(history) + len((await thread.values())["messages"]) // 2 == TURNS


async def test_a_turn_paused_for_approval_in_a_compacted_thread_resumes_and_runs_once(
    scripted: Any, workdir: Path
) -> None:
    title = unique("budget-thread")
    write = calls(tool_call("write_note", {"title": title, "body": "hi"}, call_id="w1"))
    chat = chat_scripts(TURNS)
    ctx, _ = scripted(
        planner=[*chat["planner"], plan(task("t1", "notes", "Save the note"))],
        orchestrate=[write],
        assess=[done()],
        response=[*chat["response"], "Saved."],
    )
    ctx["conversation_token_budget"] = BUDGET
    thread = Thread(ctx)
    for n in range(1, TURNS + 1):
        await thread.send(request(n))

    await thread.send(f"Save a note, {PADDING}")
    assert await thread.interrupts()
    await thread.resume({"decisions": [{"type": "approve"}]})

    assert note_actions(workdir, title) == ["write"]
    assert (await thread.answer()).text.startswith("Saved.")
    assert (await thread.values())["summary"][0]["turn"] >= 1


async def test_a_turns_notes_and_feedback_do_not_leak_into_the_next(scripted: Any) -> None:
    unknown = plan(task("t1", "no-such-expert", "Do it"))
    ctx, models = scripted(
        planner=[unknown, plan(not_covered=["fly to the moon"]), plan()],
        response=["Could not fly.", "Hello."],
    )
    thread = Thread(ctx)

    await thread.send("Fly me to the moon")
    first = await thread.values()
    assert first["turn"]["uncovered"] == ["fly to the moon"]

    await thread.send("Hello")
    second = await thread.values()
    assert second["turn"]["uncovered"] == []
    assert "moon" not in (await thread.answer()).text
    third_prompt = str(models["planner"].requests[-1]["messages"][0].content)
    assert "no-such-expert" not in third_prompt  # the first turn's feedback is gone


def test_a_turn_starts_with_every_turn_scoped_field_reset(scripted: Any) -> None:
    ctx, _ = scripted()
    old = Turn(
        run_context={"model": "old"},
        turn_of="m1",
        notes=["old"],
        replanned=True,
        steps_spent=3,
        planner_attempts=2,
        planner_feedback=["bad plan"],
        planner_focus=["notes"],
        wave=["t1"],
        uncovered=["x"],
        unavailable={"notes": "down"},
        analysis=AnalysisRecord(
            status="ok",
            irreversible=False,
            tools=[],
            unknown=[],
            reasons={},
            error=None,
            notes=[],
            catalog={},
        ),
    )
    state = State(messages=[HumanMessage("next", id="m2")], turn=old)
    runtime = Runtime(context=Context(**ctx), stream_writer=lambda _: None)

    update = start_turn(state, runtime)

    # The turn start writes every field of a Turn (a field added without a start value fails
    # here), and the new turn replaces the old one as a whole.
    turn = merge_turn(old, update["turn"])
    assert set(turn) == set(Turn.__annotations__)
    assert (turn["turn_of"], turn["run_context"]["model"]) == ("m2", ctx["model"])
    assert {k: v for k, v in turn.items() if k not in ("turn_of", "run_context")} == {
        "notes": [],
        "replanned": False,
        "steps_spent": 0,
        "planner_attempts": 0,
        "planner_feedback": [],
        "planner_focus": [],
        "wave": [],
        "uncovered": [],
        "unavailable": {},
        "analysis": None,
    }
    # Nothing turn-scoped lives beside the turn, where a new turn would not reset it.
    assert not set(Turn.__annotations__) & set(State.__annotations__)


def test_the_oldest_summary_lines_lose_their_answer_before_they_go() -> None:
    from langchain_core.messages import AIMessage

    messages = []
    for n in range(1, 40):
        messages += [HumanMessage(request(n), id=f"h{n}"), AIMessage(answer(n), id=f"a{n}")]
    messages.append(HumanMessage(request(40), id="h40"))

    done_ = compact(messages, [], 600)

    summary: list[TurnSummary] = done_.summary
    assert summary[-1]["answer"].startswith("Answer")  # the newest keeps its answer
    assert summary[0]["answer"] == ""  # the oldest kept only its request
    assert tokens(render_summary(summary)) <= 600
    assert {r.id for r in done_.removals} <= {m.id for m in messages[:-1]}
    assert "h40" not in {r.id for r in done_.removals}


async def test_the_plan_line_written_for_people_is_never_sent_to_a_model(scripted: Any) -> None:
    """The plan card's one-line plan is in the thread for Agent Chat UI, not in any prompt."""
    lookup = plan({**task("t1", "testkit", "echo hi"), "tool": "echo", "args": {"text": "hi"}})
    ctx, models = scripted(planner=[lookup, plan()], response=["Said hi.", "Fine."])
    thread = Thread(ctx)
    await thread.send("Say hi")
    await thread.send("And now?")

    said = [m.text for m in await thread.messages()]
    assert any(text.startswith("Plan: t1 (testkit)") for text in said), said
    for role in ("planner", "response"):
        for sent in models[role].requests:
            assert not any("Plan: t1" in m.text for m in sent["messages"][1:]), role
    assert "Said hi." in models["planner"].requests[-1]["messages"][-2].text
