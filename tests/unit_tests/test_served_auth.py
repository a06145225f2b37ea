"""Served safely: tokens, the run's user, and what a served client may put in a run's context."""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import Iterator
from dataclasses import fields
from types import SimpleNamespace
from typing import Any

import jwt
import pytest

from common.memory import namespace as memory_namespace
from common.safety.trust import namespace as trust_namespace
from common.served.caller import Caller, of, resolve
from common.served.context_rule import ACCESS, check_served_fields, refusal
from common.served.identity import user_namespace
from common.served.tokens import (
    Principal,
    Unauthenticated,
    api_key_entry,
    principal_of_key,
    principal_of_token,
)
from common.served.tokens import main as tokens_main
from common.settings import ConfigError, Settings, check_auth, get_settings, load_settings
from strategies.with_planner.context import Context

SECRET = "s" * 32


def token(secret: str = SECRET, **claims: Any) -> str:
    """An HS256 token for alice, valid for a minute unless `claims` say otherwise."""
    body = {"sub": "alice", "exp": int(time.time()) + 60, "roles": ["user"], **claims}
    return jwt.encode({k: v for k, v in body.items() if v is not None}, secret, "HS256")


def _unsigned() -> str:
    """A token for alice with `alg: none` and no signature."""
    return jwt.encode({"sub": "alice", "exp": int(time.time()) + 60}, None, "none")


def settings(**values: Any) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


@pytest.fixture
def auth_on(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("AUTH_JWT_SECRET", SECRET)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_every_context_field_is_classified() -> None:
    assert set(ACCESS) == {f.name for f in fields(Context)}


def test_a_valid_token_names_its_subject_and_roles() -> None:
    who = asyncio.run(principal_of_token(token(), settings(auth_jwt_secret=SECRET)))
    assert who == Principal("alice", ("user",))


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda: token(exp=int(time.time()) - 120), "expired"),
        (lambda: token(secret="x" * 32), "forged"),
        (lambda: "not-a-token", "malformed"),
        (lambda: token(sub=None), "not valid"),
        (lambda: token(roles="admin"), "roles claim"),
        (lambda: token(aud="other"), "another service"),
        (lambda: token(sub="a" * 300), "over 256 characters"),
        (lambda: token(sub="a" * 100_000), "over 8,192 bytes"),
        (lambda: token(roles=["r"] * 100_000), "over 8,192 bytes"),
        (lambda: token(roles=[f"r{n}" for n in range(65)]), "over 64 roles"),
        (lambda: token(roles=["x" * 65]), "over 64 characters"),
        (lambda: token(roles=["ops\nadmin"]), "control characters"),
        (lambda: token(sub="alice\nbob"), "control characters"),
        (lambda: token(sub="   "), "names no one"),
        (_unsigned, "not valid"),
        (
            lambda: jwt.encode({"sub": "alice", "exp": int(time.time()) + 60}, SECRET, "HS512"),
            "not valid",
        ),
    ],
)
def test_a_bad_token_is_refused_with_one_sentence(make: Any, says: str) -> None:
    with pytest.raises(Unauthenticated, match=says) as caught:
        asyncio.run(principal_of_token(make(), settings(auth_jwt_secret=SECRET)))
    assert "\n" not in str(caught.value)


def test_a_token_with_the_most_roles_allowed_is_accepted() -> None:
    roles = [f"role-{n:02}-" + "x" * 56 for n in range(64)]

    who = asyncio.run(principal_of_token(token(roles=roles), settings(auth_jwt_secret=SECRET)))

    assert who.roles == tuple(roles)


def test_the_audience_and_issuer_are_checked_when_set() -> None:
    strict = settings(auth_jwt_secret=SECRET, auth_jwt_audience="planner", auth_jwt_issuer="idp")
    with pytest.raises(Unauthenticated, match="another service"):
        asyncio.run(principal_of_token(token(aud="other", iss="idp"), strict))
    ok = asyncio.run(principal_of_token(token(aud="planner", iss="idp"), strict))
    assert ok.identity == "alice"


def test_api_keys_are_kept_hashed_and_name_their_holder() -> None:
    entry = api_key_entry("nightly", ("user", "auditor"), "k3y-value")
    assert "k3y-value" not in entry
    keys = settings(auth_api_keys=entry)
    assert principal_of_key("k3y-value", keys) == Principal("nightly", ("user", "auditor"))
    with pytest.raises(Unauthenticated):
        principal_of_key("other", keys)


def test_a_token_may_not_take_an_api_keys_name() -> None:
    both = settings(
        auth_jwt_secret=SECRET, auth_api_keys=api_key_entry("nightly", ("ops",), "k3y-value")
    )
    with pytest.raises(Unauthenticated, match="the name of an API key of this server") as caught:
        asyncio.run(principal_of_token(token(sub="nightly"), both))
    assert "'nightly'" in str(caught.value)
    # The key still names its holder, and other tokens are still taken.
    assert principal_of_key("k3y-value", both).identity == "nightly"
    assert asyncio.run(principal_of_token(token(), both)).identity == "alice"


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({"AUTH_JWT_SECRET": "short"}, "at least 32 bytes"),
        ({"AUTH_API_KEYS": "bob:user:abc"}, "name:role1"),
    ],
)
def test_a_bad_auth_setting_is_one_sentence(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], says: str
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=says) as caught:
        load_settings()
    assert "short" not in str(caught.value), "a secret is never shown"


@pytest.mark.parametrize(
    ("values", "says"),
    [
        ({"auth_jwks_url": "https://idp/jwks"}, "needs AUTH_JWT_ISSUER"),
        ({"auth_jwks_url": "https://idp/jwks", "auth_jwt_secret": SECRET}, "both set"),
    ],
)
def test_auth_settings_must_fit_together(values: dict[str, Any], says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        check_auth(settings(**values))


def test_served_context_fields_must_name_fields() -> None:
    with pytest.raises(ConfigError, match="'mcp_configs'"):
        check_served_fields(settings(served_context_fields="mcp_configs"))


@pytest.mark.parametrize(
    ("given", "field"),
    [
        ({"mcp_config": {"mcpServers": {}}}, "mcp_config"),
        ({"guardrails": {"deny_private_urls": False}}, "guardrails"),
        ({"model": "offline:rules"}, "model"),
        ({"planner_model": "openai:gpt-4o"}, "planner_model"),
        ({"approval_mode": "auto"}, "approval_mode"),
        ({"max_steps": 400}, "max_steps"),
        ({"max_task_attempts": 20}, "max_task_attempts"),
        ({"tool_timeout_s": 3600}, "tool_timeout_s"),
        ({"user_id": "alice"}, "user_id"),
    ],
)
def test_a_client_cannot_configure_the_server(given: dict[str, Any], field: str) -> None:
    why = refusal(given, settings(), caller="bob")
    assert repr(field) in (why or "")


@pytest.mark.parametrize(
    "given",
    [
        {"approval_mode": "plan_only"},
        {"approval_mode": "interrupt"},
        {"max_steps": 5, "max_parallel": 1, "tool_timeout_s": 5, "max_task_attempts": 1},
        {"strategy": "conservative", "interrupt_format": "agent_inbox", "now": "2025-01-01"},
        {"user_id": "bob"},
        {"thread_id": "x"},
    ],
)
def test_a_client_may_tighten(given: dict[str, Any]) -> None:
    assert refusal(given, settings(), caller="bob") is None


def test_the_operator_may_trust_clients_with_named_fields() -> None:
    trusting = settings(served_context_fields="mcp_config,model")
    assert refusal({"mcp_config": {}, "model": "offline:rules"}, trusting, "bob") is None
    assert refusal({"guardrails": {}}, trusting, "bob") is not None


def test_without_auth_user_id_picks_the_local_users_profile() -> None:
    assert refusal({"user_id": "alice"}, settings(), caller=None) is None


def test_the_run_user_is_the_authenticated_identity_when_served_with_auth(auth_on: None) -> None:
    served = {"configurable": {"langgraph_auth_user_id": "bob"}}
    assert resolve(served, "alice").identity == "bob"
    aegra = {"configurable": {"user_id": "alice", "langgraph_auth_user": {"identity": "bob"}}}
    assert resolve(aegra, "alice").identity == "bob"
    assert resolve({}, "alice") == Caller("alice"), "embedding: the application is trusted"


def test_without_auth_the_context_user_is_the_run_user() -> None:
    config = {"configurable": {"langgraph_auth_user_id": "default"}}
    assert resolve(config, "alice") == Caller("alice")
    assert resolve(None, None) == Caller("default")


def test_every_user_record_is_under_its_users_label() -> None:
    assert memory_namespace("alice") == ("mcp_planner", "runs", "alice")
    assert trust_namespace("alice") == ("mcp_planner", "trust", "alice")
    assert user_namespace("runs", "a.b@example.com")[2].startswith("u-")


def test_the_key_helper_prints_an_entry_that_verifies(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("k3y-value\n"))
    assert tokens_main(["nightly", "user"]) == 0
    entry = capsys.readouterr().out.strip()
    assert principal_of_key("k3y-value", settings(auth_api_keys=entry)).identity == "nightly"


def test_a_threads_records_belong_to_its_owner(auth_on: None) -> None:
    bob = {"configurable": {"langgraph_auth_user_id": "bob"}, "metadata": {"owner": "mallory"}}
    # The owner the graph's state records wins over whoever runs now (an approver's resume).
    approver = resolve(bob, "mallory", {"owner": "alice"})
    assert (approver.identity, approver.records_owner, approver.turn_user) == (
        "bob",
        "alice",
        "alice",
    )
    # A thread begun before owners were stamped: the requester its question names, else the
    # run's identity; never the run's metadata, which is the client's to set.
    assert resolve(bob, None, {"asked": {"by": "alice", "at": ""}}).records_owner == "alice"
    first = resolve(bob, None, {})
    assert (first.records_owner, first.turn_user, first.owner_to_stamp) == ("bob", "bob", "bob")
    assert resolve({}, None).records_owner == "default"


def test_without_auth_no_owner_is_stamped_and_nothing_changes() -> None:
    who = resolve({"configurable": {"langgraph_auth_user_id": "bob"}}, "carol", {"owner": "alice"})
    assert who.owner_to_stamp is None
    assert who.records_owner == "default"
    assert who.turn_user == "carol", "embedding: the context's user"


def test_the_server_set_user_outranks_a_client_set_user_id(auth_on: None) -> None:
    # Aegra sets `langgraph_auth_user` itself but keeps a client's `langgraph_auth_user_id`.
    config = {
        "configurable": {
            "langgraph_auth_user": {"identity": "bob"},
            "langgraph_auth_user_id": "alice",
        }
    }
    who = resolve(config, None)
    assert (who.identity, who.records_owner, who.owner_to_stamp) == ("bob", "bob", "bob")


def test_a_context_carrying_no_caller_is_the_local_user_without_roles() -> None:
    assert of(SimpleNamespace(user_id="alice")) == Caller("alice")
    assert of(None) == Caller("default")
    kept = Caller("bob", ("ops",), "alice", served=True)
    assert of(SimpleNamespace(caller=kept, user_id="carol")) is kept


def test_without_auth_a_threads_records_are_the_local_users() -> None:
    assert resolve({"configurable": {"langgraph_auth_user_id": "alice"}}, None).records_owner == (
        "default"
    )
