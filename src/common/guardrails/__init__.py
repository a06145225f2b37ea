"""Deterministic guardrails: the ten heuristics of seed 001 as pure functions.

Every function here is pure and deterministic: no I/O, no DNS, no model, no clock. Each one
works on text (or nested tool arguments) and is linear in its input, so hostile input cannot
make it slow. The graph decides where each rule applies; this module only decides what it says.

1. and 2. `check_request`: an empty, too short or too long request is refused.
3. `denied_urls` (and `check_request`): local, private, link-local and cloud-metadata addresses
   and configured domains, however they are spelled (`http://0x7f.1/`, `http://[::1]/`,
   `2130706433`, the same in fullwidth characters), with an allow-list override.
4. `check_request` / `harmful_reason`: destructive commands, encoded PowerShell, antivirus
   evasion and malware requests are refused before any tool runs.
5. `mask_secrets` / `mask_secrets_in`: API keys, tokens, private keys, Luhn-valid card numbers,
   SSN-like numbers and `password=...` values are replaced by `[REDACTED:<kind>]`.
6. `trim_tool_output`: oversized tool output is cut for the model, with a note saying so.
7. Tool arguments against the tool's schema: `check_args` in the strategy's plans (not here).
8. `summarise_blobs`: HTML documents, long base64 runs and huge JSON become one-line summaries.
9. `mask_banned`: configured banned words are masked with `*`.
10. `numeric_problems`: NaN and infinities in tool output, and numbers an answer states that no
    tool returned.

Unicode look-alikes are handled by folding before any check: NFKC (fullwidth and circled
forms, ligatures), invisible format characters and combining marks dropped, common Cyrillic and
Greek look-alikes and Unicode dashes mapped to ASCII. Masking functions find matches in the
folded text and mask the corresponding characters of the original, so text they leave alone
is returned unchanged.
"""

from __future__ import annotations

import html
import ipaddress
import json
import math
import re
import unicodedata
from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

from pydantic import BaseModel, ConfigDict, Field, model_validator

from common.patterns import then_in_segment as _then


def _words(text: str) -> list[str]:
    """The words of a text: lists of names written as one string."""
    return text.split()


# --- configuration and results -----------------------------------------------------------------


class GuardrailConfig(BaseModel):
    """Knobs of the deterministic guard stage; every rule can be tuned or switched off."""

    model_config = ConfigDict(extra="forbid")

    min_request_chars: int = Field(default=2, ge=0)
    """Fewest visible characters a request may have (shorter ones are refused)."""

    max_request_chars: int = Field(default=8000, ge=1)
    """Most characters a request may have, surrounding whitespace excluded."""

    max_request_tokens: int = Field(default=2000, ge=1)
    """Most estimated tokens (`ceil(characters / 4)`) a request may have."""

    deny_private_urls: bool = True
    """Refuse local, loopback, private, link-local, internal and cloud-metadata addresses."""

    denied_domains: list[str] = Field(default_factory=list)
    """Domains refused with all their subdomains (`example.com` denies `a.example.com`).

    An entry that is an IP address or a network (`203.0.113.0/24`) denies those addresses.
    """

    allowed_hosts: list[str] = Field(default_factory=list)
    """Hosts always allowed, overriding every deny rule.

    Host names match exactly (no subdomains); IP entries match the address however it is
    written (`127.0.0.1` also allows `http://0x7f.1/`); a network (`10.1.0.0/16`) allows its
    addresses.
    """

    refuse_harmful: bool = True
    """Refuse requests with destructive commands, encoded scripts or malware intent."""

    mask_secrets: bool = True
    """Mask API keys, private keys, card numbers, SSN-like numbers and passwords.

    Read by the caller: `mask_secrets` and `mask_secrets_in` always mask.
    """

    max_tool_output_chars: int = Field(default=4000, ge=0)
    """Characters of one tool output shown to a model; the rest is cut with a note."""

    banned_words: list[str] = Field(default_factory=list)
    """Words or phrases masked in the final answer (whole words, any case)."""

    summarise_blobs: bool = True
    """Replace raw HTML documents, base64 runs and huge JSON in an answer by summaries."""

    max_blob_chars: int = Field(default=600, ge=1)
    """Size above which HTML, JSON or base64 in an answer counts as a blob."""

    check_numbers: bool = True
    """Check numeric answers against the tool outputs (NaN, infinities, invented numbers).

    Read by the caller: `numeric_problems` always checks.
    """

    @model_validator(mode="after")
    def _limits_are_consistent(self) -> GuardrailConfig:
        if self.min_request_chars > self.max_request_chars:
            raise ValueError("min_request_chars must not exceed max_request_chars")
        return self


@dataclass(frozen=True)
class Refusal:
    """A request the guard stage turns down, with a sentence telling the user what to change."""

    rule: str
    """Which rule refused: `empty_request`, `too_short`, `too_long`, `too_many_tokens`,
    `url_denied` or `harmful`."""

    message: str
    """A clear sentence for the user, naming the limit or the problem and what to change."""


# --- text folding (unicode look-alikes) ---------------------------------------------------------

_INVISIBLE = frozenset({"Cf", "Mn", "Me"})
"""Unicode categories dropped before matching: format characters (zero-width spaces, bidi
controls, soft hyphens) and combining marks."""

_CONFUSABLES = str.maketrans(
    # Cyrillic and Greek letters that look Latin, then dashes, dots, slashes, colons, quotes.
    "\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u0455\u0501\u04bb\u04cf\u043a"
    "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0425\u0423\u0406\u0408"
    "\u0405"
    "\u03b1\u03bf\u03c1\u03b9\u03ba\u03bd\u03c5\u0391\u0392\u0395\u0396\u0397\u0399\u039a"
    "\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7"
    "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u3002\u2044\u2215\u2236\u2018\u2019\u201c"
    "\u201d",
    "aeopcyxijsdhlkABEKMHOPCTXYIJSaopikvuABEZHIKMNOPTYX-------.//:''\"\"",
)
"""Look-alike characters NFKC leaves alone, mapped to the ASCII they imitate."""


@dataclass(frozen=True)
class _Folded:
    """A folded copy of a text, with where each of its characters came from."""

    text: str
    """The folded text."""

    origin: tuple[int, ...] | None
    """Index in the original of each folded character; None when both are the same."""

    size: int
    """Length of the original text."""

    def at(self, index: int) -> int:
        """Original index of the folded character at `index`."""
        return index if self.origin is None else self.origin[index]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the folded span `[start, end)` (non-empty)."""
        if self.origin is None:
            return start, end
        if start >= end:
            pos = self.origin[start] if start < len(self.origin) else self.size
            return pos, pos
        return self.origin[start], self.origin[end - 1] + 1


@lru_cache(maxsize=16)
def _fold(text: str) -> _Folded:
    """NFKC per character, invisible characters dropped, look-alikes mapped to ASCII."""
    if text.isascii():
        return _Folded(text, None, len(text))
    out: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        if ch.isascii():
            out.append(ch)
            origin.append(i)
            continue
        for c in unicodedata.normalize("NFKC", ch):
            if unicodedata.category(c) in _INVISIBLE:
                continue
            out.append(c.translate(_CONFUSABLES))
            origin.append(i)
    return _Folded("".join(out), tuple(origin), len(text))


def _remap(folded: _Folded, convert: Callable[[str], str]) -> _Folded:
    """`folded` with each character replaced by `convert(character)`, origins kept."""
    out: list[str] = []
    origin: list[int] = []
    for j, ch in enumerate(folded.text):
        converted = convert(ch)
        out.append(converted)
        origin.extend([folded.at(j)] * len(converted))
    return _Folded("".join(out), tuple(origin), folded.size)


def _folded_text(text: str) -> str:
    """Just the folded text, for checks that only detect."""
    return _fold(text).text


# --- rules 1 to 4: the request ----------------------------------------------------------------


def check_request(text: str, cfg: GuardrailConfig) -> Refusal | None:
    """Why the user's request is refused (rules 1 to 4), or None when it may go ahead.

    In order: empty or too short (visible characters after folding), too long (characters of
    the stripped request, then the estimated tokens `ceil(characters / 4)`), a denied URL or
    address, a harmful command. Secrets are not a reason to refuse: they are masked (rule 5).
    """
    visible = _folded_text(text).strip()
    if not visible:
        return Refusal(
            "empty_request", "Your request is empty. Please write what you would like me to do."
        )
    if len(visible) < cfg.min_request_chars:
        return Refusal(
            "too_short",
            f"Your request is too short ({_count(len(visible), 'character')}; at least "
            f"{_count(cfg.min_request_chars, 'character')} are needed). Please describe in a "
            "few words what you would like me to do.",
        )
    stripped = text.strip()
    if len(stripped) > cfg.max_request_chars:
        return Refusal(
            "too_long",
            f"Your request is too long ({len(stripped):,} characters; the limit is "
            f"{cfg.max_request_chars:,}). Please shorten it or ask about one part at a time.",
        )
    tokens = estimate_tokens(stripped)
    if tokens > cfg.max_request_tokens:
        return Refusal(
            "too_many_tokens",
            f"Your request is too long (about {tokens:,} tokens; the limit is "
            f"{cfg.max_request_tokens:,}). Please shorten it or ask about one part at a time.",
        )
    offending = denied_urls(text, cfg)
    if offending:
        shown = ", ".join(offending[:3]) + (" and others" if len(offending) > 3 else "")
        return Refusal(
            "url_denied",
            f"I can't access {shown}: local, private, internal and cloud-metadata addresses "
            "and blocked domains are not allowed. Please remove the address or paste the "
            "relevant text instead.",
        )
    if cfg.refuse_harmful:
        reason = harmful_reason(text)
        if reason is not None:
            return Refusal(
                "harmful",
                f"I can't help with this request: it contains {reason}, which could damage a "
                "system or defeat its protection. Please remove that part, or describe the "
                "safe result you need instead.",
            )
    return None


def estimate_tokens(text: str) -> int:
    """Estimated tokens of a text: one per four characters, rounded up."""
    return math.ceil(len(text) / 4)


def _count(n: int, noun: str) -> str:
    """`1 character`, `2 characters`."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


# --- rule 3: URLs and addresses -----------------------------------------------------------------

_IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_DENIED_V4 = tuple(
    ipaddress.IPv4Network(n)
    for n in _words(
        "0.0.0.0/8 10.0.0.0/8 100.64.0.0/10 127.0.0.0/8 169.254.0.0/16 172.16.0.0/12 "
        "192.0.0.0/24 192.0.2.0/24 192.168.0.0/16 198.18.0.0/15 198.51.100.0/24 203.0.113.0/24 "
        "224.0.0.0/4 240.0.0.0/4"
    )
)
"""IPv4 ranges that are not the public internet: this host, private, shared (CGNAT, where
100.100.100.200 is a metadata service), loopback, link-local (169.254.169.254), documentation,
benchmarking, multicast and reserved."""

_DENIED_V6 = tuple(
    ipaddress.IPv6Network(n)
    for n in _words(
        "::/96 64:ff9b:1::/48 100::/64 2001::/32 2001:10::/28 2001:db8::/32 fc00::/7 fe80::/10 "
        "fec0::/10 ff00::/8"
    )
)
"""IPv6 ranges that are not the public internet: unspecified, loopback and IPv4-compatible,
local NAT64, discard, Teredo, ORCHID, documentation, unique-local (fc00::/7), link-local,
site-local and multicast. IPv4-mapped, NAT64 and 6to4 addresses are judged by the IPv4 address
they carry."""

_PRIVATE_SUFFIXES = tuple(
    _words("localhost local localdomain internal intranet lan corp home.arpa private")
)
"""Names under these never reach the public internet (`foo.localhost`, `printer.local`,
`metadata.google.internal`)."""

_PRIVATE_NAMES = tuple(
    _words(
        "metadata metadata.goog instance-data ip6-localhost ip6-loopback localtest.me lvh.me "
        "vcap.me lacolhost.com"
    )
)
"""Cloud-metadata names and public names (with their subdomains) that resolve to loopback."""

_HOST_KEY_TOKENS = frozenset(
    _words(
        "url urls uri uris href link links endpoint endpoints host hosts hostname hostnames ip "
        "ips webhook proxy"
    )
)
"""Words in an argument name saying its value is a URL or a host: such a value is read as one
even without a scheme (`{"host": "2130706433"}`)."""

_MAX_DEPTH = 64
"""Nesting depth beyond which a value is not walked (and the guard fails closed)."""

_TOO_DEEP = "(a value nested too deeply to check)"
"""What `denied_urls` reports for a value nested beyond `_MAX_DEPTH`."""


@dataclass(frozen=True)
class _Policy:
    """The URL rules of a config, normalised once per call."""

    deny_private: bool
    denied_names: tuple[str, ...]
    denied_nets: tuple[_IPNetwork, ...]
    allowed_names: frozenset[str]
    allowed_nets: tuple[_IPNetwork, ...]

    @property
    def active(self) -> bool:
        """Whether any address can be denied at all."""
        return self.deny_private or bool(self.denied_names or self.denied_nets)


def _policy(cfg: GuardrailConfig) -> _Policy:
    """Split the configured hosts into names and networks, folded and lower-cased."""

    def split(entries: Sequence[str]) -> tuple[list[str], list[_IPNetwork]]:
        names: list[str] = []
        nets: list[_IPNetwork] = []
        for entry in entries:
            e = _folded_text(entry).strip().lower().strip(".")
            e = e.removeprefix("*.").strip("[]")
            if not e:
                continue
            net = _parse_network(e)
            if net is not None:
                nets.append(net)
            else:
                names.append(e.split(":")[0].strip("."))
        return names, nets

    denied_names, denied_nets = split(cfg.denied_domains)
    allowed_names, allowed_nets = split(cfg.allowed_hosts)
    return _Policy(
        cfg.deny_private_urls,
        tuple(denied_names),
        tuple(denied_nets),
        frozenset(allowed_names),
        tuple(allowed_nets),
    )


def _parse_network(entry: str) -> _IPNetwork | None:
    """An IP address (in any spelling) or CIDR network, as a network."""
    if "/" in entry:
        try:
            return ipaddress.ip_network(entry, strict=False)
        except ValueError:
            return None
    ip = _parse_ip(entry.split("%")[0], lenient=True)
    if ip is None:
        return None
    return ipaddress.ip_network(ip)


def _parse_ip(host: str, *, lenient: bool) -> _IPAddress | None:
    """An IP address as a URL parser would read it, or None.

    IPv4 takes every form `inet_aton` and browsers accept: one to four parts, each decimal,
    octal (leading 0) or hex (0x). Unless `lenient`, a bare decimal number without dots (`42`)
    is not taken as an address.
    """
    if ":" in host:
        try:
            return ipaddress.IPv6Address(host.split("%")[0])
        except ValueError:
            return None
    if not lenient and "." not in host and not host.lower().startswith("0x"):
        return None
    return _parse_ipv4(host)


def _parse_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """IPv4 in inet_aton form: `127.0.0.1`, `127.1`, `0x7f.1`, `0177.0.0.1`, `2130706433`."""
    parts = host.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    values: list[int] = []
    for part in parts:
        value = _ipv4_part(part)
        if value is None:
            return None
        values.append(value)
    *head, last = values
    if any(v > 255 for v in head) or last >= 256 ** (5 - len(values)):
        return None
    number = last
    for i, v in enumerate(head):
        number += v << (8 * (3 - i))
    return ipaddress.IPv4Address(number)


def _ipv4_part(part: str) -> int | None:
    """One part of an inet_aton address: decimal, octal (leading 0) or hex (0x)."""
    if not part or len(part) > 40 or not part.isascii():
        return None
    low = part.lower()
    if low.startswith("0x"):
        digits = low[2:]
        if not digits:
            return 0
        return int(digits, 16) if all(c in "0123456789abcdef" for c in digits) else None
    if not low.isdigit():
        return None
    if len(low) > 1 and low[0] == "0" and all(c in "01234567" for c in low):
        return int(low, 8)
    return int(low)


def _ip_denied(ip: _IPAddress) -> bool:
    """Whether an address is not on the public internet (an embedded IPv4 counts)."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None and _ip_denied(embedded):
            return True
        return any(ip in net for net in _DENIED_V6)
    return any(ip in net for net in _DENIED_V4)


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv4-mapped, NAT64 (64:ff9b::/96) or 6to4 address carries."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip.sixtofour


_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
"""The well-known NAT64 prefix: its addresses reach the IPv4 address in their low 32 bits."""

_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_\-]*[a-z0-9_])?")
"""One valid host-name label."""
_DASHED_IP = re.compile(r"(?<![0-9])(\d{1,3}(?:-\d{1,3}){3})(?![0-9])")
"""An address written with dashes inside a label (`10-0-0-1.sslip.io`)."""


def _name_matches(host: str, names: Sequence[str]) -> bool:
    """Whether `host` is one of `names` or a subdomain of one."""
    return any(host == n or host.endswith("." + n) for n in names)


def _host_denied(host: str, policy: _Policy, *, strict: bool) -> bool:
    """Whether one host (name or address, port and brackets removed) is denied.

    `strict` is for the real host of a URL or a host argument: a bare decimal number is read
    as an address and a single-label name (`http://db/`, resolved on the local network) is
    private. Elsewhere only unambiguous forms count.
    """
    h = host.strip().lower().strip("[]").split("%")[0].rstrip(".")
    if not h:
        return False
    ip = _parse_ip(h, lenient=strict)
    if h in policy.allowed_names or (
        ip is not None and any(ip in net for net in policy.allowed_nets)
    ):
        return False
    if ip is not None:
        if any(ip in net for net in policy.denied_nets):
            return True
        return policy.deny_private and _ip_denied(ip)
    if _name_matches(h, policy.denied_names):
        return True
    if not policy.deny_private:
        return False
    if _name_matches(h, _PRIVATE_SUFFIXES) or _name_matches(h, _PRIVATE_NAMES):
        return True
    labels = h.split(".")
    if strict and len(labels) == 1 and _LABEL.fullmatch(h):
        return True
    # Wildcard DNS services (nip.io, sslip.io) resolve names that spell an address to it.
    if len(labels) > 4:
        embedded = _parse_ipv4(".".join(labels[:4]))
        if embedded is not None and all(p.isdigit() for p in labels[:4]) and _ip_denied(embedded):
            return True
    for m in _DASHED_IP.finditer(h):
        dashed = _parse_ipv4(m.group(1).replace("-", "."))
        if dashed is not None and _ip_denied(dashed):
            return True
    return False


def _strip_port(piece: str) -> str:
    """The host of a `host:port` piece (`[v6]:port` included)."""
    if piece.startswith("["):
        end = piece.find("]")
        return piece[1:end] if end != -1 else piece[1:]
    if piece.count(":") == 1:
        return piece.partition(":")[0]
    return piece


_TRAILING = ".,;:!?)}'\""
"""Punctuation that ends a sentence rather than a URL."""


def _trim_punctuation(token: str) -> str:
    """A URL or host token without the sentence punctuation after it."""
    end = len(token)
    opened, closed = token.count("["), token.count("]")
    while end:
        ch = token[end - 1]
        if ch == "]" and opened < closed:
            closed -= 1
        elif ch not in _TRAILING:
            break
        end -= 1
    return token[:end]


_MAX_REPORTED = 200
"""Longest URL quoted back; longer ones are cut with an ellipsis."""


def _reported(token: str) -> str:
    """How a denied URL or host is quoted back: without trailing punctuation, not too long."""
    token = _trim_punctuation(token[: _MAX_REPORTED + 50])
    return token if len(token) <= _MAX_REPORTED else token[: _MAX_REPORTED - 1] + "…"


def _authority_denied(scheme: str, authority: str, policy: _Policy) -> bool:
    r"""Whether the authority part of a URL names a denied host, read every way parsers do.

    The real host (up to `/`, `\\`, `?` or `#`, after the last `@`) is judged strictly; every
    other piece between those delimiters (the userinfo, text after a backslash) is judged too,
    since parsers disagree about them (`http://example.com@127.0.0.1/`).
    """
    raw = unquote(_trim_punctuation(authority))
    primary = _strip_port(re.split(r"[/\\?#]", raw, maxsplit=1)[0].rpartition("@")[2])
    if not primary.strip(".") and scheme.lower() == "file":
        primary = "localhost"
    if _host_denied(primary, policy, strict=True):
        return True
    return any(
        _host_denied(_strip_port(piece), policy, strict=False)
        for piece in re.split(r"[@\\?#/]", raw)
        if piece
    )


_URL = re.compile(
    r"(?<![A-Za-z0-9+.\-])"
    r"(?:(?P<special>https?|wss?|ftp):[/\\]*|(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]{0,31}):[/\\]{2,})"
    r"(?P<authority>[^\s/\"'<>`]*)",
    re.IGNORECASE,
)
"""A URL with a scheme; web schemes need no slashes (`http:127.0.0.1` works in browsers)."""

_URL_END = re.compile(r"[\s\"'<>`]")
"""What ends a URL written in text."""

_BRACKETED_V6 = re.compile(r"\[[0-9A-Za-z:.%]+\](?::\d{1,5})?(?:[/\\][^\s\"'<>`]*)?")
"""A bracketed IPv6 host without a scheme: `[::1]:8080/admin`."""

_BARE_V6 = re.compile(r"(?<![\w:.\[\]])[0-9A-Fa-f]*:[0-9A-Fa-f:.]*(?:%[\w.\-]+)?(?![\w:\]])")
"""A token that may be an unbracketed IPv6 address: `fe80::1`, `::ffff:127.0.0.1`."""

_BARE_HOST = re.compile(
    r"(?<![\w.\-])(?P<host>[A-Za-z0-9][A-Za-z0-9.\-_]*)(?P<port>:\d{1,5})?(?P<path>[/\\][^\s\"'<>`]*)?"
)
"""A host without a scheme, with an optional port and path: `127.0.0.1:8080/admin`."""


def _bare_host_denied(host: str, port: str | None, path: str | None, policy: _Policy) -> bool:
    """Whether a host written without a scheme in prose is a denied address.

    Only unambiguous spellings count, so that prose is not refused: a dotted quad
    (`10.0.0.1`), an address with hex parts (`0x7f.1`), a shorter dotted number with a port or
    a path starting with a letter (`127.1:80`, `127.1/admin`; not `10.5/2`), a name with a dot
    (`metadata.google.internal`), and `localhost` with a port or a path. Plain numbers and
    single words are left alone.
    """
    h = host.rstrip(".-").lower()
    if not h or h.isdigit():
        return False
    ip = _parse_ip(h, lenient=True)
    if ip is not None:
        parts = h.split(".")
        numeric = all(p.isdigit() for p in parts)
        path_word = bool(path and len(path) > 1 and not path[1].isdigit())
        if numeric and len(parts) < 4 and not (len(parts) > 1 and (port or path_word)):
            return False
        return _host_denied(h, policy, strict=False)
    if "." in h:
        return _host_denied(h, policy, strict=False)
    if h == "localhost" and (port or path):
        return _host_denied(h, policy, strict=False)
    return False


def _scan_text(text: str, policy: _Policy) -> list[str]:
    """Denied URLs and hosts written anywhere in a text."""
    folded = _folded_text(text)
    found: list[str] = []
    chars = list(folded)

    def blank(start: int, end: int) -> None:
        chars[start:end] = " " * (end - start)

    pos = token_end = 0
    while (m := _URL.search(folded, pos)) is not None:
        if m.start() >= token_end:
            end = _URL_END.search(folded, m.end())
            token_end = end.start() if end is not None else len(folded)
            blank(m.start(), token_end)
        scheme = m.group("special") or m.group("scheme") or ""
        if _authority_denied(scheme, m.group("authority"), policy):
            found.append(_reported(folded[m.start() : min(token_end, m.start() + 400)]))
        # Go on after the host, not the whole URL: a URL may carry another (`?next=http://...`).
        pos = max(m.end(), m.start() + 1)
    rest = "".join(chars)
    for m in _BRACKETED_V6.finditer(rest):
        if _host_denied(_strip_port(m.group().split("/")[0]), policy, strict=False):
            found.append(_reported(m.group()))
        blank(m.start(), m.end())
    rest = "".join(chars)
    for m in _BARE_V6.finditer(rest):
        token = m.group()
        if token.count(":") >= 2 and token.strip(":") and _parse_ip(token, lenient=True):
            if _host_denied(token, policy, strict=False):
                found.append(_reported(token))
            blank(m.start(), m.end())
    rest = "".join(chars)
    for m in _BARE_HOST.finditer(rest):
        if _bare_host_denied(m.group("host"), m.group("port"), m.group("path"), policy):
            found.append(_reported(m.group()))
    return found


def _is_host_key(key: str | None) -> bool:
    """Whether an argument name says its value is a URL or a host (`url`, `base_url`, `host`)."""
    return key is not None and bool(set(_key_tokens(key)) & _HOST_KEY_TOKENS)


def _key_tokens(key: str) -> list[str]:
    """Lower-case words of an identifier: `baseURL` → base, url; `api-key` → api, key."""
    return [t.lower() for t in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", key)]


def _scan_value(value: str, key: str | None, policy: _Policy) -> list[str]:
    """Denied URLs and hosts in one string argument (or the request)."""
    found = _scan_text(value, policy)
    whole = _folded_text(value).strip()
    if not whole or any(c.isspace() for c in whole):
        return found
    if _is_host_key(key):
        target = whole if "://" in whole else "http://" + whole
        m = _URL.match(target)
        if m is not None and _authority_denied(
            m.group("special") or m.group("scheme") or "", m.group("authority"), policy
        ):
            found.append(_reported(whole))
        return found
    # Addresses are found by the text scan; a lone `localhost` is a host only when alone.
    if whole.lower().rstrip(".") == "localhost" and _host_denied(whole, policy, strict=False):
        found.append(whole)
    return found


def denied_urls(value: Any, cfg: GuardrailConfig) -> list[str]:
    """The denied URLs and hosts anywhere in a value (rule 3), in order, without repeats.

    `value` is a request or a tool call's arguments: strings, mappings (keys and values) and
    sequences are walked; other values are ignored. A URL with a scheme is judged by its host
    however it is spelled (decimal, octal, hex and short IPv4 forms, IPv6 with embedded IPv4,
    percent-encoding, trailing dots, userinfo and backslash tricks); a host without a scheme
    counts when its spelling is unambiguous (see `_bare_host_denied`), and a whole argument
    whose name says it is a URL or host (`url`, `host`, `endpoint`...) is read as one.
    Nothing is resolved: a public name pointing at a private address (DNS rebinding) must be
    stopped where the fetch happens. Never raises; a value nested deeper than 64 levels is
    reported as denied rather than left unchecked.
    """
    policy = _policy(cfg)
    if not policy.active:
        return []
    found: list[str] = []
    _walk_urls(value, None, policy, found, 0)
    return list(dict.fromkeys(found))


def _walk_urls(value: Any, key: str | None, policy: _Policy, found: list[str], depth: int) -> None:
    """Collect denied URLs from a nested value into `found`."""
    if depth > _MAX_DEPTH:
        found.append(_TOO_DEEP)
        return
    if isinstance(value, str):
        found.extend(_scan_value(value, key, policy))
    elif isinstance(value, Mapping):
        for k, item in value.items():
            name = k if isinstance(k, str) else None
            if name is not None:
                found.extend(_scan_text(name, policy))
            _walk_urls(item, name, policy, found, depth + 1)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            _walk_urls(item, key, policy, found, depth + 1)
    elif isinstance(value, int) and not isinstance(value, bool) and _is_host_key(key):
        found.extend(_scan_value(str(value), key, policy))


# --- rule 4: harmful commands --------------------------------------------------------------------

_Check = Callable[[str], bool]
"""A test on one (folded) text."""

_I = re.IGNORECASE
_SEGMENTS = re.compile(r"[\n;|]|&&")
"""What ends one shell command, pipes included."""
_LINES = re.compile(r"[\n;]|&&|\|\|")
"""What ends one shell pipeline: a pipe does not."""


def _rx(pattern: str) -> _Check:
    """A case-insensitive pattern search."""
    compiled = re.compile(pattern, _I)
    return lambda text: compiled.search(text) is not None


def _both(one: str, other: str) -> _Check:
    """Both patterns on the same line, in any order."""
    a, b = re.compile(one, _I), re.compile(other, _I)
    return lambda text: any(a.search(line) and b.search(line) for line in text.splitlines())


_ROOT_TARGET = re.compile(
    r"(?:/+[.*]?|~/?\*?|\$\{?home\}?/?\*?"
    r"|/+(?:bin|boot|dev|etc|home|lib|lib64|opt|proc|root|sbin|srv|sys|usr|var)/*\*?"
    r"|[a-z]:[\\/]*\*?)",
    _I,
)
"""An `rm` target whose loss ruins the machine: `/`, `/*`, `~`, `$HOME`, `/etc`, `C:\\`."""
_SHELL_TOKEN = re.compile(r"[^\s()\"'`,{}\[\]]+")
"""One shell word, quotes and brackets dropped."""


def _rm_root(text: str) -> bool:
    """`rm -r` on the root, a system or the home directory, or `rm --no-preserve-root`.

    Read per command segment, word by word (`sudo rm -rf /*`, `rm -r -f ~`, `/bin/rm -fr /`).
    """
    for segment in _SEGMENTS.split(text):
        in_rm = recursive = target = False
        for token in _SHELL_TOKEN.findall(segment):
            low = token.lower()
            if low == "rm" or low.endswith("/rm"):
                in_rm, recursive, target = True, False, False
                continue
            if not in_rm:
                continue
            if low == "--no-preserve-root":
                return True
            if low == "--recursive" or (
                low.startswith("-") and not low.startswith("--") and "r" in low
            ):
                recursive = True
            elif _ROOT_TARGET.fullmatch(low):
                target = True
            if recursive and target:
                return True
    return False


_FORK_BOMB = (
    r"([\w:.]{1,32})\s*\(\s*\)\s*\{\s*\1\s*\|\s*\1\s*&?\s*\}\s*;\s*\1"
    r"|%0\s*\|\s*%0|\bfork\s+while\s+fork\b"
    r"|\bwhile\s*\(?\s*(?:1|true)\s*\)?\s*[:{]?\s*(?:os\.)?fork\s*\("
)
"""`:(){ :|:& };:` under any function name, `%0|%0`, `fork while fork`, `while 1: os.fork()`."""

_ENCODED_FLAG = (
    r"\s[-/](?:e|ec|en|enc|enco|encod|encode|encoded|encodedc|encodedco|encodedcom"
    r"|encodedcomm|encodedcomma|encodedcomman|encodedcommand)(?=[\s:]|$)"
)
"""Every abbreviation PowerShell accepts for `-EncodedCommand`."""

_AV_VERB = (
    r"(?:bypass(?:es|ed|ing)?|evad(?:e|es|ed|ing)|evasion\s+of|disabl(?:e|es|ed|ing)"
    r"|deactivat(?:e|es|ed|ing)|turn(?:s|ed|ing)?\s+off|shut(?:ting)?\s+(?:off|down)"
    r"|kill(?:s|ed|ing)?|circumvent(?:s|ed|ing)?|get(?:ting)?\s+(?:past|around)"
    r"|defeat(?:s|ed|ing)?|avoid(?:s|ed|ing)?\s+detection\s+(?:by|from)|hid(?:e|es|ing)\s+from"
    r"|undetect(?:able|ed)\s+by|fool(?:s|ed|ing)?|trick(?:s|ed|ing)?)"
)
_AV_FILLER = (
    r"(?:(?:the|a|an|any|all|my|their|its|your|windows|microsoft|built-?in|real-?time|local"
    r"|installed|company|corporate)\s+){0,3}"
)
_AV_TARGET = (
    r"(?:anti-?virus(?:es)?|anti-?malware|av|edr|xdr|(?:windows\s+)?defender|amsi|smartscreen"
    r"|endpoint\s+(?:protection|detection|security)|security\s+software"
    r"|virus\s+(?:scanners?|protection|detection)|malware\s+detection|real-?time\s+protection)"
)
_MAKE = (
    r"(?:write|writing|create|creating|build|building|make|making|generate|generating|code"
    r"|coding|develop|developing|program|programming|give\s+me)"
)
_MAL_FILLER = (
    r"(?:(?:me|a|an|some|the|working|simple|basic|small|python|powershell|c|c\+\+|rust|go"
    r"|javascript|js|new|custom|my|own|self-?replicating|polymorphic|real|functional"
    r"|undetectable|stealthy|windows|linux|android)\s+){0,4}"
)
_MAL_TARGET = (
    r"(?:ransomware|key-?loggers?|keystroke\s+loggers?|malware|computer\s+(?:virus|worm)"
    r"|trojans?(?:\s+horse)?|rootkits?|botnets?|spyware|cryptojackers?|info-?stealers?"
    r"|(?:credential|password|cookie)\s+stealers?|reverse\s+shells?|backdoors?"
    r"|remote\s+access\s+trojans?|self-?replicating\s+(?:virus|worm|code)"
    r"|virus(?:es)?\b(?!\s+(?:scanners?|scan|definitions?|protection|checker|total|free"
    r"|vaccines?|tests?)))"
)
_DOWNLOADER = r"\b(?:curl|wget|fetch|iwr|invoke-webrequest|irm|invoke-restmethod)\b"
_PIPE_SHELL = (
    r"\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:/\S*/)?(?:ba|z|da|k|fi|c|tc|a)?sh\b"
    r"|\|\s*(?:sudo\s+)?(?:python[0-9.]*|perl|ruby|node|php|iex|invoke-expression"
    r"|powershell|pwsh)\b"
)

_HARMFUL: tuple[tuple[str, _Check], ...] = (
    ("a recursive delete of the root, a system or the home directory (rm -rf /)", _rm_root),
    (
        "a recursive delete of the root directory",
        _rx(r"\brmtree\s*\(\s*[\"'](?:/|~|[a-z]:\\{0,2})[\"']"),
    ),
    (
        "a delete of a whole Windows drive",
        _then(
            r"(?<![\w-])(?:rd|rmdir|del|erase|remove-item|ri)(?![\w-])",
            r"\s[\"']?[a-z]:[\\/]?\*?[\"']?(?=\s|$)",
        ),
    ),
    ("formatting a drive", _rx(r"\bformat(?:\.com)?\s+[a-z]:(?=[\s/]|$)")),
    ("a fork bomb", _rx(_FORK_BOMB)),
    (
        "an encoded PowerShell command (-EncodedCommand)",
        _then(r"\b(?:powershell|pwsh)(?:\.exe)?\b", _ENCODED_FLAG),
    ),
    (
        "a PowerShell command that downloads and runs code",
        _both(
            r"\b(?:iex|invoke-expression)\b",
            r"\b(?:downloadstring|downloadfile|net\.webclient|invoke-webrequest|iwr"
            r"|invoke-restmethod|irm)\b",
        ),
    ),
    (
        "a request to disable or evade antivirus protection",
        _rx(rf"\b{_AV_VERB}\s+{_AV_FILLER}{_AV_TARGET}\b"),
    ),
    (
        "a request to disable Windows Defender",
        _then(r"\bset-mppreference\b", r"\s-disable\w*"),
    ),
    (
        "a request to make malware undetectable",
        _both(
            r"\b(?:fud|fully\s+undetectable)\b",
            r"\b(?:malware|payload|crypter|stub|trojan|virus|backdoor|exe|binary|shellcode)\b",
        ),
    ),
    ("a request to write malware", _rx(rf"\b{_MAKE}\s+{_MAL_FILLER}{_MAL_TARGET}")),
    (
        "a reverse shell",
        _rx(
            r"/dev/(?:tcp|udp)/|\bnc(?:at)?\b[^\n;|]{0,200}\s-[a-z]*e\s+\S*sh\b"
            r"|\bsocat\b[^\n;|]{0,200}\bexec:"
        ),
    ),
    ("formatting a disk (mkfs)", _then(r"\bmk(?:fs|e2fs|swap)(?:\.\w+)?\b", r"/dev/")),
    (
        "overwriting a disk device (dd)",
        _then(r"\bdd\b", r"\bof=/dev/(?!null\b|zero\b|stdout\b|stderr\b|random\b|urandom\b)"),
    ),
    (
        "overwriting a disk device",
        _rx(r">\s*/dev/(?:sd[a-z]|hd[a-z]|nvme\d|xvd[a-z]|vd[a-z]|mmcblk\d|disk\d)"),
    ),
    ("wiping a disk device", _then(r"\b(?:shred|wipefs|blkdiscard)\b", r"/dev/")),
    (
        "a recursive permission change of the root directory",
        _then(r"\bch(?:mod|own|grp)\b", r"\s-[a-z]*r[a-z]*\s+(?:\S+\s+)?/\*?(?=\s|$)"),
    ),
    (
        "a downloaded script piped into a shell (curl | sh)",
        _then(_DOWNLOADER, _PIPE_SHELL, _LINES),
    ),
    (
        "a downloaded script run by a shell",
        _rx(
            r"\b(?:ba|z|da|k)?sh\s+(?:-c\s+)?[\"']?(?:<\(|\$\()\s*(?:curl|wget)\b"
            r"|\beval\s+[\"']?\$\(\s*(?:curl|wget)\b"
        ),
    ),
    (
        "decoded base64 piped into a shell",
        _then(r"\bbase64\s+(?:-d|--decode|-D)(?!\w)", _PIPE_SHELL, _LINES),
    ),
)
"""What makes a request harmful, as (what the user is told it contains, check)."""

_OBFUSCATION = re.compile(r"[\"'`\\^]|\$\{?IFS\}?")
"""Quotes, backslashes, carets and `$IFS` that split a command word without changing it."""


def harmful_reason(text: str) -> str | None:
    """What makes a text harmful (rule 4), as a phrase for the user, or None.

    Looks for destructive commands on the whole system (`rm -rf /`, `mkfs`, `dd of=/dev/sda`,
    a fork bomb, a recursive chmod of `/`, deleting or formatting a Windows drive), encoded or
    downloaded scripts (`powershell -enc`, `curl ... | sh`, base64 piped into a shell, reverse
    shells), and requests to evade antivirus or write malware. Look-alike characters are
    folded, and quotes, backslashes, carets and `$IFS` inside words are also read removed
    (`r''m -rf /`). Ordinary commands (`rm -rf build/`) and questions about the words
    themselves ("how do antivirus programs work") pass.
    """
    folded = _folded_text(text)
    variants = list(dict.fromkeys((folded, _OBFUSCATION.sub(_deobfuscate, folded))))
    for label, check in _HARMFUL:
        if any(check(v) for v in variants):
            return label
    return None


def _deobfuscate(m: re.Match[str]) -> str:
    """`$IFS` is a space; quotes, backslashes and carets vanish."""
    return " " if m.group().lstrip("${").startswith("IFS") else ""


# --- rule 5: secrets ----------------------------------------------------------------------------

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
    _words("password passwd passphrase pwd secret apikey token credential credentials")
)
"""Last words of an argument or key name that hold a secret (`db_password`, `hf_token`)."""
_SECRET_PAIRS = frozenset(
    (first, "key")
    for first in _words("api access secret private account signing encryption master")
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
    words = _key_tokens(name)
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
                if 13 <= len(digits) <= 19 and digits[0] in "23456" and _luhn(digits):
                    hit = j
                    break
            if hit is None:
                i += 1
            else:
                yield groups[i][0], groups[hit][1]
                i = hit + 1


def _luhn(digits: str) -> bool:
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


def _joined(folded: _Folded) -> tuple[_Folded, list[int]]:
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
    return _Folded("".join(out), tuple(origin), folded.size), joins


def _secret_spans(text: str) -> list[tuple[int, int, str]]:
    """Every secret in a text as (start, end, kind) in the original, by priority."""
    folded = _fold(text)
    f = folded.text
    spans: list[tuple[int, int, str]] = []

    def add(start: int, end: int, kind: str, source: _Folded = folded) -> None:
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


def _continued_end(joined: _Folded, joins: list[int], start: int, end: int) -> int:
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
    if depth > _MAX_DEPTH:
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


# --- rule 9: banned words ------------------------------------------------------------------------

_LEET = str.maketrans(
    {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"}
)
"""Digits and signs standing for letters (`sh1t`, `@ss`)."""


def _banned_key(text: str) -> str:
    """A banned word as it is matched: folded and case-folded."""
    return _folded_text(text).casefold()


def mask_banned(text: str, cfg: GuardrailConfig) -> str:
    """The answer with banned words masked (rule 9): every character becomes `*`.

    Words and phrases match whole (not inside a longer word), in any case, through look-alike
    and fullwidth characters and simple leetspeak (`sh1t`, `@ss`); a phrase matches with any
    whitespace between its words. The whole word is masked, same length, first letter
    included (`****`): a kept first letter often gives the word away. Whitespace inside a
    phrase stays. Inflections are not guessed: list `damned` next to `damn` if both are banned.
    """
    words = sorted({_banned_key(w).strip() for w in cfg.banned_words} - {""}, key=len, reverse=True)
    if not words or not text:
        return text
    chars = list(text)
    base = _remap(_fold(text), str.casefold)
    leet = _remap(base, lambda c: c.translate(_LEET))
    for variant, forms in ((base, words), (leet, [w.translate(_LEET) for w in words])):
        alternation = "|".join(r"\s+".join(re.escape(p) for p in w.split()) for w in forms)
        pattern = re.compile(rf"(?<!\w)(?:{alternation})(?!\w)")
        for m in pattern.finditer(variant.text):
            start, end = variant.span(m.start(), m.end())
            for i in range(start, end):
                if not chars[i].isspace():
                    chars[i] = "*"
    return "".join(chars)


# --- rule 10: numbers --------------------------------------------------------------------------

_NAN_WORD = re.compile(r"(?<![\w.])[-+]?NaN(?!\w)|(?<![\w.])[-+]Infinity(?!\w)")
"""`NaN` as languages print it, and a signed `Infinity`: numeric wherever they appear."""
_NONFINITE_VALUE = re.compile(
    r"(?:[:=\[(,]|\b(?:is|was|equals|result|returns?|gives?)\b)[ \t]*[\"']?"
    r"(?P<token>[-+]?(?:nan|inf(?:inity)?))[\"']?[ \t]*(?=$|[\s,;)\]}]|\.(?!\w))"
    r"|^[ \t]*[\"']?(?P<alone>[-+]?(?:nan|inf(?:inity)?))[\"']?[ \t]*$",
    re.I | re.M,
)
"""`nan`, `inf` or `infinity` in any case where a value stands (`result: inf`, `[1, nan]`) or
alone on a line."""

_MONTHS = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November"
    r"|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)
_NOT_AMOUNTS = re.compile(
    "|".join(
        (
            r"(?<![\w+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,31}://\S+",
            r"\b\d{4}-\d{1,2}-\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
            r"(?:Z|[+-]\d{2}:?\d{2})?)?",
            r"\b\d{4}/\d{1,2}/\d{1,2}\b",
            r"\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b",
            r"\b\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s?[AaPp]\.?[Mm]\b\.?)?",
            r"\b\d{1,2}\s?[AaPp]\.?[Mm]\b\.?",
            rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?)?{_MONTHS}"
            r"(?:\s+\d{1,2}(?:st|nd|rd|th)?\b)?(?:,?\s+\d{4}\b)?",
            r"^[ \t]*\d+[.)][ \t]",
            r"\[\d+\]",
        )
    ),
    re.M,
)
"""What holds digits without stating an amount: URLs, dates and times (ISO, `15/01/2024`,
`10:30`, `3 pm`, `March 15, 2024`, `15 March 2024`), list markers and footnote marks."""

_ANSWER_NUMBER = re.compile(
    r"(?<![\w.,])(?<![A-Za-z][-_])"
    r"(?P<int>\d{1,3}(?:,\d{3})+|\d{1,2}(?:,\d{2})+,\d{3}|\d+)(?P<frac>\.\d+)?"
    r"(?:[eE](?P<exp>[-+]?\d{1,3}))?(?![,.]?\d)"
    r"(?P<tail>[^\S\n]?%|[^\S\n]?(?:thousand|million|billion|trillion|lakhs?|crores?)\b"
    r"|(?:k|K|M|bn|mn|B)\b|(?:st|nd|rd|th)\b)?"
)
"""A number stated in an answer, with thousands (`1,234`, Indian `42,94,00,000`), decimals,
an exponent, and a percent sign, scale word or ordinal suffix after it. A number glued to
letters before it (`MP3`, `COVID-19`, `v1.2`) is a name, not a number."""

_TOOL_NUMBER = re.compile(
    r"\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?(?P<tail>[^\S\n]?%|[^\S\n]?(?:thousand|million|billion"
    r"|trillion|lakhs?|crores?)\b|(?:k|K|M|bn|mn|B)\b)?"
)
"""A number in a tool output, read generously (versions, grouped and glued digits)."""

_SCALES = {
    "thousand": 1e3,
    "k": 1e3,
    "million": 1e6,
    "m": 1e6,
    "mn": 1e6,
    "billion": 1e9,
    "bn": 1e9,
    "b": 1e9,
    "trillion": 1e12,
    "lakh": 1e5,
    "lakhs": 1e5,
    "crore": 1e7,
    "crores": 1e7,
}
"""What a scale word or suffix multiplies by."""


def _nonfinite_tokens(text: str) -> list[str]:
    """The NaN and infinity spellings a text holds as values."""
    tokens = [m.group() for m in _NAN_WORD.finditer(text)]
    tokens += [m.group("token") or m.group("alone") for m in _NONFINITE_VALUE.finditer(text)]
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            parsed = json.loads(stripped)
        except (ValueError, RecursionError):
            parsed = None
        tokens += _json_nonfinite(parsed, 0)
    return tokens


def _json_nonfinite(value: Any, depth: int) -> list[str]:
    """NaN and infinite floats (or strings spelling them) inside parsed JSON."""
    if depth > _MAX_DEPTH:
        return []
    if isinstance(value, float) and not math.isfinite(value):
        return [str(value)]
    if isinstance(value, str) and value.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
        return [value.strip()]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _json_nonfinite(v, depth + 1)]
    if isinstance(value, list):
        return [t for v in value for t in _json_nonfinite(v, depth + 1)]
    return []


def _nonfinite_label(tokens: list[str]) -> str:
    """`NaN (not a number)`, `an infinite value`, or both."""
    kinds = {"nan" if "nan" in t.lower() else "inf" for t in tokens}
    labels = [
        label
        for kind, label in (("nan", "NaN (not a number)"), ("inf", "an infinite value"))
        if kind in kinds
    ]
    return " and ".join(labels)


def _tool_numbers(texts: Sequence[str]) -> list[float]:
    """Every number in the tool outputs (absolute values, sorted), read every plausible way."""
    values: set[float] = set()
    for text in texts:
        for m in _TOOL_NUMBER.finditer(_folded_text(text)):
            tail = (m.group("tail") or "").strip()
            raw = m.group()[: len(m.group()) - len(m.group("tail") or "")]
            readings = [raw.replace(",", ""), *raw.split(","), *re.split(r"[.,]", raw)]
            for reading in readings:
                try:
                    v = abs(float(reading))
                except ValueError:
                    continue
                if not math.isfinite(v):
                    continue
                values.add(v)
                if tail == "%":
                    values.add(v / 100)
                elif tail.lower() in _SCALES:
                    values.add(v * _SCALES[tail.lower()])
    return sorted(values)


def _supported(candidates: list[tuple[float, float]], pool: list[float]) -> bool:
    """Whether a tool number rounds or truncates to one of the (value, unit) readings."""
    for value, unit in candidates:
        eps = 1e-9 * max(1.0, value)
        i = bisect_left(pool, value - unit / 2 - eps)
        if i < len(pool) and pool[i] < value + unit + eps:
            return True
    return False


def _answer_readings(m: re.Match[str]) -> list[tuple[float, float]] | None:
    """(value, unit of the last digit) readings of an answer number, or None.

    None when the number is not an amount to check: an ordinal, a small count.
    """
    tail = (m.group("tail") or "").strip()
    if tail.lower() in ("st", "nd", "rd", "th"):
        return None
    digits = m.group("int").replace(",", "")
    frac = m.group("frac") or ""
    exp = int(m.group("exp") or 0)
    try:
        value = abs(float(digits + frac)) * 10.0**exp
    except (ValueError, OverflowError):
        return None
    if not math.isfinite(value):
        return None
    if not frac and not m.group("exp") and not tail and value <= 10:
        return None
    if frac:
        unit = 10.0 ** (exp - (len(frac) - 1))
    else:
        zeros = len(digits) - len(digits.rstrip("0")) if digits.strip("0") else 0
        unit = 10.0 ** (exp + zeros)
    readings = [(value, unit)]
    if tail == "%":
        readings.append((value / 100, unit / 100))
    elif tail.lower() in _SCALES:
        scale = _SCALES[tail.lower()]
        readings.append((value * scale, unit * scale))
    return readings


def numeric_problems(
    answer: str, tool_outputs: list[str], computed: bool, *, given: Sequence[str] = ()
) -> list[str]:
    """Problems with the numbers of an answer (rule 10), each a sentence; empty when none.

    Always: a tool output holding NaN or an infinity as a value (a JSON NaN/Infinity, `NaN`,
    a signed `Infinity`, or `nan` / `inf` / `infinity` in any case where a value stands, such as
    `result: inf`) is flagged, since its numeric result cannot be trusted.

    When `computed` (the task asked for a computed value), also:
    - an answer stating NaN or an infinity as its value, or stating no number at all;
    - each number the answer states that no tool output (nor a text in `given`, such as the
      request or the tool arguments) contains. A tool number supports an answer number when
      it rounds or truncates to it (`8.63` for `8.63286`, `430 million` for `429,400,000`),
      ignoring sign, with `%` and scale words (`k`, `million`, `crore`...) read both ways.
    Not checked, by decision: numbers in dates and times (`2024-01-15`, `10:30`, `March 15,
    2024`), in URLs, list markers and footnote marks, ordinals (`3rd`), numbers glued to
    letters before them (`MP3`, `COVID-19`), and whole numbers from 0 to 10 (counts such as
    "3 steps"). A bare year outside a date (`in 2023`) is checked like any number.
    """
    problems: list[str] = []
    for i, output in enumerate(tool_outputs, 1):
        tokens = _nonfinite_tokens(_folded_text(output))
        if tokens:
            problems.append(
                f"Tool output {i} contains {_nonfinite_label(tokens)}, so its numeric result "
                "is not a valid number."
            )
    if not computed:
        return problems
    folded = _folded_text(answer)
    tokens = _nonfinite_tokens(folded)
    if tokens:
        problems.append(
            f"The answer gives {_nonfinite_label(tokens)} as a result, which is not a valid number."
        )
    text = _NOT_AMOUNTS.sub(lambda m: " " * len(m.group()), folded)
    stated = list(_ANSWER_NUMBER.finditer(text))
    if not stated and not tokens and not _ANSWER_NUMBER.search(folded):
        problems.append("The task asked for a computed value, but the answer states no number.")
        return problems
    pool = _tool_numbers([*tool_outputs, *given])
    reported: set[str] = set()
    for m in stated:
        readings = _answer_readings(m)
        written = m.group().strip()
        if readings is None or written in reported or _supported(readings, pool):
            continue
        reported.add(written)
        problems.append(f"The answer states {written}, but no tool output contains that number.")
    return problems
