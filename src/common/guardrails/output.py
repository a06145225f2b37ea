"""Rules 6 and 8: tool output trimmed for a model, raw blobs in an answer summarised."""

from __future__ import annotations

import html
import json
import re
from typing import Any

from common.guardrails.config import GuardrailConfig

# --- rule 6: oversized tool output ---------------------------------------------------------------


def trim_tool_output(text: str, cfg: GuardrailConfig) -> str:
    """A tool output cut to `max_tool_output_chars` for the model, with a note (rule 6).

    Output within the limit is returned unchanged. Otherwise the first three quarters and the
    last quarter of the budget are kept (cut at a line break when one is near) around the note
    `[trimmed: N of M characters shown; the full output is kept in the task result]`; N never
    exceeds the limit, the note comes on top.
    """
    limit = cfg.max_tool_output_chars
    total = len(text)
    if total <= limit:
        return text
    head_len = limit * 3 // 4
    tail_len = limit - head_len
    cut = text.rfind("\n", 0, head_len)
    if cut > head_len * 4 // 5:
        head_len = cut
    tail_start = total - tail_len
    if tail_len:
        nl = text.find("\n", tail_start, tail_start + tail_len // 5)
        if nl != -1:
            tail_start = nl + 1
    head, tail = text[:head_len], text[tail_start:] if tail_len else ""
    shown = len(head) + len(tail)
    note = (
        f"[trimmed: {shown} of {total} characters shown; the full output is kept in the task "
        "result]"
    )
    return "\n".join(part for part in (head, note, tail) if part)


# --- rule 8: raw blobs in an answer --------------------------------------------------------------

_HTML_START = re.compile(r"<!doctype\s+html\b|<html(?=[\s>])", re.I)
_HTML_END = re.compile(r"</html\s*>", re.I)
_TITLE = re.compile(r"<title[^>]{0,200}>([^<]{0,300})", re.I)
_H1 = re.compile(r"<h1[^>]{0,200}>(.{0,300}?)</h1", re.I | re.S)
_TAG = re.compile(r"<[A-Za-z!/?][^<>]{0,1000}>")
_JSON_START = re.compile(r"(?:^|(?<=[\s:=`(,>]))[\[{]", re.M)
_BASE64 = re.compile(
    r"(?P<uri>data:(?P<mime>[\w.+\-]+/[\w.+\-]+)?(?:;[\w.+\-]+=[\w.+\-]+)*;base64,)?"
    r"(?P<body>[A-Za-z0-9+/_\-]{40,}={0,2}(?:\r?\n[A-Za-z0-9+/_\-]{40,}={0,2})*"
    r"(?:\r?\n(?:[A-Za-z0-9+/_\-]{16,}={0,2}|[A-Za-z0-9+/_\-]+={1,2}))?)"
)
_FENCED_SUMMARY = re.compile(
    r"```[\w+\-]*[ \t]*\r?\n[ \t]*(\[(?:JSON|HTML|base64) [^\n]*\])[ \t]*\r?\n[ \t]*```"
)
_MAX_JSON_ATTEMPTS = 200
"""JSON parses tried per answer: bounds the work on text full of brackets."""


def summarise_blobs(text: str, cfg: GuardrailConfig) -> str:
    """An answer with raw blobs longer than `max_blob_chars` replaced by summaries (rule 8).

    - an HTML document (`<!doctype html` or `<html` to `</html>` or the end):
      `[HTML document, 12 kB: title "Example Domain"]`;
    - other markup dense in tags (at least 10 tags, 30 % of the text):
      `[HTML markup, 3.1 kB]`;
    - a JSON object or array: `[JSON object with keys a, b, c … (N chars)]`,
      `[JSON array of 120 objects with keys id, name (N chars)]`;
    - a base64 run (also wrapped over lines) with upper case, lower case and digits:
      `[base64 data, N chars]`; a `data:` URI of any length: `[base64 data (image/png), N
      chars]`.

    A code fence left holding only a summary is unwrapped. Blobs inside fences are summarised
    too: an answer is not the place for them. Everything else is returned unchanged.
    """
    if not cfg.summarise_blobs:
        return text
    limit = cfg.max_blob_chars
    if len(text) > limit:
        text = _summarise_html_documents(text, limit)
        text = _summarise_markup(text, limit)
        text = _summarise_json(text, limit)
    text = _summarise_base64(text, limit)
    return _FENCED_SUMMARY.sub(r"\1", text)


def _size(text: str) -> str:
    """Size of a text in UTF-8: `850 B`, `1.5 kB`, `12 kB`, `2.3 MB`."""
    n = len(text.encode("utf-8", "replace"))
    if n < 1000:
        return f"{n} B"
    if n < 10_000:
        return f"{n / 1000:.1f} kB"
    if n < 1_000_000:
        return f"{round(n / 1000)} kB"
    return f"{n / 1_000_000:.1f} MB"


def _short(text: str, limit: int = 80) -> str:
    """One line of at most `limit` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _html_summary(region: str) -> str:
    """`[HTML document, 12 kB: title "..."]` for one document."""
    title = _TITLE.search(region)
    if title is not None and title.group(1).strip():
        label = f': title "{_short(html.unescape(title.group(1)))}"'
    else:
        heading = _H1.search(region)
        text = re.sub(r"<[^>]*>", " ", heading.group(1)) if heading is not None else ""
        label = f': heading "{_short(html.unescape(text))}"' if text.strip() else ", untitled"
    return f"[HTML document, {_size(region)}{label}]"


def _summarise_html_documents(text: str, limit: int) -> str:
    """Replace each HTML document longer than `limit` by its summary."""
    out: list[str] = []
    pos = 0
    while (start := _HTML_START.search(text, pos)) is not None:
        end_match = _HTML_END.search(text, start.end())
        end = end_match.end() if end_match is not None else len(text)
        region = text[start.start() : end]
        out.append(text[pos : start.start()])
        out.append(_html_summary(region) if len(region) > limit else region)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _summarise_markup(text: str, limit: int) -> str:
    """Replace tag-dense stretches of markup longer than `limit` by a size."""
    spans: list[tuple[int, int]] = []
    start = end = -1
    tags = tag_chars = 0

    def flush() -> None:
        length = end - start
        if start >= 0 and tags >= 10 and length > limit and tag_chars * 10 >= length * 3:
            spans.append((start, end))

    for m in _TAG.finditer(text):
        if start >= 0 and m.start() - end <= 400:
            end = m.end()
            tags += 1
            tag_chars += m.end() - m.start()
            continue
        flush()
        start, end, tags, tag_chars = m.start(), m.end(), 1, m.end() - m.start()
    flush()
    out: list[str] = []
    pos = 0
    for s, e in spans:
        out.append(text[pos:s])
        out.append(f"[HTML markup, {_size(text[s:e])}]")
        pos = e
    out.append(text[pos:])
    return "".join(out)


def _json_summary(value: dict[Any, Any] | list[Any], chars: int) -> str:
    """`[JSON object with keys a, b …]` or `[JSON array of N items]`, with the size."""
    if isinstance(value, dict):
        if not value:
            return f"[JSON object with no keys ({chars} chars)]"
        return f"[JSON object with keys {_key_list(list(value))} ({chars} chars)]"
    if value and all(isinstance(item, dict) for item in value) and value[0]:
        return (
            f"[JSON array of {len(value)} objects with keys {_key_list(list(value[0]))} "
            f"({chars} chars)]"
        )
    return f"[JSON array of {len(value)} item{'' if len(value) == 1 else 's'} ({chars} chars)]"


def _key_list(keys: list[Any], shown: int = 8) -> str:
    """The first few keys, `…` when there are more."""
    names = ", ".join(_short(str(k), 30) for k in keys[:shown])
    return names + (" …" if len(keys) > shown else "")


def _summarise_json(text: str, limit: int) -> str:
    """Replace each JSON object or array longer than `limit` by a summary."""
    decoder = json.JSONDecoder()
    out: list[str] = []
    pos = i = attempts = 0
    while attempts < _MAX_JSON_ATTEMPTS:
        m = _JSON_START.search(text, i)
        if m is None or len(text) - m.start() <= limit:
            break
        attempts += 1
        start = m.start()
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            i = start + 1
            continue
        if end - start > limit and isinstance(value, dict | list):
            out.append(text[pos:start])
            out.append(_json_summary(value, end - start))
            pos = end
        i = max(end, start + 1)
    out.append(text[pos:])
    return "".join(out)


def _summarise_base64(text: str, limit: int) -> str:
    """Replace long base64 runs and every base64 `data:` URI by a summary."""

    def replace(m: re.Match[str]) -> str:
        body = re.sub(r"\s", "", m.group("body"))
        if m.group("uri"):
            mime = m.group("mime")
            return f"[base64 data{f' ({mime})' if mime else ''}, {len(body)} chars]"
        mixed = (
            any(c.isupper() for c in body)
            and any(c.islower() for c in body)
            and any(c.isdigit() for c in body)
        )
        return f"[base64 data, {len(body)} chars]" if len(body) > limit and mixed else m.group()

    return _BASE64.sub(replace, text)
