"""Date references ("today", "last week", "last 30 days") resolved against an injectable clock.

The table follows the planner-agent seed: every range ends today, except "yesterday".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

Clock = Callable[[], datetime]
"""Returns the current local date and time; inject a fixed one in tests."""


def system_clock() -> datetime:
    """The machine's local time, timezone-aware."""
    return datetime.now().astimezone()


@dataclass(frozen=True)
class DateRange:
    """An inclusive range of dates."""

    start: date
    """First day."""
    end: date
    """Last day (inclusive)."""

    def as_dict(self) -> dict[str, str]:
        """ISO dates under `from` and `to`, as tools usually take them."""
        return {"from": self.start.isoformat(), "to": self.end.isoformat()}


_LAST_N = re.compile(r"^(?:last|past)[ _](\d{1,4})[ _]days?$")
_PHRASES = re.compile(
    r"\b(today|yesterday|this[ _]week|last[ _]week|this[ _]month"
    r"|(?:last|past)[ _]\d{1,4}[ _]days?)\b",
    re.IGNORECASE,
)


def resolve_period(phrase: str, today: date) -> DateRange:
    """The range a phrase names; ValueError for a phrase outside the table."""
    key = re.sub(r"\s+", " ", phrase.strip().lower()).replace("_", " ")
    if key == "today":
        return DateRange(today, today)
    if key == "yesterday":
        day = today - timedelta(days=1)
        return DateRange(day, day)
    if key == "this week":
        return DateRange(today - timedelta(days=today.weekday()), today)
    if key == "last week":
        return DateRange(today - timedelta(days=7), today)
    if key == "this month":
        return DateRange(today.replace(day=1), today)
    match = _LAST_N.match(key)
    if match:
        return DateRange(today - timedelta(days=int(match.group(1))), today)
    raise ValueError(
        f"unknown date reference {phrase!r}; use today, yesterday, this week, last week, "
        "this month or last N days"
    )


def find_periods(text: str, today: date) -> dict[str, DateRange]:
    """Every date reference in `text`, resolved, keyed by its normalised phrase."""
    found: dict[str, DateRange] = {}
    for match in _PHRASES.finditer(text):
        key = re.sub(r"\s+", " ", match.group(1).lower())
        found[key] = resolve_period(key, today)
    return found


def describe_periods(text: str, now: datetime) -> str:
    """Lines for the planner prompt: each date reference of the request and its dates."""
    periods = find_periods(text, now.date())
    return "\n".join(
        f"- {phrase}: {r.start.isoformat()} to {r.end.isoformat()} "
        f"(template ${{dates.{phrase.replace(' ', '_')}.from}} / .to)"
        for phrase, r in periods.items()
    )
