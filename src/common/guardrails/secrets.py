"""Rule 5: secrets (keys, tokens, private keys, cards, passwords) masked in text and values."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator, Mapping
from typing import Any

from common.guardrails.text import MAX_DEPTH, Folded, fold, key_tokens, words

_KEY_CHAR = r"A-Za-z0-9_\-"

_TOKEN_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        ("anthropic_api_key", rf"(?<![{_KEY_CHAR}])sk-ant-[{_KEY_CHAR}]{{20,}}"),
        ("openai_api_key", rf"(?<![{_KEY_CHAR}])sk-(?=[{_KEY_CHAR}]*[0-9])[{_KEY_CHAR}]{{20,}}"),
        ("stripe_key", r"(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
        (
            "aws_access_key_id",
            r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])",
        ),
        (
            "github_token",
            r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})",
        ),
        ("slack_token", rf"(?<![{_KEY_CHAR}])xox[abposr]-[A-Za-z0-9\-]{{10,}}"),
        ("slack_webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]{20,}"),
        ("google_api_key", rf"(?<![{_KEY_CHAR}])AIza[{_KEY_CHAR}]{{35}}"),
        (
            "jwt",
            rf"(?<![{_KEY_CHAR}])eyJ[{_KEY_CHAR}]{{5,}}\.eyJ[{_KEY_CHAR}]{{5,}}\.[{_KEY_CHAR}]*",
        ),
    )
)
"""Secrets recognised by their own shape, as (kind, pattern); also found split across lines."""

_CONTEXT_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "password",
        re.compile(
            r"(?i)(?<![a-z0-9+.\-])[a-z][a-z0-9+.\-]{0,31}://[^\s/:@]+:(?P<secret>[^\s/@]+)@"
        ),
    ),
    (
        "authorization",
        re.compile(
            r"(?i)\bauthorization[\"']?\s*[:=]\s*[\"']?"
            r"(?:(?:bearer|basic|token|digest|negotiate)\s+)?(?P<secret>[^\s\"',;]{8,})"
        ),
    ),
    ("bearer_token", re.compile(r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9\-._~+/]{16,}=*)")),
    ("ssn", re.compile(r"(?<![0-9\-])[0-9]{3}-[0-9]{2}-[0-9]{4}(?![0-9\-])")),
)
"""Secrets recognised by their surroundings, as (kind, pattern); a `secret` group is the part
masked (a password in a URL, the credentials of an Authorization header)."""

_PEM_BEGIN = re.compile(
    r"-----\s*BEGIN\s+(?:[A-Z0-9]+\s+){0,3}PRIVATE\s+KEY(?:\s+BLOCK)?\s*-----", re.IGNORECASE
)
"""The header of a PEM private key (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP ... PRIVATE KEY)."""
_PEM_END = re.compile(
    r"-----\s*END\s+(?:[A-Z0-9]+\s+){0,3}PRIVATE\s+KEY(?:\s+BLOCK)?\s*-----", re.I
)
"""The footer of a PEM private key."""
_PEM_BODY = re.compile(
    r"(?:(?:[ \t]*(?:\\[nr]|\r?\n))+[ \t]*"
    r"(?:Proc-Type:[^\n\\]*|DEK-Info:[^\n\\]*|[A-Za-z0-9+/=]{16,}|[A-Za-z0-9+/]*={1,2}))*"
)
"""The lines of a PEM body, for a key whose footer is missing."""

_SECRET_WORDS = frozenset(
    words("password passwd passphrase pwd secret apikey token credential credentials")
)
"""Last words of an argument or key name that hold a secret (`db_password`, `hf_token`)."""
_SECRET_PAIRS = frozenset(
    (first, "key") for first in words("api access secret private account signing encryption master")
)
"""Two-word endings of names that hold a secret (`OPENAI_API_KEY`, `privateKey`)."""
_NOT_SECRET_TOKENS = frozenset(
    {"page", "next", "prev", "previous", "continuation", "cursor", "sync", "pagination", "resume"}
)
"""Words before `token` that make it a pagination cursor, not a secret (`next_page_token`)."""

_KEY_VALUE = re.compile(r"(?<![A-Za-z0-9_.\-])(?P<key>[A-Za-z0-9_.\-]+)[\"']?[ \t]*[:=]")
"""An identifier followed by `=` or `:` (possibly closing a JSON key's quotes)."""
_BARE_VALUE = re.compile(r"[^\s,;&\"'<>)}\]]+")
"""An unquoted value: up to whitespace or a separator."""
_QUOTED_VALUE = re.compile(r"\"((?:[^\"\\\n]|\\.)*)\"|'((?:[^'\\\n]|\\.)*)'")
"""A quoted value on one line."""

_REDACTED = "[REDACTED:"
"""How every mask starts: `[REDACTED:openai_api_key]`."""

_JOIN = re.compile(rf"(?<=[{_KEY_CHAR}])[ \t]*\r?\n[ \t]*(?=[{_KEY_CHAR}])")
"""A line break inside a run of key characters: a token wrapped over two lines."""


def secret_key_kind(name: str) -> str | None:
    """The kind of secret an argument or key name holds (`password`, `api_key`...), or None.

    The name's last word decides (`db_password`, `userPassword`, `MYSQL_ROOT_PASS`, `hf_token`,
    `OPENAI_API_KEY`); `pass` alone, `max_tokens`, `token_count` and pagination cursors such
    as `next_page_token` hold no secret.
    """
    words = key_tokens(name)
    if not words:
        return None
    last = words[-1]
    pair = (words[-2], last) if len(words) > 1 else None
    if last in ("password", "passwd", "passphrase", "pwd") or (last == "pass" and pair):
        return "password"
    if pair in _SECRET_PAIRS or last == "apikey":
        return "private_key" if pair == ("private", "key") else "api_key"
    if last == "token":
        return None if pair is not None and pair[0] in _NOT_SECRET_TOKENS else "token"
    if last == "authorization":
        return "authorization"
    if last in _SECRET_WORDS:
        return "secret"
    return None


def _kv_value(text: str, pos: int) -> tuple[int, int] | None:
    """Span of the value after a `key=` or `key:` ending at `pos`, or None.

    The value may sit on the next line when nothing follows the separator on its own line
    (`password=` then `hunter2`); `==`, `=>`, empty values and values already masked are left.
    """
    n = len(text)
    if pos < n and text[pos] in "=>":
        return None
    i = pos
    while i < n and text[i] in " \t":
        i += 1
    if i < n and text[i] in "\r\n":
        i += 2 if text.startswith("\r\n", i) else 1
        while i < n and text[i] in " \t":
            i += 1
    if i >= n:
        return None
    if text[i] in "\"'":
        q = _QUOTED_VALUE.match(text, i)
        if q is None or q.end() - q.start() <= 2 or text.startswith(_REDACTED, i + 1):
            return None
        return q.start() + 1, q.end() - 1
    m = _BARE_VALUE.match(text, i)
    if m is None or m.group().startswith(_REDACTED) or m.group().endswith(":"):
        return None
    return m.span()


def _card_spans(text: str) -> Iterator[tuple[int, int]]:
    """Card numbers: 13 to 19 digits starting 2 to 6 that pass Luhn, whole or in groups.

    Groups are separated by one space or dash and hold 3 to 6 digits each (`4111 1111 1111
    1111`, `3782-822463-10005`); a longer digit run is never cut into a card.
    """
    for run in re.finditer(r"[0-9]+(?:[ \-][0-9]+)*", text):
        groups = [
            (run.start() + m.start(), run.start() + m.end())
            for m in re.finditer(r"[0-9]+", run.group())
        ]
        i = 0
        while i < len(groups):
            hit = None
            for j in range(min(len(groups), i + 6) - 1, i - 1, -1):
                window = groups[i : j + 1]
                if len(window) > 1 and any(not 3 <= e - s <= 6 for s, e in window):
                    continue
                digits = "".join(text[s:e] for s, e in window)
                if 13 <= len(digits) <= 19 and digits[0] in "23456" and luhn(digits):
                    hit = j
                    break
            if hit is None:
                i += 1
            else:
                yield groups[i][0], groups[hit][1]
                i = hit + 1


def luhn(digits: str) -> bool:
    """Whether a digit string passes the Luhn checksum."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _pem_spans(text: str) -> Iterator[tuple[int, int]]:
    """PEM private keys, header to footer (or, without a footer, through the body lines)."""
    pos = 0
    footers = True
    while (begin := _PEM_BEGIN.search(text, pos)) is not None:
        # Once no footer follows, none follows a later header either: search only once.
        end = _PEM_END.search(text, begin.end()) if footers else None
        footers = end is not None
        if end is not None:
            stop = end.end()
        else:
            body = _PEM_BODY.match(text, begin.end())
            stop = body.end() if body is not None else begin.end()
        yield begin.start(), stop
        pos = stop


def _joined(folded: Folded) -> tuple[Folded, list[int]]:
    """`folded` with line breaks inside runs of key characters removed, and where they were."""
    out: list[str] = []
    origin: list[int] = []
    joins: list[int] = []
    last = 0
    text = folded.text
    for m in _JOIN.finditer(text):
        out.append(text[last : m.start()])
        origin.extend(folded.at(k) for k in range(last, m.start()))
        joins.append(len(origin))
        last = m.end()
    out.append(text[last:])
    origin.extend(folded.at(k) for k in range(last, len(text)))
    return Folded("".join(out), tuple(origin), folded.size), joins


def _secret_spans(text: str) -> list[tuple[int, int, str]]:
    """Every secret in a text as (start, end, kind) in the original, by priority."""
    folded = fold(text)
    f = folded.text
    spans: list[tuple[int, int, str]] = []

    def add(start: int, end: int, kind: str, source: Folded = folded) -> None:
        if end > start:
            s, e = source.span(start, end)
            spans.append((s, e, kind))

    for start, end in _pem_spans(f):
        add(start, end, "private_key")
    for kind, pattern in _CONTEXT_PATTERNS[:3]:
        for m in pattern.finditer(f):
            add(*m.span("secret"), kind)
    for kind, pattern in _TOKEN_PATTERNS:
        for m in pattern.finditer(f):
            add(*m.span(), kind)
    if "\n" in f:
        joined, joins = _joined(folded)
        for kind, pattern in _TOKEN_PATTERNS:
            for m in pattern.finditer(joined.text):
                end = _continued_end(joined, joins, m.start(), m.end())
                add(m.start(), end, kind, joined)
    for start, end in _card_spans(f):
        add(start, end, "card_number")
    for kind, pattern in _CONTEXT_PATTERNS[3:]:
        for m in pattern.finditer(f):
            add(*m.span(), kind)
    pos = 0
    while (pair := _KEY_VALUE.search(f, pos)) is not None:
        pos = pair.end()
        key_kind = secret_key_kind(pair.group("key"))
        # An Authorization header's credentials are found by their own pattern.
        if key_kind is None or key_kind == "authorization":
            continue
        value = _kv_value(f, pair.end())
        if value is not None:
            add(*value, key_kind)
            pos = max(pos, value[1])
    return spans


def _continued_end(joined: Folded, joins: list[int], start: int, end: int) -> int:
    """Where a token found across line breaks really ends.

    Each continuation line must look like part of a key (hold a digit, or be the whole rest of
    its line); the token is cut before the first continuation that does not.
    """
    text = joined.text
    inside = [p for p in joins[bisect_left(joins, start + 1) :] if p < end]
    for k, p in enumerate(inside):
        stop = inside[k + 1] if k + 1 < len(inside) else end
        piece = text[p:stop]
        whole_line = stop in joins or stop >= len(text) or text[stop] in "\r\n"
        if not (any(c.isdigit() for c in piece) or whole_line):
            return p
    return end


def secret_values(text: str) -> list[tuple[str, str]]:
    """Every secret `mask_secrets` would mask in `text`, as (kind, the secret as written)."""
    return [(kind, text[start:end]) for start, end, kind in _secret_spans(text)]


def mask_secrets(text: str) -> tuple[str, list[str]]:
    """The text with secrets masked (rule 5), and the kinds found in order of appearance.

    Each secret becomes `[REDACTED:<kind>]`: OpenAI (`sk-`, `sk-proj-`), Anthropic, Stripe,
    AWS access key ids, GitHub, Slack and Google keys, JWTs, PEM private keys (header to
    footer, or through the body when the footer is missing), card numbers that pass Luhn (13
    to 19 digits starting 2 to 6, plain or grouped by spaces or dashes), SSN-like `123-45-6789`,
    the value of `key=value` / `key: value` / JSON pairs whose key names a secret
    (`password`, `passwd`, `api_key`, `token`, `client_secret`...), passwords in URLs and
    Authorization / Bearer credentials.

    Split secrets: a key wrapped over several lines is masked whole when every continuation
    line holds a digit or is a whole line of key characters, and a `password=` whose value is on
    the next line is masked too. Look-alike and fullwidth characters are folded before
    matching; the rest of the text is returned unchanged. Masking twice changes nothing.
    """
    spans = _secret_spans(text)
    if not spans:
        return text, []
    priority = {kind: i for i, (_, _, kind) in enumerate(spans)}
    kinds = list(dict.fromkeys(kind for _, _, kind in sorted(spans, key=lambda s: s[0])))
    merged: list[list[Any]] = []
    for start, end, kind in sorted(spans, key=lambda s: (s[0], -s[1])):
        if merged and start < merged[-1][1]:
            top = merged[-1]
            top[1] = max(top[1], end)
            if priority[kind] < priority[top[2]]:
                top[2] = kind
        else:
            merged.append([start, end, kind])
    out: list[str] = []
    last = 0
    for start, end, kind in merged:
        out.append(text[last:start])
        out.append(f"{_REDACTED}{kind}]")
        last = end
    out.append(text[last:])
    return "".join(out), kinds


def mask_secrets_in(value: Any) -> Any:
    """`value` with every secret masked (rule 5), walking dicts, lists, tuples and sets.

    Strings are masked with `mask_secrets`; a string or number under a key that names a secret
    (`password`, `api_key`, `token`; see `secret_key_kind`) is replaced whole. Keys and other
    values are kept; containers are copied, never changed in place. A value nested deeper than
    64 levels is replaced by a placeholder rather than passed on unchecked.
    """
    return _mask_in(value, None, 0)


def _mask_in(value: Any, key: str | None, depth: int) -> Any:
    """`mask_secrets_in` below a key."""
    if depth > MAX_DEPTH:
        return f"{_REDACTED}nested_too_deeply]"
    kind = secret_key_kind(key) if key is not None else None
    if kind is not None and (
        (isinstance(value, str) and value.strip() and not value.startswith(_REDACTED))
        or (isinstance(value, int | float) and not isinstance(value, bool))
    ):
        return f"{_REDACTED}{kind}]"
    if isinstance(value, str):
        return mask_secrets(value)[0]
    if isinstance(value, Mapping):
        return {
            k: _mask_in(v, k if isinstance(k, str) else None, depth + 1) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_mask_in(v, key, depth + 1) for v in value]
    if isinstance(value, tuple):
        return tuple(_mask_in(v, key, depth + 1) for v in value)
    if isinstance(value, set | frozenset):
        return type(value)(_mask_in(v, key, depth + 1) for v in value)
    return value
