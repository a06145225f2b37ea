"""MCP configuration: the standard document, validated with errors naming server and key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from common.mcp import loader
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


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        (
            {"mcpServers": {"n": {"comand": "python"}}},
            "server 'n', key 'comand': unknown key (did you mean 'command'?)",
        ),
        (
            {"mcpServers": {"n": {"command": "python", "aprovers": ["ops"]}}},
            "key 'aprovers': unknown key (did you mean 'approvers'?)",
        ),
        (
            {
                "mcpServers": {
                    "n": {"command": "python", "approval_rules": {"d*": {"secnd_person": True}}}
                }
            },
            "key 'approval_rules.d*.secnd_person': unknown key (did you mean 'second_person'?)",
        ),
        ({"mcpServer": {}}, "(found 'mcpServer': did you mean 'mcpServers'?)"),
        ({"mcpservers": {}}, "(found 'mcpservers': did you mean 'mcpServers'?)"),
    ],
    ids=["server-key", "approvers", "rule-key", "top-level", "top-level-case"],
)
def test_a_mistyped_key_gets_the_closest_known_one(raw: dict[str, Any], says: str) -> None:
    with pytest.raises(McpConfigError) as info:
        parse_mcp_config(raw)
    assert says in str(info.value)


def test_an_unknown_key_like_no_known_one_gets_no_suggestion() -> None:
    with pytest.raises(McpConfigError) as info:
        parse_mcp_config(servers(notes={"command": "python", "zzz": 1}))
    assert str(info.value).endswith("key 'zzz': unknown key")


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
    with pytest.raises(McpConfigError, match="not found: run from the project folder"):
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


def test_a_missing_file_is_named_by_its_absolute_path(chdir_tmp: Path) -> None:
    with pytest.raises(McpConfigError) as info:
        load_mcp_config(None, Path("mcp.json"))
    assert str(info.value) == (
        f"MCP config file {str(chdir_tmp / 'mcp.json')!r} not found: run from the project "
        "folder, or set MCP_CONFIG (or --config) to the file's path."
    )
    assert "context" not in str(info.value)


# --- the safety flags are a closed world -------------------------------------------------------


@pytest.mark.parametrize("value", ["yes", "false", "true", 1, 0, None, [], {}, 1.0])
@pytest.mark.parametrize("key", ["sandboxed", "trust_annotations"])
def test_safety_booleans_take_only_true_or_false(key: str, value: Any) -> None:
    with pytest.raises(McpConfigError) as info:
        parse_mcp_config(servers(notes={"command": "python", key: value}))
    assert str(info.value) == (
        f"mcp_config is invalid: server 'notes', key {key!r}: must be true or false, got {value!r}"
    )


@pytest.mark.parametrize("value", ["send_*", 3, None, {"a": "b"}, ("send_*",), True])
@pytest.mark.parametrize("key", ["irreversible_tools", "reversible_tools"])
def test_name_patterns_take_only_a_list(key: str, value: Any) -> None:
    with pytest.raises(McpConfigError) as info:
        parse_mcp_config(servers(notes={"command": "python", key: value}))
    assert str(info.value) == (
        f"mcp_config is invalid: server 'notes', key {key!r}: must be a list of strings, "
        f"got {value!r}"
    )


@pytest.mark.parametrize("key", ["irreversible_tools", "reversible_tools"])
def test_name_patterns_take_only_strings(key: str) -> None:
    with pytest.raises(McpConfigError) as info:
        parse_mcp_config(servers(notes={"command": "python", key: ["send_*", 7]}))
    assert f"server 'notes', key '{key}.1': must be a string, got 7" in str(info.value)


def test_safety_flags_in_a_file_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(servers(notes={"command": "x", "sandboxed": "yes"})), "utf-8")
    with pytest.raises(McpConfigError) as info:
        load_mcp_config(None, path)
    assert str(info.value) == (
        f"{path} is invalid: server 'notes', key 'sandboxed': must be true or false, got 'yes'"
    )


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)
_FLAG_TYPES = {
    "sandboxed": "bool",
    "trust_annotations": "bool",
    "irreversible_tools": "patterns",
    "reversible_tools": "patterns",
}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(sorted(_FLAG_TYPES)), value=_json)
def test_a_safety_flag_is_exactly_typed_or_a_one_line_error(key: str, value: Any) -> None:
    try:
        config = parse_mcp_config(servers(notes={"command": "python", key: value}))
    except McpConfigError as exc:
        message = str(exc)
        assert "\n" not in message
        assert message.startswith(f"mcp_config is invalid: server 'notes', key '{key}")
        return
    parsed = getattr(config.servers["notes"], key)
    if _FLAG_TYPES[key] == "bool":
        assert type(parsed) is bool
    else:
        assert type(parsed) is list
        assert all(type(item) is str for item in parsed)
    assert parsed == value


def test_raw_config_cache_is_bounded() -> None:
    cache: Any = loader._LruCache(3)
    made: list[int] = []

    def make(i: int) -> Any:
        made.append(i)
        return parse_mcp_config(servers(s={"command": f"srv{i}"}))

    for i in range(10):
        cache.get(str(i), lambda i=i: make(i))
    assert len(cache) == 3
    first = cache.get("9", lambda: make(99))
    assert first.servers["s"].command == "srv9"
    assert made == list(range(10))
    cache.get("0", lambda: make(0))
    assert made[-1] == 0


async def test_runs_with_the_same_config_share_one_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loader, "_RAW_CACHE", loader._LruCache(loader.CACHE_SIZE))
    raw = servers(a={"command": "srv", "args": ["x"]})
    first = await loader.registry_for(raw)
    second = await loader.registry_for(json.loads(json.dumps(raw)))
    assert first.config is second.config
    assert len(loader._RAW_CACHE) == 1


async def test_key_order_does_not_matter_and_the_cache_stays_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(loader, "_RAW_CACHE", loader._LruCache(4))
    one = {
        "mcpServers": {
            "a": {"command": "srv", "env": {"X": "1", "Y": "2"}},
            "b": {"url": "http://h/mcp"},
        }
    }
    other = {
        "mcpServers": {
            "b": {"url": "http://h/mcp"},
            "a": {"env": {"Y": "2", "X": "1"}, "command": "srv"},
        }
    }

    first = await loader.registry_for(one)
    second = await loader.registry_for(other)

    assert first.config is second.config
    assert len(loader._RAW_CACHE) == 1
    for i in range(10):
        await loader.registry_for(servers(s={"command": f"srv{i}"}))
        assert len(loader._RAW_CACHE) <= 4
    assert len(loader._RAW_CACHE) == 4


async def test_a_config_that_is_not_json_is_parsed_uncached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(loader, "_RAW_CACHE", loader._LruCache(4))
    with pytest.raises(McpConfigError, match="key 'cwd': must be a string"):
        await loader.registry_for(servers(a={"command": "srv", "cwd": Path("/srv")}))
    assert loader.config_key({"x": float("nan")}) is None
    assert len(loader._RAW_CACHE) == 0
