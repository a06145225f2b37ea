"""The `turn` key: one write merges its fields, a new turn replaces the last one whole."""

from __future__ import annotations

from typing import Annotated, TypedDict

from langgraph.graph import START, StateGraph

from strategies.with_planner.state import Turn, current_turn, merge_turn
from strategies.with_planner.turn import new_turn

LAST = Turn(
    turn_of="m1",
    run_context={"model": "old"},
    notes=["The step budget of 3 per turn ran out."],
    steps_spent=2,
    uncovered=["fly to the moon"],
    unavailable={"notes": "down"},
)


def test_a_write_changes_only_the_fields_it_names() -> None:
    merged = merge_turn(LAST, Turn(steps_spent=3, unavailable={"mail": "timeout"}))

    # Each field named is replaced whole (a dict too), the others are kept.
    assert merged == {**LAST, "steps_spent": 3, "unavailable": {"mail": "timeout"}}
    assert LAST["steps_spent"] == 2, "the current turn is not changed in place"


def test_a_new_turn_replaces_the_last_one_as_a_whole() -> None:
    fresh = new_turn({"model": "new"}, "m2", [])

    assert merge_turn(LAST, fresh) == fresh
    # Even a new turn written with fewer fields keeps nothing of the last one.
    assert merge_turn(LAST, Turn(turn_of="m2")) == {"turn_of": "m2"}


def test_before_the_first_turn_there_is_none() -> None:
    assert current_turn({"messages": []}) == {}
    assert merge_turn(None, Turn(wave=["t1"])) == {"wave": ["t1"]}


class Holder(TypedDict):
    """A state with only the turn, for the channel's behaviour."""

    turn: Annotated[Turn, merge_turn]


def test_writes_of_parallel_nodes_to_the_turn_all_land() -> None:
    builder = StateGraph(Holder)
    builder.add_node("spend", lambda _: {"turn": Turn(steps_spent=3)})
    builder.add_node("lose", lambda _: {"turn": Turn(unavailable={"mail": "timeout"})})
    builder.add_edge(START, "spend")
    builder.add_edge(START, "lose")

    result = builder.compile().invoke({"turn": LAST})

    assert result["turn"] == {**LAST, "steps_spent": 3, "unavailable": {"mail": "timeout"}}
