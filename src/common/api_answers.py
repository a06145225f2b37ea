"""A successful answer from an OpenAI-style endpoint must be the API's JSON or its event stream.

openai's client hands a 2xx body that is not JSON back as plain text, and langchain-openai then
fails deep inside ("'str' object has no attribute 'choices'"): a traceback instead of a sentence.
Such a body is a web page where the API was expected: a proxy's sign-in page, a web UI at a base
URL missing its `/v1`, a captive portal. The model's HTTP clients check each answer with a
response hook and raise `NotAnAPIAnswer`, which `common.models.describe_failure` says in one
sentence naming the endpoint setting. JSON sent under another content type still passes, as
openai's client reads it.

A body that is JSON by its content type but does not parse (cut short, broken), and an answer to
a chat completions request that is JSON but no completion (`{}`, a list, an error object sent
with HTTP 200, `choices: []`, choices without a message) are the server's fault or a proxy's,
never the model's: `NotACompletion`, said as the server at the endpoint setting answering
something that is not a chat completion (never as a model's malformed answer, which is asked
again and may call for a larger model).
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


class NotACompletion(ConnectionError):
    """A 2xx answer to a chat completions request that is no completion: broken JSON, `{}`..."""

    def __init__(self, status: int, what: str) -> None:
        self.status = status
        """The answer's HTTP status."""
        self.what = what
        """What was sent instead, in a few words with a short quote."""
        super().__init__(f"HTTP {status}, {what}")


COMPLETIONS_PATH = "/chat/completions"
"""The path of the requests whose answers must be chat completions."""


def page_snippet(body: str) -> str:
    """A page's `<title>`, else its text without tags, on one line and cut to SNIPPET_CHARS."""
    found = _TITLE.search(body)
    return cut(found.group(1) if found else _TAG.sub(" ", body))


def cut(text: str) -> str:
    """`text` on one line, cut to SNIPPET_CHARS."""
    line = " ".join(text.split())
    return line if len(line) <= SNIPPET_CHARS else line[:SNIPPET_CHARS] + " …"


def check_answer(status: int, content_type: str, body: bytes, path: str = "") -> None:
    """Raise unless a 2xx answer is JSON (a chat completion on `COMPLETIONS_PATH`) or a stream.

    `NotAnAPIAnswer` for a body that is not JSON under another content type (a web page),
    `NotACompletion` for broken JSON, or JSON that is no completion where one was asked for.
    """
    kind = content_type.split(";")[0].strip().lower()
    if not 200 <= status < 300 or kind == "text/event-stream":
        return
    text = body.decode("utf-8", errors="replace")
    try:
        data = json.loads(text)
    except ValueError:
        if kind.endswith("json"):
            raise NotACompletion(status, f"not JSON: {cut(text)!r}") from None
        raise NotAnAPIAnswer(status, kind, text) from None
    problem = completion_problem(data, text) if path.endswith(COMPLETIONS_PATH) else None
    if problem is not None:
        raise NotACompletion(status, problem)


def completion_problem(data: object, text: str) -> str | None:
    """What a chat completions answer's JSON is instead of a completion; None when it is one."""
    if not isinstance(data, dict):
        return f"JSON that is no completion: {cut(text)!r}"
    error = data.get("error")
    if error:
        said = error.get("message") if isinstance(error, dict) else None
        return f"an error instead of a completion: {cut(str(said or error))!r}"
    choices = data.get("choices")
    if not isinstance(choices, list):
        return f"JSON without choices: {cut(text)!r}"
    if not choices:
        return "a completion with an empty choices list"
    if not all(isinstance(c, dict) and isinstance(c.get("message"), dict) for c in choices):
        return f"a completion whose choices hold no message: {cut(text)!r}"
    return None


async def _check_async(response: Any) -> None:
    if _needs_body(response):
        await response.aread()
        _check(response)


def _check_sync(response: Any) -> None:
    if _needs_body(response):
        response.read()
        _check(response)


def _check(response: Any) -> None:
    """`check_answer` on a response whose body was read."""
    request = getattr(response, "request", None)
    path = str(getattr(getattr(request, "url", None), "path", "") or "")
    check_answer(
        response.status_code, response.headers.get("content-type", ""), response.content, path
    )


def _needs_body(response: Any) -> bool:
    """Whether the answer is a 2xx that is not an event stream (its body is to be checked)."""
    kind = str(response.headers.get("content-type", "")).split(";")[0].strip().lower()
    return 200 <= int(response.status_code) < 300 and kind != "text/event-stream"


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
