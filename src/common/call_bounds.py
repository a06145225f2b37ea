"""The outer time bound of one model call, whatever the provider's transport does inside it.

`MODEL_TIMEOUT_S` and `MODEL_MAX_RETRIES` go to each client as its own timeout and retries, but
a client may retry beyond them: langchain-google-genai 3.x passes only `timeout` to Gemini's
GAPIC client, whose default retry resends a request that found no server (gRPC UNAVAILABLE:
no DNS, connection refused) for 600 s, each attempt within the timeout. So every call is also
awaited under `asyncio.timeout` for all its attempts, the waits between them and a margin;
past that it raises `ModelTimeout` (a `TimeoutError`), which `common.models.model_errors`
turns into the node's one sentence. A cancellation from outside (Ctrl-C, a cancelled task) is
never turned into a timeout: it propagates as it came.

The bound cancels the awaiting task, which ends an async client's request (httpx, gRPC aio).
A synchronous call an integration without async support runs in a thread (LangChain's
`run_in_executor`) cannot be stopped: the await ends on time, but the thread runs on until its
own call returns, and `asyncio.run` waits for it before returning (tried). Every provider the
project configures calls asynchronously (Gemini's async client is gRPC aio).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from common.settings import get_settings

ResultT = TypeVar("ResultT")

RETRY_WAIT_S = 60.0
"""Longest wait a client makes before one retry: openai's and anthropic's honour a `Retry-After`
of up to 60 s, langchain-google-genai's backoff stops growing at 60 s."""

CALL_MARGIN_S = 5.0
"""Time beyond the requests' own limits for connecting, the client's work and a slow start."""


class ModelTimeout(TimeoutError):
    """A model call that outlasted `call_limit()`: every attempt, every wait and the margin."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        """The seconds the call was given."""
        super().__init__(f"the model call did not end within {limit:g} s")


def call_limit() -> float:
    """Seconds a model call may take: (`MODEL_MAX_RETRIES` + 1) attempts, their waits, a margin."""
    settings = get_settings()
    retries = settings.model_max_retries
    return settings.model_timeout_s * (retries + 1) + retries * RETRY_WAIT_S + CALL_MARGIN_S


async def bounded(call: Awaitable[ResultT]) -> ResultT:
    """`await call` within `call_limit()` seconds, or `ModelTimeout`; a cancellation propagates."""
    limit = call_limit()
    try:
        async with asyncio.timeout(limit) as scope:
            return await call
    except TimeoutError as exc:
        # Only this bound's own expiry is a ModelTimeout: a TimeoutError the client raised
        # itself stays what it was.
        if scope.expired():
            raise ModelTimeout(limit) from exc
        raise
