"""A server that fails to start cools down: cached reason, doubling wait, reset on success."""

from __future__ import annotations

import asyncio

import pytest
from mcp import ClientSession

from common.mcp.config import parse_mcp_config
from common.mcp.session import (
    COOLDOWN_FIRST_S,
    COOLDOWN_MAX_S,
    ExpertUnavailable,
    PersistentSession,
)


class Clock:
    """The cool-down clock, moved by hand."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """Replace the session's cool-down clock."""
    fake = Clock()
    monkeypatch.setattr("common.mcp.session.now", fake)
    return fake


def session_whose_starts(results: list[str | None]) -> tuple[PersistentSession, list[int]]:
    """A session whose starts fail with each string in turn (None: succeed); counts the starts."""
    config = parse_mcp_config({"mcpServers": {"s": {"command": "some-server"}}})
    session = PersistentSession("s", config.servers["s"], startup_timeout_s=1)
    starts: list[int] = []

    async def start() -> ClientSession:
        starts.append(1)
        reason = results.pop(0)
        if reason is not None:
            raise ExpertUnavailable("s", reason)
        return ClientSession.__new__(ClientSession)

    session._start = start  # type: ignore[method-assign]
    return session, starts


async def test_lookups_during_the_cooldown_get_the_cached_reason_without_a_start(
    clock: Clock,
) -> None:
    session, starts = session_whose_starts(["boom"])

    with pytest.raises(ExpertUnavailable) as first:
        await session.ensure_open()
    clock.t += COOLDOWN_FIRST_S - 1
    with pytest.raises(ExpertUnavailable) as cached:
        await session.ensure_open()

    assert len(starts) == 1
    # The message leaves the wait out (a one-shot command ends first); the error carries it.
    assert str(first.value) == str(cached.value) == "Expert 's' is unavailable: boom"
    assert (first.value.retry_in_s, cached.value.retry_in_s) == (5.0, 1.0)
    state = session.state()
    assert (state.status, state.reason, state.retry_in_s) == ("unavailable", "boom", 1.0)


async def test_concurrent_lookups_share_one_start(clock: Clock) -> None:
    session, starts = session_whose_starts(["boom"])

    results = await asyncio.gather(
        *(session.ensure_open() for _ in range(5)), return_exceptions=True
    )

    assert len(starts) == 1
    assert all(isinstance(r, ExpertUnavailable) for r in results)


async def test_the_wait_doubles_up_to_the_cap_and_resets_on_success(clock: Clock) -> None:
    session, starts = session_whose_starts(["boom"] * 9 + [None, "again"])
    waits: list[float] = []
    for _ in range(9):
        with pytest.raises(ExpertUnavailable) as failed:
            await session.ensure_open()
        waits.append(failed.value.retry_in_s)
        clock.t += COOLDOWN_MAX_S

    await session.ensure_open()
    session._session = None  # the session died: the next lookup starts it again
    with pytest.raises(ExpertUnavailable) as after_success:
        await session.ensure_open()

    assert waits == [5, 10, 20, 40, 80, 160, 300, 300, 300]
    assert len(starts) == 11
    assert after_success.value.retry_in_s == 5


async def test_a_session_never_started_is_closed(clock: Clock) -> None:
    session, _ = session_whose_starts([])

    assert session.state().status == "closed"
