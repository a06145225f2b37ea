"""The served clients (examples/sdk_client.py, examples/audit_client.py, `mcp-planner --server`):
one line when the server is down or refuses the token, commands that can be pasted, only what
waits offered, and the bearer token sent (never printed).

The server is a small local HTTP server that answers the few SDK calls these commands make and
records the headers it was sent; the full path runs against `langgraph dev` in
test_docs_commands.py and test_cli_server.py.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jwt
import pytest
from werkzeug import Request, Response

from tests.http_stub import StubServer, json_response, sent_path
from tests.integration_tests.helpers import free_port, langgraph_dev
from tests.unit_tests.helpers import invoke_cli

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
EXAMPLE = ROOT / "examples" / "sdk_client.py"
THREAD = "00000000-0000-4000-8000-000000000001"
TOKEN = "tok-3f9a-never-printed"
REQUEST = 'How many units of WID-1 are in stock, then write a note titled "it\'s mine"'

APPROVAL = {
    "action_requests": [{"name": "write_note", "args": {"title": "x"}, "description": "d"}],
    "review_configs": [{"action_name": "write_note", "allowed_decisions": ["approve", "reject"]}],
}
QUESTION = {
    "action_requests": [{"name": "ask_user", "args": {"question": "Which?"}, "description": "d"}],
    "review_configs": [{"action_name": "ask_user", "allowed_decisions": ["respond", "reject"]}],
}
ENTRY = {
    "id": "e" * 64,
    "at": "2026-11-26T13:00:00.000000+00:00",
    "user": "alice",
    "thread_id": THREAD,
    "event": "answered",
    "expert": "notes",
    "tool": "write_note",
    "task_id": "t2",
    "args_digest": "a" * 64,
    "decision": "approve",
    "why": None,
    "edit_digest": None,
    "answer_digest": None,
    "remember": False,
}


class Recorder(StubServer):
    """A stand-in server: what it answers, and the Authorization headers it was sent."""

    def __init__(self, waiting: dict[str, Any] | None, status: int = 200) -> None:
        super().__init__(self._answer, methods=("GET", "POST"))
        self.waiting = waiting
        """The interrupt value the thread waits on (None: nothing waits)."""
        self.status = status
        """The status of every answer but the probe's (401, 403 to refuse the token)."""
        self.seen: list[str | None] = []
        """The Authorization header of each request."""

    def _answer(self, request: Request) -> Response:
        """The probe, the thread's state (GET); thread search: none, store search: one entry."""
        self.seen.append(request.headers.get("Authorization"))
        path = sent_path(request)
        if request.method == "GET":
            interrupts = [{"id": "i" * 32, "value": self.waiting}] if self.waiting else []
            state = {"values": {"messages": []}, "next": [], "tasks": [{"interrupts": interrupts}]}
            body: Any = state if "/state" in path else {"ok": True}
        else:
            body = {"items": [{"value": ENTRY}]} if path.startswith("/store") else []
        status = 200 if path == "/ok" else self.status
        return json_response(body if status == 200 else {"detail": "Unauthorized"}, status)


def serving(waiting: dict[str, Any] | None, status: int = 200) -> Iterator[Recorder]:
    """A Recorder running for the test."""
    with Recorder(waiting, status) as server:
        yield server


@pytest.fixture
def approval() -> Iterator[Recorder]:
    yield from serving(APPROVAL)


@pytest.fixture
def question() -> Iterator[Recorder]:
    yield from serving(QUESTION)


def run(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """A command with no terminal and no token in the environment unless given."""
    base = {k: v for k, v in os.environ.items() if k != "MCP_PLANNER_TOKEN"}
    return subprocess.run(
        args,
        cwd=cwd,
        env={**base, **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def example(url: str, *extra: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """examples/sdk_client.py answering THREAD on `url`."""
    return run([sys.executable, str(EXAMPLE), url, REQUEST, "--thread", THREAD, *extra], cwd, **env)


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The one line a refused command printed (stderr), nothing on stdout."""
    assert "Traceback" not in done.stderr, done.stderr
    (line,) = done.stderr.strip().splitlines()
    return line


def test_the_example_with_no_server_is_one_line_and_exit_2(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    done = run([sys.executable, str(EXAMPLE), url, REQUEST], tmp_path)

    assert done.returncode == 2
    assert one_line(done).startswith(f"Cannot reach the server at {url}: ")
    assert done.stdout == ""


def test_the_printed_approve_command_pastes_back_whole(approval: Recorder, tmp_path: Path) -> None:
    done = example(approval.url, cwd=tmp_path)

    assert done.returncode == 3, done.stderr
    (approve,) = re.findall(r"^Approve: (.*)$", done.stdout, re.M)
    argv = shlex.split(approve)
    assert argv == [sys.executable, str(EXAMPLE), approval.url, REQUEST, "--thread", THREAD,
                    "--approve"]  # fmt: skip
    assert "Answer the question" not in done.stdout


def test_a_waiting_question_offers_only_an_answer(question: Recorder, tmp_path: Path) -> None:
    done = example(question.url, cwd=tmp_path)

    assert done.returncode == 3, done.stderr
    (answer,) = re.findall(r"^Answer the question: (.*)$", done.stdout, re.M)
    assert shlex.split(answer)[-2:] == ["--answer", "TEXT"]
    assert "Approve:" not in done.stdout


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_the_example_sends_the_token_and_never_prints_it(
    approval: Recorder, tmp_path: Path, how: str
) -> None:
    if how == "flag":
        done = example(approval.url, "--token", TOKEN, cwd=tmp_path)
    else:
        done = example(approval.url, cwd=tmp_path, MCP_PLANNER_TOKEN=TOKEN)

    assert done.returncode == 3, done.stderr
    assert f"Bearer {TOKEN}" in approval.seen
    assert TOKEN not in done.stdout + done.stderr


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_token_is_one_line_naming_the_setting(tmp_path: Path, status: int) -> None:
    for server in serving(APPROVAL, status):
        shown = one_line(example(server.url, cwd=tmp_path))
        assert f"({status})" in shown
        assert "--token or MCP_PLANNER_TOKEN" in shown
        cli = run([str(BIN / "mcp-planner"), "threads", "--server", server.url], tmp_path)
        assert cli.returncode == 2
        line = one_line(cli)
        assert str(status) in line
        assert "--token or MCP_PLANNER_TOKEN" in line


def test_a_thread_the_server_does_not_show_you_is_one_line_saying_what_to_check(
    tmp_path: Path,
) -> None:
    """Unknown, or another user's (the server answers 404 for both): the example says so."""
    for server in serving(APPROVAL, 404):
        done = example(server.url, "--approve", cwd=tmp_path)

    assert done.returncode == 2
    assert one_line(done) == (
        f"The server at {server.url} has no thread {THREAD} for your token (404): check the "
        "--thread id, or leave --thread out to start a new run."
    )


def test_the_example_with_a_bad_config_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{bad")
    for server in serving(APPROVAL):
        missing = example(server.url, "--config", "nope.json", cwd=tmp_path)
        broken = example(server.url, "--config", "bad.json", cwd=tmp_path)

    assert missing.returncode == 2
    assert one_line(missing).startswith("Cannot read the MCP config file 'nope.json': ")
    assert broken.returncode == 2
    assert one_line(broken).startswith("The MCP config file 'bad.json' is not valid JSON: ")


def test_mcp_planner_sends_the_token_from_the_flag_or_the_environment(
    approval: Recorder, tmp_path: Path
) -> None:
    planner = str(BIN / "mcp-planner")
    flag = run([planner, "threads", "--server", approval.url, "--token", TOKEN], tmp_path)
    env = run([planner, "audit", "--server", approval.url], tmp_path, MCP_PLANNER_TOKEN="t2")

    assert flag.returncode == 0, flag.stderr
    assert env.returncode == 0, env.stderr
    assert approval.seen.count(f"Bearer {TOKEN}") >= 1
    assert "Bearer t2" in approval.seen
    assert TOKEN not in flag.stdout + flag.stderr
    assert THREAD in env.stdout


def test_audit_refused_for_every_user_says_to_name_your_own(tmp_path: Path) -> None:
    """A token without the auditor role may read only its own trail: the line says how."""
    planner = str(BIN / "mcp-planner")
    for refused in serving(None, status=403):
        everyone = run([planner, "audit", "--server", refused.url, "--token", TOKEN], tmp_path)
        mine = run([planner, "audit", "--server", refused.url, "--user", "alice"], tmp_path)

    assert everyone.returncode == 2, everyone.stderr
    assert "--user" in one_line(everyone)
    assert "auditor" in one_line(everyone)
    assert mine.returncode == 2, mine.stderr
    assert "--user" not in one_line(mine)


def test_the_audit_example_reads_the_servers_trail(approval: Recorder, tmp_path: Path) -> None:
    script = str(ROOT / "examples" / "audit_client.py")
    done = run([sys.executable, script, approval.url, "--token", TOKEN], tmp_path)

    assert done.returncode == 0, done.stderr
    assert f"alice {THREAD} answered notes/write_note args={'a' * 12} approve" in done.stdout
    assert f"Bearer {TOKEN}" in approval.seen
    down = run([sys.executable, script, f"http://127.0.0.1:{free_port()}"], tmp_path)
    assert down.returncode == 2
    assert one_line(down).startswith("Cannot reach the server at ")


async def test_a_field_the_server_keeps_is_its_one_sentence_not_a_token_problem(
    tmp_path: Path, mcp_config: dict[str, Any]
) -> None:
    # A default server with auth refuses mcp_config, models and a looser mode from clients:
    # the user reads the server's sentence naming the field, once, and exit 2.

    secret = "clients-secret-" + "z" * 24
    servers = {k: mcp_config["mcpServers"][k] for k in ("inventory", "notes")}
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    env = {"AUTH_JWT_SECRET": secret, "MCP_CONFIG": str(tmp_path / "mcp.json")}
    bearer = jwt.encode({"sub": "carol", "exp": 2**31 - 1}, secret, "HS256")
    planner, ask = str(BIN / "mcp-planner"), "How many units of GAD-7 are in stock"
    cases = {
        "mcp_config": ["--config", "mcp.json"],
        "model": ["--model", "offline:rules"],
        "approval_mode": ["--mode", "auto"],
    }
    signed_in = {**os.environ, "MCP_PLANNER_TOKEN": bearer}
    async with langgraph_dev(tmp_path, env={**env, "SERVED_CONTEXT_FIELDS": ""}) as (url, _):
        # The first refusal as a real process; what the others say is the subject: in-process.
        refused = {
            field: invoke_cli(["run", ask, "--server", url, *options], tmp_path, signed_in)
            for field, options in cases.items()
            if field != "mcp_config"
        }
        refused["mcp_config"] = run(
            [planner, "run", ask, "--server", url, *cases["mcp_config"]],
            tmp_path,
            MCP_PLANNER_TOKEN=bearer,
        )
        sdk = run(
            [sys.executable, str(EXAMPLE), url, ask, "--config", "mcp.json"],
            tmp_path,
            MCP_PLANNER_TOKEN=bearer,
        )
        plain = invoke_cli(["run", ask, "--server", url], tmp_path, signed_in)

    for field, done in {**refused, "mcp_config (sdk_client)": sdk}.items():
        assert done.returncode == 2, (field, done.stderr)
        line = one_line(done)
        assert f"The run context field {field.split()[0]!r}" in line, line
        assert "MCP_PLANNER_TOKEN" not in line
    assert "SERVED_CONTEXT_FIELDS" in one_line(refused["mcp_config"])
    assert plain.returncode == 0, plain.stderr
