"""The served graph refuses a client's context itself, before any expert starts."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from common.settings import get_settings
from strategies.with_planner.context import ContextError
from strategies.with_planner.graph import build_graph
from strategies.with_planner.served_graph import served

ASK = {"messages": [{"role": "user", "content": "How many units of GAD-7 are in stock"}]}


@pytest.fixture
def operator(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A server with auth and no field trusted to clients."""
    monkeypatch.setenv("AUTH_JWT_SECRET", "s" * 32)
    monkeypatch.setenv("SERVED_CONTEXT_FIELDS", "")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def _config(user: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": "t1", "langgraph_auth_user_id": user}}


@pytest.mark.parametrize(
    ("context", "field"),
    [
        ({"approval_mode": "auto"}, "approval_mode"),
        ({"guardrails": {"deny_private_urls": False}}, "guardrails"),
        ({"model": "offline:rules"}, "model"),
        ({"user_id": "alice"}, "user_id"),
    ],
)
async def test_a_served_run_with_a_context_a_client_may_not_set_fails_first(
    operator: None, context: dict[str, Any], field: str
) -> None:
    graph = served(build_graph(InMemorySaver()))
    with pytest.raises(ContextError, match=repr(field)) as caught:
        await graph.ainvoke(ASK, _config("bob"), context=context)
    assert "\n" not in str(caught.value)
    assert await graph.aget_state(_config("bob")) is not None
    assert not (await graph.aget_state(_config("bob"))).values, "no step ran"


async def test_a_served_run_cannot_choose_the_commands_the_server_runs(
    operator: None, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    evil = {
        "mcpServers": {
            "x": {"command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w')"]}
        }
    }
    graph = served(build_graph(InMemorySaver()))
    with pytest.raises(ContextError, match="'mcp_config'"):
        await graph.ainvoke(ASK, _config("bob"), context={"mcp_config": evil})
    assert not marker.exists()


async def test_studios_user_is_trusted_with_nothing_when_auth_is_on(operator: None) -> None:
    """`langgraph dev` names a request Studio's user on a header alone: with auth, no one."""
    from langgraph_sdk.auth.types import StudioUser

    graph = served(build_graph(InMemorySaver()))
    studio = {"configurable": {"thread_id": "t2", "langgraph_auth_user": StudioUser("dev", True)}}
    with pytest.raises(ContextError, match="'model' is set by the server's operator"):
        await graph.ainvoke(ASK, studio, context={"model": "offline:rules"})


async def test_without_auth_studios_user_may_set_the_operators_fields(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without auth Studio is the one local user, who runs the server anyway."""
    from langgraph_sdk.auth.types import StudioUser

    monkeypatch.setenv("SERVED_CONTEXT_FIELDS", "")
    for name in ("AUTH_JWT_SECRET", "AUTH_JWKS_URL", "AUTH_API_KEYS"):
        monkeypatch.delenv(name, raising=False)
    get_settings.cache_clear()
    try:
        graph = served(build_graph(InMemorySaver()))
        studio = {"configurable": {"thread_id": "t3", "langgraph_auth_user": StudioUser("d", True)}}
        done = await graph.ainvoke(ASK, studio, context={"model": "offline:rules"})
    finally:
        get_settings.cache_clear()
    assert done["messages"][-1].text


async def test_a_served_run_may_tighten_and_name_itself(operator: None) -> None:
    graph = served(build_graph(InMemorySaver()))
    done = await graph.ainvoke(
        ASK, _config("bob"), context={"approval_mode": "plan_only", "user_id": "bob"}
    )
    assert done["messages"][-1].text
