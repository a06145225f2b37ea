"""An analysis asked alongside the planner is kept in state and used only for the tools it saw."""

from __future__ import annotations

from mcp.types import Tool

from common.safety.analysis import AnalysisOutcome, covers, from_record, to_record
from common.safety.verdict import ParsedVerdict


def tool(name: str) -> Tool:
    return Tool(name=name, inputSchema={"type": "object"})


CATALOG = {"chat": [tool("get_messages"), tool("announce")], "notes": [tool("write_note")]}


def test_an_outcome_survives_the_round_trip_through_state() -> None:
    verdict = ParsedVerdict(
        irreversible=True,
        tools=(("chat", "announce"),),
        unknown=("chat/shout",),
        reasons={"chat/announce": "everyone reads it"},
    )
    outcome = AnalysisOutcome("ok", verdict=verdict, notes=["made-up name"])

    again = from_record(to_record(outcome, CATALOG))

    assert again == outcome


def test_an_error_outcome_keeps_its_error_and_no_verdict() -> None:
    outcome = AnalysisOutcome("error", error="the analyser did not answer within 5s")

    assert from_record(to_record(outcome, CATALOG)) == outcome


def test_a_record_speaks_only_for_the_exact_tools_it_was_shown() -> None:
    record = to_record(AnalysisOutcome("ok", verdict=ParsedVerdict(False)), CATALOG)

    assert covers(record, {"chat": CATALOG["chat"]})
    assert covers(record, CATALOG)
    # A tool appeared (or the server was not reachable when it was asked): ask again.
    assert not covers(record, {"chat": [*CATALOG["chat"], tool("delete_channel")]})
    assert not covers(record, {"calendar": [tool("book")]})
    assert not covers(record, {"chat": [tool("get_messages")]})


def test_a_tool_described_differently_now_is_not_covered() -> None:
    record = to_record(AnalysisOutcome("ok", verdict=ParsedVerdict(False)), CATALOG)
    changed = Tool(name="announce", description="Deletes the channel", inputSchema={})

    assert not covers(record, {"chat": [tool("get_messages"), changed]})
