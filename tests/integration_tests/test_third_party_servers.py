"""Real MCP servers nobody here wrote: mcp-server-time (PyPI) and the filesystem and memory
servers (npm), installed by `.ci/run` (or `make third-party`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from common.mcp.config import parse_mcp_config
from common.mcp.registry import ExpertRegistry
from common.safety.classify import classify_tools
from tests.conftest import service_unavailable
from tests.unit_tests.helpers import Thread

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
TIME = Path(os.environ.get("MCP_TIME_CMD", ROOT / ".venv-tools" / "bin" / "mcp-server-time"))
NODE_BIN = Path(
    os.environ.get("MCP_NODE_BIN", ROOT / ".ci" / "mcp-servers" / "node_modules" / ".bin")
)


def _require(path: Path) -> str:
    if not path.exists():
        service_unavailable(f"{path.name} is not installed (run `make third-party`)")
    return str(path)


@pytest.fixture
def servers(tmp_path: Path) -> dict[str, Any]:
    root = tmp_path / "files"
    root.mkdir()
    (root / "hello.txt").write_text("hello from the filesystem server")
    return {
        "time": {"command": _require(TIME), "args": ["--local-timezone", "UTC"]},
        "files": {"command": _require(NODE_BIN / "mcp-server-filesystem"), "args": [str(root)]},
        "memory": {
            "command": _require(NODE_BIN / "mcp-server-memory"),
            "env": {"MEMORY_FILE_PATH": str(tmp_path / "memory.json")},
        },
    }


def _verdicts(registry: ExpertRegistry, server: str, tools: list[Any]) -> dict[str, Any]:
    return {v["tool"]: v for v in classify_tools(server, tools, registry.server(server))}


async def test_their_tools_load_and_are_classified_from_their_annotations(
    servers: dict[str, Any],
) -> None:
    registry = ExpertRegistry(parse_mcp_config({"mcpServers": servers}))
    catalog = await registry.catalog(registry.experts)

    time = _verdicts(registry, "time", catalog["time"])  # type: ignore[arg-type]
    files = _verdicts(registry, "files", catalog["files"])  # type: ignore[arg-type]
    memory = _verdicts(registry, "memory", catalog["memory"])  # type: ignore[arg-type]
    assert not time["get_current_time"]["irreversible"]
    for tool in ("write_file", "edit_file", "move_file", "create_directory"):
        assert files[tool]["irreversible"], files[tool]
        assert files[tool]["source"] == "annotation"
    assert not files["read_text_file"]["irreversible"]
    assert memory["delete_entities"]["irreversible"]
    assert not memory["read_graph"]["irreversible"]


async def test_a_sandboxed_filesystem_root_makes_its_writes_reversible(
    servers: dict[str, Any],
) -> None:
    sandboxed = {"files": {**servers["files"], "sandboxed": True}}
    registry = ExpertRegistry(parse_mcp_config({"mcpServers": sandboxed}))

    files = _verdicts(registry, "files", await registry.tools("files"))

    assert not files["write_file"]["irreversible"]
    assert files["write_file"]["source"] == "config"


async def test_the_graph_calls_them_and_a_write_waits_for_approval(
    scripted: Any, servers: dict[str, Any], tmp_path: Path
) -> None:
    target = tmp_path / "files" / "note.txt"
    ctx, _ = scripted(
        planner=[
            {
                "plan": [
                    {
                        "id": "t1",
                        "expert": "time",
                        "task": "time now",
                        "tool": "get_current_time",
                        "args": {"timezone": "UTC"},
                    },
                    {
                        "id": "t2",
                        "expert": "files",
                        "task": "read hello",
                        "tool": "read_text_file",
                        "args": {"path": str(tmp_path / "files/hello.txt")},
                    },
                    {
                        "id": "t3",
                        "expert": "files",
                        "task": "write note",
                        "depends_on": ["t1"],
                        "tool": "write_file",
                        "args": {"path": str(target), "content": "at ${t1.data.datetime}"},
                    },
                ]
            }
        ],
        response=["done"],
    )
    ctx["mcp_config"] = {"mcpServers": servers}
    thread = Thread(ctx)

    await thread.send("Read hello.txt and note the current time")

    (request,) = await thread.interrupts()
    assert [a["name"] for a in request["action_requests"]] == ["write_file"]
    assert not target.exists()
    await thread.resume({"decisions": [{"type": "approve"}]})
    assert target.read_text().startswith("at 20")
    tasks = {t["id"]: t for t in (await thread.values())["previous_plan"]}
    assert "hello from the filesystem server" in tasks["t2"]["result"]
    assert tasks["t1"]["data"]["timezone"] == "UTC"
