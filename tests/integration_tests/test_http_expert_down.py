"""An HTTP expert that is down or refuses us: its task stays with it and fails in one sentence.

Tried as a new user would: the notes expert's url points at a loopback port nothing listens on
(or at a server that answers 401/403). The task is not given to another expert, the answer says
it was not done, naming the expert and its url, and the one-shot command never promises a
"next start" it will not live to make.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from werkzeug import Request, Response

from common.mcp import ExpertRegistry
from common.mcp.config import parse_mcp_config
from common.mcp.registry import shutdown_pool
from tests.doubles import ScriptedChatModel, install_scripted
from tests.http_stub import StubServer
from tests.integration_tests.helpers import free_port
from tests.unit_tests.helpers import Thread, done, plan, run_cli, task

pytestmark = pytest.mark.integration


def _config(notes_url: str) -> dict[str, object]:
    """The demo experts, with the notes expert reached over streamable HTTP at `notes_url`."""
    return {
        "mcpServers": {
            "inventory": {
                "command": sys.executable,
                "args": ["-m", "common.demo_servers.inventory"],
                "description": "Product catalogue of the shop: names, SKUs, prices, stock levels.",
            },
            "notes": {
                "url": notes_url,
                "description": "The team's notes: list, read, write and delete short text notes.",
            },
        }
    }


def _cli_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("MODEL", "OPENAI"))}


def test_a_task_for_a_down_http_expert_stays_with_it_and_is_not_done(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    (tmp_path / "mcp.json").write_text(json.dumps(_config(url)))

    done = run_cli(["run", "--model", "offline:rules", "List the notes"], tmp_path, _cli_env())

    answer = " ".join(done.stdout.split())
    assert done.returncode == 1, done.stdout + done.stderr
    # Not re-routed to the product catalogue, and not reported done.
    assert "t1 [failed] (notes)" in answer
    assert "[completed]" not in answer
    assert "WID-1" not in answer
    assert f"Expert 'notes' is unavailable: nothing answered at {url}" in answer
    assert "Traceback" not in done.stderr
    # A one-shot command ends long before any "next start".
    assert "next start" not in done.stdout + done.stderr


def test_its_dependents_are_skipped(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    (tmp_path / "mcp.json").write_text(json.dumps(_config(url)))
    request = "List the notes, then get the stock"

    done = run_cli(["run", "--model", "offline:rules", request], tmp_path, _cli_env())

    answer = " ".join(done.stdout.split())
    assert done.returncode == 1, done.stdout + done.stderr
    assert "t1 [failed] (notes)" in answer
    assert "t2 (inventory: get the stock) skipped: t1 failed" in answer


def _real_model_context(
    config: dict[str, object], planned_for: str, orchestrator_says: str
) -> tuple[dict[str, object], dict[str, ScriptedChatModel]]:
    """A run whose planner puts "List the notes" on `planned_for`, as a real model might.

    Its orchestrator answers in words every round, never calling a tool, and its assessor would
    call anything done. The answer is written by `offline:rules`, which lists the plan with
    each task's status, so what the graph decided shows in the answer.
    """
    models = {
        "planner": ScriptedChatModel(script=[plan(task("t1", planned_for, "List the notes"))]),
        "orchestrate": ScriptedChatModel(script=[orchestrator_says] * 3),
        "assess": ScriptedChatModel(script=[done("the assistant answered")] * 3),
    }
    ctx: dict[str, object] = {"mcp_config": config, "model": "offline:rules"}
    for role, model in models.items():
        ctx[f"{role}_model"] = install_scripted(model)
    return ctx, models


async def test_a_model_that_re_routes_the_task_gets_no_completed_task() -> None:
    """A model that gives the down expert's task to the product catalogue, which has no tool
    for it: the catalogue's words alone do not complete the task, and the answer names the
    notes expert as unavailable."""
    url = f"http://127.0.0.1:{free_port()}/mcp"
    ctx, models = _real_model_context(_config(url), "inventory", "There are no notes.")
    thread = Thread(ctx)

    await thread.send("List the notes")

    values = await thread.values()
    answer = str(values["messages"][-1].content)
    assert "[completed]" not in answer
    assert "t1 [failed] (inventory)" in answer
    assert "expert 'inventory' called none of its tools, so nothing backs its answer" in answer
    assert "There are no notes" not in answer
    assert f"Expert 'notes' is unavailable: nothing answered at {url}" in answer
    assert values["report"]["ok"] is False
    # Nothing backed the words, so no assessor was asked to call them done.
    assert models["assess"].requests == []


async def test_a_model_that_keeps_the_task_on_the_down_expert_is_told_it_is_unavailable() -> None:
    """The planner's plan is validated, not rewritten: a task on the down expert stays there."""
    url = f"http://127.0.0.1:{free_port()}/mcp"
    ctx, models = _real_model_context(_config(url), "notes", "unused")
    thread = Thread(ctx)

    await thread.send("List the notes")

    values = await thread.values()
    (t1,) = values["previous_plan"]
    assert (t1["expert"], t1["status"]) == ("notes", "failed")
    assert t1["error"].startswith(f"Expert 'notes' is unavailable: nothing answered at {url}")
    assert "[currently unavailable:" in str(models["planner"].requests[0]["messages"][0].content)
    assert models["orchestrate"].requests == []


@pytest.fixture(params=[401, 403])
def refusing_url(request: pytest.FixtureRequest) -> Iterator[tuple[str, int]]:
    """The url of a loopback HTTP server that answers every request with 401 or 403."""
    status: int = request.param

    def refuse(_: Request) -> Response:
        """Refuse the MCP request, with no body."""
        return Response(b"", status=status)

    with StubServer(refuse, methods=("GET", "POST")) as server:
        yield f"{server.url}/mcp", status


async def test_a_401_or_403_says_to_check_that_servers_headers(
    refusing_url: tuple[str, int],
) -> None:
    url, status = refusing_url
    registry = ExpertRegistry(parse_mcp_config(_config(url)), startup_timeout_s=10)

    catalog = await registry.catalog(["notes"])
    await shutdown_pool()

    message = str(catalog["notes"])
    assert message == (
        f"Expert 'notes' is unavailable: {url} refused the connection with HTTP {status}; "
        "check the `headers` (credentials) of server 'notes' in the MCP config file"
    )
