"""`make ui-serve`'s page server (vite preview with deploy/agent-chat-ui/vite.preview.config.mjs)
forwards /ui/ (the plan card's script) to the server the page names in `?apiUrl=`, read from
the Referer of the page's same-origin requests; without one, to VITE_API_URL; never to a host
that is neither loopback nor VITE_API_URL's.

A real vite preview (Agent Chat UI's pinned vite, installed by `make ui`; `VITE=path` names
another) in front of two real HTTP servers, each answering the card's script with its own name.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from werkzeug import Request, Response

from tests.conftest import service_unavailable
from tests.http_stub import StubServer
from tests.integration_tests.helpers import free_port, stop_group

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
VITE = Path(os.environ.get("VITE", ROOT / "ui" / "node_modules" / ".bin" / "vite"))
CONFIG = ROOT / "deploy" / "agent-chat-ui" / "vite.preview.config.mjs"
SCRIPT = "/ui/with_planner/entrypoint.js"
START_S = 60
"""How long vite preview may take to answer."""


def named(name: str) -> StubServer:
    """A LangGraph server stand-in whose card script says `name`."""

    def answer(request: Request) -> Response:
        return Response(f"// {name} {request.path}", content_type="text/javascript")

    return StubServer(answer, methods=("GET",))


def get(url: str, referer: str | None = None) -> tuple[int, str]:
    """Status and body of a GET of `url`, sent with `referer` when given."""
    request = urllib.request.Request(url, headers={"Referer": referer} if referer else {})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@pytest.fixture
def servers() -> Iterator[tuple[str, str]]:
    """The default server (VITE_API_URL) and another one, both on loopback ports."""
    with named("default") as default, named("other") as other:
        yield default.url, other.url


@pytest.fixture
def page(tmp_path: Path, servers: tuple[str, str]) -> Iterator[str]:
    """`make ui-serve`'s vite preview of a one-file dist/, VITE_API_URL the default server."""
    if not VITE.exists():
        service_unavailable(f"no vite at {VITE}: run make ui (needs Node.js and npm)")
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "index.html").write_text("<!doctype html><title>page</title>")
    shutil.copyfile(CONFIG, tmp_path / CONFIG.name)
    port = free_port()
    command = [str(VITE), "preview", "--config", CONFIG.name, "--port", str(port)]
    log = tmp_path / "vite.log"
    with log.open("w") as out:
        vite = subprocess.Popen(
            [*command, "--strictPort", "--host", "127.0.0.1"],
            cwd=tmp_path,
            env={**os.environ, "VITE_API_URL": servers[0]},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_S
        while True:
            assert vite.poll() is None, log.read_text()
            try:
                get(url + "/")
                break
            except OSError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
        yield url
    finally:
        stop_group(vite)


def test_the_card_comes_from_the_server_the_page_names(page: str, servers: tuple[str, str]) -> None:
    _default, other = servers
    port = other.rsplit(":", 1)[1]
    for api in (other, f"http://localhost:{port}"):
        status, body = get(page + SCRIPT, f"{page}/?apiUrl={api}&assistantId=with_planner")
        assert (status, body) == (200, f"// other {SCRIPT}")


def test_a_page_without_api_url_gets_the_card_of_vite_api_url(page: str) -> None:
    assert get(page + SCRIPT) == (200, f"// default {SCRIPT}")
    assert get(page + SCRIPT, f"{page}/?assistantId=with_planner") == (200, f"// default {SCRIPT}")


@pytest.mark.parametrize(
    "api", ["http://example.com", "http://10.0.0.1:2024", "file:///etc/passwd", "not a url"]
)
def test_a_page_naming_another_host_is_refused_not_forwarded(page: str, api: str) -> None:
    status, body = get(page + SCRIPT, f"{page}/?apiUrl={api}")
    assert status == 403
    assert body.startswith("make ui-serve forwards /ui only to a loopback server")


def test_the_page_itself_is_still_served(page: str) -> None:
    status, body = get(page + "/threads/anything")
    assert status == 200
    assert "<title>page</title>" in body
