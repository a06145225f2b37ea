"""Fixtures for the browser tests: Agent Chat UI (`make ui`), Chromium, a served graph.

The page is LangChain's Agent Chat UI built into `ui/dist` by `make ui`, served here by a small
static server of the test process; the browser is Debian's Chromium (`/usr/bin/chromium`)
driven by the `playwright` package (no browser download). Each missing piece skips the tests
(fails them under REQUIRE_SERVICES=1).
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from werkzeug import Request, Response
from werkzeug.security import safe_join
from werkzeug.utils import send_file

from tests.conftest import service_unavailable
from tests.http_stub import Handler, StubServer, sent_path
from tests.integration_tests.helpers import langgraph_dev

RUN_MS = 180_000
"""How long a run (start to interrupt, or answer to final message) may take on a loaded host;
every wait of a page is bounded by it."""

ROOT = Path(__file__).resolve().parents[2]
UI_DIST = ROOT / "ui" / "dist"
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
IMAGES = ROOT / "docs" / "images"


@dataclass
class NotesStore:
    """Where the notes server of a served graph keeps its notes and its write log."""

    notes: Path
    """NOTES_FILE: the notes, as a JSON object of title to body."""
    log: Path
    """NOTES_LOG: one line per write or delete."""

    def read(self) -> dict[str, str]:
        """The notes written so far."""
        return json.loads(self.notes.read_text()) if self.notes.exists() else {}

    def writes(self, title: str) -> int:
        """How many times a note titled `title` was written."""
        if not self.log.exists():
            return 0
        return sum(
            1
            for line in self.log.read_text().splitlines()
            if line.split(" ", 2)[1:] == ["write", title]
        )


def write_mcp_config(directory: Path) -> tuple[Path, NotesStore]:
    """An mcp.json with the demo inventory and notes servers, notes kept in `directory`."""
    store = NotesStore(directory / "notes.json", directory / "notes.log")
    config = {
        "mcpServers": {
            "inventory": {
                "command": sys.executable,
                "args": ["-m", "common.demo_servers.inventory"],
                "description": "Product catalogue of the shop: names, SKUs, prices, stock "
                "levels and aisles (read-only).",
                "trust_annotations": True,
            },
            "notes": {
                "command": sys.executable,
                "args": ["-m", "common.demo_servers.notes"],
                "env": {"NOTES_FILE": str(store.notes), "NOTES_LOG": str(store.log)},
                "description": "The team's notes: list, read, write and delete short text notes.",
                "trust_annotations": True,
            },
        }
    }
    path = directory / "mcp.json"
    path.write_text(json.dumps(config, indent=2))
    return path, store


@pytest.fixture(scope="session")
def ui_dist() -> Path:
    """`ui/dist`, built by `make ui`."""
    if not (UI_DIST / "index.html").exists():
        service_unavailable("Agent Chat UI is not built: run `make ui` (needs Node.js and npm)")
    return UI_DIST


def _serve_ui(directory: Path) -> Handler:
    """Static files of `directory`, index.html for any path not a file (a single-page app).

    `/ui/...` is forwarded to the page's LangGraph server (its `apiUrl`, read from the page URL
    in the Referer): the Python server answers a component request with a script path relative
    to the page (`/ui/with_planner/entrypoint.js`), so the page's origin must serve it, as a
    reverse proxy in front of both would.
    """

    def answer(request: Request) -> Response:
        if (
            request.method == "GET"
            and request.path.startswith("/ui/")
            and (api := _api_url(request.headers.get("Referer")))
        ):
            return _forward(api + sent_path(request))
        # safe_join refuses a path that would leave `directory` (None): the page then.
        found = safe_join(str(directory), request.path.lstrip("/"))
        if found is None or not os.path.isfile(found):
            found = str(directory / "index.html")
        return send_file(found, request.environ)

    return answer


def _forward(url: str) -> Response:
    """The LangGraph server's answer to a GET of `url`, passed on."""
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            status, kind, body = answer.status, answer.headers["Content-Type"], answer.read()
    except urllib.error.HTTPError as exc:
        status, kind, body = exc.code, "text/plain", exc.read()
    except urllib.error.URLError as exc:
        # A page outliving its server: a reverse proxy's 502, not an error of the test's.
        status, kind, body = 502, "text/plain", str(exc.reason).encode()
    return Response(body, status=status, content_type=kind or "application/octet-stream")


def _api_url(referer: str | None) -> str | None:
    """The `apiUrl` of the page that asked (a loopback URL), if any."""
    query = parse_qs(urlparse(referer or "").query)
    api = (query.get("apiUrl") or [""])[0]
    return api.rstrip("/") if api.startswith("http://127.0.0.1:") else None


@pytest.fixture(scope="session")
def ui_server(ui_dist: Path) -> Iterator[str]:
    """`ui/dist` served on a free loopback port: its base URL."""
    with StubServer(_serve_ui(ui_dist), methods=("GET", "HEAD")) as server:
        yield server.url


@pytest.fixture(scope="session")
async def browser() -> AsyncIterator[Any]:
    """Headless Debian Chromium, driven by playwright."""
    if not CHROMIUM.exists():
        service_unavailable(f"no Chromium at {CHROMIUM}: apt-get install chromium")
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        service_unavailable("the playwright package is missing: pip install -e '.[dev]'")
        raise
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        try:
            yield browser
        finally:
            await browser.close()


@dataclass
class Served:
    """A server serving `with_planner` with Agent Inbox interrupts over the demo experts."""

    url: str
    """Its base URL."""
    store: NotesStore
    """Its notes."""
    log: Path
    """Its log file."""


@pytest.fixture(scope="module")
async def dev_server(
    ui_dist: Path, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Served]:
    """`langgraph dev` (offline:rules, no key) with INTERRUPT_FORMAT=agent_inbox."""
    workdir = tmp_path_factory.mktemp("browser-dev")
    config, store = write_mcp_config(workdir)
    env = {"INTERRUPT_FORMAT": "agent_inbox", "MCP_CONFIG": str(config)}
    async with langgraph_dev(workdir, env=env) as (url, _):
        yield Served(url, store, workdir / "server.log")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Keep each phase's report on the item, so a fixture can tell that its test failed."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture
async def page(browser: Any, request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    """A fresh browser page; on failure its screenshot and text are kept in the test's tmp dir."""
    context = await browser.new_context(viewport={"width": 1280, "height": 1000})
    page = await context.new_page()
    # Every wait of a busy machine's page is bounded by the run's, not Playwright's 5 s and 30 s.
    page.set_default_timeout(RUN_MS)
    from playwright.async_api import expect

    expect.set_options(timeout=RUN_MS)
    console: list[str] = []
    page.on("console", lambda msg: console.append(f"{msg.type}: {msg.text}"))
    page.on("pageerror", lambda exc: console.append(f"pageerror: {exc}"))
    try:
        yield page
    finally:
        report = getattr(request.node, "report_call", None)
        if report is not None and report.failed:
            await page.screenshot(path=str(tmp_path / "failure.png"), full_page=True)
            text = await page.locator("body").inner_text()
            (tmp_path / "failure.txt").write_text(
                f"{page.url}\n\n{text}\n\n--- console ---\n" + "\n".join(console)
            )
            print(
                f"browser page at failure: {tmp_path / 'failure.png'}, {tmp_path / 'failure.txt'}"
            )
        await context.close()
