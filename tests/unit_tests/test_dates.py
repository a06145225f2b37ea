"""Date references resolved on fixed clocks, in the planner's prompt and in direct steps.

The table is seed 003's: every range ends today except "yesterday"; "last week" is 7 days ago
to today, "this week" Monday to today, "this month" the 1st to today, "last N days" N days ago
to today.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer

from common.mcp.inprocess import register_inprocess_server
from strategies.with_planner.context import Context
from strategies.with_planner.dates import DateRange, describe_periods, find_periods, resolve_period
from tests.unit_tests.helpers import Thread, plan, system_prompt, unique

SUNDAY = date(2025, 10, 12)  # the seed's "today"
MONDAY = date(2025, 10, 6)
MONTH_START = date(2025, 10, 1)  # a Wednesday
NEW_YEAR = date(2025, 1, 1)  # a Wednesday
LEAP_MARCH = date(2024, 3, 1)  # a Friday, after 29 February


def span(phrase: str, today: date) -> tuple[str, str]:
    r = resolve_period(phrase, today)
    return r.start.isoformat(), r.end.isoformat()


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("today", ("2025-10-12", "2025-10-12")),
        ("yesterday", ("2025-10-11", "2025-10-11")),
        ("last week", ("2025-10-05", "2025-10-12")),
        ("this week", ("2025-10-06", "2025-10-12")),
        ("this month", ("2025-10-01", "2025-10-12")),
        ("last 30 days", ("2025-09-12", "2025-10-12")),
        ("last 7 days", ("2025-10-05", "2025-10-12")),
        ("last 1 day", ("2025-10-11", "2025-10-12")),
    ],
)
def test_the_seed_table_on_its_own_date(phrase: str, expected: tuple[str, str]) -> None:
    assert span(phrase, SUNDAY) == expected


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("today", ("2025-10-06", "2025-10-06")),
        ("yesterday", ("2025-10-05", "2025-10-05")),
        ("this week", ("2025-10-06", "2025-10-06")),
        ("last week", ("2025-09-29", "2025-10-06")),
        ("this month", ("2025-10-01", "2025-10-06")),
    ],
)
def test_on_a_monday_this_week_is_just_today(phrase: str, expected: tuple[str, str]) -> None:
    assert span(phrase, MONDAY) == expected


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("this month", ("2025-10-01", "2025-10-01")),
        ("yesterday", ("2025-09-30", "2025-09-30")),
        ("this week", ("2025-09-29", "2025-10-01")),
        ("last week", ("2025-09-24", "2025-10-01")),
        ("last 30 days", ("2025-09-01", "2025-10-01")),
    ],
)
def test_on_the_first_of_a_month_ranges_reach_back_into_the_last(
    phrase: str, expected: tuple[str, str]
) -> None:
    assert span(phrase, MONTH_START) == expected


def test_ranges_cross_the_year_and_leap_day() -> None:
    assert span("yesterday", NEW_YEAR) == ("2024-12-31", "2024-12-31")
    assert span("this week", NEW_YEAR) == ("2024-12-30", "2025-01-01")
    assert span("last week", NEW_YEAR) == ("2024-12-25", "2025-01-01")
    assert span("this month", NEW_YEAR) == ("2025-01-01", "2025-01-01")
    assert span("yesterday", LEAP_MARCH) == ("2024-02-29", "2024-02-29")
    assert span("last 2 days", LEAP_MARCH) == ("2024-02-28", "2024-03-01")


def test_every_range_ends_today_except_yesterday() -> None:
    for day in (SUNDAY, MONDAY, MONTH_START, NEW_YEAR, LEAP_MARCH):
        for phrase in ("today", "this week", "last week", "this month", "last 10 days"):
            r = resolve_period(phrase, day)
            assert r.end == day
            assert r.start <= r.end
        assert resolve_period("yesterday", day).end == day - timedelta(days=1)


def test_this_week_always_starts_on_a_monday() -> None:
    for offset in range(14):
        day = SUNDAY + timedelta(days=offset)
        start = resolve_period("this week", day).start
        assert start.weekday() == 0
        assert 0 <= (day - start).days <= 6


@pytest.mark.parametrize(
    "phrase", ["Last Week", "  last   week ", "last_week", "LAST_30_DAYS", "past 30 days"]
)
def test_phrases_are_normalised(phrase: str) -> None:
    assert resolve_period(phrase, SUNDAY) == resolve_period(
        "last week" if "week" in phrase.lower() else "last 30 days", SUNDAY
    )


@pytest.mark.parametrize("phrase", ["next week", "tomorrow", "last month", "last days", ""])
def test_a_phrase_outside_the_table_is_refused_with_the_supported_ones(phrase: str) -> None:
    with pytest.raises(ValueError, match="use today, yesterday, this week, last week"):
        resolve_period(phrase, SUNDAY)


def test_a_range_renders_as_from_and_to() -> None:
    assert DateRange(MONDAY, SUNDAY).as_dict() == {"from": "2025-10-06", "to": "2025-10-12"}


def test_find_periods_picks_every_reference_out_of_a_request() -> None:
    found = find_periods("Shipments from Last Week vs the last 30 days, and yesterday's", SUNDAY)
    assert {k: (v.start.isoformat(), v.end.isoformat()) for k, v in found.items()} == {
        "last week": ("2025-10-05", "2025-10-12"),
        "last 30 days": ("2025-09-12", "2025-10-12"),
        "yesterday": ("2025-10-11", "2025-10-11"),
    }


def test_find_periods_ignores_words_that_merely_contain_a_phrase() -> None:
    assert find_periods("the todays-special and yesterdayish menu", SUNDAY) == {}


def test_describe_periods_gives_dates_and_the_template_to_use() -> None:
    now = datetime(2025, 10, 12, 10, 0, tzinfo=UTC)
    assert describe_periods("last week and the last 7 days", now) == (
        "- last week: 2025-10-05 to 2025-10-12 (template ${dates.last_week.from} / .to)\n"
        "- last 7 days: 2025-10-05 to 2025-10-12 (template ${dates.last_7_days.from} / .to)"
    )
    assert describe_periods("no dates here", now) == ""


def test_context_now_is_the_clock() -> None:
    fixed = Context(now="2025-10-12T10:00:00+00:00").current_time()
    assert fixed == datetime(2025, 10, 12, 10, 0, tzinfo=UTC)
    naive = Context(now="2025-10-12T10:00:00").current_time()
    assert naive.tzinfo is not None
    assert (naive.year, naive.month, naive.day, naive.hour) == (2025, 10, 12, 10)
    assert Context().current_time().tzinfo is not None


# --- in the graph ----------------------------------------------------------------------------


def shipments_server(received: list[dict[str, Any]]) -> str:
    mcp = MCPServer(unique("shipments"))

    @mcp.tool()
    async def list_shipments(date_from: str, date_to: str) -> list[dict[str, str]]:
        """List the shipments between two dates."""
        received.append({"date_from": date_from, "date_to": date_to})
        return [{"id": "s-1"}]

    register_inprocess_server(mcp.name, mcp)
    return mcp.name


def shipments_context(
    scripted: Any, server: str, planner: list[Any], **knobs: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    ctx, models = scripted(planner=planner, response=["Here they are."], orchestrate=[], assess=[])
    ctx["mcp_config"] = {"mcpServers": {"shipments": {"inprocess": server, "description": "Ship."}}}
    ctx.update(knobs)
    return ctx, models


async def test_the_planner_prompt_shows_the_resolved_dates(scripted: Any) -> None:
    ctx, models = shipments_context(
        scripted, shipments_server([]), [plan()], now="2025-10-12T10:00:00+00:00"
    )

    await Thread(ctx).send("Get shipments from last week")

    prompt = system_prompt(models["planner"].requests[0])
    assert "Current date and time: Sunday 2025-10-12 10:00 UTC" in prompt
    assert (
        "Date references in the request:\n"
        "- last week: 2025-10-05 to 2025-10-12 (template ${dates.last_week.from} / .to)"
    ) in prompt


async def test_the_planner_prompt_says_none_without_date_references(scripted: Any) -> None:
    ctx, models = shipments_context(
        scripted, shipments_server([]), [plan()], now="2025-10-06T08:30:00+02:00"
    )

    await Thread(ctx).send("List the shipments")

    prompt = system_prompt(models["planner"].requests[0])
    assert "Current date and time: Monday 2025-10-06 08:30 UTC+02:00" in prompt
    assert "Date references in the request:\n(none)" in prompt


async def test_a_direct_step_uses_date_templates_on_the_run_clock(scripted: Any) -> None:
    received: list[dict[str, Any]] = []
    step = {
        "id": "t1",
        "expert": "shipments",
        "task": "List last week's shipments",
        "tool": "list_shipments",
        "args": {"date_from": "${dates.last_week.from}", "date_to": "${dates.last_week.to}"},
    }
    ctx, models = shipments_context(
        scripted, shipments_server(received), [plan(step)], now="2025-10-12T10:00:00+00:00"
    )
    thread = Thread(ctx)

    await thread.send("Get shipments from last week")

    assert received == [{"date_from": "2025-10-05", "date_to": "2025-10-12"}]
    (task,) = (await thread.values())["previous_plan"]
    assert task["status"] == "completed"
    assert task["data"] == [{"id": "s-1"}], "MCPServer's {'result': ...} wrapper is removed"
    assert models["orchestrate"].requests == []


async def test_an_unknown_date_period_is_sent_back_to_the_planner(scripted: Any) -> None:
    received: list[dict[str, Any]] = []
    step = {
        "id": "t1",
        "expert": "shipments",
        "task": "List next week's shipments",
        "tool": "list_shipments",
        "args": {"date_from": "${dates.next_week.from}", "date_to": "${dates.next_week.to}"},
    }
    ctx, models = shipments_context(
        scripted, shipments_server(received), [plan(step), plan()], now="2025-10-12T10:00:00+00:00"
    )
    thread = Thread(ctx)

    nodes = await thread.send("Get shipments for next week")

    assert nodes == ["planner", "planner", "generate_response"]
    assert received == []
    feedback = system_prompt(models["planner"].requests[1])
    assert "Task 't1': ${dates.next_week.from}: unknown date reference 'next_week'" in feedback
    assert "use today, yesterday, this week, last week, this month or last N days" in feedback
