"""An expert that prints non-protocol text on stdout fails its start at once, saying so.

Before, a banner glued to the `initialize` answer made the start wait for the start-up timeout
and fail without a reason. The timeout here is a minute: the failure names the stray output,
not the timeout, so it came from the watch, not from waiting.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from common.mcp import ExpertRegistry
from common.mcp.config import parse_mcp_config
from common.mcp.registry import shutdown_pool
from tests.bounds import HANG_GUARD_S
from tests.unit_tests.helpers import run_cli

pytestmark = pytest.mark.integration

SERVER = Path(__file__).resolve().parents[1] / "servers" / "stdout_banner.py"
STARTUP_S = HANG_GUARD_S
"""Long enough that a failure naming the output cannot be the start-up timeout."""


def _config(banner_end: str) -> dict[str, object]:
    server = {
        "command": sys.executable,
        "args": [str(SERVER)],
        "env": {"BANNER_END": banner_end},
    }
    return {"mcpServers": {"banner": server}}


@pytest.mark.parametrize("banner_end", ["\n", ""], ids=["own-line", "glued-to-the-answer"])
async def test_a_banner_on_stdout_fails_the_start_in_one_sentence(banner_end: str) -> None:
    registry = ExpertRegistry(parse_mcp_config(_config(banner_end)), startup_timeout_s=STARTUP_S)

    catalog = await registry.catalog(["banner"])
    await shutdown_pool()

    message = str(catalog["banner"])
    assert message.startswith(
        "Expert 'banner' is unavailable: it printed non-protocol output on stdout: "
        "'Banner server 1.0 ready"
    )
    assert message.endswith("MCP stdio servers must write their logs to stderr")
    assert "within" not in message


def test_the_tools_command_says_it_without_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "mcp.json").write_text(json.dumps(_config("")))
    env = {**os.environ, "MCP_STARTUP_TIMEOUT_S": str(STARTUP_S)}

    done = run_cli(["tools"], tmp_path, env)

    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "it printed non-protocol output on stdout: 'Banner server 1.0 ready" in done.stderr
