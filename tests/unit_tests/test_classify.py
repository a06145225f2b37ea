"""Tool classification: config patterns, then MCP annotations, then the name and description."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.types import Tool, ToolAnnotations

from common.mcp.config import ServerConfig
from common.safety.classify import classify_tool, classify_tools
from common.safety.wording import name_tokens

PLAIN = ServerConfig(command="srv")


def tool(name: str, description: str | None = None, **hints: Any) -> Tool:
    annotations = ToolAnnotations(**hints) if hints else None
    return Tool(
        name=name,
        description=description,
        inputSchema={"type": "object"},
        annotations=annotations,
    )


def verdict(t: Tool, cfg: ServerConfig = PLAIN) -> tuple[bool, str]:
    v = classify_tool("srv", t, cfg)
    assert v["server"] == "srv"
    assert v["tool"] == t.name
    return v["irreversible"], v["source"]


@pytest.mark.parametrize(
    ("hints", "expected"),
    [
        ({"readOnlyHint": False}, True),
        ({"readOnlyHint": False, "destructiveHint": True}, True),
        ({"destructiveHint": True}, True),
        ({"readOnlyHint": False, "destructiveHint": False}, True),
    ],
)
def test_annotations_decide_for_a_neutral_name(hints: dict[str, Any], expected: bool) -> None:
    assert verdict(tool("frobnicate", None, **hints)) == (expected, "annotation")


def test_an_untrusted_read_only_hint_counts_only_when_nothing_disagrees() -> None:
    """A server's own `readOnlyHint` is a claim: a name or description saying what the tool
    changes outweighs it; a name without a verb (`sequentialthinking`) cannot disagree."""
    assert verdict(tool("frobnicate", None, readOnlyHint=True)) == (False, "annotation")
    assert verdict(tool("git_log", "Shows the commit logs", readOnlyHint=True)) == (
        False,
        "annotation",
    )
    assert verdict(tool("frobnicate", "Deletes the record", readOnlyHint=True))[0] is True
    assert verdict(tool("frobnicate", "Creates a record", readOnlyHint=True))[0] is True
    context = tool("kubectl_context", "Manage contexts - list, get, or set one", readOnlyHint=True)
    assert verdict(context) == (True, "heuristic")
    assert verdict(tool("create_note", None, readOnlyHint=True)) == (True, "heuristic")
    trusted = ServerConfig(command="srv", trust_annotations=True)
    assert verdict(tool("create_note", None, readOnlyHint=True), trusted) == (False, "annotation")


def test_trusted_additive_hint_clears_a_write() -> None:
    trusted = ServerConfig(command="srv", trust_annotations=True)
    t = tool("frobnicate", readOnlyHint=False, destructiveHint=False)
    assert verdict(t, trusted) == (False, "annotation")
    assert verdict(t) == (True, "annotation")


def test_untrusted_read_only_hint_cannot_clear_a_delete_name() -> None:
    t = tool("delete_everything", readOnlyHint=True)
    v = classify_tool("srv", t, PLAIN)
    assert v["irreversible"] is True
    assert v["source"] == "heuristic"
    assert "'delete'" in v["reason"]
    assert "not trusted" in v["reason"]


def test_trusted_read_only_hint_clears_a_delete_name() -> None:
    trusted = ServerConfig(command="srv", trust_annotations=True)
    assert verdict(tool("delete_cache_preview", readOnlyHint=True), trusted) == (
        False,
        "annotation",
    )


def test_untrusted_destructive_hint_makes_a_read_name_stricter() -> None:
    assert verdict(tool("get_and_clear", destructiveHint=True)) == (True, "annotation")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("send_message", True),
        ("deleteFile", True),
        ("notes.write", True),
        ("git-push", True),
        ("get_stock", False),
        ("listProducts", False),
        ("search-products", False),
        ("get_settings", False),
    ],
)
def test_name_heuristic(name: str, expected: bool) -> None:
    assert verdict(tool(name)) == (expected, "heuristic")


def test_description_decides_when_the_name_says_nothing() -> None:
    assert verdict(tool("frobnicate", "Delete the record. Then read it.")) == (True, "heuristic")
    assert verdict(tool("frobnicate", "Show the record. Never delete it.")) == (False, "heuristic")


def test_no_signal_defaults_to_irreversible() -> None:
    v = classify_tool("srv", tool("frobnicate", "Does a thing."), PLAIN)
    assert (v["irreversible"], v["source"]) == (True, "default")


def test_config_patterns_come_first() -> None:
    cfg = ServerConfig(
        command="srv",
        irreversible_tools=["get_secret*"],
        reversible_tools=["write_draft*", "get_*"],
    )
    assert verdict(tool("get_secret_key", readOnlyHint=True), cfg) == (True, "config")
    assert verdict(tool("write_draft", destructiveHint=True), cfg) == (False, "config")
    assert verdict(tool("get_stock"), cfg) == (False, "config")
    assert verdict(tool("delete_draft"), cfg) == (True, "heuristic")
    reason = classify_tool("srv", tool("get_secret_key"), cfg)["reason"]
    assert "irreversible_tools pattern 'get_secret*'" in reason


def test_sandboxed_server_tools_are_reversible_except_listed_ones() -> None:
    cfg = ServerConfig(command="srv", sandboxed=True, irreversible_tools=["send_*"])
    verdicts = classify_tools(
        "srv", [tool("delete_everything", destructiveHint=True), tool("send_email")], cfg
    )
    assert [(v["tool"], v["irreversible"], v["source"]) for v in verdicts] == [
        ("delete_everything", False, "config"),
        ("send_email", True, "config"),
    ]
    assert "sandboxed" in verdicts[0]["reason"]


def test_name_tokens_split_snake_kebab_dotted_and_camel_case() -> None:
    assert name_tokens("deleteAllFiles") == ["delete", "all", "files"]
    assert name_tokens("notes.write_v2-now") == ["notes", "write", "v2", "now"]


def test_third_person_destructive_description_is_not_cleared_by_a_read_word() -> None:
    """A description saying "Deletes ..." must not read as read-only because it says "query".

    Bug: `_heuristic` matches description words exactly, so "deletes" misses the verb "delete"
    while "query" hits READ_VERBS, and the tool runs without approval.
    """
    for description in (
        "Deletes every record matching the query.",
        "Removes the note found by the search.",
        "Sends the report to the list.",
    ):
        assert verdict(tool("frobnicate", description))[0] is True, description
