"""Relative paths in an MCP config file mean the file's directory, from any working directory."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from common.mcp import loader
from common.mcp.config import McpConfigError, ServerConfig, load_mcp_config, parse_mcp_config
from common.mcp.registry import ExpertRegistry, shutdown_pool


def write_config(folder: Path, **servers: Any) -> Path:
    """An `mcp.json` holding `servers`, in `folder` (created)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


def from_file(folder: Path, entry: dict[str, Any]) -> ServerConfig:
    """The one server `entry`, as read from a config file in `folder`."""
    return load_mcp_config(None, write_config(folder, s=entry)).servers["s"]


def test_a_relative_cwd_resolves_against_the_file(tmp_path: Path, chdir_tmp: Path) -> None:
    cfg = from_file(tmp_path / "project", {"command": "python", "cwd": "servers/../work"})
    assert cfg.cwd == str(tmp_path / "project" / "work")


def test_a_server_without_cwd_runs_in_the_files_folder(tmp_path: Path) -> None:
    cfg = from_file(tmp_path / "project", {"command": "npx", "args": ["data/x.txt"]})
    assert cfg.cwd == str(tmp_path / "project")
    # Arguments stay as written: the server reads them relative to that folder.
    assert cfg.args == ["data/x.txt"]


def test_a_relative_command_with_a_slash_resolves_against_the_file(tmp_path: Path) -> None:
    project = tmp_path / "project"
    assert from_file(project, {"command": "./bin/server"}).command == str(project / "bin/server")
    # Against the file's folder, not against the server's own `cwd`.
    cfg = from_file(project, {"command": "../tools/x.py", "cwd": "sub"})
    assert cfg.command == str(tmp_path / "tools" / "x.py")
    assert cfg.cwd == str(project / "sub")


@pytest.mark.parametrize("command", ["python3", "npx", "uvx"])
def test_a_bare_command_is_left_to_path(tmp_path: Path, command: str) -> None:
    assert from_file(tmp_path, {"command": command}).command == command


def test_absolute_paths_and_http_servers_are_untouched(tmp_path: Path) -> None:
    absolute = {"command": "/usr/bin/env", "args": ["python3"], "cwd": "/var/tmp"}
    cfg = from_file(tmp_path / "project", absolute)
    assert (cfg.command, cfg.cwd) == ("/usr/bin/env", "/var/tmp")
    http = from_file(tmp_path / "project", {"url": "http://127.0.0.1:9/mcp"})
    assert (http.cwd, http.url) == (None, "http://127.0.0.1:9/mcp")


def test_a_relative_config_path_anchors_to_an_absolute_folder(chdir_tmp: Path) -> None:
    write_config(chdir_tmp / "conf", s={"command": "./run", "cwd": "w"})
    cfg = load_mcp_config(None, Path("conf/mcp.json")).servers["s"]
    assert (cfg.command, cfg.cwd) == (str(chdir_tmp / "conf/run"), str(chdir_tmp / "conf/w"))


def test_a_dict_config_keeps_the_working_directory(tmp_path: Path) -> None:
    raw = {"mcpServers": {"s": {"command": "./bin/server", "cwd": "work"}, "b": {"command": "x"}}}
    for config in (parse_mcp_config(raw), load_mcp_config(raw, tmp_path / "mcp.json")):
        assert (config.servers["s"].command, config.servers["s"].cwd) == ("./bin/server", "work")
        assert config.servers["b"].cwd is None


def test_the_session_key_follows_the_resolved_paths(tmp_path: Path) -> None:
    entry = {"command": "python", "args": ["server.py"]}
    here, there = from_file(tmp_path / "a", entry), from_file(tmp_path / "b", entry)
    unanchored = parse_mcp_config({"mcpServers": {"s": entry}}).servers["s"]
    assert len({here.fingerprint(), there.fingerprint(), unanchored.fingerprint()}) == 3
    assert from_file(tmp_path / "a", entry).fingerprint() == here.fingerprint()


def test_the_cached_default_file_is_anchored_per_working_directory(tmp_path: Path) -> None:
    # The MCP_CONFIG default is a relative name: the same name in two folders is two configs.
    entry = {"command": "python", "args": ["server.py"]}
    first, second = write_config(tmp_path / "a", s=entry), write_config(tmp_path / "b", s=entry)
    assert loader._load_file(first).servers["s"].cwd == str(tmp_path / "a")
    assert loader._load_file(second).servers["s"].cwd == str(tmp_path / "b")


def test_invalid_entries_are_reported_as_written(tmp_path: Path) -> None:
    path = write_config(tmp_path, bad={"command": "./x", "cwd": 5}, worse={"command": 3})
    with pytest.raises(McpConfigError) as info:
        load_mcp_config(None, path)
    assert str(info.value) == (
        f"{path} is invalid: server 'bad', key 'cwd': must be a string, got 5; "
        "server 'worse', key 'command': must be a string, got 3"
    )


async def test_servers_start_from_the_files_folder_whatever_the_cwd(
    tmp_path: Path, chdir_tmp: Path
) -> None:
    project = tmp_path / "project"
    (project / "bin").mkdir(parents=True)
    launcher = project / "bin" / "notes-server"
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} -m common.demo_servers.notes\n")
    launcher.chmod(0o755)
    (project / "servers").mkdir()
    (project / "servers" / "inventory.py").write_text(
        "from common.demo_servers.inventory import main\n\nmain()\n"
    )
    path = write_config(
        project,
        notes={"command": "./bin/notes-server", "env": {"NOTES_FILE": "data/notes.json"}},
        inventory={"command": "python", "args": ["servers/inventory.py"]},
    )
    # The process runs elsewhere: none of these relative paths exists from here.
    assert Path.cwd() == chdir_tmp != project

    registry = ExpertRegistry(load_mcp_config(None, path), startup_timeout_s=20)
    try:
        wrote = await registry.call("notes", "write_note", {"title": "t", "body": "b"}, 20, False)
        listed = await registry.call("inventory", "get_stock", {"sku": "WID-1"}, 20, True)
    finally:
        await shutdown_pool()
    assert wrote["status"] == "ok", wrote
    assert listed["status"] == "ok", listed
    assert json.loads((project / "data" / "notes.json").read_text(encoding="utf-8")) == {"t": "b"}
    assert not (chdir_tmp / "data").exists()
