"""Served safely, tried as two users of one instance would: `langgraph dev` and Aegra with auth.

Each server starts once per module with AUTH_JWT_SECRET, the operator's experts in MCP_CONFIG
and no SERVED_CONTEXT_FIELDS; Alice and Bob hold HS256 tokens and use the official SDK.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from langgraph_sdk import get_client

from common.served.tokens import api_key_entry
from tests.integration_tests.aegra import ROOT, aegra_cluster, interrupts_of
from tests.integration_tests.helpers import langgraph_dev
from tests.integration_tests.test_cli_server import planner

pytestmark = pytest.mark.integration

SECRET = "integration-secret-" + "x" * 20
KEY_NAME, KEY = "nightly", "nightly-key-" + "k" * 20
"""The operator's one API key, and its holder's name."""
GRAPH = "with_planner"
STOCK = "How many units of GAD-7 are in stock"
AEGRA_SCOPES_THE_STORE_API = (
    "Aegra's Store API files every namespace under ('users', <caller>) but the audit trail's "
    "(aegra.json store.scopes), so the graph's other records about a user are in its store but "
    "no SDK client reads them"
)


def token(sub: str, secret: str = SECRET, ttl_s: int = 86_400, roles: tuple[str, ...] = ()) -> str:
    """An HS256 bearer token for `sub` (holding `roles`, when given).

    A day to live: parametrized tokens are minted when the tests are collected, which may be
    longer before they run than the whole suite takes on a slow machine.
    """
    claims: dict[str, Any] = {"sub": sub, "exp": int(time.time()) + ttl_s}
    if roles:
        claims["roles"] = list(roles)
    return jwt.encode(claims, secret, "HS256")


@dataclass
class Served:
    """One server with auth, and a client per caller."""

    name: str
    """`langgraph-dev` or `aegra`."""
    url: str
    """Its base URL."""

    def client(self, bearer: str | None) -> Any:
        """An SDK client sending `bearer` (no Authorization header when None)."""
        headers = {"Authorization": f"Bearer {bearer}"} if bearer else None
        return get_client(url=self.url, headers=headers)


def _server_env(mcp_config: dict[str, Any], folder: Path) -> dict[str, str]:
    """The operator's settings: a token secret, the experts in a file, nothing trusted."""
    experts = {k: mcp_config["mcpServers"][k] for k in ("inventory", "notes")}
    config = folder / "mcp.json"
    config.write_text(json.dumps({"mcpServers": experts}))
    return {
        "AUTH_JWT_SECRET": SECRET,
        "AUTH_API_KEYS": api_key_entry(KEY_NAME, ("ops",), KEY),
        "MCP_CONFIG": str(config),
        "SERVED_CONTEXT_FIELDS": "",
    }


@asynccontextmanager
async def _dev(logs: Path, env: dict[str, str]) -> AsyncIterator[Served]:
    async with langgraph_dev(logs, env=env) as (url, _):
        yield Served("langgraph-dev", url)


@asynccontextmanager
async def _aegra(logs: Path, env: dict[str, str]) -> AsyncIterator[Served]:
    async with aegra_cluster(logs, **env) as cluster:
        instance = await cluster.add()
        yield Served("aegra", instance.url)


SERVERS = {"langgraph-dev": _dev, "aegra": _aegra}


@pytest.fixture(scope="module", params=list(SERVERS))
async def server(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    mcp_config: dict[str, Any],
) -> AsyncIterator[Served]:
    """Each server in turn, with auth on."""
    folder = tmp_path_factory.mktemp(f"auth-{request.param}")
    async with SERVERS[request.param](folder, _server_env(mcp_config, folder)) as served:
        yield served


@pytest.fixture
async def alice(server: Served) -> AsyncIterator[Any]:
    client = server.client(token("alice"))
    yield client
    await client.aclose()


@pytest.fixture
async def bob(server: Served) -> AsyncIterator[Any]:
    client = server.client(token("bob"))
    yield client
    await client.aclose()


async def status_of(call: Awaitable[Any]) -> tuple[int, str]:
    """The HTTP status and body a refused call got (200 and '' when it was not refused)."""
    try:
        await call
    except httpx.HTTPStatusError as exc:  # the SDK's APIStatusError, or httpx's own (runs.wait)
        return exc.response.status_code, exc.response.text
    return 200, ""


def _ask(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


async def _paused_note(client: Any, title: str) -> str:
    """A thread of `client`'s waiting for approval of a note titled `title`."""
    thread = await client.threads.create()
    await client.runs.wait(
        thread["thread_id"], GRAPH, input=_ask(f'{STOCK}, then write a note titled "{title}"')
    )
    return str(thread["thread_id"])


@pytest.mark.parametrize(
    "bearer",
    [None, token("alice", secret="forged-" + "y" * 30), token("alice", ttl_s=-300), "abc.def"],
    ids=["no-token", "forged", "expired", "malformed"],
)
async def test_a_client_that_is_no_one_gets_401(server: Served, bearer: str | None) -> None:
    client = server.client(bearer)
    try:
        status, body = await status_of(client.threads.search())
    finally:
        await client.aclose()
    assert status == 401, body


@pytest.mark.parametrize(
    ("bearer", "says"),
    [
        (token("alice", roles=tuple(f"role-{n:05}" for n in range(800))), "over 8,192 bytes"),
        (token("alice", roles=tuple(f"r{n}" for n in range(65))), "over 64 roles"),
    ],
    ids=["over-8-kb", "65-roles"],
)
async def test_a_token_too_large_or_with_too_many_roles_gets_401_saying_so(
    server: Served, bearer: str, says: str
) -> None:
    client = server.client(bearer)
    try:
        status, body = await status_of(client.threads.search())
    finally:
        await client.aclose()
    assert status == 401, body
    assert says in body


async def test_a_token_naming_an_api_keys_holder_gets_401_and_the_key_still_works(
    server: Served,
) -> None:
    """A token's `sub` may not become an API key's caller (keys and tokens are kept apart)."""
    posing = server.client(token(KEY_NAME, roles=("ops",)))
    keyed = get_client(url=server.url, api_key=KEY)
    try:
        status, body = await status_of(posing.threads.search())
        thread = await keyed.threads.create()
    finally:
        await posing.aclose()
    assert status == 401, body
    assert f"The token names '{KEY_NAME}', which is the name of an API key" in body
    assert thread["metadata"]["owner"] == KEY_NAME
    await keyed.aclose()


async def test_bob_cannot_reach_alices_thread(alice: Any, bob: Any, workdir: Path) -> None:
    title = f"alice-{os.urandom(4).hex()}"
    thread_id = await _paused_note(alice, title)
    approve = {"decisions": [{"type": "approve"}]}

    assert (await status_of(bob.threads.get(thread_id)))[0] == 404
    assert (await status_of(bob.threads.get_state(thread_id)))[0] == 404
    listed = [t["thread_id"] for t in await bob.threads.search(limit=100)]
    assert thread_id not in listed
    assert (await status_of(bob.runs.wait(thread_id, GRAPH, command={"resume": approve})))[0] == 404
    runs = await alice.runs.list(thread_id)
    assert (await status_of(bob.runs.cancel(thread_id, runs[0]["run_id"])))[0] == 404
    assert (await status_of(bob.threads.delete(thread_id)))[0] == 404

    # Nothing Bob did reached it: Alice's question still waits, her note is not written.
    assert interrupts_of(await alice.threads.get_state(thread_id))
    notes = workdir / "notes.json"
    assert title not in (notes.read_text() if notes.exists() else "")


async def test_alices_own_approval_writes_the_note_once(alice: Any, workdir: Path) -> None:
    title = f"own-{os.urandom(4).hex()}"
    thread_id = await _paused_note(alice, title)

    await alice.runs.wait(
        thread_id, GRAPH, command={"resume": {"decisions": [{"type": "approve"}]}}
    )

    assert title in json.loads((workdir / "notes.json").read_text())
    writes = (workdir / "notes.log").read_text().splitlines()
    assert len([line for line in writes if title in line]) == 1


def trail_of(found: dict[str, Any], thread_id: str) -> list[tuple[str, str, str | None]]:
    """Who, what and which decision, for one thread's entries among `found` (oldest first)."""
    entries = sorted((i["value"] for i in found["items"]), key=lambda e: (e["at"], e["id"]))
    return [(e["user"], e["event"], e["decision"]) for e in entries if e["thread_id"] == thread_id]


async def test_the_audit_trail_is_read_by_its_owner_and_an_auditor_through_the_store_api(
    server: Served, alice: Any, bob: Any, tmp_path: Path
) -> None:
    thread_id = await _paused_note(alice, f"audited-{os.urandom(4).hex()}")
    await alice.runs.wait(
        thread_id, GRAPH, command={"resume": {"decisions": [{"type": "approve"}]}}
    )
    expected = [("alice", "asked", None), ("alice", "answered", "approve")]

    mine = await alice.store.search_items(["mcp_planner", "audit", "alice"], limit=100)
    assert trail_of(mine, thread_id) == expected
    auditor = server.client(token("audrey", roles=("auditor",)))
    try:
        everyone = await auditor.store.search_items(
            ["mcp_planner", "audit"], filter={"thread_id": thread_id}, limit=100
        )
        listed = await auditor.store.list_namespaces(prefix=["mcp_planner", "audit"])
    finally:
        await auditor.aclose()
    assert trail_of(everyone, thread_id) == expected
    assert ["mcp_planner", "audit", "alice"] in listed["namespaces"]
    assert (await status_of(bob.store.search_items(["mcp_planner", "audit", "alice"])))[0] == 403
    assert (await status_of(bob.store.search_items(["mcp_planner", "audit"])))[0] == 403
    forged = alice.store.put_item(["mcp_planner", "audit", "alice"], "k", {"thread_id": thread_id})
    assert (await status_of(forged))[0] == 403

    # The command and the SDK example read the same trail, with Alice's token.
    mine_only = ("--user", "alice", "--thread", thread_id, "--token", token("alice"))
    command = planner(tmp_path, "audit", "--server", server.url, "--json", *mine_only)
    assert command.returncode == 0, command.stderr
    assert [(e["user"], e["event"], e["decision"]) for e in json.loads(command.stdout)] == expected
    refused = planner(tmp_path, "audit", "--server", server.url, "--token", token("alice"))
    assert refused.returncode == 2
    assert "the auditor role" in " ".join((refused.stdout + refused.stderr).split())
    example = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "audit_client.py"), server.url, *mine_only],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert example.returncode == 0, example.stderr
    assert f"alice {thread_id} answered notes/write_note" in example.stdout


async def test_bob_cannot_read_or_write_alices_store_items(alice: Any, bob: Any) -> None:
    await alice.store.put_item(["alice", "notes"], "k", {"v": 1})

    assert (await status_of(bob.store.get_item(["alice", "notes"], "k")))[0] == 403
    assert (await status_of(bob.store.put_item(["alice", "notes"], "k", {"v": 2})))[0] == 403
    assert (await status_of(bob.store.search_items(["alice"])))[0] == 403
    for kind in ("runs", "trust", "results", "seen", "call_ledger", "audit", "conversation"):
        status, _ = await status_of(bob.store.search_items(["mcp_planner", kind, "alice"]))
        assert status == 403
    for owner in ("bob", "alice"):
        for kind in ("trust", "audit"):
            forged = bob.store.put_item(["mcp_planner", kind, owner], "k", {"tool": "write_note"})
            assert (await status_of(forged))[0] == 403
        erased = bob.store.delete_item(["mcp_planner", "audit", owner], "k")
        assert (await status_of(erased))[0] == 403
    assert (await status_of(bob.store.list_namespaces(prefix=["mcp_planner"])))[0] == 403
    assert (await status_of(bob.store.search_items(["mcp_planner"])))[0] == 403
    assert (await alice.store.get_item(["alice", "notes"], "k"))["value"] == {"v": 1}
    found = await alice.store.search_items(["alice", "notes"])
    assert [(i["key"], i["value"]) for i in found["items"]] == [("k", {"v": 1})]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("approval_mode", "auto"),
        ("guardrails", {"deny_private_urls": False}),
        ("model", "offline:rules"),
        ("planner_model", "offline:rules"),
        ("user_id", "alice"),
    ],
)
async def test_a_client_cannot_configure_the_server(bob: Any, field: str, value: Any) -> None:
    thread = await bob.threads.create()
    run = bob.runs.wait(thread["thread_id"], GRAPH, input=_ask(STOCK), context={field: value})
    status, body = await status_of(run)
    assert status == 403, body
    assert repr(field) in body


async def test_a_client_cannot_choose_the_commands_the_server_runs(
    bob: Any, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    evil = {"mcpServers": {"x": {"command": "sh", "args": ["-c", f"id > {marker}"]}}}
    thread = await bob.threads.create()
    run = bob.runs.wait(thread["thread_id"], GRAPH, input=_ask(STOCK), context={"mcp_config": evil})
    status, body = await status_of(run)
    assert status == 403
    assert "'mcp_config'" in body
    assert not marker.exists()


async def test_a_client_may_tighten_to_plan_only(bob: Any, workdir: Path) -> None:
    title = f"held-{os.urandom(4).hex()}"
    thread = await bob.threads.create()
    held = await bob.runs.wait(
        thread["thread_id"],
        GRAPH,
        input=_ask(f'{STOCK}, then write a note titled "{title}"'),
        context={"approval_mode": "plan_only", "user_id": "bob"},
    )
    (call,) = held["deferred"]
    assert call["args"]["title"] == title
    notes = workdir / "notes.json"
    assert title not in (notes.read_text() if notes.exists() else "")


async def test_an_assistant_cannot_carry_server_configuration(bob: Any, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    evil = {"mcpServers": {"x": {"command": "sh", "args": ["-c", f"id > {marker}"]}}}
    created = bob.assistants.create(GRAPH, context={"mcp_config": evil})
    status, body = await status_of(created)
    assert status == 403
    assert "'mcp_config'" in body
    assert not marker.exists()


async def test_a_run_without_a_thread_is_checked_too(bob: Any) -> None:
    run = bob.runs.wait(None, GRAPH, input=_ask(STOCK), context={"approval_mode": "auto"})
    status, body = await status_of(run)
    assert status == 403
    assert "'approval_mode'" in body


async def test_a_run_is_remembered_for_the_signed_in_user(
    server: Served, alice: Any, bob: Any, request: pytest.FixtureRequest
) -> None:
    if server.name == "aegra":
        request.applymarker(pytest.mark.xfail(strict=True, reason=AEGRA_SCOPES_THE_STORE_API))
    question = f"How many units of WID-1 are in stock ({os.urandom(3).hex()})"
    thread = await alice.threads.create()
    await alice.runs.wait(thread["thread_id"], GRAPH, input=_ask(question))

    mine = await alice.store.search_items(["mcp_planner", "runs", "alice"], limit=100)
    assert question in [i["value"]["question"] for i in mine["items"]]
    status, _ = await status_of(bob.store.search_items(["mcp_planner", "runs", "alice"]))
    assert status == 403


async def test_auth_settings_that_do_not_fit_stop_aegra_not_serve_it_open(tmp_path: Path) -> None:
    # Aegra logs an auth module that fails to load and serves with no auth: the setting's
    # sentence must stop it instead.
    async with aegra_cluster(tmp_path, AUTH_JWKS_URL="https://idp.example.com/jwks") as cluster:
        with pytest.raises(RuntimeError, match="exited") as caught:
            await cluster.add()
    assert "AUTH_JWKS_URL needs AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE" in str(caught.value)


async def test_a_client_cannot_write_its_threads_state(bob: Any, tmp_path: Path) -> None:
    # The turn's settings and the approvals live in the state: writing it would skip every
    # check of the run context (and the approval).
    marker = tmp_path / "marker"
    evil = {"mcpServers": {"x": {"command": "sh", "args": ["-c", f"id > {marker}"]}}}
    forged = {"turn": {"run_context": {"mcp_config": evil, "approval_mode": "auto"}}}
    thread_id = (await bob.threads.create())["thread_id"]
    await bob.runs.wait(thread_id, GRAPH, input=_ask(STOCK))

    for write in (
        bob.threads.update_state(thread_id, forged),
        bob.threads.update_state(thread_id, forged, as_node="planner"),
        bob.runs.wait(thread_id, GRAPH, command={"update": forged, "goto": "planner"}),
        bob.runs.wait(thread_id, GRAPH, command={"goto": "advance"}),
    ):
        status, body = await status_of(write)
        assert status == 403, body
        assert "state is written by the graph only" in body
    assert not marker.exists()
    assert str(marker) not in str((await bob.threads.get_state(thread_id))["values"])


@pytest.mark.parametrize("key", ["langgraph_auth_user_id", "langgraph_auth_user"])
async def test_a_client_cannot_name_its_identity_in_the_config(
    server: Served, alice: Any, bob: Any, key: str
) -> None:
    # The server sets these keys to the signed-in user: one a client sends is refused, or
    # overwritten (LangGraph does so before the auth handler sees it); never Alice's run.
    # Aegra keeps a client's `langgraph_auth_user_id`, and its Store API cannot show whose
    # records a run wrote, so there the refusal itself is checked.
    question = f"How many units of WID-1 are in stock ({os.urandom(3).hex()})"
    configurable = {key: "alice" if key.endswith("_id") else {"identity": "alice"}}
    thread = await bob.threads.create()
    run = bob.runs.wait(
        thread["thread_id"], GRAPH, input=_ask(question), config={"configurable": configurable}
    )
    status, body = await status_of(run)

    if server.name == "aegra":
        assert status == 403, body
        return
    assert status in (200, 403), body
    bobs = await bob.store.search_items(["mcp_planner", "runs", "bob"], limit=100)
    alices = await alice.store.search_items(["mcp_planner", "runs", "alice"], limit=100)
    assert question not in [i["value"]["question"] for i in alices["items"]]
    if status == 200:
        assert question in [i["value"]["question"] for i in bobs["items"]]


async def test_the_owner_may_still_cancel_a_run_and_label_a_thread(alice: Any) -> None:
    thread_id = (await alice.threads.create())["thread_id"]
    run = await alice.runs.create(thread_id, GRAPH, input=_ask(STOCK))

    status, body = await status_of(alice.runs.cancel(thread_id, run["run_id"]))
    assert status != 403, body  # 200, or 404/409 when the run ended first
    await alice.threads.update(thread_id, metadata={"label": "mine"})
    assert (await alice.threads.get(thread_id))["metadata"]["label"] == "mine"


async def test_a_client_cannot_hand_its_thread_to_another_user(alice: Any, bob: Any) -> None:
    thread_id = (await bob.threads.create())["thread_id"]
    await bob.threads.update(thread_id, metadata={"owner": "alice", "label": "x"})

    assert (await status_of(alice.threads.get(thread_id)))[0] == 404
    assert (await bob.threads.get(thread_id))["metadata"]["label"] == "x"
