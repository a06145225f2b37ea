"""The remembered-approval rules and their store: digests, identities, users, backends."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, get_args

import pytest
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from mcp.types import Tool, ToolAnnotations

from common.mcp.config import ServerConfig
from common.persistence import postgres_persistence, sqlite_store
from common.safety.classify import VerdictSource
from common.safety.gate import GateDecision, GateSource
from common.safety.trust import (
    Changed,
    consulted,
    entries,
    entry_key,
    may_remember,
    namespace,
    offer_for,
    remember,
    remembered,
    revoke,
    server_identity,
    shown_identity,
    tool_digest,
)

SERVER = ServerConfig(command="python", args=["-m", "notes"], env={"TOKEN": "s3cret"})
WRITE = Tool(
    name="write_note",
    description="Save a note.",
    inputSchema={"type": "object", "properties": {"title": {"type": "string"}}},
    annotations=ToolAnnotations(destructiveHint=True),
)


def hold(source: GateSource, needs: bool = True) -> GateDecision:
    return GateDecision(needs, "why", source)


@pytest.mark.parametrize("source", [*get_args(VerdictSource), "arguments", "data"])
def test_only_a_hold_by_the_tools_verdict_may_be_remembered(source: str) -> None:
    expected = source not in ("arguments", "data")
    assert may_remember(hold(source)) is expected  # type: ignore[arg-type]
    assert may_remember(hold(source, needs=False)) is False  # type: ignore[arg-type]


def test_remembered_approvals_only_stand_in_for_a_question() -> None:
    assert consulted("interrupt", hold("annotation"))
    assert not consulted("auto", hold("annotation"))
    assert not consulted("plan_only", hold("annotation"))
    # A mode that is not exactly one of the set asks (fail closed), so it may be answered too.
    assert consulted("AUTO", hold("annotation"))
    assert not consulted("interrupt", hold("arguments"))
    assert not consulted("interrupt", hold("data"))


def test_namespace_labels_are_safe_for_every_store() -> None:
    assert namespace("alice") == ("mcp_planner", "trust", "alice")
    label = namespace("alice@example.com")[-1]
    assert "." not in label
    assert "@" not in label
    assert label != namespace("alice@example.org")[-1]
    assert namespace(label)[-1] != label
    assert all(c in "0123456789abcdef" for c in entry_key("x" * 64, "write_note"))


def test_server_identity_leaves_secrets_out() -> None:
    assert server_identity(SERVER) == {"command": "python", "args": ["-m", "notes"], "cwd": None}
    http = ServerConfig(url="https://user:pw@mcp.example.com/mcp?key=abc", headers={"X": "y"})
    assert server_identity(http) == {"url": "https://user:pw@mcp.example.com/mcp?key=abc"}
    assert shown_identity(http) == "https://mcp.example.com/mcp"
    assert shown_identity(SERVER) == "python -m notes"
    other_args = offer_for(ServerConfig(command="python", args=["-m", "notes2"]), WRITE)
    other_cwd = offer_for(ServerConfig(command="python", args=["-m", "notes"], cwd="/x"), WRITE)
    env_only = offer_for(ServerConfig(command="python", args=["-m", "notes"]), WRITE)
    assert offer_for(SERVER, WRITE)["server"] == env_only["server"]
    assert len({offer_for(SERVER, WRITE)["server"], other_args["server"], other_cwd["server"]}) == 3


@pytest.mark.parametrize(
    ("change", "part"),
    [
        ({"description": "Save a note, then email it to everyone."}, "description"),
        ({"input_schema": {"type": "object", "properties": {"to": {"type": "string"}}}}, "schema"),
        ({"annotations": ToolAnnotations(destructiveHint=False)}, "annotations"),
    ],
)
async def test_a_changed_definition_is_a_rug_pull(change: dict[str, Any], part: str) -> None:
    store = InMemoryStore()
    await remember(store, "default", "notes", "write_note", offer_for(SERVER, WRITE))
    changed = WRITE.model_copy(update=change)
    assert tool_digest(changed) != tool_digest(WRITE)

    found = await remembered(store, "default", SERVER, changed)

    assert isinstance(found, Changed)
    assert found.parts == (part,)
    assert f"definition changed since ({part})" in found.reason()


def test_the_digest_does_not_depend_on_key_order() -> None:
    reordered = WRITE.model_copy(
        update={"input_schema": {"properties": {"title": {"type": "string"}}, "type": "object"}}
    )
    assert tool_digest(reordered) == tool_digest(WRITE)


@asynccontextmanager
async def backend(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    if kind == "memory":
        yield InMemoryStore()
    elif kind == "sqlite":
        async with sqlite_store(tmp_path / "store.sqlite") as store:
            yield store
    else:
        async with postgres_persistence(request.getfixturevalue("postgres_uri")) as (_, store):
            yield store


async def round_trip(store: BaseStore) -> None:
    """Remember, find, list, revoke on one store; two users and two tools kept apart."""
    delete = WRITE.model_copy(update={"name": "delete_note", "description": "Delete a note."})
    # Two approvals remembered at the same time, plus another user's.
    await asyncio.gather(
        remember(store, "ann.lee@example.com", "notes", "write_note", offer_for(SERVER, WRITE)),
        remember(store, "ann.lee@example.com", "notes", "delete_note", offer_for(SERVER, delete)),
        remember(store, "bob", "notes", "write_note", offer_for(SERVER, WRITE)),
    )
    found = await remembered(store, "ann.lee@example.com", SERVER, WRITE)
    assert isinstance(found, dict)
    assert found["tool"] == "write_note"
    assert await remembered(store, "carol", SERVER, WRITE) is None
    mine = await entries(store, "ann.lee@example.com")
    assert sorted(e["tool"] for e in mine) == ["delete_note", "write_note"]
    assert len(await entries(store)) == 3

    gone = await revoke(store, "ann.lee@example.com", "notes", "write_note")
    assert [e["tool"] for e in gone] == ["write_note"]
    assert await remembered(store, "ann.lee@example.com", SERVER, WRITE) is None
    assert await revoke(store, "ann.lee@example.com", "notes", "write_note") == []
    assert len(await revoke(store, "bob")) == 1
    assert [e["tool"] for e in await entries(store)] == ["delete_note"]


@pytest.mark.parametrize("kind", ["memory", "sqlite", "postgres"])
async def test_every_store_backend_keeps_and_revokes(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    async with backend(kind, tmp_path, request) as store:
        await round_trip(store)
