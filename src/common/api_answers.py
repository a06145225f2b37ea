"""A successful answer from an OpenAI-style endpoint must be the API's JSON or its event stream.

openai's client hands a 2xx body that is not JSON back as plain text, and langchain-openai then
fails deep inside ("'str' object has no attribute 'choices'"): a traceback instead of a sentence.
Such a body is a web page where the API was expected: a proxy's sign-in page, a web UI at a base
URL missing its `/v1`, a captive portal. The model's HTTP clients check each answer with a
response hook and raise `NotAnAPIAnswer`, which `common.models.describe_failure` says in one
sentence naming the endpoint setting. JSON sent under another content type still passes, as
openai's client reads it.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

SNIPPET_CHARS = 80
"""Longest quote of the page in the sentence."""

_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


class NotAnAPIAnswer(ConnectionError):
    """A 2xx answer that is neither JSON nor an event stream: the endpoint is not the API."""

    def __init__(self, status: int, content_type: str, body: str) -> None:
        self.status = status
        """The answer's HTTP status."""
        self.content_type = content_type or "no content type"
        """Its Content-Type, without parameters."""
        self.snippet = page_snippet(body)
        """The page's title, else its first words."""
        super().__init__(f"HTTP {status} {self.content_type}: {self.snippet!r}")


def page_snippet(body: str) -> str:
    """A page's `<title>`, else its text without tags, on one line and cut to SNIPPET_CHARS."""
    found = _TITLE.search(body)
    text = " ".join((found.group(1) if found else _TAG.sub(" ", body)).split())
    return text if len(text) <= SNIPPET_CHARS else text[:SNIPPET_CHARS] + " …"


def check_answer(status: int, content_type: str, body: bytes) -> None:
    """Raise `NotAnAPIAnswer` unless a 2xx answer is JSON or an event stream (others pass)."""
    kind = content_type.split(";")[0].strip().lower()
    if not 200 <= status < 300 or kind.endswith("json") or kind == "text/event-stream":
        return
    text = body.decode("utf-8", errors="replace")
    try:
        json.loads(text)
    except ValueError:
        raise NotAnAPIAnswer(status, kind, text) from None


async def _check_async(response: Any) -> None:
    if _needs_body(response):
        await response.aread()
        check_answer(
            response.status_code, response.headers.get("content-type", ""), response.content
        )


def _check_sync(response: Any) -> None:
    if _needs_body(response):
        response.read()
        check_answer(
            response.status_code, response.headers.get("content-type", ""), response.content
        )


def _needs_body(response: Any) -> bool:
    """Whether the answer is a 2xx whose content type is neither JSON nor an event stream."""
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    ok = 200 <= response.status_code < 300
    return ok and not (kind.endswith("json") or kind == "text/event-stream")


def checked_clients(provider: str) -> dict[str, Any]:
    """`http_client` and `http_async_client` for an openai or azure_openai chat model.

    openai's own client defaults (timeouts are sent with each request), plus the answer check.
    None when `OPENAI_PROXY` is set: langchain-openai refuses a proxy together with clients.
    """
    if provider not in ("openai", "azure_openai") or os.environ.get("OPENAI_PROXY"):
        return {}
    # Imported here: only a model on OpenAI's API builds these clients.
    import openai

    return {
        "http_client": openai.DefaultHttpxClient(event_hooks={"response": [_check_sync]}),
        "http_async_client": openai.DefaultAsyncHttpxClient(
            event_hooks={"response": [_check_async]}
        ),
    }
