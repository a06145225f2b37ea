"""`mcp-planner --server URL` and examples/sdk_client.py against `langgraph dev` (offline:rules).

The commands run as subprocesses without a terminal, in a folder of their own: the thread lives on
the server, so nothing is saved locally.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from werkzeug import Request, Response
from werkzeug.exceptions import Conflict

from tests.http_stub import StubServer, cut_short, json_response, sent_path
from tests.integration_tests.aegra import aegra_cluster, interrupts_of
from tests.integration_tests.helpers import free_port, langgraph_dev
from tests.unit_tests.helpers import invoke_cli

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
STOCK = "How many units of GAD-7 are in stock"


@dataclass
class Server:
    """A running server: its URL and an SDK client for checking what the commands did."""

    url: str
    """Its base URL."""
    client: Any
    """A langgraph-sdk client on it."""


@pytest.fixture(scope="module")
async def dev_server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Server]:
    """A dev server on a free loopback port (no browser, no reload, no blocking-call escape)."""
    async with langgraph_dev(tmp_path_factory.mktemp("dev-cli")) as (url, client):
        yield Server(url, client)


@pytest.fixture
def here(tmp_path: Path, mcp_config: dict[str, Any]) -> Path:
    """A fresh folder holding mcp.json with the inventory and notes experts."""
    servers = {k: mcp_config["mcpServers"][k] for k in ("inventory", "notes")}
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return tmp_path


def command(here: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """`argv` as a process of its own in `here`, with no terminal and no API key."""
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    return subprocess.run(
        argv,
        cwd=here,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def planner(here: Path, *args: str, process: bool = False) -> subprocess.CompletedProcess[str]:
    """`mcp-planner ARGS` in `here`, with no terminal and no API key.

    In this process (the command's output and exit code are the subject), or as a process of its
    own with `process`: each command keeps at least one test as the real process a user starts.
    """
    if process:
        return command(here, str(BIN / "mcp-planner"), *args)
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    return invoke_cli(list(args), here, env)


def sdk_example(
    here: Path, url: str, request: str, answer: tuple[str, ...] = ("--approve",)
) -> subprocess.CompletedProcess[str]:
    """examples/sdk_client.py on `request` with no terminal, answering with `answer`."""
    example = [sys.executable, str(ROOT / "examples" / "sdk_client.py"), url, request]
    return command(here, *example, "--config", "mcp.json", "--model", "offline:rules", *answer)


def notes(workdir: Path) -> dict[str, str]:
    """The notes the notes expert has saved."""
    path = workdir / "notes.json"
    return dict(json.loads(path.read_text())) if path.exists() else {}


def run_args(url: str, title: str) -> list[str]:
    """`run` on the server: the stock question, then a note that needs approval."""
    request = f'{STOCK}, then write a note titled "{title}"'
    return ["run", request, "--server", url, "--config", "mcp.json", "--model", "offline:rules"]


async def test_run_waits_without_a_terminal_and_resume_approves_on_the_server(
    dev_server: Server, here: Path, workdir: Path
) -> None:
    title = f"cli-server-{os.urandom(4).hex()}"
    waiting = planner(here, *run_args(dev_server.url, title), process=True)

    assert waiting.returncode == 3, waiting.stderr + waiting.stdout
    found = re.search(r"Waiting on thread (\S+) \(no terminal to ask in\)", waiting.stdout)
    assert found, waiting.stdout
    thread = found.group(1)
    assert f'write_note {{"title": "{title}"' in waiting.stdout
    resume = f"mcp-planner resume {thread} --server {dev_server.url}"
    # The printed command names the question shown (the server's interrupt id).
    state = await dev_server.client.threads.get_state(thread)
    (interrupt,) = interrupts_of(dict(state))
    bound = f"{resume} --model offline:rules --config mcp.json --question {interrupt['id']}"
    assert f"Approve: {bound} --approve" in waiting.stdout
    assert title not in notes(workdir)
    # The thread is the server's: it waits there, and nothing was saved here.
    assert interrupt["value"]["action_requests"][0]["args"]["title"] == title
    assert not (here / ".mcp-planner").exists()

    # An answer bound to another question is refused before anything is sent.
    stale = ("--question", "0" * 32, "--approve")
    refused = planner(here, "resume", thread, "--server", dev_server.url, *stale)
    assert refused.returncode == 2, refused.stderr + refused.stdout
    assert "is not the one waiting" in refused.stderr
    assert interrupts_of(dict(await dev_server.client.threads.get_state(thread)))

    bound_answer = ("--question", interrupt["id"], "--approve")
    done = planner(here, "resume", thread, "--server", dev_server.url, *bound_answer, process=True)

    assert done.returncode == 0, done.stderr + done.stdout
    assert "Answer" in done.stdout
    assert '"stock": 14' in done.stdout
    assert f"thread {thread}" in done.stdout
    assert '"stock": 14' in notes(workdir)[title]
    assert not interrupts_of(dict(await dev_server.client.threads.get_state(thread)))


async def test_in_a_terminal_run_asks_here_as_in_process_and_the_server_runs_it(
    dev_server: Server, here: Path, workdir: Path
) -> None:
    title = f"cli-tty-{os.urandom(4).hex()}"
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    controller, terminal = pty.openpty()
    try:
        # The answer waits in the terminal's input until the prompt reads it.
        os.write(controller, b"a\n")
        done = subprocess.run(
            [str(BIN / "mcp-planner"), *run_args(dev_server.url, title)],
            cwd=here,
            env=env,
            stdin=terminal,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
    finally:
        os.close(terminal)
        os.close(controller)

    assert done.returncode == 0, done.stderr + done.stdout
    assert "Approve write_note?" in done.stdout
    # The server has a store, so "don't ask again" is offered beside approve / edit / reject.
    assert "don't ask again for this tool / edit / reject" in done.stdout
    assert "Waiting on thread" not in done.stdout
    assert '"stock": 14' in notes(workdir)[title]


async def test_run_json_and_resume_reject_report_the_same_outcome_shape(
    dev_server: Server, here: Path, workdir: Path
) -> None:
    title = f"cli-json-{os.urandom(4).hex()}"
    waiting = planner(here, *run_args(dev_server.url, title), "--json")
    assert waiting.returncode == 3, waiting.stderr
    outcome = json.loads(waiting.stdout)
    assert outcome["status"] == "awaiting_approval"
    assert [p["name"] for p in outcome["pending"]] == ["write_note"]
    assert outcome["resume"].startswith(f"mcp-planner resume {outcome['thread_id']} --server ")

    rejected = planner(
        here,
        *("resume", outcome["thread_id"], "--server", dev_server.url),
        *("--reject", "--message", "not today", "--json"),
    )

    assert rejected.returncode == 0, rejected.stderr
    final = json.loads(rejected.stdout)
    assert final["status"] == "completed"
    # A declined call is a decision, not a problem: the turn is done as asked (exit 0).
    assert final["problems"] == []
    assert "declined" in final["answer"].lower(), final["answer"]
    assert title not in notes(workdir)


async def test_threads_lists_the_servers_threads_with_their_status(
    dev_server: Server, here: Path
) -> None:
    title = f"cli-threads-{os.urandom(4).hex()}"
    waiting = json.loads(planner(here, *run_args(dev_server.url, title), "--json").stdout)

    listed = planner(here, "threads", "--server", dev_server.url, "--json")

    assert listed.returncode == 0, listed.stderr
    rows = {r["thread_id"]: r for r in json.loads(listed.stdout)}
    row = rows[waiting["thread_id"]]
    assert row["status"] == "waiting for approval"
    assert title in row["last_question"]
    table = planner(here, "threads", "--server", dev_server.url, process=True)
    assert waiting["thread_id"] in table.stdout


async def test_a_new_request_on_a_waiting_server_thread_is_refused(
    dev_server: Server, here: Path, workdir: Path
) -> None:
    title = f"cli-busy-{os.urandom(4).hex()}"
    thread = json.loads(planner(here, *run_args(dev_server.url, title), "--json").stdout)[
        "thread_id"
    ]

    refused = planner(here, "run", STOCK, "--server", dev_server.url, "--thread", thread)

    assert refused.returncode == 2
    assert refused.stderr.strip().count("\n") == 0, refused.stderr
    assert "still waits for your decision on 1 pending request(s)" in refused.stderr
    assert f"mcp-planner resume {thread} --server {dev_server.url}" in refused.stderr
    assert title not in notes(workdir)


async def test_a_model_the_server_cannot_load_fails_the_run_with_one_line(
    dev_server: Server, here: Path
) -> None:
    failed = planner(
        here, "run", STOCK, "--server", dev_server.url, "--config", "mcp.json", "--model", "no:pe"
    )

    assert failed.returncode == 1, failed.stderr + failed.stdout
    (line,) = failed.stderr.strip().splitlines()
    # The tests' environment forbids model requests, so the server refuses the model by name.
    assert line.startswith("The run failed on the server: ")
    assert "'no:pe'" in line
    assert "the thread is kept: `mcp-planner resume " in line


async def test_the_audit_trail_of_a_served_run_is_read_through_the_store_api(
    dev_server: Server, here: Path
) -> None:
    title = f"audited-{os.urandom(4).hex()}"
    url = dev_server.url
    waiting = planner(here, *run_args(url, title), "--json")
    assert waiting.returncode == 3, waiting.stderr
    thread = json.loads(waiting.stdout)["thread_id"]
    done = planner(here, "resume", thread, "--server", url, "--approve")
    assert done.returncode == 0, done.stderr

    listed = planner(here, "audit", "--server", url, "--thread", thread, "--json", process=True)
    table = planner(here, "audit", "--server", url, "--thread", thread)
    script = str(ROOT / "examples" / "audit_client.py")
    example = command(here, sys.executable, script, url, "--thread", thread)

    assert listed.returncode == 0, listed.stderr
    trail = json.loads(listed.stdout)
    assert [(e["event"], e["tool"], e["decision"]) for e in trail] == [
        ("asked", "write_note", None),
        ("answered", "write_note", "approve"),
    ]
    assert {e["user"] for e in trail} == {"default"}
    assert title not in listed.stdout
    assert trail[0]["args_digest"][:12] in table.stdout
    # The example reads the same trail as the command, where the graph writes it.
    assert example.returncode == 0, example.stderr
    assert f"default {thread} answered notes/write_note" in example.stdout


@pytest.mark.parametrize(
    "command",
    [["run", STOCK], ["resume", "00000000-0000-4000-8000-000000000000", "--approve"], ["threads"]],
    ids=["run", "resume", "threads"],
)
def test_an_unreachable_server_is_one_line_and_exit_2(here: Path, command: list[str]) -> None:
    url = f"http://127.0.0.1:{free_port()}"

    done = planner(here, *command, "--server", url)

    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"Cannot reach the server at {url}: ")
    assert line.endswith("; is it running?")
    assert done.stdout == ""


class _FaultyServer(StubServer):
    """Creates threads, then cuts every run's stream after its first event (or refuses it)."""

    def __init__(self, busy: bool) -> None:
        super().__init__(self._answer, methods=("GET", "POST"))
        self.busy = busy
        """Refuse every run as a thread already running one (409) instead of cutting it."""

    def _answer(self, request: Request) -> Response:
        """The probe, an empty thread's state, a new thread; a run's stream cut off (or 409)."""
        path = sent_path(request)
        if request.method == "GET":
            return json_response(
                {"values": {}, "next": [], "tasks": []} if "/state" in path else {}
            )
        if not path.endswith("/runs/stream"):
            return json_response({"thread_id": path.split("/")[-1], "status": "idle"})
        if self.busy:
            return Conflict("Thread is already running a task").get_response()
        event = b'event: metadata\ndata: {"run_id": "r1"}\n\n'
        return cut_short(request, [event], content_type="text/event-stream")


def _against_a_faulty_server(
    here: Path, busy: bool
) -> tuple[str, subprocess.CompletedProcess[str]]:
    """`mcp-planner run --server` against `_FaultyServer`; its URL and the command's result."""
    with _FaultyServer(busy) as server:
        return server.url, planner(here, "run", STOCK, "--server", server.url)


def test_a_connection_lost_during_a_run_is_one_line_exit_1_with_the_resume_command(
    here: Path,
) -> None:
    url, done = _against_a_faulty_server(here, busy=False)

    assert done.returncode == 1, done.stderr + done.stdout
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"Lost the connection to the server at {url}: ")
    assert "(the run may go on there); the thread is kept: `mcp-planner resume " in line
    assert f"--server {url}` continues it" in line


def test_a_thread_busy_with_another_run_is_one_line_exit_2(here: Path) -> None:
    url, done = _against_a_faulty_server(here, busy=True)

    assert done.returncode == 2, done.stderr + done.stdout
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("Thread '")
    assert f"is busy with another run on the server at {url}: wait until it ends" in line


@pytest.mark.parametrize("url", ["localhost:2024", "ftp://127.0.0.1:2024", "http://", "http://h:x"])
def test_a_bad_server_url_is_one_line_and_exit_2(here: Path, url: str) -> None:
    done = planner(here, "run", STOCK, "--server", url)

    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"--server {url!r} is not a")


@pytest.mark.parametrize("thread", ["00000000-0000-4000-8000-000000000000", "not-a-uuid"])
async def test_an_unknown_thread_on_the_server_is_one_line_and_exit_2(
    dev_server: Server, here: Path, thread: str
) -> None:
    for command in (["resume", thread, "--approve"], ["run", STOCK, "--thread", thread]):
        done = planner(here, *command, "--server", dev_server.url)

        assert done.returncode == 2, done.stderr
        (line,) = done.stderr.strip().splitlines()
        assert line == (
            f"No thread {thread!r} on the server at {dev_server.url} "
            f"(mcp-planner threads --server {dev_server.url} lists them)."
        )


async def test_the_sdk_example_streams_asks_resumes_and_answers(
    dev_server: Server, here: Path, workdir: Path
) -> None:
    title = f"sdk-example-{os.urandom(4).hex()}"
    request = f'{STOCK}, then write a note titled "{title}"'

    done = sdk_example(here, dev_server.url, request)

    assert done.returncode == 0, done.stderr + done.stdout
    shown = done.stdout
    assert f'plan: t2 [notes] write a note titled "{title}"' in shown
    assert "task t1 completed" in shown
    assert f'Approval needed: write_note {{"title": "{title}"' in shown
    assert "allowed: approve, edit, reject" in shown
    assert "considered irreversible" in shown
    assert shown.index("Approval needed") < shown.index("task t2 completed")
    answer = shown.split("\nAnswer:\n", 1)[1]
    assert '"stock": 14' in answer
    assert '"stock": 14' in notes(workdir)[title]


async def test_the_sdk_example_without_a_terminal_waits_like_the_cli(
    dev_server: Server, here: Path, workdir: Path
) -> None:
    title = f"sdk-waits-{os.urandom(4).hex()}"
    request = f'{STOCK}, then write a note titled "{title}"'

    waiting = sdk_example(here, dev_server.url, request, answer=())

    assert waiting.returncode == 3, waiting.stderr + waiting.stdout
    assert "Traceback" not in waiting.stderr
    found = re.search(r"Waiting on thread (\S+) \(no terminal to ask in\)", waiting.stdout)
    assert found, waiting.stdout
    assert f'write_note {{"title": "{title}"' in waiting.stdout
    assert f"--thread {found.group(1)} --approve" in waiting.stdout
    assert title not in notes(workdir)

    done = sdk_example(here, dev_server.url, request, ("--thread", found.group(1), "--approve"))

    assert done.returncode == 0, done.stderr + done.stdout
    assert '"stock": 14' in notes(workdir)[title]


async def test_on_aegra_run_waits_resume_approves_threads_lists_and_the_example_answers(
    tmp_path: Path, here: Path, workdir: Path
) -> None:
    async with aegra_cluster(tmp_path) as cluster:
        url = (await cluster.add()).url
        title = f"cli-aegra-{os.urandom(4).hex()}"

        waiting = planner(here, *run_args(url, title), "--json")
        assert waiting.returncode == 3, waiting.stderr
        thread = json.loads(waiting.stdout)["thread_id"]
        listed = json.loads(planner(here, "threads", "--server", url, "--json").stdout)
        assert {r["thread_id"]: r["status"] for r in listed}[thread] == "waiting for approval"
        assert title not in notes(workdir)

        done = planner(here, "resume", thread, "--server", url, "--approve")
        assert done.returncode == 0, done.stderr + done.stdout
        assert '"stock": 14' in notes(workdir)[title]

        example_title = f"sdk-aegra-{os.urandom(4).hex()}"
        request = f'{STOCK}, then write a note titled "{example_title}"'
        example = sdk_example(here, url, request)
        assert example.returncode == 0, example.stderr + example.stdout
        assert f'Approval needed: write_note {{"title": "{example_title}"' in example.stdout
        assert '"stock": 14' in notes(workdir)[example_title]
