"""What `mcp-planner` loads before it answers: `--help` and a usage error need no LangChain.

Asserted on the modules a fresh process holds, not on time: importing LangChain, LangGraph and
the MCP SDK is most of a cold start, and a help screen or a mistyped option needs none of them.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("langchain_core", "langgraph", "mcp", "openai", "strategies.with_planner.graph")
"""Packages a help screen or a usage error must not import."""

PROBE = """
import json, sys
from strategies.cli import main
sys.argv = ["mcp-planner", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    code = exc.code
heavy = [name for name in json.loads(HEAVY) if name in sys.modules]
sys.stderr.write("LOADED " + json.dumps({"code": code, "heavy": heavy}) + "\\n")
"""


def _loaded(*args: str) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE.replace("HEAVY", repr(json.dumps(HEAVY))), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    marker = [line for line in result.stderr.splitlines() if line.startswith("LOADED ")]
    assert marker, result.stderr
    loaded: dict[str, object] = json.loads(marker[-1].removeprefix("LOADED "))
    return loaded


@pytest.mark.parametrize(
    "args",
    [["--help"], ["run", "--help"], ["resume", "--help"], ["--version"], ["run"]],
    ids=["help", "run-help", "resume-help", "version", "missing-request"],
)
def test_help_version_and_usage_errors_import_no_langchain_langgraph_or_mcp(
    args: list[str],
) -> None:
    loaded = _loaded(*args)
    assert loaded["heavy"] == []
    assert loaded["code"] == (2 if args == ["run"] else 0)
