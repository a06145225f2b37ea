"""Rule 3: local, private, internal and cloud-metadata addresses, however they are spelled."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from common.guardrails.config import GuardrailConfig
from common.guardrails.text import MAX_DEPTH, folded_text, key_tokens, words

_IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_DENIED_V4 = tuple(
    ipaddress.IPv4Network(n)
    for n in words(
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
    for n in words(
        "::/96 64:ff9b:1::/48 100::/64 2001::/32 2001:10::/28 2001:db8::/32 fc00::/7 fe80::/10 "
        "fec0::/10 ff00::/8"
    )
)
"""IPv6 ranges that are not the public internet: unspecified, loopback and IPv4-compatible,
local NAT64, discard, Teredo, ORCHID, documentation, unique-local (fc00::/7), link-local,
site-local and multicast. IPv4-mapped, NAT64 and 6to4 addresses are judged by the IPv4 address
they carry."""

_PRIVATE_SUFFIXES = tuple(
    words("localhost local localdomain internal intranet lan corp home.arpa private")
)
"""Names under these never reach the public internet (`foo.localhost`, `printer.local`,
`metadata.google.internal`)."""

_PRIVATE_NAMES = tuple(
    words(
        "metadata metadata.goog instance-data ip6-localhost ip6-loopback localtest.me lvh.me "
        "vcap.me lacolhost.com"
    )
)
"""Cloud-metadata names and public names (with their subdomains) that resolve to loopback."""

_HOST_KEY_TOKENS = frozenset(
    words(
        "url urls uri uris href link links endpoint endpoints host hosts hostname hostnames ip "
        "ips webhook proxy"
    )
)
"""Words in an argument name saying its value is a URL or a host: such a value is read as one
even without a scheme (`{"host": "2130706433"}`)."""

_TOO_DEEP = "(a value nested too deeply to check)"
"""What `denied_urls` reports for a value nested beyond `MAX_DEPTH`."""


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
            e = folded_text(entry).strip().lower().strip(".")
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
    folded = folded_text(text)
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
    return key is not None and bool(set(key_tokens(key)) & _HOST_KEY_TOKENS)


def _scan_value(value: str, key: str | None, policy: _Policy) -> list[str]:
    """Denied URLs and hosts in one string argument (or the request)."""
    found = _scan_text(value, policy)
    whole = folded_text(value).strip()
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
    if depth > MAX_DEPTH:
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
