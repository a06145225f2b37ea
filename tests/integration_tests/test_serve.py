"""Ports and reloads (issue 43): `mcp-planner serve` on exactly its port, reloaded by the served
code only, leaving no plan-card bundler; the clients refuse a server that does not serve the
with_planner graph (what holds the port when `langgraph dev` moved off it).

Real processes throughout: the serve command, `langgraph dev` for another project, the clients.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from werkzeug import Request, Response

from strategies.cli.bundler import ui_output
from tests.http_stub import StubServer
from tests.integration_tests.helpers import free_port, stop_group

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
EXAMPLE = ROOT / "examples" / "sdk_client.py"
START_S = 180
"""How long a server may take to answer or a reload to happen (the first start bundles the card)."""
LINKED = ("examples", "ui-components", "langgraph.json", "pyproject.toml")
"""What the served folder links from the project; `src` is copied, its changes the test's own."""


def not_served(url: str) -> str:
    """The clients' line for a server that does not serve the graph."""
    return (
        f"The server at {url} does not serve the with_planner graph: is your langgraph dev on "
        "another port? Its log says 'using port N instead'."
    )


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """A command without a terminal, a token or an API key."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_PLANNER_")}
    return subprocess.run(
        args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip


def until(condition: Callable[[], bool], what: str, log: Path | None = None) -> None:
    """Return once `condition()` holds; fail naming `what` if it does not within START_S."""
    deadline = time.monotonic() + START_S
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}:\n{log.read_text()[-3000:] if log else ''}")
        time.sleep(0.2)


def answers(url: str) -> bool:
    """Whether the server at `url` answers /ok."""
    try:
        with urllib.request.urlopen(f"{url}/ok", timeout=2):
            return True
    except (urllib.error.URLError, OSError):
        return False


def test_a_taken_port_is_refused_naming_who_holds_it(tmp_path: Path) -> None:
    (tmp_path / "langgraph.json").symlink_to(ROOT / "langgraph.json")
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        done = run([str(BIN / "mcp-planner"), "serve", "--port", str(port)], tmp_path)

    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"Port {port} on 127.0.0.1 is taken by `python"), line
    assert f"(pid {os.getpid()})" in line
    assert f"--port {port + 1}" in line
    assert f"make serve PORT={port + 1}" in line
    assert f"--server http://127.0.0.1:{port + 1}" in line


OTHER_GRAPH = textwrap.dedent(
    """
    from typing import TypedDict
    from langgraph.graph import StateGraph

    class State(TypedDict):
        text: str

    builder = StateGraph(State)
    builder.add_node("echo", lambda state: state)
    builder.set_entry_point("echo")
    graph = builder.compile()
    """
)


@pytest.fixture(scope="module")
def another_project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`langgraph dev` of another project (a graph named `other`) on a free port: its URL."""
    folder = tmp_path_factory.mktemp("other-project")
    (folder / "other.py").write_text(OTHER_GRAPH)
    (folder / "langgraph.json").write_text('{"dependencies": ["."], "graphs": {"other": '
                                           '"./other.py:graph"}}')  # fmt: skip
    port = free_port()
    log = folder / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [str(BIN / "langgraph"), "dev", "--no-browser", "--no-reload", "--port", str(port)],
            cwd=folder, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        until(lambda: answers(url), "the other project's server did not start", log)
        yield url
    finally:
        stop_group(server)


@pytest.fixture(scope="module")
def not_langgraph() -> Iterator[str]:
    """Some other web server: 404 for everything but /ok."""

    def answer(request: Request) -> Response:
        return Response(
            "ok" if request.path == "/ok" else "no", 200 if request.path == "/ok" else 404
        )

    with StubServer(answer) as server:
        yield server.url


@pytest.mark.parametrize("holder", ["another_project", "not_langgraph"])
def test_the_clients_refuse_a_server_without_the_graph(
    holder: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    url = request.getfixturevalue(holder)
    planner = str(BIN / "mcp-planner")
    commands = {
        "threads": [planner, "threads", "--server", url],
        "audit": [planner, "audit", "--server", url],
        "run": [planner, "run", "How many units of WID-1?", "--server", url],
        "example": [sys.executable, str(EXAMPLE), url, "How many units of WID-1?"],
    }
    for name, command in commands.items():
        done = run(command, tmp_path)
        assert done.returncode == 2, (name, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr, done.stderr
        assert done.stderr.strip().splitlines()[-1] == not_served(url), (name, done.stderr)


def served_folder(folder: Path) -> Path:
    """A project folder as a user's: `src` copied (its changes the test's), the rest linked."""
    folder.mkdir()
    for name in LINKED:
        (folder / name).symlink_to(ROOT / name)
    shutil.copyfile(ROOT / "mcp.json", folder / "mcp.json")
    ignored = shutil.ignore_patterns("__pycache__", "*.egg-info")
    shutil.copytree(ROOT / "src", folder / "src", ignore=ignored)
    return folder


def bundlers(folder: Path, node_only: bool) -> list[int]:
    """Pids of the UI bundler processes of `folder` (node's only, or npx, sh and esbuild too)."""
    output = ui_output(folder)
    found = []
    table = {}
    for proc in Path("/proc").iterdir():
        try:
            stat = (proc / "stat").read_text().rpartition(")")[2].split()
            words = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode().split()
        except (OSError, ValueError):
            continue
        if proc.name.isdigit() and stat and stat[0] != "Z":
            table[int(proc.name)] = (int(stat[1]), words)
    for pid, (_parent, words) in table.items():
        if output in words and "watch" in words:
            is_node = bool(words) and Path(words[0]).name == "node"
            if is_node or not node_only:
                found.append(pid)
    if not node_only:  # esbuild, started by the node bundler
        found += [pid for pid, (parent, _) in table.items() if parent in found]
    return found


def running_under(folder: Path, server: int) -> bool:
    """Whether a node bundler of `folder` runs under `server` (npx starts it a moment later)."""
    parents = {}
    for proc in Path("/proc").iterdir():
        try:
            parents[int(proc.name)] = int((proc / "stat").read_text().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    for pid in bundlers(folder, node_only=True):
        while pid in parents and pid != server:
            pid = parents[pid]
        if pid == server:
            return True
    return False


def reloads(log: Path) -> list[str]:
    """The reload lines of the server's log."""
    return re.findall(r"detected changes in (.*?)\. Reloading", log.read_text(errors="replace"))


def bundlers_started(log: Path) -> int:
    """How many times the server's workers started the UI bundler."""
    return log.read_text(errors="replace").count("Started UI bundler process")


def test_installs_do_not_reload_and_reloads_leave_no_bundler(tmp_path: Path) -> None:
    folder = served_folder(tmp_path / "project")
    (folder / ".venv-x" / "pkg").mkdir(parents=True)
    installed = folder / ".venv-x" / "pkg" / "module.py"
    installed.write_text("x = 1\n")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "server.log"
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    with log.open("w") as out:
        server = subprocess.Popen(
            [str(BIN / "mcp-planner"), "serve", "--port", str(port)],
            cwd=folder, env={**env, "PYTHONUNBUFFERED": "1"}, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True,
            # Open as a terminal's: a bundler whose input ends may stop by itself.
            stdin=subprocess.PIPE,
        )  # fmt: skip
    try:
        until(lambda: answers(url) and bundlers_started(log) == 1, "the server did not start", log)
        assert log.read_text().startswith(f"Serving with_planner on {url}: give the other commands")
        for reload in (1, 2):
            until(lambda: running_under(folder, server.pid), "no bundler under the server", log)
            # An install first, then the served code: one reload, naming the served file only.
            installed.write_text(f"x = {reload + 1}\n")
            with (folder / "src" / "strategies" / "__init__.py").open("a") as source:
                source.write(f"# changed {reload}\n")
            until(lambda n=reload: len(reloads(log)) == n, f"no reload {reload}", log)
            assert reloads(log) == ["'src/strategies/__init__.py'"] * reload, log.read_text()
            until(lambda n=reload: answers(url) and bundlers_started(log) == n + 1,
                  f"the server did not come back after reload {reload}", log)  # fmt: skip
        until(lambda: running_under(folder, server.pid), "no bundler under the server", log)
        until(lambda: len(bundlers(folder, node_only=True)) == 1, "bundlers left over", log)

        os.kill(server.pid, signal.SIGTERM)
        server.wait(60)
        until(lambda: not bundlers(folder, node_only=False), "bundlers left after the stop", log)
    finally:
        stop_group(server)
        for pid in bundlers(folder, node_only=False):  # what a failed test left
            os.kill(pid, signal.SIGKILL)
