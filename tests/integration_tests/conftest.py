"""Fixtures for the integration tests."""

from __future__ import annotations

import uuid
from typing import Any

import pytest


@pytest.fixture
def thread_config() -> Any:
    """Make a LangGraph run config with a fresh thread id."""

    def make() -> dict[str, Any]:
        return {"configurable": {"thread_id": f"it-{uuid.uuid4().hex[:8]}"}}

    return make
