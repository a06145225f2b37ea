"""A stdio server that exits at startup: the error names the server and quotes its stderr."""

from __future__ import annotations

import sys
import uuid
from typing import Any

import pytest

from common.mcp import ExpertRegistry, ExpertUnavailable
from common.mcp.config import parse_mcp_config
from tests.bounds import HANG_GUARD_S

pytestmark = pytest.mark.integration

BOOM = "import sys; sys.stderr.write('boom: missing dependency\\n'); sys.exit(1)"


def _broken_registry() -> ExpertRegistry:
    raw: dict[str, Any] = {
        "mcpServers": {
            "broken": {
                "command": sys.executable,
                "args": ["-c", BOOM],
                "env": {"RUN": uuid.uuid4().hex},
            },
        }
    }
    return ExpertRegistry(parse_mcp_config(raw), startup_timeout_s=HANG_GUARD_S)


async def test_tools_raises_expert_unavailable_with_stderr_tail() -> None:
    registry = _broken_registry()

    with pytest.raises(ExpertUnavailable) as caught:
        await registry.tools("broken")

    assert caught.value.server == "broken"
    message = str(caught.value)
    assert "'broken'" in message
    assert "boom: missing dependency" in message


async def test_failure_is_a_value_in_catalog_and_call() -> None:
    registry = _broken_registry()

    catalog = await registry.catalog(["broken"])
    outcome = await registry.call("broken", "anything", {}, 5, retry_safe=True)

    assert isinstance(catalog["broken"], ExpertUnavailable)
    assert outcome["status"] == "unavailable"
    assert "broken" in outcome["content"]
    assert "boom: missing dependency" in outcome["content"]
