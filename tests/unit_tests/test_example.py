"""The embedding example in examples/ runs as documented."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def example() -> Any:
    spec = importlib.util.spec_from_file_location("embed_example", ROOT / "examples" / "embed.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def test_the_example_answers_and_declines_the_write(example: Any, chdir_tmp: Path) -> None:
    answer = await example.ask(
        'How many units of BOLT-M6 are in stock, then write a note titled "example-declined"'
    )

    assert '"stock": 310' in answer
    assert "declined" in answer
    notes = chdir_tmp / ".mcp-planner" / "notes.json"  # where the repo's mcp.json keeps notes
    assert "example-declined" not in (json.loads(notes.read_text()) if notes.exists() else {})
