"""A fetch expert's redirect to loopback, measured on `langgraph dev` (issue 42, hole 8).

The planner's guard judges the URLs in a call's arguments; the fetch happens in the expert,
which follows redirects itself. Here the expert is tests/servers/web_fetch.py (httpx,
`follow_redirects=True`, as home-grown fetch servers do) and "the internet" is a stand-in on
loopback reached as the expert's HTTP proxy: it answers http://news.example.com/article (a
public name, so no allow-list is involved) with a 302 to http://127.0.0.1:<port>/secret, which
the expert fetches directly (NO_PROXY), as it would a service on its own host. The model is a
scripted OpenAI-compatible stub. What is pinned is today's behaviour, the limit docs/safety.md
states: the URL the model wrote is checked, the hop the expert followed is not.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from werkzeug import Request, Response

from tests.http_stub import StubServer
from tests.integration_tests.aegra import ROOT, interrupts_of
from tests.integration_tests.helpers import langgraph_dev
from tests.integration_tests.openai_stub import OpenAIStub
from tests.integration_tests.test_faithful_end_to_end import minimal
from tests.integration_tests.test_served_auth import GRAPH, SECRET, Served, _ask, token
from tests.integration_tests.test_served_memory import _request, _step

pytestmark = pytest.mark.integration

PUBLIC = "http://news.example.com/article"
"""The URL the model asks for: a public name the guard lets through."""
SECRET_PAGE = "SECRET-42: the internal admin token"
"""What the loopback-only service answers."""
VIA_REDIRECT = "Read the article at news.example.com."
DIRECT = "Read the internal page."
SERVER = ROOT / "tests" / "servers" / "web_fetch.py"


@dataclass
class Internet:
    """The stand-in web: the public name redirects, loopback holds the secret."""

    stub: StubServer
    """The server, the expert's proxy and the loopback service at once."""
    seen: list[str]
    """Each request as `host path`, in order."""

    @property
    def secret_url(self) -> str:
        """The loopback URL the redirect points at."""
        return f"{self.stub.url}/secret"

    def answer(self, request: Request) -> Response:
        """A 302 to loopback for the public name, the secret for loopback."""
        self.seen.append(f"{request.host} {request.path}")
        if request.host == "news.example.com":
            return Response("", status=302, headers={"Location": self.secret_url})
        return Response(SECRET_PAGE, content_type="text/plain")

    def loopback_hits(self) -> list[str]:
        """The requests that reached the loopback service."""
        return [s for s in self.seen if s.startswith("127.0.0.1:")]


@pytest.fixture(scope="module")
def internet() -> Iterator[Internet]:
    """The stand-in web, for the module."""
    web = Internet(StubServer(lambda r: web.answer(r)), [])
    with web.stub:
        yield web


def _plans(internet: Internet) -> dict[str, dict[str, Any]]:
    """The fetch the planner plans for each request."""
    return {VIA_REDIRECT: {"url": PUBLIC}, DIRECT: {"url": internet.secret_url}}


@pytest.fixture(scope="module")
def stub(internet: Internet) -> Iterator[OpenAIStub]:
    """The scripted model: one fetch step per request, then a short answer."""

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        form = body.get("response_format") or {}
        if form.get("type") != "json_schema":
            return {"content": "Here is the page."}
        spec = form["json_schema"]
        if spec["name"] == "PlannerResult":
            args = _plans(internet)[_request(body)]
            return {"content": json.dumps(_step(spec["schema"], "web", "fetch", args))}
        found = minimal(spec["schema"], spec["schema"].get("$defs") or {})
        if spec["name"] == "Assessment":
            found.update(completed=True, reason="done")
        return {"content": json.dumps(found)}

    with OpenAIStub([], route=answer) as running:
        yield running


@pytest.fixture(scope="module")
async def served(
    tmp_path_factory: pytest.TempPathFactory, internet: Internet, stub: OpenAIStub
) -> AsyncIterator[Served]:
    """`langgraph dev` with auth, the fetch expert behind the stand-in web, the stub model."""
    folder = tmp_path_factory.mktemp("served-ssrf")
    expert = {
        "command": sys.executable,
        "args": [str(SERVER)],
        "description": "Fetch web pages.",
        "env": {"HTTP_PROXY": internet.stub.url, "NO_PROXY": "127.0.0.1,localhost"},
    }
    config = folder / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"web": expert}}))
    env = {
        "AUTH_JWT_SECRET": SECRET,
        "MCP_CONFIG": str(config),
        "SERVED_CONTEXT_FIELDS": "",
        "MODEL": "openai:stub-model",
        "OPENAI_BASE_URL": stub.base_url,
        "OPENAI_API_KEY": "sk-stub",
    }
    async with langgraph_dev(folder, env=env) as (url, _):
        yield Served("langgraph-dev", url)


async def _run(served: Served, request: str) -> dict[str, Any]:
    """Alice asks `request` in a new thread: the thread's state once the run ends."""
    client = served.client(token("alice"))
    try:
        thread = await client.threads.create()
        await client.runs.wait(thread["thread_id"], GRAPH, input=_ask(request))
        return dict(await client.threads.get_state(thread["thread_id"]))
    finally:
        await client.aclose()


def _shown_to_model(stub: OpenAIStub) -> str:
    """Everything the model was sent, as one text."""
    return json.dumps(list(stub.requests))


async def test_a_loopback_url_in_the_arguments_is_refused_and_not_fetched(
    served: Served, internet: Internet, stub: OpenAIStub
) -> None:
    before = len(internet.loopback_hits())
    state = await _run(served, DIRECT)

    assert not interrupts_of(state)
    said = json.dumps(state["values"])
    assert "Not run: the arguments reach a denied address" in said
    assert internet.secret_url in said
    assert len(internet.loopback_hits()) == before
    assert SECRET_PAGE not in _shown_to_model(stub)


async def test_a_public_url_redirected_to_loopback_is_fetched_the_guard_sees_no_hop(
    served: Served, internet: Internet, stub: OpenAIStub
) -> None:
    """The limit docs/safety.md states, pinned: a fix in the project or the expert fails this."""
    state = await _run(served, VIA_REDIRECT)

    # A read runs unasked: no question, no refusal; the expert followed the 302 to loopback.
    assert not interrupts_of(state)
    said = json.dumps(state["values"])
    assert "denied address" not in said
    assert "news.example.com /article" in internet.seen
    assert internet.loopback_hits() == [f"{internet.stub.url.removeprefix('http://')} /secret"]
    # The loopback page reached the model, and the user on the plan card, under the loopback
    # URL this expert happens to report (the project is told nothing of where a result came
    # from; mcp-server-fetch names the URL it was asked for).
    assert SECRET_PAGE in _shown_to_model(stub)
    (card,) = [u for u in state["values"]["ui"] if u["name"] == "plan"]
    (task,) = card["props"]["tasks"]
    assert task["line"] == f"Contents of {internet.secret_url} (status 200): {SECRET_PAGE}"
