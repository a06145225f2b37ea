"""The served clients (examples/sdk_client.py, examples/audit_client.py, `mcp-planner --server`):
one line when the server is down or refuses the token, commands that can be pasted, only what
waits offered, and the bearer token sent (never printed).

The server is a small local HTTP server that answers the few SDK calls these commands make and
records the headers it was sent; the full path runs against `langgraph dev` in
test_docs_commands.py and test_cli_server.py, and here against one `langgraph dev` with auth
(an HS256 secret and an API key) for what the server itself says: its 401 and 403 sentences, the
API key sent as x-api-key, a token made by `mcp-planner token`.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import jwt
import pytest
from werkzeug import Request, Response

from common.served.tokens import api_key_entry
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
        self.keys: list[str | None] = []
        """The x-api-key header of each request."""

    def _answer(self, request: Request) -> Response:
        """The probe, the thread's state (GET); thread search: none, store search: one entry,
        assistant search: the graph's."""
        self.seen.append(request.headers.get("Authorization"))
        self.keys.append(request.headers.get("x-api-key"))
        path = sent_path(request)
        if request.method == "GET":
            interrupts = [{"id": "i" * 32, "value": self.waiting}] if self.waiting else []
            state = {"values": {"messages": []}, "next": [], "tasks": [{"interrupts": interrupts}]}
            body: Any = state if "/state" in path else {"ok": True}
        elif path == "/assistants/search":  # the clients' check that it serves the graph
            body = [{"assistant_id": "a" * 8, "graph_id": "with_planner"}]
        else:
            body = {"items": [{"value": ENTRY}]} if path.startswith("/store") else []
        # Anyone the server knows may search its assistants (common.served.handlers): a 403 or
        # a 404 is for what comes after; a 401 refuses every request.
        listed = path == "/assistants/search" and self.status != 401
        status = 200 if path == "/ok" or listed else self.status
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


CREDENTIALS = ("MCP_PLANNER_TOKEN", "MCP_PLANNER_API_KEY")
"""The client settings a developer's shell may hold; a test gives its own."""


def run(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """A command with no terminal and no token or API key in the environment unless given."""
    base = {k: v for k, v in os.environ.items() if k not in CREDENTIALS}
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


def test_a_tracing_key_in_the_environment_is_never_sent_to_the_server(
    approval: Recorder, tmp_path: Path
) -> None:
    """The SDK sends LANGSMITH_API_KEY as x-api-key unless told otherwise: not this server's."""
    tracing = {"LANGSMITH_API_KEY": "lsv2-tracing", "LANGGRAPH_API_KEY": "lg-other"}
    planner = run([str(BIN / "mcp-planner"), "threads", "--server", approval.url, "--token",
                   TOKEN], tmp_path, **tracing)  # fmt: skip
    sdk = example(approval.url, "--token", TOKEN, cwd=tmp_path, **tracing)
    keyed = run([str(BIN / "mcp-planner"), "threads", "--server", approval.url], tmp_path,
                MCP_PLANNER_API_KEY="mine", **tracing)  # fmt: skip

    assert planner.returncode == 0, planner.stderr
    assert sdk.returncode == 3, sdk.stderr
    assert keyed.returncode == 0, keyed.stderr
    assert set(approval.keys) == {None, "mine"}
    assert f"Bearer {TOKEN}" in approval.seen


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


SECRET = "clients-secret-" + "z" * 24
"""The served instance's AUTH_JWT_SECRET."""
API_KEY = "ci-key-5b1e-never-printed"
"""An API key the served instance knows, named ci-bot."""
STOCK = "How many units of GAD-7 are in stock"
EXPIRED = "The token has expired: sign in again for a new one."


def bearer(sub: str, ttl_s: int = 600) -> str:
    """An HS256 token of the served instance for `sub`, valid `ttl_s` from now."""
    return jwt.encode({"sub": sub, "exp": int(time.time()) + ttl_s}, SECRET, "HS256")


@pytest.fixture(scope="module")
async def served(
    tmp_path_factory: pytest.TempPathFactory, mcp_config: dict[str, Any]
) -> AsyncIterator[str]:
    """One `langgraph dev` with auth for the module: HS256 tokens and ci-bot's API key."""
    folder = tmp_path_factory.mktemp("served-clients")
    experts = {k: mcp_config["mcpServers"][k] for k in ("inventory", "notes")}
    (folder / "mcp.json").write_text(json.dumps({"mcpServers": experts}))
    env = {
        "AUTH_JWT_SECRET": SECRET,
        "AUTH_API_KEYS": api_key_entry("ci-bot", ("ops",), API_KEY),
        "MCP_CONFIG": str(folder / "mcp.json"),
        "SERVED_CONTEXT_FIELDS": "",
    }
    async with langgraph_dev(folder, env=env) as (url, _):
        yield url


def clean_env(**given: str) -> dict[str, str]:
    """The environment of `run`, for `invoke_cli`: no credentials but those given."""
    return {**{k: v for k, v in os.environ.items() if k not in CREDENTIALS}, **given}


async def test_a_field_the_server_keeps_is_its_one_sentence_not_a_token_problem(
    served: str, tmp_path: Path, mcp_config: dict[str, Any]
) -> None:
    # A default server with auth refuses mcp_config, models and a looser mode from clients:
    # the user reads the server's sentence naming the field, once, and exit 2.
    servers = {k: mcp_config["mcpServers"][k] for k in ("inventory", "notes")}
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    token, url = bearer("carol"), served
    planner = str(BIN / "mcp-planner")
    cases = {
        "mcp_config": ["--config", "mcp.json"],
        "model": ["--model", "offline:rules"],
        "approval_mode": ["--mode", "auto"],
    }
    signed_in = clean_env(MCP_PLANNER_TOKEN=token)
    # The first refusal as a real process; what the others say is the subject: in-process.
    refused = {
        field: invoke_cli(["run", STOCK, "--server", url, *options], tmp_path, signed_in)
        for field, options in cases.items()
        if field != "mcp_config"
    }
    refused["mcp_config"] = run(
        [planner, "run", STOCK, "--server", url, *cases["mcp_config"]],
        tmp_path,
        MCP_PLANNER_TOKEN=token,
    )
    sdk = run(
        [sys.executable, str(EXAMPLE), url, STOCK, "--config", "mcp.json"],
        tmp_path,
        MCP_PLANNER_TOKEN=token,
    )
    plain = invoke_cli(["run", STOCK, "--server", url], tmp_path, signed_in)

    for field, done in {**refused, "mcp_config (sdk_client)": sdk}.items():
        assert done.returncode == 2, (field, done.stderr)
        line = one_line(done)
        assert f"The run context field {field.split()[0]!r}" in line, line
        assert "MCP_PLANNER_TOKEN" not in line
    assert "SERVED_CONTEXT_FIELDS" in one_line(refused["mcp_config"])
    assert plain.returncode == 0, plain.stderr


async def test_mcp_planner_with_an_api_key_runs_and_lists_the_keys_threads(
    served: str, tmp_path: Path
) -> None:
    """The key is who calls: its runs are listed with it, and not to a token's user."""
    ran = run([str(BIN / "mcp-planner"), "run", STOCK, "--server", served, "--json"], tmp_path,
              MCP_PLANNER_API_KEY=API_KEY)  # fmt: skip
    keyed = invoke_cli(["threads", "--server", served, "--json"], tmp_path,
                       clean_env(MCP_PLANNER_API_KEY=API_KEY))  # fmt: skip
    someone = invoke_cli(["threads", "--server", served, "--json"], tmp_path,
                         clean_env(MCP_PLANNER_TOKEN=bearer("dave")))  # fmt: skip

    assert ran.returncode == 0, ran.stderr
    thread = json.loads(ran.stdout)["thread_id"]
    assert keyed.returncode == 0, keyed.stderr
    assert thread in [row["thread_id"] for row in json.loads(keyed.stdout)]
    assert someone.returncode == 0, someone.stderr
    assert thread not in someone.stdout
    assert API_KEY not in ran.stdout + ran.stderr + keyed.stdout + keyed.stderr


async def test_an_expired_token_is_the_servers_sentence_and_exit_2(
    served: str, tmp_path: Path
) -> None:
    expired = bearer("alice", ttl_s=-300)  # past the server's 30 s leeway
    cli = run([str(BIN / "mcp-planner"), "threads", "--server", served], tmp_path,
              MCP_PLANNER_TOKEN=expired)  # fmt: skip
    resumed = invoke_cli(["resume", THREAD, "--server", served, "--approve"], tmp_path,
                         clean_env(MCP_PLANNER_TOKEN=expired))  # fmt: skip
    sdk = example(served, "--token", expired, cwd=tmp_path)

    assert cli.returncode == 2, cli.stderr
    assert one_line(cli) == f"The server at {served} refused the token (401): {EXPIRED}"
    assert resumed.returncode == 2, resumed.stderr
    assert one_line(resumed) == f"The server at {served} refused the token (401): {EXPIRED}"
    assert sdk.returncode == 2, sdk.stderr
    assert one_line(sdk) == f"The server at {served} refused the request (401): {EXPIRED}"
    assert expired not in cli.stderr + sdk.stderr + sdk.stdout


async def test_the_example_with_an_api_key_answers_and_with_a_bad_one_says_why(
    served: str, tmp_path: Path
) -> None:
    good = run([sys.executable, str(EXAMPLE), served, STOCK], tmp_path,
               MCP_PLANNER_API_KEY=API_KEY)  # fmt: skip
    bad = run([sys.executable, str(EXAMPLE), served, STOCK], tmp_path,
              MCP_PLANNER_API_KEY="not-" + API_KEY)  # fmt: skip
    nothing = run([sys.executable, str(EXAMPLE), served, STOCK], tmp_path)

    assert good.returncode == 0, good.stderr
    assert "\nAnswer:\n" in good.stdout
    assert "GAD-7" in good.stdout.split("\nAnswer:\n", 1)[1]
    assert bad.returncode == 2, bad.stderr
    assert one_line(bad) == (
        f"The server at {served} refused the request (401): The API key is not known to this "
        "server: ask its operator for one."
    )
    assert nothing.returncode == 2, nothing.stderr
    assert "This server needs a bearer token" in one_line(nothing)
    assert API_KEY not in good.stdout + good.stderr + bad.stdout + bad.stderr


async def test_a_token_from_mcp_planner_token_is_taken_by_the_server(
    served: str, tmp_path: Path
) -> None:
    """The documented round trip: make the token where the server's secret is, then use it."""
    script = (
        "set -e\n"
        "export MCP_PLANNER_TOKEN=$(mcp-planner token erin --role ops --ttl 10m)\n"
        f"mcp-planner run '{STOCK}' --server {served} --json > run.json\n"
        f"mcp-planner threads --server {served} --json\n"
    )
    path = f"{BIN}{os.pathsep}{os.environ['PATH']}"
    env = clean_env(AUTH_JWT_SECRET=SECRET, PATH=path, LANGSMITH_API_KEY="lsv2-tracing")
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip

    assert done.returncode == 0, done.stderr
    thread = json.loads((tmp_path / "run.json").read_text())["thread_id"]
    assert [row["thread_id"] for row in json.loads(done.stdout)] == [thread]
