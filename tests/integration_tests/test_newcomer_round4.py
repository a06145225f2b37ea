"""The fourth newcomer round (issue 43): each first step a new user tries ends in one sentence.

Every case is the real `mcp-planner` process, started without a terminal as a script would, in
a fresh folder holding the demo's mcp.json; what is checked is what the user sees: the exit code
docs/cli.md documents, the sentence on stderr, and no traceback. Three of them failed before
their fix: a model endpoint answering a web page (a traceback from inside openai's parser), two
commands driving one thread at once (both ran, one turn's checkpoints lost), and an https URL
given for a plain-HTTP server (an SSL error code instead of the scheme to use).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug import Request, Response

from tests.http_stub import StubServer

pytestmark = pytest.mark.integration

BIN = Path(sys.executable).parent
STOCK = "How many units of WID-1 are in stock"
_CLIENT_VARS = ("OPENAI_", "AZURE_", "ANTHROPIC_", "GOOGLE_", "MCP_PLANNER_", "DATABASE_URI")
"""Environment variables a user's shell might hold that would change the case under test."""


@pytest.fixture
def here(tmp_path: Path, mcp_config: dict[str, Any]) -> Path:
    """A fresh folder holding mcp.json with the inventory and notes demo experts."""
    servers = {k: mcp_config["mcpServers"][k] for k in ("inventory", "notes")}
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return tmp_path


def clean_env() -> dict[str, str]:
    """This process's environment without what a user's shell might hold for a model or server."""
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(_CLIENT_VARS) and not k.endswith("MODEL") and k != "MCP_CONFIG"
    }


def planner(here: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`mcp-planner ARGS` as its own process in `here`: no terminal, no key, `env` added."""
    clean = clean_env()
    return subprocess.run(
        [str(BIN / "mcp-planner"), *args],
        cwd=here,
        env={**clean, **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def one_sentence(done: subprocess.CompletedProcess[str]) -> str:
    """The last line on stderr, after checking that no traceback was printed anywhere."""
    both = done.stdout + done.stderr
    assert "Traceback" not in both, both[-3000:]
    assert "╭─" not in done.stderr, done.stderr[-3000:]
    lines = done.stderr.strip().splitlines()
    assert lines, f"nothing on stderr (exit {done.returncode}): {done.stdout[-2000:]}"
    return lines[-1]


@pytest.fixture
def web_page() -> Iterator[str]:
    """An 'OpenAI base URL' that answers every request with a proxy's sign-in page (HTTP 200)."""

    def page(_request: Request) -> Response:
        html = "<!DOCTYPE html><html><head><title>Sign in</title></head><body>Proxy</body></html>"
        return Response(html, content_type="text/html; charset=utf-8")

    with StubServer(page) as server:
        yield f"{server.url}/v1"


def test_a_model_endpoint_answering_a_web_page_is_one_sentence_naming_the_setting(
    here: Path, web_page: str
) -> None:
    done = planner(
        here, "run", STOCK, OPENAI_BASE_URL=web_page, MODEL="openai:m", MODEL_MAX_RETRIES="0"
    )
    assert done.returncode == 1
    line = one_sentence(done)
    assert "answered with a page, not the API (HTTP 200 text/html: 'Sign in')" in line, line
    assert "check OPENAI_BASE_URL" in line, line
    assert "mcp-planner resume" in line, line


def _hold(here: Path, thread: str) -> int:
    """Take the thread's lock file as another mcp-planner command would, with that pid."""
    digest = hashlib.sha256(thread.encode()).hexdigest()[:32]
    path = here / ".mcp-planner" / "locks" / f"{digest}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.ftruncate(fd, 0)
    os.pwrite(fd, b"4242", 0)
    return fd


def test_a_second_command_on_a_thread_another_is_running_is_refused(here: Path) -> None:
    first = planner(here, "run", "--json", STOCK, MODEL="offline:rules")
    thread = json.loads(first.stdout)["thread_id"]
    fd = _hold(here, thread)
    try:
        second = planner(here, "run", "--thread", thread, "How many units of GAD-7 are in stock")
    finally:
        os.close(fd)
    assert second.returncode == 2
    assert one_sentence(second) == (
        f"Thread {thread!r} is busy: another mcp-planner command is running it (pid 4242); "
        "wait until it ends, then try again."
    )
    # Released (the other command ended): the same command now runs.
    again = planner(here, "run", "--thread", thread, "How many units of GAD-7 are in stock")
    assert again.returncode == 0, again.stderr


@pytest.fixture
def plain_http() -> Iterator[str]:
    """A server speaking plain HTTP, as `mcp-planner serve` does, as host:port."""
    with StubServer(lambda _r: Response("{}", content_type="application/json")) as server:
        yield server.url.removeprefix("http://")


def test_https_for_a_plain_http_server_names_the_url_to_use(here: Path, plain_http: str) -> None:
    done = planner(here, "threads", "--server", f"https://{plain_http}")
    assert done.returncode == 2
    assert one_sentence(done) == (
        f"The server at https://{plain_http} answers plain HTTP, not HTTPS: "
        f"use --server http://{plain_http}."
    )


CASES = {
    "resume of an unknown thread": (
        ["resume", "nosuchthread", "--approve"],
        {},
        2,
        "No thread 'nosuchthread' here (mcp-planner threads lists them).",
    ),
    "a missing --config file": (
        ["run", STOCK, "--config", "missing.json"],
        {},
        2,
        "MCP config file 'missing.json' (--config) not found in",
    ),
    "a typo in a .env setting name": (
        ["run", STOCK],
        {".env": "MODLE=openai:gpt-4o-mini\n"},
        0,
        "",
    ),
    "an empty MODEL= in .env": (["run", STOCK], {".env": "MODEL=\n"}, 0, ""),
    "MODEL of spaces": (
        ["run", STOCK],
        {"MODEL": " "},
        2,
        "Model ' ' is not of the form 'provider:model' (for example 'openai:gpt-4o-mini').",
    ),
    "MODEL with a space and no key": (
        ["run", STOCK],
        {"MODEL": "openai: gpt-4o-mini"},
        2,
        "MODEL is 'openai: gpt-4o-mini', which needs OPENAI_API_KEY",
    ),
    "an expert command that does not exist": (
        ["run", STOCK, "--config", "nocmd.json"],
        {"nocmd.json": json.dumps({"mcpServers": {"x": {"command": "no-such-cmd-xyz"}}})},
        1,
        "Not everything was done (2 problem(s), see the answer).",
    ),
    "an mcp.json with a JSON error": (
        ["tools", "--config", "bad.json"],
        {"bad.json": '{"mcpServers": {\n'},
        2,
        "MCP config file 'bad.json' is not valid JSON: Expecting property name",
    ),
    "a --server without a scheme": (
        ["threads", "--server", "127.0.0.1:9"],
        {},
        2,
        "--server '127.0.0.1:9' is not a server URL: give one like http://127.0.0.1:2024.",
    ),
    "a --ttl of zero": (
        ["token", "alice", "--ttl", "0s"],
        {"AUTH_JWT_SECRET": "a" * 64},
        2,
        "--ttl '0s' is not a duration",
    ),
}
"""name: (arguments, files to write (a name with a dot) or environment, exit code, line start)."""


@pytest.mark.parametrize("case", list(CASES))
def test_each_first_step_ends_in_one_sentence_with_its_exit_code(here: Path, case: str) -> None:
    args, extra, code, start = CASES[case]
    for name, text in extra.items():
        if "." in name:
            (here / name).write_text(text)
    env = {k: v for k, v in extra.items() if "." not in k}
    done = planner(here, *args, **env)
    assert done.returncode == code, done.stdout[-2000:] + done.stderr
    line = one_sentence(done)
    assert line.startswith(start), line
    if case == "a typo in a .env setting name":
        assert "MODLE is not a setting, so it is ignored (did you mean MODEL?)" in done.stderr
