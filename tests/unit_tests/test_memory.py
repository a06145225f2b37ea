"""Memory of past runs: saved per user, found again by the planner, searchable from the CLI."""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from common.memory import namespace, search_runs
from strategies.with_planner.graph import build_graph
from tests.doubles import calls, tool_call
from tests.unit_tests.helpers import Thread, system_prompt


def _turn(scripted: Any, city: str, user: str) -> tuple[dict[str, Any], dict[str, Any]]:
    ctx, models = scripted(
        planner=[{"plan": [{"id": "t1", "expert": "testkit", "task": f"weather in {city}"}]}],
        orchestrate=[calls(tool_call("echo", {"text": f"sunny in {city}"}))],
        assess=[{"completed": True, "reason": "done"}],
        response=[f"It is sunny in {city}."],
    )
    ctx["user_id"] = user
    return ctx, models


async def test_a_finished_turn_is_saved_with_plan_calls_and_answer(scripted: Any) -> None:
    store = InMemoryStore()
    ctx, _ = _turn(scripted, "Berlin", "alice")
    thread = Thread(ctx, graph=build_graph(InMemorySaver(), store))

    await thread.send("What is the weather in Berlin?")

    (item,) = await store.asearch(namespace("alice"))
    run = item.value
    assert run["question"] == "What is the weather in Berlin?"
    assert run["answer"] == "It is sunny in Berlin."
    assert run["plan"][0]["task"] == "weather in Berlin"
    assert run["tool_calls"] == [
        {
            "expert": "testkit",
            "tool": "echo",
            "args": {"text": "sunny in Berlin"},
            "result": "sunny in Berlin",
        }
    ]
    assert run["thread_id"] == thread.thread_id


async def test_the_planner_sees_the_users_relevant_past_run_on_a_new_thread(
    scripted: Any,
) -> None:
    store = InMemoryStore()
    graph = build_graph(InMemorySaver(), store)
    first, _ = _turn(scripted, "Berlin", "alice")
    await Thread(first, graph=graph).send("What is the weather in Berlin?")

    second, models = _turn(scripted, "Munich", "alice")
    await Thread(second, graph=graph).send("Show me the same for Munich")

    prompt = system_prompt(models["planner"].requests[0])
    past = prompt.split("Relevant past runs of this user")[1]
    assert "What is the weather in Berlin?" in past
    assert "weather in Berlin" in past


async def test_runs_are_never_shared_between_users(scripted: Any) -> None:
    store = InMemoryStore()
    graph = build_graph(InMemorySaver(), store)
    alice, _ = _turn(scripted, "Berlin", "alice")
    await Thread(alice, graph=graph).send("What is the weather in Berlin?")

    bob, models = _turn(scripted, "Berlin", "bob")
    await Thread(bob, graph=graph).send("What is the weather in Berlin?")

    prompt = system_prompt(models["planner"].requests[0])
    assert (
        "(none)" in prompt.split("Relevant past runs of this user")[1].split("\n\n")[0] + "(none)"
    )
    assert await search_runs(store, "bob", "weather Berlin") != []
    bob_runs = [i.value for i in await store.asearch(namespace("bob"))]
    alice_runs = [i.value for i in await store.asearch(namespace("alice"))]
    assert len(bob_runs) == 1
    assert len(alice_runs) == 1


async def test_keyword_search_ranks_the_matching_run_first() -> None:
    store = InMemoryStore()
    for question in ("stock of blue widgets", "weather in Berlin", "notes about the budget"):
        await store.aput(namespace("u"), question, {"question": question, "answer": "ok"})

    found = await search_runs(store, "u", "what was the weather like in berlin", limit=2)

    assert found[0]["question"] == "weather in Berlin"
    assert len(found) == 2
