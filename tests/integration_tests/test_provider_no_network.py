"""Every documented provider with a made-up key and no network: one sentence, its exit code.

`mcp-planner run` is a process of its own, with the providers' real LangChain integrations, and
`MODEL_TIMEOUT_S=3 MODEL_MAX_RETRIES=0`; a run that has not ended when the subprocess timeout
passes fails the test. What "no network" looks like to each client is made on loopback:
- refused: a port bound and never listened on, so every connection is refused, as a client
  sees a host it cannot resolve or reach: gRPC says UNAVAILABLE, and Gemini's GAPIC client
  resends such a request for 600 s whatever `MODEL_MAX_RETRIES` says (issue 43: a run with a
  key and no network went on for minutes with no output);
- a blackhole: a socket that accepts connections and never answers, as a dropped route does.
Gemini's integration (langchain-google-genai 3.x) reads no endpoint from the environment, so
its requests reach these through `grpc_proxy`, which gRPC honours: the real endpoint, API-key
header and TLS channel are the integration's own. The httpx-based clients are pointed at them
with their base-URL variables. Azure OpenAI without its settings ends before any request.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration

BIN = Path(sys.executable).parent
REQUEST = "How many WID-1 are in stock?"
RUN_TIMEOUT_S = 90
"""The whole run's bound: a start under load, the 8 s a model call may take (`call_limit`) and
the close; a run that hangs (Gemini's 600 s of retries) is killed here and fails the test."""

LIMITS = {"MODEL_TIMEOUT_S": "3", "MODEL_MAX_RETRIES": "0", "ALLOW_MODEL_REQUESTS": "true"}
"""The runs' settings: model requests allowed (the tests' process forbids them), since every
one goes to a loopback address here."""

CLIENT_ENV = ("OPENAI_", "AZURE_", "ANTHROPIC_", "GOOGLE_", "GEMINI_", "OLLAMA_", "MODEL")
"""Prefixes of the settings the runs set themselves: none is inherited from the test's process."""


def warning_noise(line: str) -> bool:
    """A line of google-api-core's and google-auth's import-time warnings that grpcio < 1.83
    lacks post-quantum TLS (langgraph-api caps grpcio below it): Python's, not the run's."""
    grpcio = "FutureWarning: " in line and "grpcio" in line
    return grpcio or line == "  warnings.warn("


@pytest.fixture
def here(tmp_path: Path, mcp_config: dict[str, Any]) -> Path:
    """A fresh folder holding mcp.json with the inventory and notes experts."""
    servers = {k: mcp_config["mcpServers"][k] for k in ("inventory", "notes")}
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return tmp_path


@pytest.fixture
def refused() -> Iterator[str]:
    """`127.0.0.1:PORT` where every connection is refused (bound, never listening)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"127.0.0.1:{sock.getsockname()[1]}"


@pytest.fixture
def blackhole() -> Iterator[str]:
    """`127.0.0.1:PORT` that accepts every connection and never sends a byte."""
    held: list[socket.socket] = []
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)

    def accept() -> None:
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:  # the listening socket was closed: the test is over
                return

    taker = threading.Thread(target=accept, daemon=True)
    taker.start()
    yield f"127.0.0.1:{server.getsockname()[1]}"
    server.close()
    for conn in held:
        conn.close()
    taker.join(timeout=5)


def run(here: Path, **settings: str) -> tuple[int, list[str]]:
    """`mcp-planner run REQUEST` with `settings`: its exit code and the lines it printed."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith(CLIENT_ENV)}
    env = {k: v for k, v in env.items() if "proxy" not in k.lower()}
    done = subprocess.run(
        [str(BIN / "mcp-planner"), "run", REQUEST],
        cwd=here,
        env={**env, **LIMITS, **settings},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    lines = (done.stdout + done.stderr).splitlines()
    return done.returncode, [line for line in lines if not warning_noise(line)]


def one_sentence(lines: list[str], model: str, *said: str) -> None:
    """The run printed one line: the planner's model failing, saying each of `said`."""
    assert len(lines) == 1, "\n".join(lines)
    assert lines[0].startswith(f"The planner node's model {model!r} "), lines[0]
    for words in said:
        assert words in lines[0]
    assert "then run `mcp-planner resume " in lines[0]


GEMINI = {"MODEL": "google_genai:gemini-2.5-flash", "GOOGLE_API_KEY": "made-up"}

TIMED_OUT = "did not answer within MODEL_TIMEOUT_S=3 (not retried: MODEL_MAX_RETRIES=0)"


def test_gemini_with_no_server_to_reach_ends_in_one_sentence(here: Path, refused: str) -> None:
    code, lines = run(here, **GEMINI, grpc_proxy=f"http://{refused}")
    assert code == 1
    one_sentence(lines, GEMINI["MODEL"], TIMED_OUT, "or raise MODEL_TIMEOUT_S=3")


def test_gemini_unanswered_is_a_timeout_not_a_server_error(here: Path, blackhole: str) -> None:
    code, lines = run(here, **GEMINI, grpc_proxy=f"http://{blackhole}")
    assert code == 1
    one_sentence(lines, GEMINI["MODEL"], TIMED_OUT)
    assert "HTTP 504" not in lines[0]


AZURE = "azure_openai:gpt-4o-mini"
VERSION_EXAMPLE = "(e.g. AZURE_OPENAI_ENDPOINT=https://RESOURCE.openai.azure.com/, "


def test_azure_without_its_settings_names_each_of_them(here: Path) -> None:
    code, lines = run(here, MODEL=AZURE)
    assert code == 2
    assert lines == [
        f"MODEL is {AZURE!r}, which needs AZURE_OPENAI_ENDPOINT, AZURE_OPENAI_API_KEY and "
        "OPENAI_API_VERSION, and they are not set: set them in .env or the environment "
        f"{VERSION_EXAMPLE}OPENAI_API_VERSION=2024-10-21), or unset MODEL to run the keyless "
        "demo model offline:rules."
    ]


def test_azure_with_a_key_and_no_api_version_names_the_version(here: Path) -> None:
    endpoint = "https://made-up.openai.azure.com/"
    code, lines = run(here, MODEL=AZURE, AZURE_OPENAI_API_KEY="k", AZURE_OPENAI_ENDPOINT=endpoint)
    assert code == 2
    assert lines == [
        f"MODEL is {AZURE!r}, which needs OPENAI_API_VERSION, and OPENAI_API_VERSION is not "
        "set: set OPENAI_API_VERSION in .env or the environment (e.g. "
        "OPENAI_API_VERSION=2024-10-21), or unset MODEL to run the keyless demo model "
        "offline:rules."
    ]


@pytest.mark.parametrize(
    ("model", "settings", "where"),
    [
        (
            "openai:local",
            {"OPENAI_BASE_URL": "http://{addr}/v1"},
            "at OPENAI_BASE_URL=http://{addr}/v1",
        ),
        (
            AZURE,
            {
                "AZURE_OPENAI_API_KEY": "made-up",
                "AZURE_OPENAI_ENDPOINT": "http://{addr}",
                "OPENAI_API_VERSION": "2024-10-21",
            },
            "at the azure_openai API",
        ),
        (
            "anthropic:claude-3-5-haiku-latest",
            {"ANTHROPIC_API_KEY": "made-up", "ANTHROPIC_API_URL": "http://{addr}"},
            "at the anthropic API",
        ),
        ("ollama:llama3.2", {"OLLAMA_HOST": "http://{addr}"}, "at the ollama API"),
    ],
    ids=["openai_compatible", "azure_openai", "anthropic", "ollama"],
)
def test_an_unanswering_endpoint_is_one_timeout_sentence(
    here: Path, blackhole: str, model: str, settings: dict[str, str], where: str
) -> None:
    env = {k: v.format(addr=blackhole) for k, v in settings.items()}
    code, lines = run(here, MODEL=model, **env)
    assert code == 1
    one_sentence(lines, model, where.format(addr=blackhole), TIMED_OUT)


@pytest.mark.parametrize(
    ("model", "settings"),
    [
        ("openai:local", {"OPENAI_BASE_URL": "http://{addr}/v1"}),
        ("ollama:llama3.2", {"OLLAMA_HOST": "http://{addr}"}),
    ],
    ids=["openai_compatible", "ollama"],
)
def test_a_refused_endpoint_is_one_sentence(
    here: Path, refused: str, model: str, settings: dict[str, str]
) -> None:
    env = {k: v.format(addr=refused) for k, v in settings.items()}
    code, lines = run(here, MODEL=model, **env)
    assert code == 1
    one_sentence(lines, model, "could not be reached (connection refused)")
