"""An adversarial review's tools: each is held or cleared as the reviewer labelled it.

`tests/data/guard_review_findings.json` holds tools written to slip past the readings (a service
preamble that hides the tool's effect, a participle that acts, a sign-in that sends an SMS or
pays, arithmetic on an account's balance, a noun phrase read as a change); the first version of
the readings cleared 39 of the irreversible ones and held 17 of the reversible ones.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp.types import Tool, ToolAnnotations

from common.mcp.config import ServerConfig
from common.safety.classify import classify_tool

FINDINGS: list[dict[str, Any]] = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "guard_review_findings.json").read_text()
)["tools"]


@pytest.mark.parametrize("finding", FINDINGS, ids=lambda f: f"{f['expected']}:{f['name']}")
def test_the_guard_agrees_with_the_reviewers_label(finding: dict[str, Any]) -> None:
    hints = finding["annotations"]
    tool = Tool(
        name=finding["name"],
        description=finding["description"],
        inputSchema=finding["inputSchema"] or {"type": "object"},
        annotations=ToolAnnotations(**hints) if hints else None,
    )
    verdict = classify_tool("srv", tool, ServerConfig(command="srv"))
    assert verdict["irreversible"] is (finding["expected"] == "irreversible"), (
        finding["why"],
        verdict,
    )


def test_the_review_covers_both_sides() -> None:
    kinds = [f["expected"] for f in FINDINGS]
    assert kinds.count("irreversible") >= 40
    assert kinds.count("reversible") >= 15
