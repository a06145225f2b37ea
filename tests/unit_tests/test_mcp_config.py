"""MCP configuration: the standard document, validated with errors naming server and key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from common.mcp.config import McpConfigError, load_mcp_config, parse_mcp_config


def servers(**entries: Any) -> dict[str, Any]:
    return {"mcpServers": entries}


def test_valid_entries_parse_with_inferred_transports() -> None:
    config = parse_mcp_config(
        servers(
            local={"command": "python", "args": ["-m", "x"], "env": {"A": "1"}, "sandboxed": True},
            remote={"url": "http://127.0.0.1:8000/mcp", "headers": {"X-Key": "k"}},
            events={"url": "http://127.0.0.1:8001/sse", "transport": "sse"},
        )
    )
    assert config.servers["local"].resolved_transport == "stdio"
    assert config.servers["local"].sandboxed is True
    assert config.servers["remote"].resolved_transport == "streamable_http"
    assert config.servers["events"].resolved_transport == "sse"


def test_unknown_key_names_server_and_key() -> None:
    with pytest.raises(McpConfigError) as info:
        parse_mcp_config(servers(notes={"command": "python", "enviroment": {"A": "1"}}))
    assert "server 'notes', key 'enviroment': unknown key" in str(info.value)


def test_command_and_url_together_are_refused() -> None:
    with pytest.raises(McpConfigError) as info:
        parse_mcp_config(servers(both={"command": "python", "url": "http://127.0.0.1/mcp"}))
    message = str(info.value)
    assert "server 'both'" in message
    assert "exactly one of 'command' (stdio), 'url' (HTTP) or 'inprocess'" in message


def test_neither_command_nor_url_is_refused() -> None:
    with pytest.raises(McpConfigError) as info:
        parse_mcp_config(servers(empty={"description": "nothing to start"}))
    assert "server 'empty'" in str(info.value)
    assert "'command'" in str(info.value)
    assert "'url'" in str(info.value)


def test_wrong_type_names_the_nested_key() -> None:
    with pytest.raises(McpConfigError) as info:
        parse_mcp_config(servers(ok={"command": "python"}, bad={"command": "x", "args": "-m y"}))
    message = str(info.value)
    assert "server 'bad', key 'args'" in message
    assert "'ok'" not in message


def test_transport_contradicting_the_endpoint_is_refused() -> None:
    with pytest.raises(McpConfigError, match="'command' implies stdio"):
        parse_mcp_config(servers(s={"command": "python", "transport": "sse"}))
    with pytest.raises(McpConfigError, match="'url' implies an HTTP transport"):
        parse_mcp_config(servers(s={"url": "http://127.0.0.1/mcp", "transport": "stdio"}))


@pytest.mark.parametrize("raw", [{}, {"servers": {}}, {"mcpServers": []}, []])
def test_document_without_mcp_servers_object_is_refused(raw: Any) -> None:
    with pytest.raises(McpConfigError, match="mcpServers"):
        parse_mcp_config(raw)


def test_every_problem_of_every_server_is_reported() -> None:
    with pytest.raises(McpConfigError) as info:
        parse_mcp_config(servers(a={"command": "x", "colour": 1}, b={"url": "u", "size": 2}))
    message = str(info.value)
    assert "server 'a', key 'colour'" in message
    assert "server 'b', key 'size'" in message


def test_config_file_errors_name_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "absent.json"
    with pytest.raises(McpConfigError, match="not found: set MCP_CONFIG"):
        load_mcp_config(None, missing)
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(McpConfigError, match="is not valid JSON"):
        load_mcp_config(None, broken)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(servers(x={"command": "c", "oops": 1})), encoding="utf-8")
    with pytest.raises(McpConfigError) as info:
        load_mcp_config(None, bad)
    assert str(bad) in str(info.value)
    assert "server 'x', key 'oops'" in str(info.value)


def test_identical_servers_share_a_fingerprint() -> None:
    config = parse_mcp_config(
        servers(
            a={"command": "python", "args": ["-m", "s"], "description": "one"},
            b={"command": "python", "args": ["-m", "s"], "description": "two"},
            c={"command": "python", "args": ["-m", "other"]},
        )
    )
    fp = {name: cfg.fingerprint() for name, cfg in config.servers.items()}
    assert fp["a"] == fp["b"]
    assert fp["a"] != fp["c"]
