"""Data leaving: a call that reaches outside and carries text another expert returned.

Two pure readings of one call, applied by the gate (`common.safety.gate`):

- `open_world`: why the call reaches outside: the tool declares `openWorldHint: true`; its name
  leads with a sending verb (`send_email`, `slack_post_message`, `share_file`); or an argument
  is named like a place (`url`, `endpoint`: `arguments.URL_TOKENS`), or, on a tool whose name
  does not read, like an addressee or a message (`to`, `cc`, `channel`, `body`, `text`). A
  server that declares the tool `openWorldHint: false` is believed about its arguments (a notes
  store's `content` stays there), never about a sending name.
- `carried`: whether the arguments carry text from another expert's results: a run of at least
  `RUN_CHARS` characters of an argument string found in those results (both read case-folded,
  whitespace collapsed, the argument also percent-decoded), or a whole value the results hold
  even when shorter: an email address, an IBAN, a long number (account, card, phone), a
  token-like string. The calling expert's own results do not count (an expert echoing its own
  data sends nothing new anywhere), nor text the user wrote themselves (`asked`), nor what goes
  back where it came from: text within a link of the results, in a URL argument to that link's
  site (a search result fetched, a pull request's `.diff`), and an address of the results in an
  addressee argument (`to`). Text added to such a link, or a link or address put in a message,
  is carried.

Matching is linear: each source (and the user's own text) is read once into the set of its
`RUN_CHARS`-character stretches, hashed, and each stretch of an argument is one look-up in it;
whole values are found with bounded, non-nested patterns. Nothing is quadratic on hostile input:
no substring search per stretch, no backtracking pattern. What is not recognised: paraphrase,
translation, and encodings other than percent-encoding (base64, hex); what is not kept in the
sources (the caller bounds them) cannot be matched either.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any
from urllib.parse import unquote_plus, urlsplit

from mcp.types import Tool

from common.safety.arguments import URL_TOKENS
from common.safety.wording import name_tokens, read_name

RUN_CHARS = 20
"""Characters an argument must share in a row with another expert's results to carry them."""

ARGUMENT_SCAN_CHARS = 400_000
"""Characters of a call's string arguments read at most; a longer call is held unread."""

SENDING_VERBS = frozenset(
    " ".join(
        (
            "send post publish notify email tweet retweet reply comment forward share",
            "broadcast upload submit transmit relay deliver invite dispatch pay transfer",
        )
    ).split()
)
"""Verbs that send something (a message, a file, money) to someone when they decide a tool's
name (`send_email`, `share_file`, `pay_invoice`)."""

ADDRESSEE_TOKENS = frozenset(
    {"to", "recipient", "recipients", "email", "emails", "cc", "bcc", "channel", "webhook"}
)
"""Words in an argument's name that make its value someone to reach (`to`, `recipientEmail`)."""

MESSAGE_TOKENS = frozenset({"message", "body", "text", "content", "subject", "post", "comment"})
"""Words in an argument's name that make its value something said to someone (`body`)."""

_ADDRESSED = ADDRESSEE_TOKENS | MESSAGE_TOKENS

# Whole values and links, each pattern bounded and without nested repetition (no backtracking
# blow-up on hostile text).

_EMAIL = re.compile(r"[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,8}")
_IBAN = re.compile(r"\b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,30}\b")
_LONG_NUMBER = re.compile(r"\d{3,40}(?:[ -]\d{3,40}){0,10}")
_TOKEN = re.compile(r"[A-Za-z0-9_]{12,200}")
_SEPARATORS = re.compile(r"[\s\-]+")
_LINK = re.compile(r"https?://[^\s<>\"'`\[\]{}]{1,2048}", re.IGNORECASE)
_TRAILING = ".,;:!?"
_LINKS_PER_SITE = 64
"""Links of one site a run is looked for in (a result listing a whole site stays cheap)."""


@dataclass(frozen=True)
class Carried:
    """Text of another expert's results found in a call's arguments."""

    expert: str
    """The expert whose results hold the text."""
    argument: str
    """Where in the arguments it is (`url`, `message.body`, `to[0]`)."""
    excerpt: str
    """The shared text, shortened, as a reviewer can recognise it."""


def open_world(name: str, tool: Tool | None, args: Mapping[str, Any]) -> str | None:
    """Why a call of `name` reaches outside systems, or None when nothing says it does."""
    hint = tool.annotations.openWorldHint if tool and tool.annotations else None
    if hint is True:
        return "the tool reaches outside systems (openWorldHint=true)"
    reading = read_name(name)
    if reading.leaning in ("destructive", "change") and reading.verb in SENDING_VERBS:
        return f"its name says it sends ({reading.verb!r})"
    if hint is False:
        return None
    words = URL_TOKENS if reading.leaning == "read" else URL_TOKENS | _ADDRESSED
    for path, key in _keys(args, ""):
        if set(name_tokens(key)) & words:
            return f"its argument {path!r} names a place or someone outside"
    return None


def _keys(value: Any, path: str, depth: int = 0) -> Iterator[tuple[str, str]]:
    """Every argument name inside `value` (nested ones included), with where it sits."""
    if depth > 32:
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            yield where, str(key)
            yield from _keys(item, where, depth + 1)
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _keys(item, f"{path}[{i}]", depth + 1)


def _strings(
    value: Any, path: str, key: str = "", depth: int = 0
) -> Iterator[tuple[str, str, str]]:
    """Every string inside an argument value, with where it sits and the name it is under."""
    if depth > 32:
        return
    if isinstance(value, str):
        yield path, key, value
    elif isinstance(value, Mapping):
        for name, item in value.items():
            where = f"{path}.{name}" if path else str(name)
            yield from _strings(item, where, str(name), depth + 1)
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _strings(item, f"{path}[{i}]", key, depth + 1)


def plain(text: str) -> str:
    """`text` as compared: case-folded, every run of whitespace one space."""
    return " ".join(text.casefold().split())


def compact(text: str) -> str:
    """`text` case-folded without whitespace or dashes, as whole values are compared."""
    return _SEPARATORS.sub("", text.casefold())


def whole_values(text: str) -> set[str]:
    """Values in `text` that leave even when short: emails, IBANs, long numbers, tokens.

    Each is returned in its compared form (`compact`). A long number has 10 digits or more,
    written together or in groups of at least three (`4111 1111 1111 1111`, `415-555-0132`;
    not a date such as `2025-11-24 10`). A token is at least 12 letters, digits
    or underscores that switch between letters and digits at least three times (`sk_4eC39Hq`),
    so words, dates and product names (`MacBookPro2024`) are not tokens.
    """
    found = {compact(m.group()) for m in _EMAIL.finditer(text)}
    found |= {compact(m.group()) for m in _IBAN.finditer(text)}
    numbers = (re.sub(r"\D", "", m.group()) for m in _LONG_NUMBER.finditer(text))
    found |= {number for number in numbers if len(number) >= 10}
    found |= {compact(m.group()) for m in _TOKEN.finditer(text) if _token_like(m.group())}
    return found


def _token_like(word: str) -> bool:
    """Whether a word switches between letters and digits often enough to be random."""
    kinds = [c.isdigit() for c in word if c.isalnum()]
    switches = sum(1 for a, b in pairwise(kinds) if a != b)
    return switches >= 3


@dataclass
class _Index:
    """One expert's results, ready to be searched: stretches, whole values, links, addresses."""

    stretches: set[int]
    """The hash of every `RUN_CHARS`-character stretch of the results (`plain`)."""
    values: set[str]
    """Whole values (`whole_values`)."""
    addresses: set[str]
    """Email addresses, each whole (`plain`): a call may reach them as they were given."""
    links: dict[str, list[str]]
    """Links (`plain`) by their site (host name): what each site was given to hold."""


def _index(texts: Sequence[str]) -> _Index:
    """An expert's results, indexed for `carried`."""
    stretches: set[int] = set()
    for t in texts:
        stretches |= _stretches(plain(t))
    values: set[str] = set()
    addresses: set[str] = set()
    links: dict[str, list[str]] = {}
    for t in texts:
        values |= whole_values(t)
        addresses |= {_whole(m.group()) for m in _EMAIL.finditer(t)}
        for m in _LINK.finditer(t):
            site = _site(m.group())
            if site is not None:
                links.setdefault(site, []).append(_whole(m.group()))
    return _Index(stretches, values, addresses, links)


def _stretches(text: str) -> set[int]:
    """The hash of every `RUN_CHARS`-character stretch of `text`."""
    return {hash(text[i : i + RUN_CHARS]) for i in range(len(text) - RUN_CHARS + 1)}


def _site(url: str) -> str | None:
    """The host a URL goes to, lower-case; None when it names none or cannot be read."""
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    return host or None


def _whole(found: str) -> str:
    """A link or address as compared: `plain`, without the sentence's closing punctuation.

    A closing parenthesis stays when the link opened one (`/wiki/Python_(language)`).
    """
    whole = plain(found).rstrip(_TRAILING)
    while whole.endswith(")") and whole.count(")") > whole.count("("):
        whole = whole[:-1].rstrip(_TRAILING)
    return whole


class Sources:
    """The texts of each expert's results in a thread, each expert indexed once, when needed."""

    def __init__(self, texts: Mapping[str, Sequence[str]], asked: str = "") -> None:
        self.texts = {name: list(found) for name, found in texts.items()}
        """Expert name to the texts of its results (the caller bounds how many and how long)."""
        self.asked = _stretches(plain(asked))
        """Every `RUN_CHARS`-character stretch of what the user wrote (hashed): asked to leave."""
        self.asked_values = whole_values(asked)
        """Whole values the user wrote themselves."""
        self._indexes: dict[str, _Index] = {}

    def written_by_user(self, stretch: str) -> bool:
        """Whether a `RUN_CHARS`-character stretch is in what the user wrote."""
        return hash(stretch) in self.asked

    def index(self, expert: str) -> _Index:
        """The index of `expert`'s results (built on first use)."""
        if expert not in self._indexes:
            self._indexes[expert] = _index(self.texts.get(expert, ()))
        return self._indexes[expert]


def carried(args: Mapping[str, Any], sources: Sources, expert: str) -> Carried | str | None:
    """Text of another expert's results in the arguments of a call to `expert`, if any.

    A string (a reason) when the arguments are too long to read: that call is held unread.
    """
    others = [name for name, texts in sources.texts.items() if name != expert and texts]
    if not others:
        return None
    strings = list(_strings(dict(args), ""))
    size = sum(len(s) for _, _, s in strings)
    if size > ARGUMENT_SCAN_CHARS:
        return f"its arguments are too long to check for other experts' data ({size} characters)"
    for path, key, value in strings:
        words = set(name_tokens(key))
        site = _site(value) if words & URL_TOKENS else None
        for name in others:
            index = sources.index(name)
            if words & ADDRESSEE_TOKENS and _whole(value) in index.addresses:
                continue  # someone reached at the address the results gave
            home = index.links.get(site, [])[:_LINKS_PER_SITE] if site else []
            for form in _forms(value):
                found = _shared(form, index, sources, home)
                if found is not None:
                    return Carried(name, path or "(value)", _shortened(found))
    return None


def _forms(value: str) -> list[str]:
    """The argument as written, and percent-decoded when that changes it."""
    if "%" in value or "+" in value:
        decoded = unquote_plus(value)
        if decoded != value:
            return [value, decoded]
    return [value]


def _shared(arg: str, index: _Index, sources: Sources, home: list[str]) -> str | None:
    """A run or whole value of `index`'s results in the argument that leaves.

    Not what the user wrote, nor what lies within a link of the results to the site the
    argument goes to (`home`): that site made the link, so it learns nothing new.
    """
    said = plain(arg)
    held = _held(said, index)
    for i, hit in enumerate(held):
        stretch = said[i : i + RUN_CHARS]
        if hit and not sources.written_by_user(stretch) and not any(stretch in k for k in home):
            return _lengthened(said, held, i)
    shared = (whole_values(arg) & index.values) - sources.asked_values
    shared = {v for v in shared if not any(v in compact(link) for link in home)}
    return max(sorted(shared), key=len) if shared else None


def _held(arg: str, index: _Index) -> list[bool]:
    """For each `RUN_CHARS`-character stretch of the argument, whether the results hold it."""
    return [
        hash(arg[i : i + RUN_CHARS]) in index.stretches for i in range(len(arg) - RUN_CHARS + 1)
    ]


def _lengthened(arg: str, held: list[bool], i: int) -> str:
    """The stretch at `i`, with up to `RUN_CHARS` more characters the results hold after it."""
    end = i
    while end + 1 < min(len(held), i + RUN_CHARS + 1) and held[end + 1]:
        end += 1
    return arg[i : end + RUN_CHARS]


def _shortened(text: str, limit: int = 60) -> str:
    """The shared text as a reviewer sees it: a middle cut when long."""
    if len(text) <= limit:
        return text
    return f"{text[: limit // 2]}…{text[-limit // 2 :]}"
