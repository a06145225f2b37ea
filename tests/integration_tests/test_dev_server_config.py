"""`langgraph dev` and settings: a bad one stops it with our one line; `.env.example` works and
hides nothing the shell exports.

Also what Studio draws: the served graph with `xray=true` shows the task subgraph's nodes.

Each server runs in a temporary folder holding a `langgraph.json` that points at our graph and
a `.env`, started in its own process group and killed with it, so no test leaves a server behind.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_client

from strategies.with_planner.prompts import PLANNER_SYSTEM_PROMPT
from tests.integration_tests.helpers import free_port, stop_group
from tests.integration_tests.openai_stub import OpenAIStub
from tests.integration_tests.test_dev_server import ROOT
from tests.unit_tests.test_graph_shape import XRAY_NODES

pytestmark = pytest.mark.integration

BAD_SETTING = "Setting MAX_TASK_ATTEMPTS='abc' is invalid: expected a whole number from 1 to 20."
STARTUP_TIMEOUT_S = 90.0


def _project(folder: Path, dotenv: str = "", ui: bool = False) -> Path:
    """A folder serving our graph by absolute path, with `dotenv` as its `.env` (and the plan
    card's component when `ui`)."""
    folder.mkdir(exist_ok=True)
    config: dict[str, Any] = {
        "dependencies": [str(ROOT)],
        "graphs": {"with_planner": str(ROOT / "src/strategies/with_planner/server.py") + ":graph"},
        "env": ".env",
        "python_version": "3.11",
    }
    if ui:
        config["ui"] = {"with_planner": str(ROOT / "ui-components/plan_card.tsx")}
    (folder / "langgraph.json").write_text(json.dumps(config), encoding="utf-8")
    (folder / ".env").write_text(dotenv, encoding="utf-8")
    return folder


@contextmanager
def _dev_server(
    folder: Path, reload: bool = False, **env: str
) -> Iterator[tuple[subprocess.Popen[bytes], int, Path]]:
    """`langgraph dev` in `folder` with `env` added; its whole process group is killed after."""
    cli = shutil.which("langgraph", path=str(Path(sys.executable).parent))
    assert cli, "langgraph-cli[inmem] is a dev dependency"
    port = free_port()
    # Outside `folder`: with reload on, a log file in the watched folder would be a change.
    log = folder.parent / f"server-{port}.log"
    base = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    with log.open("w") as out:
        proc = subprocess.Popen(
            [cli, "dev", "--no-browser", *([] if reload else ["--no-reload"]), "--port", str(port)],
            cwd=folder,
            env={**base, **env, "NO_COLOR": "1"},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield proc, port, log
    finally:
        stop_group(proc)


async def _wait_until_served(proc: subprocess.Popen[bytes], port: int, log: Path) -> Any:
    """A client once the server answers; fails with its log if it exits or takes too long."""
    client = get_client(url=f"http://127.0.0.1:{port}")
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"dev server exited:\n{log.read_text()[-3000:]}")
        try:
            async with asyncio.timeout(2):
                await client.assistants.search()
            return client
        except Exception:
            await asyncio.sleep(0.5)
    pytest.fail(f"dev server did not start:\n{log.read_text()[-3000:]}")


def test_a_bad_setting_stops_the_server_with_one_sentence(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    with _dev_server(folder, MAX_TASK_ATTEMPTS="abc") as (proc, _port, log):
        try:
            code = proc.wait(STARTUP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"dev server kept running with a bad setting:\n{log.read_text()[-3000:]}")
    output = log.read_text()
    assert code != 0
    assert BAD_SETTING in output, output[-3000:]
    # Our sentence replaces pydantic's multi-line dump.
    assert "validation error" not in output.lower(), output[-3000:]


def test_a_bad_setting_is_the_last_line_and_the_server_exits_without_reload(tmp_path: Path) -> None:
    folder = _project(tmp_path / "project")
    with _dev_server(folder, MODEL="foo:bar") as (proc, _port, log):
        code = proc.wait(STARTUP_TIMEOUT_S)
    last = log.read_text().strip().splitlines()[-1]
    assert code != 0
    assert last.startswith("MODEL is 'foo:bar', which names an unknown provider 'foo'"), last


@pytest.mark.parametrize(
    ("env", "sentence"),
    [
        (
            {"AUTH_JWKS_URL": "https://idp.example.com/jwks.json"},
            "Setting AUTH_JWKS_URL needs AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE: set both.",
        ),
        (
            {"SERVED_CONTEXT_FIELDS": "mcp_configs"},
            "Setting SERVED_CONTEXT_FIELDS names 'mcp_configs', which is no run context field",
        ),
    ],
)
def test_auth_settings_that_do_not_fit_stop_the_server(
    tmp_path: Path, env: dict[str, str], sentence: str
) -> None:
    folder = _project(tmp_path / "project")
    with _dev_server(folder, **env) as (proc, _port, log):
        code = proc.wait(STARTUP_TIMEOUT_S)
    last = log.read_text().strip().splitlines()[-1]
    assert code != 0
    assert last.startswith(sentence), last


def test_without_node_the_plan_card_config_says_what_to_do_last_and_exits(
    tmp_path: Path,
) -> None:
    """langgraph.json declares the card; a machine without npx gets our sentence, not a
    traceback from the server's bundler."""
    folder = _project(tmp_path / "project", ui=True)
    with _dev_server(folder, PATH=str(Path(sys.executable).parent)) as (proc, _port, log):
        code = proc.wait(STARTUP_TIMEOUT_S)
    last = log.read_text().strip().splitlines()[-1]
    assert code != 0
    assert last.startswith("langgraph dev bundles the plan card"), last
    assert last.endswith(
        "install Node.js (with npm), or serve the graph without the card: "
        "langgraph dev --config langgraph.noui.json"
    ), last


def test_with_reload_on_a_bad_setting_is_the_last_line_while_it_watches(tmp_path: Path) -> None:
    folder = _project(tmp_path / "project")
    with _dev_server(folder, reload=True, MAX_TASK_ATTEMPTS="abc") as (proc, _port, log):
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while BAD_SETTING not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.5)
        time.sleep(3)  # anything printed after the sentence would show by now
        assert proc.poll() is None  # the reloader keeps watching for a fix
        # The watcher notes the files the in-memory server saved as its worker stopped.
        lines = [x for x in log.read_text().strip().splitlines() if "changes detected" not in x]
    assert lines[-1] == BAD_SETTING, log.read_text()[-3000:]


def test_a_bad_dotenv_setting_stops_the_server_the_same_way(tmp_path: Path) -> None:
    folder = _project(tmp_path, dotenv="MAX_TASK_ATTEMPTS=abc\n")
    with _dev_server(folder) as (proc, _port, log):
        try:
            proc.wait(STARTUP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"dev server kept running with a bad setting:\n{log.read_text()[-3000:]}")
    assert BAD_SETTING in log.read_text(), log.read_text()[-3000:]


async def test_env_example_as_dotenv_serves_the_graph(
    tmp_path: Path, mcp_config: dict[str, Any]
) -> None:
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    folder = _project(tmp_path, dotenv=example)
    # The experts come in the run's context, which a served client may set only when trusted.
    with _dev_server(folder, SERVED_CONTEXT_FIELDS="mcp_config") as (proc, port, log):
        client = await _wait_until_served(proc, port, log)
        (assistant,) = await client.assistants.search(graph_id="with_planner")
        thread = await client.threads.create()
        servers = {"inventory": mcp_config["mcpServers"]["inventory"]}
        async with asyncio.timeout(120):
            result = await client.runs.wait(
                thread["thread_id"],
                assistant["assistant_id"],
                input={
                    "messages": [{"role": "user", "content": "How many units of WID-1 in stock"}]
                },
                # No model and no key: the settings' default falls back to offline:rules.
                context={"mcp_config": {"mcpServers": servers}},
            )
        (task,) = result["previous_plan"]
        assert task["status"] == "completed"
        assert '"stock": 120' in task["result"]


async def test_env_example_as_dotenv_keeps_the_exported_key_and_endpoint(
    tmp_path: Path, mcp_config: dict[str, Any]
) -> None:
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    folder = _project(tmp_path, dotenv=example)
    empty_plan = {
        "decision": "replace",
        "plan": [],
        "next_task": 0,
        "clarification": None,
        "not_covered": [],
    }

    def plan_for_the_planner(body: dict[str, Any]) -> dict[str, Any] | None:
        """The planner gets an empty plan; the analyser's reply is no verdict (safe default)."""
        planning = str(body["messages"][0]["content"]).startswith(PLANNER_SYSTEM_PROMPT[:40])
        return {"content": json.dumps(empty_plan)} if planning else None

    exported = {"OPENAI_API_KEY": "sk-exported", "MODEL": "openai:stub-model"}
    hello = {"content": "Hello from the stub."}
    stub = OpenAIStub([], default=hello, route=plan_for_the_planner)
    trusted = {"SERVED_CONTEXT_FIELDS": "mcp_config", **exported}
    with stub, _dev_server(folder, OPENAI_BASE_URL=stub.base_url, **trusted) as (proc, port, log):
        client = await _wait_until_served(proc, port, log)
        thread = await client.threads.create()
        servers = {"inventory": mcp_config["mcpServers"]["inventory"]}
        async with asyncio.timeout(120):
            result = await client.runs.wait(
                thread["thread_id"],
                "with_planner",
                input={"messages": [{"role": "user", "content": "Say hello"}]},
                context={"mcp_config": {"mcpServers": servers}},
            )
    # The exported key, endpoint and model reached the model: `.env` blanked none of them.
    assert stub.requests, result["messages"][-1]["content"]
    assert {h["authorization"] for h in stub.headers} == {"Bearer sk-exported"}
    assert {r["model"] for r in stub.requests} == {"stub-model"}
    assert result["messages"][-1]["content"] == "Hello from the stub."


@pytest.fixture(scope="module")
async def without_auth_module(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Any]:
    """A client of one server of a project whose langgraph.json names no auth handler, trusting
    its clients with no context field: the tests below that only read from it share it."""
    folder = _project(tmp_path_factory.mktemp("no-auth-module"))
    with _dev_server(folder, SERVED_CONTEXT_FIELDS="") as (proc, port, log):
        yield await _wait_until_served(proc, port, log)


async def test_studio_graph_endpoint_draws_the_task_subgraph(without_auth_module: Any) -> None:
    # The request Studio makes; the graph id stands for its default assistant.
    drawn = await without_auth_module.http.get(
        "/assistants/with_planner/graph", params={"xray": "true"}
    )
    ids = {node["id"] for node in drawn["nodes"]}
    assert ids == XRAY_NODES
    edges = {(e["source"], e["target"]) for e in drawn["edges"]}
    assert ("advance:orchestrate", "advance:call_tool") in edges
    assert ("advance:call_tool", "advance:assess_task") in edges


async def test_a_deployment_without_the_auth_module_still_refuses_a_clients_commands(
    without_auth_module: Any, tmp_path: Path
) -> None:
    # This project's langgraph.json names no auth handler, so nothing checks the context at
    # the API edge: the served graph itself refuses it before any expert starts.
    marker = tmp_path / "marker"
    evil = {"mcpServers": {"x": {"command": "sh", "args": ["-c", f"id > {marker}"]}}}
    client = without_auth_module
    thread = await client.threads.create()
    parts = [
        part
        async for part in client.runs.stream(
            thread["thread_id"],
            "with_planner",
            input={"messages": [{"role": "user", "content": "How many units of WID-1"}]},
            context={"mcp_config": evil},
        )
    ]
    (error,) = [part.data for part in parts if part.event == "error"]
    assert "The run context field 'mcp_config' is set by the server's operator" in str(error)
    assert not marker.exists()
