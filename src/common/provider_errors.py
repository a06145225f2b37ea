"""What a provider said when it refused a request: status, message, type, param, Retry-After.

Read from the error the client library raised (openai, anthropic, httpx, google-api-core),
never by calling the provider again: one sentence for people (`common.models.describe_failure`)
and the fallback of structured output methods (`common.structured`) are built from it.
Gemini's clients (both transports) raise google-api-core errors, which carry the HTTP status
as `code` and Gemini's words as `message`; langchain-google-genai raises its own error `from`
the one for HTTP 400 (INVALID_ARGUMENT), so that one is found behind it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

GOOGLE_ERRORS = "google.api_core.exceptions"
"""The module of the errors Gemini's clients raise (`GoogleAPICallError` and its kinds)."""


def google_error(exc: BaseException) -> BaseException | None:
    """The google-api-core error that `exc` is, or was raised from; None when there is none."""
    seen: BaseException | None = exc
    for _ in range(5):
        if seen is None:
            return None
        if type(seen).__module__ == GOOGLE_ERRORS:
            return seen
        seen = seen.__cause__
    return None


def status_of(exc: BaseException) -> int | None:
    """The HTTP status of a provider client's error (openai, anthropic, httpx, google), if any."""
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int):
        response = getattr(exc, "response", None)
        status = getattr(response, "status_code", None)
    if not isinstance(status, int) and (google := google_error(exc)) is not None:
        status = getattr(google, "code", None)
    return status if isinstance(status, int) and 100 <= status <= 599 else None


PROVIDER_MESSAGE_CHARS = 300
"""Longest provider error message kept in a sentence (some echo the whole request)."""


@dataclass(frozen=True)
class ProviderError:
    """What a provider said when it refused a request: its own words, as its error body has them."""

    message: str
    """The provider's message, on one line ("" when it gave none)."""
    kind: str | None = None
    """Its error type or code (e.g. `invalid_request_error`, `model_not_found`)."""
    param: str | None = None
    """The request parameter it names, when it names one (OpenAI's `param`)."""

    def words(self) -> str:
        """`invalid_request_error, param 'x': "message"`: what it said ("" when nothing)."""
        head = ", ".join(
            p for p in (self.kind, f"param {self.param!r}" if self.param else None) if p
        )
        quoted = f'"{self.message}"' if self.message else ""
        return f"{head}: {quoted}" if head and quoted else head or quoted

    def said(self, status: int) -> str:
        """`HTTP 400 invalid_request_error, param 'x': "message"`: the status and its words."""
        words = self.words()
        if not words:
            return f"HTTP {status}"
        return f"HTTP {status} {words}" if self.kind or self.param else f"HTTP {status}: {words}"


def provider_error(exc: BaseException) -> ProviderError:
    """The provider's message, type and param from its error body (OpenAI, Anthropic, FastAPI).

    OpenAI's body is `{"error": {"message", "type", "param", "code"}}` (the openai client keeps
    the inner object), Anthropic's `{"type": "error", "error": {"type", "message"}}`, and
    FastAPI-based servers (llama.cpp's) answer `{"detail": [{"loc", "msg"}]}`. A google-api-core
    error gives its message and gRPC status name (e.g. `INVALID_ARGUMENT`).
    """
    google = google_error(exc)
    if google is not None:
        kind = getattr(getattr(google, "grpc_status_code", None), "name", None)
        return ProviderError(_one_line(str(getattr(google, "message", "") or google)), kind)
    body = getattr(exc, "body", None)
    if body is None:
        response = getattr(exc, "response", None)
        try:
            body = response.json() if response is not None else None
        except (ValueError, AttributeError):
            body = None
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body = body["error"]
    if isinstance(body, dict) and isinstance(body.get("detail"), list):
        parts = [_detail_part(d) for d in body["detail"] if isinstance(d, dict)]
        return ProviderError(_one_line("; ".join(parts)))
    if isinstance(body, dict) and body.get("message"):
        kind = body.get("code") or body.get("type")
        param = body.get("param")
        return ProviderError(
            _one_line(str(body["message"])),
            str(kind) if kind else None,
            str(param) if param else None,
        )
    if isinstance(body, dict) and isinstance(body.get("detail"), str):
        return ProviderError(_one_line(body["detail"]))
    text = str(getattr(exc, "message", None) or exc)
    return ProviderError(_one_line(text))


def _detail_part(detail: dict[str, Any]) -> str:
    """One FastAPI validation error: `response_format.type: Input should be ...`."""
    loc = [str(p) for p in detail.get("loc") or [] if p != "body"]
    msg = str(detail.get("msg") or "")
    return f"{'.'.join(loc)}: {msg}" if loc else msg


def _one_line(text: str) -> str:
    """`text` on one line, cut to `PROVIDER_MESSAGE_CHARS`."""
    line = " ".join(text.split())
    return line if len(line) <= PROVIDER_MESSAGE_CHARS else line[:PROVIDER_MESSAGE_CHARS] + " …"


def retry_after(exc: BaseException) -> float | None:
    """Seconds the provider asked to wait (`retry-after-ms` or `Retry-After` seconds), if any."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        try:
            seconds = float(value) / scale if value is not None else None
        except ValueError:
            seconds = None
        if seconds is not None and seconds >= 0:
            return round(seconds, 1)
    return None
