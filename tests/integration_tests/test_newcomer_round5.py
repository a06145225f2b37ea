"""More first steps of issue 43's newcomer round: Ctrl-C while the model thinks, another language.

Each case is the real `mcp-planner` process in a fresh folder holding the demo's mcp.json, with
LangChain's ChatOpenAI talking to a provider-faithful OpenAI endpoint on loopback
(tests/integration_tests/openai_stub.py); what is checked is what the user sees: the exit code
docs/cli.md documents, the last line, no traceback, and a thread that can still be finished.
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.bounds import HANG_GUARD_S
from tests.integration_tests.openai_stub import OpenAIStub
from tests.integration_tests.test_faithful_end_to_end import minimal
from tests.integration_tests.test_newcomer_round4 import (
    BIN,
    clean_env,
    here,
    one_sentence,
    planner,
)

pytestmark = pytest.mark.integration

__all__ = ["here"]

ANSWER = "Von WID-1 sind 120 Stück auf Lager \u2013 ich habe nichts verändert."
"""The German answer the model writes (with characters a server might escape)."""


class GermanModel:
    """A model that plans and answers in German; while `holding`, it first holds each request."""

    def __init__(self, holding: bool) -> None:
        self.asked = threading.Event()
        """Set when the first request arrived: a model call is under way."""
        self.release = threading.Event()
        """Set to let held requests go on (and every later one through)."""
        if not holding:
            self.release.set()

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        """The reply to one request of the run, by its kind, after any hold."""
        self.asked.set()
        self.release.wait(HANG_GUARD_S)
        if body.get("response_format", {}).get("type") == "json_schema":
            spec = body["response_format"]["json_schema"]
            schema, defs = spec["schema"], spec["schema"].get("$defs") or {}
            answer = minimal(schema, defs)
            if spec["name"] == "PlannerResult":
                task = minimal(schema["properties"]["plan"]["items"], defs)
                task.update(id="t1", expert="inventory", task="Bestand von WID-1 nachsehen")
                answer.update(decision="replace", plan=[task], next_task=0)
            if spec["name"] == "Assessment":
                answer.update(completed=True, reason="Bestand gelesen")
            return {"content": json.dumps(answer)}
        if body.get("tools") and body["messages"][-1]["role"] != "tool":
            return {"tool_calls": [{"name": "get_stock", "arguments": {"sku": "WID-1"}}]}
        return {"content": ANSWER}


@pytest.fixture
def german(request: pytest.FixtureRequest) -> Iterator[tuple[GermanModel, dict[str, str]]]:
    """The German model behind an OpenAI endpoint, and the environment that points at it."""
    model = GermanModel(holding=getattr(request, "param", False))
    with OpenAIStub([], route=model) as stub:
        env = clean_env()
        env.update(OPENAI_BASE_URL=stub.base_url, OPENAI_API_KEY="made-up", MODEL="openai:m")
        try:
            yield model, env
        finally:
            model.release.set()
        assert [r.message for r in stub.refusals] == []


@pytest.mark.parametrize("german", [True], indirect=True)
def test_ctrl_c_during_a_model_call_stops_with_130_and_the_thread_resumes(
    here: Path, german: tuple[GermanModel, dict[str, str]]
) -> None:
    model, env = german
    proc = subprocess.Popen(
        [
            str(BIN / "mcp-planner"),
            "run",
            "Wie viele WID-1 sind auf Lager?",
            "--thread",
            "t-c",
            "--new",
        ],
        cwd=here,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        while not model.asked.wait(0.1):
            assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=HANG_GUARD_S)
    finally:
        model.release.set()
        if proc.poll() is None:
            proc.kill()
    stopped = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    assert stopped.returncode == 130, (out[-2000:], err[-2000:])
    assert one_sentence(stopped) == "Stopped. The thread is saved: mcp-planner resume t-c"
    # The model answers now: the saved thread is finished by the command it named.
    env_args = {k: v for k, v in env.items() if k in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
    resumed = planner(here, "resume", "t-c", **env_args, MODEL="openai:m")
    assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-2000:]
    assert ANSWER in resumed.stdout


def test_a_model_that_plans_and_answers_in_german_is_shown_as_it_wrote(
    here: Path, german: tuple[GermanModel, dict[str, str]]
) -> None:
    _model, env = german
    done = subprocess.run(
        [str(BIN / "mcp-planner"), "run", "Wie viele WID-1 sind auf Lager?", "--json"],
        cwd=here,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    ran = json.loads(done.stdout)
    assert ran["answer"] == ANSWER
    assert "Traceback" not in done.stderr
