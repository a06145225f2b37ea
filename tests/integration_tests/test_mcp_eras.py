"""MCP server eras by transports: what works, through the registry and the graph.

Three eras of server (`tests/servers/era_*.py`, each with a read-only `get_stock` and a
destructive `write_note` that appends a line per write to the file `ERA_NOTES` names):
- `both`: a 2.x SDK `MCPServer`, serving the 2025 `initialize` handshake and the 2026-07-28
  revision alike;
- `2026-only`: the same server refusing `initialize` (UNSUPPORTED_PROTOCOL_VERSION, naming
  2026-07-28), as a server of the new revision only does;
- `2025-only`: FastMCP of the 1.x SDK, run from `.venv-mcp1` (`make third-party`).
Each over stdio, streamable HTTP stateless, and streamable HTTP with sessions (except the
2026-only server: the revision has no sessions, `test_session_ids` shows the SDK issues none).
Each HTTP server starts once per module, on demand. `docs/mcp-eras.md` is the table these
tests back; keep the two in step.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from common.mcp.config import McpConfigError, parse_mcp_config
from common.mcp.errors import ExpertUnavailable
from common.mcp.registry import get_registry
from tests.bounds import HANG_GUARD_S
from tests.conftest import service_unavailable
from tests.integration_tests.helpers import drop_pooled, free_port, pooled
from tests.unit_tests.helpers import Thread, plan, unique

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SERVERS = ROOT / "tests" / "servers"
MCP1_PYTHON = Path(os.environ.get("MCP1_PYTHON", ROOT / ".venv-mcp1" / "bin" / "python"))
"""The interpreter of the 1.x SDK's venv (`make third-party`)."""
EXPERT = "shop"
MODERN = "2026-07-28"
STARTUP_S = HANG_GUARD_S
APPROVE = {"decisions": [{"type": "approve"}]}
ANSWER = "The note is written."


@dataclass(frozen=True)
class Era:
    """One era of server: its scripts, the interpreter that runs them, and what `auto` gets."""

    script: str
    """Its stdio server under tests/servers."""
    http_script: str
    """The script serving it over HTTP (`--http PORT`), among others."""
    http_path: str
    """Its endpoint there, `{kind}` being `stateless` or `sessions`."""
    label: str
    """The name it gives itself (in `get_stock`'s answer)."""
    negotiated: str
    """The protocol version `"protocol": "auto"` negotiates with it."""
    mcp1: bool = False
    """Whether it runs on the 1.x SDK (from `.venv-mcp1`)."""

    def python(self) -> str:
        """Its interpreter; skips the test when the 1.x venv is missing."""
        if not self.mcp1:
            return sys.executable
        if not MCP1_PYTHON.exists():
            service_unavailable(f"{MCP1_PYTHON} is missing (run `make third-party`)")
        return str(MCP1_PYTHON)


ERAS = {
    "both": Era("era_v2.py", "era_v2.py", "/both/{kind}/mcp", "era-both", MODERN),
    "2026-only": Era(
        "era_modern_only.py", "era_v2.py", "/2026-only/{kind}/mcp", "era-2026-only", MODERN
    ),
    "2025-only": Era(
        "era_v1.py", "era_v1.py", "/{kind}/mcp", "era-2025-only", LATEST_HANDSHAKE_VERSION, True
    ),
}
TRANSPORTS = ("stdio", "http-stateless", "http-sessions")
CELLS = [
    pytest.param(era, transport, id=f"{era}-{transport}")
    for era in ERAS
    for transport in TRANSPORTS
    # The 2026-07-28 revision has no sessions: see test_session_ids.
    if (era, transport) != ("2026-only", "http-sessions")
]


@dataclass
class HttpServer:
    """One process serving era servers over streamable HTTP (see its script's doc)."""

    proc: subprocess.Popen[bytes]
    port: int
    log: Path
    listening: bool = False

    def wait(self) -> None:
        """Return once it listens (at once after the first time)."""
        deadline = time.monotonic() + STARTUP_S
        while not self.listening:
            if self.proc.poll() is not None:
                tail = self.log.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{tail}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"server did not listen on {self.port} in {STARTUP_S:g}s")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    self.listening = True
            except OSError:
                time.sleep(0.05)


@dataclass
class EraServers:
    """The module's era servers: HTTP ones started on first use, configs to reach each."""

    dir: Path
    """Where their notes files and logs live."""
    http: dict[str, HttpServer] = field(default_factory=dict)
    """HTTP server processes by script."""
    handed_out: list[dict[str, Any]] = field(default_factory=list)
    """Every config given to a test, whose pooled session is closed with the module."""

    def notes(self, era: str, transport: str) -> Path:
        """The file the server of `era` over `transport` appends its notes to."""
        # Over HTTP one process serves several eras: they share its file.
        return self.dir / f"notes-{ERAS[era].http_script if transport != 'stdio' else era}.txt"

    def config(self, era: str, transport: str, protocol: str = "auto") -> dict[str, Any]:
        """An `mcpServers` document naming that server `shop`, with `protocol`."""
        spec = ERAS[era]
        python = spec.python()
        entry: dict[str, Any]
        if transport == "stdio":
            entry = {
                "command": python,
                "args": [str(SERVERS / spec.script)],
                "env": {"ERA_NOTES": str(self.notes(era, transport))},
            }
        else:
            server = self._http(spec.http_script, python, self.notes(era, transport))
            server.wait()
            path = spec.http_path.format(kind=transport.removeprefix("http-"))
            entry = {"url": f"http://127.0.0.1:{server.port}{path}"}
        entry.update(protocol=protocol, description=f"Stock and notes ({era} era, {transport}).")
        raw = {"mcpServers": {EXPERT: entry}}
        self.handed_out.append(raw)
        return raw

    def _http(self, script: str, python: str, notes: Path) -> HttpServer:
        if script not in self.http:
            port = free_port()
            log = self.dir / f"{script}.log"
            env = {**os.environ, "ERA_NOTES": str(notes)}
            with log.open("wb") as out:
                proc = subprocess.Popen(
                    [python, str(SERVERS / script), "--http", str(port)],
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            self.http[script] = HttpServer(proc, port, log)
        return self.http[script]

    async def close(self) -> None:
        """Close the sessions handed out, then stop the HTTP servers."""
        for raw in self.handed_out:
            await drop_pooled(raw, EXPERT)
        for server in self.http.values():
            server.proc.terminate()
        for server in self.http.values():
            try:
                server.proc.wait(10)
            except subprocess.TimeoutExpired:
                server.proc.kill()
                server.proc.wait(10)


@pytest.fixture(scope="module")
async def eras(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[EraServers]:
    servers = EraServers(tmp_path_factory.mktemp("eras"))
    try:
        yield servers
    finally:
        await servers.close()


def written(notes: Path, name: str) -> list[str]:
    """The lines the server wrote for note `name`."""
    lines = notes.read_text(encoding="utf-8").splitlines() if notes.exists() else []
    return [line for line in lines if line.split("\t", 1)[0] == name]


async def negotiated(raw: dict[str, Any]) -> str:
    """The protocol version of the pooled session of `shop` (opened by an earlier lookup)."""
    session = pooled(raw, EXPERT)
    assert session is not None
    return (await session.ensure_open()).protocol_version


# --- Each cell: an era over a transport ------------------------------------------------------


@pytest.mark.parametrize(("era", "transport"), CELLS)
async def test_listed(eras: EraServers, era: str, transport: str) -> None:
    raw = eras.config(era, transport)
    registry = get_registry(parse_mcp_config(raw))

    tools = {t.name: t for t in await registry.tools(EXPERT)}

    assert set(tools) == {"get_stock", "write_note", "survey", "reserve", "verify_identity"}
    read, write = tools["get_stock"].annotations, tools["write_note"].annotations
    assert read is not None
    assert read.read_only_hint is True
    assert write is not None
    assert write.read_only_hint is False
    assert write.destructive_hint is True
    assert await negotiated(raw) == ERAS[era].negotiated


@pytest.mark.parametrize(("era", "transport"), CELLS)
async def test_read_runs(eras: EraServers, era: str, transport: str) -> None:
    registry = get_registry(parse_mcp_config(eras.config(era, transport)))

    result = await registry.call(EXPERT, "get_stock", {"item": "wid-1"}, 20, retry_safe=True)

    assert result["status"] == "ok", result
    assert result["content"] == f"WID-1: 120 units in stock ({ERAS[era].label})"


@pytest.mark.parametrize(("era", "transport"), CELLS)
async def test_write_is_held_then_runs_once_when_approved(
    eras: EraServers, scripted: Any, era: str, transport: str
) -> None:
    notes, name = eras.notes(era, transport), unique("note")
    args = {"name": name, "text": "WID-1 has 120 units"}
    step: dict[str, Any] = {"id": "t1", "expert": EXPERT, "task": "Write it.", "tool": "write_note"}
    step["args"] = args
    ctx, _ = scripted(planner=[plan(step)], response=[ANSWER])
    ctx["mcp_config"] = eras.config(era, transport)
    thread = Thread(ctx)

    await thread.send("Write a note that WID-1 has 120 units.")

    (request,) = await thread.interrupts()
    (action,) = request["action_requests"]
    assert (action["name"], action["args"]) == ("write_note", args)
    assert written(notes, name) == []

    await thread.resume(APPROVE)

    assert await thread.interrupts() == []
    assert written(notes, name) == [f"{name}\tWID-1 has 120 units"]
    (task,) = (await thread.values())["previous_plan"]
    assert task["status"] == "completed", task
    assert (await thread.answer()).content == ANSWER


# --- The per-server `protocol` setting -------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_legacy_on_a_both_era_server_uses_the_2025_handshake(
    eras: EraServers, transport: str
) -> None:
    raw = eras.config("both", transport, protocol="legacy")
    registry = get_registry(parse_mcp_config(raw))

    result = await registry.call(EXPERT, "get_stock", {"item": "wid-1"}, 20, retry_safe=True)

    assert result["status"] == "ok", result
    assert await negotiated(raw) == LATEST_HANDSHAKE_VERSION


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_pinned_2026_on_a_both_era_server(eras: EraServers, transport: str) -> None:
    raw = eras.config("both", transport, protocol=MODERN)
    registry = get_registry(parse_mcp_config(raw))

    result = await registry.call(EXPERT, "get_stock", {"item": "wid-1"}, 20, retry_safe=True)

    assert result["status"] == "ok", result
    assert await negotiated(raw) == MODERN


@pytest.mark.parametrize("transport", ["stdio", "http-stateless"])
async def test_legacy_on_a_2026_only_server_is_unavailable_with_a_reason(
    eras: EraServers, transport: str
) -> None:
    registry = get_registry(parse_mcp_config(eras.config("2026-only", transport, "legacy")))

    with pytest.raises(ExpertUnavailable) as raised:
        await registry.tools(EXPERT)
    result = await registry.call(EXPERT, "get_stock", {"item": "wid-1"}, 20, retry_safe=True)

    reason = str(raised.value)
    assert reason.startswith(f"Expert {EXPERT!r} is unavailable: ")
    assert "initialize is not accepted" in reason
    assert "\n" not in reason
    assert result["status"] == "unavailable"
    assert result["content"] == reason


def test_a_protocol_typo_is_refused_naming_the_key() -> None:
    raw = {"mcpServers": {EXPERT: {"command": "python3", "protocol": "2026"}}}

    with pytest.raises(McpConfigError) as raised:
        parse_mcp_config(raw)

    message = str(raised.value)
    assert f"server {EXPERT!r}, key 'protocol'" in message
    assert "'2026-07-28'" in message


MISMATCHES = [
    pytest.param("2026-only", "stdio", "legacy", id="legacy-on-2026-only-stdio"),
    pytest.param("2025-only", "stdio", MODERN, id="2026-on-2025-only-stdio"),
    pytest.param("2025-only", "http-stateless", MODERN, id="2026-on-2025-only-http"),
]


@pytest.mark.parametrize(("era", "transport", "protocol"), MISMATCHES)
async def test_a_protocol_the_server_lacks_is_named_in_the_reason(
    eras: EraServers, era: str, transport: str, protocol: str
) -> None:
    registry = get_registry(parse_mcp_config(eras.config(era, transport, protocol)))

    with pytest.raises(ExpertUnavailable) as raised:
        await registry.tools(EXPERT)

    reason = raised.value.reason
    assert "check its url" not in reason
    assert f"refused protocol {protocol!r}" in reason, reason
    assert "`protocol` setting of server" in reason, reason
    assert "\n" not in reason


# --- Which servers issue session ids ----------------------------------------------------------


SESSIONS = [
    # The 1.x server opens a session for the `server/discover` probe it then refuses (400), so
    # `auto` leaves one unused session behind on it: two ids, where `legacy` costs one.
    pytest.param("2025-only", "http-sessions", "auto", 2, id="2025-only-sessions-auto"),
    pytest.param("2025-only", "http-sessions", "legacy", 1, id="2025-only-sessions-legacy"),
    pytest.param("both", "http-sessions", "legacy", 1, id="both-sessions-legacy"),
    pytest.param("both", "http-sessions", "auto", 0, id="both-sessions-auto"),
    pytest.param("2026-only", "http-sessions", "auto", 0, id="2026-only-sessions-auto"),
    pytest.param("both", "http-stateless", "legacy", 0, id="both-stateless-legacy"),
]


@pytest.mark.parametrize(("era", "transport", "mode", "issued"), SESSIONS)
async def test_session_ids(
    eras: EraServers, era: str, transport: str, mode: Any, issued: int
) -> None:
    url = eras.config(era, transport)["mcpServers"][EXPERT]["url"]
    ids: set[str] = set()

    async def note(response: Any) -> None:
        if session_id := response.headers.get("mcp-session-id"):
            ids.add(session_id)

    async with create_mcp_http_client() as http:
        http.event_hooks["response"].append(note)
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            await client.list_tools()
            result = await client.call_tool("get_stock", {"item": "wid-1"})

    assert not result.is_error
    assert len(ids) == issued, ids
