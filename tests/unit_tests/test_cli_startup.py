"""What `mcp-planner` loads before it answers: `--help` and a usage error need no LangChain.

Asserted on the modules a fresh process holds, not on time: importing LangChain, LangGraph and
the MCP SDK is most of a cold start, and a help screen or a mistyped option needs none of them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit_tests.helpers import run_cli

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


NOT_FOR_THREADS = (
    "langgraph.graph",
    "langgraph.pregel",
    "strategies.with_planner.graph",
    "mcp",
    "openai",
    "langchain_openai",
    "langchain_mcp_adapters",
    "numpy",
)
"""What listing saved threads must not import: it reads checkpoints, it runs no graph."""

NOT_FOR_LIVE_GRAPH = (
    "openai",
    "langchain_openai",
    "langchain_mcp_adapters",
    "numpy",
    "bm25s",
    "mcp",
    "mcp.server",
    "starlette",
    "uvicorn",
    "jsonschema",
    "sqlglot",
    "bashlex",
    "common.mcp.registry",
    "common.mcp.session",
    "langchain_core.language_models.chat_models",
    "langchain_core.output_parsers",
    "strategies.with_planner.offline_model",
)
"""What building the graph (`graph --live`) must not import: no model client, no ranking, no
MCP adapters, nor the MCP SDK (its package import loads its server side: MCPServer, Starlette,
uvicorn), the SQL and shell parsers of the argument checks, the JSON Schema validator, or
LangChain's chat-model layers: the nodes import them when they run. LangSmith's tracers stay:
LangGraph imports them itself (`langgraph.types` imports `langchain_core.runnables`).
"""

NOT_FOR_GRAPH = (
    "langgraph",
    "langchain_core",
    "strategies.with_planner.graph",
    *NOT_FOR_LIVE_GRAPH,
)
"""What printing the graph's drawing must not import: it prints the drawing shipped with the
package (`strategies.cli.drawing`), so neither LangGraph nor LangChain, and none of what the
nodes import.
"""

NOT_FOR_TOOLS = (
    "langgraph",
    "langchain_core.runnables",
    "langsmith",
    "strategies.with_planner.context",
    "strategies.with_planner.graph",
    "sqlglot",
    "bashlex",
    "openai",
    "numpy",
)
"""What listing tools must not import: it talks to the MCP servers, it builds no run context."""


def _inventory_config(folder: Path) -> None:
    """Write mcp.json with the demo's inventory expert, started by this interpreter."""
    server = {"command": sys.executable, "args": ["-m", "common.demo_servers.inventory"]}
    (folder / "mcp.json").write_text(json.dumps({"mcpServers": {"inventory": server}}))


def _loaded_in(cwd: Path, heavy: tuple[str, ...], *args: str) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE.replace("HEAVY", repr(json.dumps(heavy))), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    marker = [line for line in result.stderr.splitlines() if line.startswith("LOADED ")]
    assert marker, result.stderr
    loaded: dict[str, object] = json.loads(marker[-1].removeprefix("LOADED "))
    return loaded


def test_threads_with_saved_threads_imports_no_graph_runtime_model_or_mcp(
    tmp_path: Path,
) -> None:
    _inventory_config(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MODEL", "OPENAI"))}
    saved = run_cli(["run", "How many units of WID-1 are in stock"], tmp_path, env)
    assert saved.returncode == 0, saved.stderr

    loaded = _loaded_in(tmp_path, NOT_FOR_THREADS, "threads")

    assert loaded == {"code": 0, "heavy": []}


def test_graph_prints_the_shipped_drawing_without_langgraph(tmp_path: Path) -> None:
    loaded = _loaded_in(tmp_path, NOT_FOR_GRAPH, "graph")

    assert loaded == {"code": 0, "heavy": []}


def test_graph_live_imports_no_model_client_ranking_or_adapters(tmp_path: Path) -> None:
    loaded = _loaded_in(tmp_path, NOT_FOR_LIVE_GRAPH, "graph", "--live")

    assert loaded == {"code": 0, "heavy": []}


def test_graph_prints_the_drawing_of_the_graph_as_built(tmp_path: Path) -> None:
    from strategies.with_planner.graph import build_graph

    built = build_graph().get_graph(xray=True).draw_mermaid()

    shipped = run_cli(["graph"], tmp_path, dict(os.environ))
    live = run_cli(["graph", "--live"], tmp_path, dict(os.environ))

    assert (shipped.returncode, live.returncode) == (0, 0), shipped.stderr + live.stderr
    assert shipped.stdout == built
    assert live.stdout == built


def test_tools_imports_no_langgraph_langchain_runnables_or_argument_parsers(
    tmp_path: Path,
) -> None:
    _inventory_config(tmp_path)

    loaded = _loaded_in(tmp_path, NOT_FOR_TOOLS, "tools", "--json")

    assert loaded == {"code": 0, "heavy": []}


NOT_BEFORE_SERVERS = (
    "langgraph",
    "langgraph_sdk",
    "strategies.cli.drive",
    "strategies.with_planner.state",
    "strategies.with_planner.graph",
    "common.persistence",
    "numpy",
    "jsonschema",
)
"""What `run` must not have imported when it launches its stdio servers: the servers start
while the process imports the graph, its state and the persistence backends. What it needs
first (the run context, the MCP SDK that launches them) is imported before."""

SPAWN_PROBE = """
import json, sys
from strategies.cli import main
at_launch = []
def hook(event, args):
    if event == "subprocess.Popen" and not at_launch:
        at_launch.append([name for name in json.loads(HEAVY) if name in sys.modules])
sys.addaudithook(hook)
sys.argv = ["mcp-planner", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    code = exc.code
sys.stderr.write("LOADED " + json.dumps({"code": code, "at_launch": at_launch}) + "\\n")
"""


def test_run_launches_its_servers_before_it_imports_the_graph_or_persistence(
    tmp_path: Path,
) -> None:
    _inventory_config(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MODEL", "OPENAI"))}
    probe = SPAWN_PROBE.replace("HEAVY", repr(json.dumps(NOT_BEFORE_SERVERS)))
    result = subprocess.run(
        [sys.executable, "-c", probe, "run", "How many units of WID-1 are in stock"],
        cwd=tmp_path,
        env=env | {"XDG_CACHE_HOME": str(tmp_path / "cache")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    marker = [line for line in result.stderr.splitlines() if line.startswith("LOADED ")]
    assert marker, result.stderr

    assert json.loads(marker[-1].removeprefix("LOADED ")) == {"code": 0, "at_launch": [[]]}


def test_the_schema_validator_is_preloaded_once_in_a_worker_thread() -> None:
    # The planner node begins it while its model is asked: the plan's direct steps are
    # checked against their tools' schemas as soon as the answer arrives.
    code = (
        "import sys, threading, common.mcp.schema as schema; "
        "before = 'jsonschema' in sys.modules; "
        "schema.preload_validator(); schema.preload_validator(); "
        "threads = list(schema._preloads); [t.join(60) for t in threads]; "
        "print(before, len(threads), threads[0] is not threading.main_thread(), "
        "'jsonschema' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )

    assert result.stdout.split() == ["False", "1", "True", "True"], result.stderr


def test_the_guards_lexicon_is_preloaded_once_in_a_worker_thread() -> None:
    # `run` begins it as its servers start, the planner node while its model is asked: the
    # guard reads every tool's name right after the plan, and loading the lexicon then held
    # up the first approval by about 0.4 s.
    code = (
        "import sys, threading, common.safety.parts as parts; "
        "before = parts.loaded(); "
        "parts.preload_lexicon(); parts.preload_lexicon(); "
        "threads = list(parts._preloads); [t.join(60) for t in threads]; "
        "print(before, len(threads), threads[0] is not threading.main_thread(), "
        "parts.loaded(), parts.can_be_noun('lock'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )

    assert result.stdout.split() == ["False", "1", "True", "True", "True"], result.stderr


STORE_PROBE = """
import asyncio, sys
from pathlib import Path
from common.persistence import sqlite_store

async def main(folder):
    async with sqlite_store(Path(folder) / "store.sqlite") as store:
        await store.aput(("runs",), "r1", {"text": "stock of WID-1"})
        found = await store.aget(("runs",), "r1")
    print(found.value["text"], "numpy" in sys.modules)
    # What a store with a vector index calls: the whole module, numpy's helper included.
    import sqlite_vec
    print(sqlite_vec.serialize_float32([1.0]).hex(), callable(sqlite_vec.register_numpy))

asyncio.run(main(sys.argv[1]))
"""


def test_the_sqlite_store_opens_without_numpy_and_sqlite_vec_loads_at_its_first_use(
    tmp_path: Path,
) -> None:
    # LangGraph's SQLite store imports sqlite_vec, which imports numpy for a helper no store
    # of ours uses: deferred to its first use, a cold start's first run skips it (issue 45).
    result = subprocess.run(
        [sys.executable, "-c", STORE_PROBE, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert result.stdout.split() == ["stock", "of", "WID-1", "False", "0000803f", "True"], (
        result.stderr
    )
