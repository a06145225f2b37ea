"""The outer bound of a model call: its own expiry is the timeout sentence, nothing else is."""

from __future__ import annotations

import asyncio

import pytest

from common.call_bounds import ModelTimeout, bounded, call_limit
from common.models import ModelCallError, model_errors
from common.settings import get_settings


@pytest.fixture
def short(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bound of a few hundredths of a second: the margin is left out."""
    monkeypatch.setattr(get_settings(), "model_timeout_s", 0.01)
    monkeypatch.setattr(get_settings(), "model_max_retries", 0)
    monkeypatch.setattr("common.call_bounds.CALL_MARGIN_S", 0.01)


def test_the_bound_covers_every_attempt_and_the_waits_between_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(get_settings(), "model_timeout_s", 10)
    monkeypatch.setattr(get_settings(), "model_max_retries", 2)
    assert call_limit() == 10 * 3 + 2 * 60 + 5


async def test_a_call_that_never_ends_is_the_nodes_timeout_sentence(short: None) -> None:
    with pytest.raises(ModelCallError) as caught:
        async with model_errors("planner", "google_genai:gemini-2.5-flash"):
            await bounded(asyncio.Event().wait())
    assert isinstance(caught.value.__cause__, ModelTimeout)
    text = caught.value.advice("resume")
    assert (
        "The planner node's model 'google_genai:gemini-2.5-flash' at the google_genai API " in text
    )
    assert "did not answer within MODEL_TIMEOUT_S=0.01 (not retried: MODEL_MAX_RETRIES=0)" in text


async def test_a_cancellation_is_never_turned_into_a_timeout(short: None) -> None:
    started = asyncio.Event()

    async def call() -> None:
        started.set()
        await asyncio.Event().wait()

    async def node() -> None:
        async with model_errors("planner", "openai:gpt-4o-mini"):
            await bounded(call())

    task = asyncio.ensure_future(node())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled()


async def test_a_timeout_the_client_raised_stays_its_own() -> None:
    async def call() -> None:
        raise TimeoutError("the client's own")

    with pytest.raises(TimeoutError) as caught:
        await bounded(call())
    assert type(caught.value) is TimeoutError
    assert str(caught.value) == "the client's own"


async def test_an_answer_in_time_is_returned() -> None:
    async def call() -> str:
        return "answer"

    assert await bounded(call()) == "answer"
