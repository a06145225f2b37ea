"""How an approver reaches another user's question on a served instance, and nothing more."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import SecretStr

from common.served import handlers as auth
from common.served import requests
from common.served.caller import auth_roles, resolve
from common.settings import Settings

APPROVE = {"decisions": [{"type": "approve"}]}


def caller(identity: str, *roles: str) -> Any:
    """An auth context as the handlers read it: the user and their roles."""
    return SimpleNamespace(user=SimpleNamespace(identity=identity), permissions=list(roles))


@pytest.mark.parametrize(
    ("value", "answers"),
    [
        ({"kwargs": {"command": {"resume": APPROVE}, "input": None}}, True),
        ({"command": {"resume": APPROVE, "goto": None, "update": None}}, True),
        ({"kwargs": {"input": {"messages": []}}}, False),
        ({"kwargs": {"command": {"resume": APPROVE, "update": {"messages": []}}}}, False),
        ({"kwargs": {"command": {"goto": "__end__"}}}, False),
        ({"kwargs": {"input": {"messages": []}, "command": {"resume": APPROVE}}}, False),
        ({}, False),
    ],
    ids=["resume", "resume-aegra", "message", "update", "goto", "both", "nothing"],
)
def test_only_a_bare_answer_counts_as_answering(value: dict[str, Any], answers: bool) -> None:
    assert requests.answers_only(requests.read(value)) is answers


def test_an_approver_may_answer_threads_of_their_roles_and_write_only_their_own() -> None:
    bob = caller("bob", "ops", "dev")
    assert auth.answer_filter(bob, {"kwargs": {"command": {"resume": APPROVE}}}) == {
        "$or": [
            {"owner": "bob"},
            {"approvers": {"$contains": "dev"}},
            {"approvers": {"$contains": "ops"}},
        ]
    }
    assert auth.answer_filter(bob, {"kwargs": {"input": {"messages": []}}}) == {"owner": "bob"}
    # Without a role a caller reaches their own threads only (an $or needs two branches).
    answer = {"kwargs": {"command": {"resume": APPROVE}}}
    assert auth.answer_filter(caller("carol"), answer) == {"owner": "carol"}


@pytest.fixture
def served_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The server's mcp.json, at a path the auth module reads."""
    path = tmp_path / "mcp.json"
    with_file = Settings(_env_file=None, mcp_config=path)  # type: ignore[call-arg]
    monkeypatch.setattr(auth, "get_settings", lambda: with_file)
    return path


async def test_a_new_thread_names_the_servers_approver_roles(served_config: Path) -> None:
    servers = {
        "notes": {
            "command": "notes",
            "approvers": ["ops"],
            "second_person": True,
            "approval_rules": {"delete_*": {"approvers": ["security"]}},
        },
        "inventory": {"command": "inventory"},
    }
    served_config.write_text(json.dumps({"mcpServers": servers}))
    value: dict[str, Any] = {"metadata": {"owner": "mallory", "approvers": ["everyone"]}}
    assert await auth.on_thread_create(caller("alice"), value) == {"owner": "alice"}
    assert value["metadata"] == {"owner": "alice", "approvers": ["ops", "security"]}


async def test_a_client_cannot_name_approvers_of_its_own(served_config: Path) -> None:
    served_config.write_text(json.dumps({"mcpServers": {"notes": {"command": "notes"}}}))
    value: dict[str, Any] = {"metadata": {"approvers": ["everyone"]}}
    await auth.on_thread_create(caller("alice"), value)
    assert value["metadata"] == {"owner": "alice"}


def test_roles_come_from_either_server_and_only_with_auth(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The roles key alone is no one's word: Aegra keeps it as the client sent it.
    assert auth_roles({"langgraph_auth_permissions": ["ops"]}) == ()
    assert auth_roles({"langgraph_auth_user": {"permissions": ["ops", 3]}}) == ("ops",)
    assert auth_roles({"langgraph_auth_user": SimpleNamespace(permissions=["sre"])}) == ("sre",)
    config = {"configurable": {"langgraph_auth_user": {"permissions": ["ops"]}}}
    open_server = Settings(_env_file=None)  # type: ignore[call-arg]
    config["configurable"]["langgraph_auth_user_id"] = "bob"
    monkeypatch.setattr("common.served.caller.get_settings", lambda: open_server)
    # Without auth a run's roles are its own say-so: none are believed.
    assert resolve(config, None).roles == ()
    with_auth = open_server.model_copy(update={"auth_jwt_secret": SecretStr("s" * 32)})
    monkeypatch.setattr("common.served.caller.get_settings", lambda: with_auth)
    assert resolve(config, None).roles == ("ops",)


def test_aegra_leaves_the_audit_trail_where_the_graph_writes_it() -> None:
    # aegra.json maps the prefix 'mcp_planner' to a user field whose value names the audit
    # kind, so Aegra files ('mcp_planner', 'audit', ...) as it is: renaming either breaks that.
    from common.served.audit import ROOT

    served = json.loads((Path(__file__).resolve().parents[2] / "aegra.json").read_text())
    assert served["store"]["scopes"] == {ROOT[0]: [auth.STORE_SCOPE]}
    assert ROOT == ("mcp_planner", auth.SHARED_KIND)


@pytest.mark.parametrize(
    ("value", "namespace"),
    [
        ({"namespace": ("alice", "notes"), "key": "k"}, ("alice", "notes")),
        ({"namespace_prefix": ["mcp_planner", "audit"], "limit": 10}, ("mcp_planner", "audit")),
        ({"prefix": ["bob"], "suffix": None}, ("bob",)),
        ({"namespace": None, "suffix": ["x"]}, ()),
    ],
    ids=["langgraph", "aegra-search", "aegra-list", "no-prefix"],
)
def test_a_store_request_names_its_namespace_on_either_server(
    value: dict[str, Any], namespace: tuple[str, ...]
) -> None:
    assert requests.store_namespace(value) == namespace


@pytest.mark.parametrize(
    "value",
    [
        {"namespace_prefix": ["mcp_planner", "audit.alice", "bob"]},
        {"namespace": ["bob", ""], "key": "k"},
    ],
    ids=["dotted", "empty"],
)
async def test_a_label_the_store_would_refuse_is_a_400_not_a_server_error(
    value: dict[str, Any],
) -> None:
    with pytest.raises(auth.Auth.exceptions.HTTPException) as refused:
        await auth.on_store(caller("bob"), value)
    assert refused.value.status_code == 400


@pytest.mark.parametrize(
    ("who", "roles", "metadata", "server_roles", "reaches"),
    [
        ("alice", [], {"owner": "alice"}, [], True),
        ("bob", ["ops"], {"owner": "alice", "approvers": ["ops"]}, ["ops"], True),
        ("carol", [], {"owner": "alice", "approvers": ["ops"]}, ["ops"], False),
        ("bob", ["ops"], {"owner": "alice"}, ["ops"], False),
        # A role a client wrote into its thread that the server's mcp.json does not name.
        ("mallory", ["friends"], {"owner": "alice", "approvers": ["friends"]}, ["ops"], False),
        ("bob", ["ops"], {"owner": "alice", "approvers": "ops"}, ["ops"], False),
    ],
    ids=["owner", "approver", "no-role", "thread-names-none", "client-role", "not-a-list"],
)
def test_who_reaches_a_question_through_aegras_approvals_routes(
    who: str, roles: list[str], metadata: dict[str, Any], server_roles: list[str], reaches: bool
) -> None:
    assert auth.may_reach_question(who, roles, metadata, server_roles) is reaches


@pytest.mark.parametrize(
    ("configurable", "extra"),
    [
        ({"checkpoint_id": "1f0"}, "config.configurable.checkpoint_id"),
        ({"checkpoint_ns": "fork"}, "config.configurable.checkpoint_ns"),
        ({"checkpoint_map": {"": "1f0"}}, "config.configurable.checkpoint_map"),
    ],
)
def test_an_answer_from_another_checkpoint_is_more_than_an_answer(
    configurable: dict[str, Any], extra: str
) -> None:
    value = {"kwargs": {"command": {"resume": APPROVE}, "config": {"configurable": configurable}}}
    asked = requests.read(value)
    assert asked.extras == (extra,)
    assert not requests.answers_only(asked)
    # The keys a server sets itself, empty, are no replay.
    plain = {
        "kwargs": {
            "command": {"resume": APPROVE},
            "config": {"configurable": {"checkpoint_ns": ""}},
        }
    }
    assert requests.answers_only(requests.read(plain))


def test_a_copy_of_a_thread_is_refused_and_a_new_thread_is_not() -> None:
    assert requests.is_copy({"thread_id": "t"})
    assert not requests.is_copy({"thread_id": "t", "metadata": {}, "if_exists": "raise"})
