"""A model server whose HTTP 200 body is no chat completion is said to be at fault (issue 43).

A body that is not JSON (cut short, broken) or JSON that is no completion (`{}`, an error object
sent with 200, `choices: []`) is the server's fault or a proxy's: one sentence naming
OPENAI_BASE_URL and what came instead, exit 1 with the resume command; never the advice for a
model whose answer text was nonsense ("a larger model may be needed"), which a completion whose
content is not the requested JSON still gets. Through `mcp-planner` with LangChain's ChatOpenAI
and a real HTTP server.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.integration_tests.faulty_openai import (
    MALFORMED_JSON,
    NO_CHOICES,
    SCHEMA_MISMATCH,
    FaultyOpenAI,
    Reply,
)
from tests.integration_tests.test_newcomer_round4 import clean_env
from tests.unit_tests.helpers import invoke_cli

pytestmark = pytest.mark.integration

STOCK = "How many units of WID-1 are in stock"
MODEL = "openai:m"

BODIES: dict[str, tuple[Reply, str]] = {
    "not JSON": (MALFORMED_JSON, """not JSON: '{"id": "x", "choices": [ not json'"""),
    "JSON cut short": (
        {"body": '{"id": "c", "choices": [{"index": 0, "message": {"role": "assis'},
        """not JSON: '{"id": "c", "choices": [{"index": 0, "message": {"role": "assis'""",
    ),
    "an empty object": ({"body": "{}"}, "JSON without choices: '{}'"),
    "no choices": (NO_CHOICES, "a completion with an empty choices list"),
    "an error with HTTP 200": (
        {"body": '{"error": {"message": "upstream overloaded", "code": 502}}'},
        "an error instead of a completion: 'upstream overloaded'",
    ),
}
"""name: (the server's 200 answer, how the sentence names it)."""


@pytest.fixture
def here(tmp_path: Path, mcp_config: dict[str, Any]) -> Path:
    """A fresh folder holding mcp.json with the inventory expert, its read annotations trusted.

    Trusted, no analyser is asked beside the planner: the server gets the planner's requests only.
    """
    servers = {"inventory": {**mcp_config["mcpServers"]["inventory"], "trust_annotations": True}}
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return tmp_path


def planner(here: Path, base_url: str, *args: str) -> Any:
    """`mcp-planner ARGS` in `here` on the server at `base_url`, no retries, no terminal."""
    clean = clean_env()
    env = {**clean, "OPENAI_BASE_URL": base_url, "MODEL": MODEL, "MODEL_MAX_RETRIES": "0"}
    return invoke_cli(list(args), here, env)


def last_line(done: Any) -> str:
    """The last line on stderr, after checking that no traceback was printed."""
    assert "Traceback" not in done.stdout + done.stderr, done.stderr[-3000:]
    lines = done.stderr.strip().splitlines()
    assert lines, f"nothing on stderr (exit {done.returncode}): {done.stdout[-2000:]}"
    return str(lines[-1])


@pytest.mark.parametrize("case", list(BODIES))
def test_a_body_that_is_no_completion_names_the_server_not_the_model(here: Path, case: str) -> None:
    body, named = BODIES[case]
    with FaultyOpenAI([body]) as stub:
        done = planner(here, stub.base_url, "run", STOCK)
        asked = len(stub.requests)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr
    line = last_line(done)
    assert line.startswith(
        f"The planner node's model {MODEL!r} at OPENAI_BASE_URL={stub.base_url} answered "
        f"something that is not a chat completion (HTTP 200, {named}): a fault of the server "
        "at OPENAI_BASE_URL or of a proxy in front of it, not of the model; check that server, "
        "then run `mcp-planner resume "
    ), line
    assert "larger model" not in (done.stdout + done.stderr).lower()
    # The model is not asked again about what its server sent.
    assert asked == 1


def test_once_the_server_answers_a_models_nonsense_gets_the_larger_model_advice(
    here: Path,
) -> None:
    with FaultyOpenAI([MALFORMED_JSON], default=SCHEMA_MISMATCH) as stub:
        broken = planner(here, stub.base_url, "run", "--json", STOCK)
        thread = json.loads(broken.stdout)["thread_id"]
        resumed = planner(here, stub.base_url, "resume", thread, "--json")
    assert broken.returncode == 1
    assert "not a chat completion (HTTP 200, not JSON:" in last_line(broken)
    # The server now sends completions; their content is no plan: that one is the model's.
    assert resumed.returncode == 1, resumed.stdout[-2000:] + resumed.stderr
    assert "not a chat completion" not in resumed.stdout + resumed.stderr
    (sentence,) = json.loads(resumed.stdout)["problems"]
    assert sentence.startswith("No usable plan after 3 attempts: the model did not send a plan")
    assert sentence.endswith(f"a larger model may be needed (MODEL={MODEL}).")
