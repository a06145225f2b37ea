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
  whitespace collapsed), a whole value the results hold even when shorter and written another
  way (an email address, an IBAN, a long number such as a card or a phone number, a token-like
  string: `common.safety.disguises.values_in`), or a short secret the results label or that
  looks like one (`secrets_in`). Each argument is read as written and decoded
  (`disguises.decoded`: URL-decoded repeatedly, base64, hex, nested), each form also in its
  normal forms, as the results are (`disguises.normal_forms`: look-alike and invisible
  characters folded, digits spread out joined), and a value whose parts went out over several
  calls to one destination (`destination`) is found by adding up what the thread sent there
  (`Sources.sent`). The calling expert's own results do not count (an
  expert echoing its own data sends nothing new anywhere), nor text the user wrote themselves
  (`asked`), nor what goes back where it came from: text within a link of the results, in a
  URL argument to that link's site (a search result fetched, a pull request's `.diff`), and an
  address of the results in an addressee argument (`to`). Text added to such a link, or a link
  or address put in a message, is carried. The reason names what was found and its disguise
  (`an IBAN, lower-cased, with dashes, base64-encoded`). `carried_all` finds every such text
  (one per expert and text: an edit adding one is told apart), `carried` the first.

Matching is linear: each source (and the user's own text) is read once into the set of its
`RUN_CHARS`-character stretches, hashed, and each stretch of an argument is one look-up in it;
whole values are found with bounded, non-nested patterns, secrets and the pieces of split
values by hashed look-ups too, and decoding reads a bounded multiple of the argument. Nothing
is quadratic on hostile input. What is not recognised: paraphrase, translation, arithmetic on
numbers, digits reordered or spelled out, other encodings (ROT13, a cipher, an image), a value
split into pieces shorter than `GRAM` characters, sent to different destinations or over the
arguments of one call; what is not kept in the sources (the caller bounds them) cannot be
matched either (docs/safety.md lists the rest).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from common.safety.arguments import URL_TOKENS
from common.safety.disguises import (
    EMAIL,
    SECRET_MIN_CHARS,
    Value,
    canonical,
    decoded,
    disguise,
    normal_forms,
    secrets_in,
    values_in,
    values_of,
)
from common.safety.wording import name_tokens, read_name

if TYPE_CHECKING:
    from mcp.types import Tool

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

# Links, bounded and without nested repetition (no backtracking blow-up on hostile text).
_LINK = re.compile(r"https?://[^\s<>\"'`\[\]{}]{1,2048}", re.IGNORECASE)
_TRAILING = ".,;:!?"
_WORD_START = re.compile(r"(?<![^\W_])[^\W_]")
"""A letter or digit that starts a word: where a whole secret may begin."""
_LINKS_PER_SITE = 64
"""Links of one site a run is looked for in (a result listing a whole site stays cheap)."""

GRAM = 4
"""Characters of a value's piece recognised in one call of a value split over several."""
_GRAM_VALUES = 16
"""Values one piece is looked for in (a piece every value holds says nothing)."""
SPLIT_MIN_CHARS = 8
"""Letters and digits a value has at least to be recognised split over several calls."""


@dataclass(frozen=True)
class Carried:
    """Text of another expert's results found in a call's arguments."""

    expert: str
    """The expert whose results hold the text."""
    argument: str
    """Where in the arguments it is (`url`, `message.body`, `to[0]`)."""
    excerpt: str
    """The shared text, shortened, as a reviewer can recognise it."""
    what: str = ""
    """What the text is and how it was disguised (`an IBAN, lower-cased, with dashes`)."""
    text: str = field(default="", compare=False)
    """The shared text whole, as compared: what tells two findings apart."""


def open_world(name: str, tool: Tool | None, args: Mapping[str, Any]) -> str | None:
    """Why a call of `name` reaches outside systems, or None when nothing says it does."""
    hint = tool.annotations.open_world_hint if tool and tool.annotations else None
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


def destination(expert: str, name: str, tool: Tool | None, args: Mapping[str, Any]) -> str | None:
    """Where an open-world call sends its arguments, as parts of one value are added up there.

    The sites its URL arguments go to (whichever expert goes there), else the expert and the
    people it reaches (`to`, `channel`), else the expert and the tool; None when the call does
    not reach outside.
    """
    if open_world(name, tool, args) is None:
        return None
    sites: set[str] = set()
    reached: set[str] = set()
    for _, key, value in _strings(dict(args), ""):
        words = set(name_tokens(key))
        if words & URL_TOKENS and (site := _site(value)) is not None:
            sites.add(site)
        elif words & ADDRESSEE_TOKENS:
            reached.add(plain(value)[:200])
    if sites:
        return "sites " + ", ".join(sorted(sites))
    return f"{expert}: " + (", ".join(sorted(reached)) if reached else name)


def outgoing(args: Mapping[str, Any]) -> str:
    """The strings of a call's arguments, one a line: what it sends."""
    return "\n".join(value for _, _, value in _strings(dict(args), ""))


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


def whole_values(text: str) -> set[str]:
    """Values in `text` that leave even when short, in their canonical forms (`values_in`)."""
    return set(values_in(text))


@dataclass
class _Index:
    """One expert's results, ready to be searched: stretches, whole values, links, addresses."""

    stretches: set[int]
    """The hash of every `RUN_CHARS`-character stretch of the results (`plain`)."""
    values: dict[str, Value]
    """Whole values (`values_in`) by canonical form."""
    secrets: dict[str, dict[str, Value]]
    """Short secrets (`secrets_in`), case-folded, by their first `SECRET_MIN_CHARS` characters."""
    addresses: set[str]
    """Email addresses, each whole (`plain`): a call may reach them as they were given."""
    links: dict[str, list[str]]
    """Links (`plain`) by their site (host name): what each site was given to hold."""
    grams: dict[str, list[tuple[str, int]]] | None = None
    """Each `GRAM`-character piece of the values, with the value and where in it (built once)."""


def _index(texts: Sequence[str]) -> _Index:
    """An expert's results, indexed for `carried`."""
    stretches: set[int] = set()
    for t in texts:
        for form, _ in normal_forms(t):
            stretches |= _stretches(plain(form))
    values: dict[str, Value] = {}
    secrets: dict[str, dict[str, Value]] = {}
    addresses: set[str] = set()
    links: dict[str, list[str]] = {}
    for t in texts:
        values.update(values_in(t))
        for secret, value in secrets_in(t).items():
            if not any(c.isspace() for c in secret):
                secrets.setdefault(secret[:SECRET_MIN_CHARS], {})[secret] = value
        addresses |= {_whole(m.group()) for m in EMAIL.finditer(t)}
        for m in _LINK.finditer(t):
            site = _site(m.group())
            if site is not None:
                links.setdefault(site, []).append(_whole(m.group()))
    return _Index(stretches, values, secrets, addresses, links)


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

    def __init__(
        self,
        texts: Mapping[str, Sequence[str]],
        asked: str = "",
        sent: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        self.texts = {name: list(found) for name, found in texts.items()}
        """Expert name to the texts of its results (the caller bounds how many and how long)."""
        forms = [plain(form) for form, _ in normal_forms(asked)]
        self.asked = set().union(*(_stretches(form) for form in forms))
        """Every `RUN_CHARS`-character stretch of what the user wrote (hashed): asked to leave."""
        self.asked_values = whole_values(asked)
        """Whole values the user wrote themselves."""
        self.asked_text = "\n".join(forms)
        """What the user wrote, as compared (in each normal form): a secret in it may leave."""
        self.sent = {to: list(found) for to, found in (sent or {}).items()}
        """What earlier calls of the thread sent, by destination (`destination`), oldest first."""
        self._indexes: dict[str, _Index] = {}

    def written_by_user(self, stretch: str) -> bool:
        """Whether a `RUN_CHARS`-character stretch is in what the user wrote."""
        return hash(stretch) in self.asked

    def index(self, expert: str) -> _Index:
        """The index of `expert`'s results (built on first use)."""
        if expert not in self._indexes:
            self._indexes[expert] = _index(self.texts.get(expert, ()))
        return self._indexes[expert]

    def note_sent(self, to: str, text: str) -> None:
        """Count a call let through to `to` as sent, for the calls checked after it."""
        self.sent.setdefault(to, []).append(text)


def carried(
    args: Mapping[str, Any], sources: Sources, expert: str, to: str | None = None
) -> Carried | str | None:
    """The first text of another expert's results in the arguments of a call to `expert`.

    None when there is none; a string (a reason) when the arguments are too long to read.
    """
    found = carried_all(args, sources, expert, to)
    if isinstance(found, str):
        return found
    return found[0] if found else None


def carried_all(
    args: Mapping[str, Any], sources: Sources, expert: str, to: str | None = None
) -> list[Carried] | str:
    """Every text of another expert's results in the arguments of a call to `expert`.

    One finding per expert and text, where it is first found (arguments in order, each as
    written, then decoded, then in its other normal forms). `to` is where the call goes
    (`destination`): what earlier calls sent there is read with the arguments, so a value
    sent in parts is found. A string (a reason) when the arguments are too long to read:
    that call is held unread.
    """
    others = [name for name, texts in sources.texts.items() if name != expert and texts]
    if not others:
        return []
    strings = list(_strings(dict(args), ""))
    size = sum(len(s) for _, _, s in strings)
    if size > ARGUMENT_SCAN_CHARS:
        return f"its arguments are too long to check for other experts' data ({size} characters)"
    forms = [(path, key, value, _read(value)) for path, key, value in strings]
    found: dict[tuple[str, str], Carried] = {}
    for path, key, value, readings in forms:
        words = set(name_tokens(key))
        site = _site(value) if words & URL_TOKENS else None
        for name in others:
            index = sources.index(name)
            if words & ADDRESSEE_TOKENS and _whole(value) in index.addresses:
                continue  # someone reached at the address the results gave
            home = index.links.get(site, [])[:_LINKS_PER_SITE] if site else []
            for reading in readings:
                for text, what in _shared(reading, index, sources, home):
                    where = path or "(value)"
                    found.setdefault(
                        (name, text), Carried(name, where, _shortened(text), what, text)
                    )
    earlier = sources.sent.get(to, []) if to is not None else []
    if earlier:
        current = {path or "(value)": [r.said for r in readings] for path, _, _, readings in forms}
        split = _split(current, [f for text in earlier for f, _ in decoded(text)], others, sources)
        if split is not None:
            # The split value stands for its pieces found in this call (an IBAN's last digits).
            pieces = [k for k in found if k[0] == split.expert and k[1] in split.text]
            for k in pieces:
                del found[k]
            found.setdefault((split.expert, split.text), split)
    return list(found.values())


@dataclass(frozen=True)
class _Reading:
    """One form of an argument string (as written, decoded, normalised), read for every source."""

    said: str
    """The form as compared (`plain`)."""
    how: str
    """How the argument disguised it (`base64-encoded`), or "" as written."""
    values: dict[str, Value]
    """Its whole values (`values_in`, which reads every normal form itself)."""


def _read(value: str) -> list[_Reading]:
    """An argument string as written and decoded, each form read in each of its normal forms.

    Whole values of the form with digits joined count too (`values_of`): a value of another
    expert's results spelled out digit by digit is the same value.
    """
    readings: list[_Reading] = []
    seen: set[str] = set()
    for form, how in decoded(value):
        for normal, rewritten in normal_forms(form):
            said = plain(normal)
            if said in seen:
                continue
            seen.add(said)
            disguised = ", ".join(filter(None, (rewritten, how)))
            values = values_in(form) if normal == form else values_of(normal, rewritten)
            readings.append(_Reading(said, disguised, values))
    return readings


def _shared(
    reading: _Reading, index: _Index, sources: Sources, home: list[str]
) -> Iterator[tuple[str, str]]:
    """Runs, whole values and secrets of `index`'s results in the argument, as (text, what).

    `what` says what the text is and how it was disguised. Longest values first, then
    secrets, then runs of text; the digits of a longer value found are not said again (an
    IBAN's, a phone number's last ten). Not what the user wrote, nor what lies within a link
    of the results to the site the argument goes to (`home`): that site made the link, so it
    learns nothing new.
    """
    said, how, sent = reading.said, reading.how, reading.values
    shared = {
        v
        for v in sent.keys() & index.values.keys()
        if v not in sources.asked_values and not any(v in canonical(link) for link in home)
    }
    told: set[str] = set()
    for value in sorted(shared, key=lambda v: (-len(v), v)):
        if value in told:
            continue
        digits = re.sub(r"\D", "", value)
        told |= {value, digits, digits[-10:]}
        source, written = index.values[value], sent[value]
        disguises = disguise(written.written, source.written, written.rewritten)
        yield value, _what(source.kind, [d for d in disguises if d not in how], how)
    for secret, found in _secrets(said, index, sources):
        if secret not in told:
            yield secret, _what(found.kind, [], how)
    for run in _runs(said, index, sources, home):
        yield run, how


def _what(kind: str, disguises: list[str], how: str) -> str:
    """What a shared value is and how it was disguised, when it was (`an IBAN, with dashes`)."""
    said = [*disguises, how] if how else disguises
    return ", ".join([kind, *said]) if said else ""


def _secrets(said: str, index: _Index, sources: Sources) -> Iterator[tuple[str, Value]]:
    """The short secrets of the results, whole, in the argument (`plain`), and what each is."""
    if not index.secrets:
        return
    for start in _WORD_START.finditer(said):
        i = start.start()
        for secret, value in index.secrets.get(said[i : i + SECRET_MIN_CHARS], {}).items():
            end = i + len(secret)
            if not said.startswith(secret, i) or secret in sources.asked_text:
                continue
            if end == len(said) or not said[end].isalnum():
                yield secret, value


def _runs(said: str, index: _Index, sources: Sources, home: list[str]) -> Iterator[str]:
    """Each run of the results' text in the argument (`_lengthened`), one after the other.

    Not a stretch the user wrote, nor one within a link of the results to the argument's site.
    """
    held = _held(said, index)
    i = 0
    while i < len(held):
        stretch = said[i : i + RUN_CHARS]
        if held[i] and not sources.written_by_user(stretch) and not any(stretch in k for k in home):
            run = _lengthened(said, held, i)
            yield run
            i += len(run)
        else:
            i += 1


def _split(
    current: Mapping[str, list[str]], earlier: list[str], others: list[str], sources: Sources
) -> Carried | None:
    """A value of another expert's results the call completes with what went there before.

    Each `GRAM`-character piece of letters and digits the calls hold is looked up among the
    values' pieces; a value is carried when the pieces of this call and of the earlier ones
    together cover it, and each adds a part the other lacks.
    """
    for name in others:
        index = sources.index(name)
        grams = _grams(index)
        before = _coverage(earlier, grams)
        now = {path: _coverage(texts, grams) for path, texts in current.items()}
        for path, covered in now.items():
            for value, bits in covered.items():
                full = (1 << len(_letters_and_digits(value))) - 1
                old = before.get(value, 0)
                if bits | old == full and bits & ~old and old & ~bits:
                    if value in sources.asked_values or value in sources.asked_text:
                        continue
                    kind = _kind(index, value)
                    what = f"{kind} split over calls to the same destination"
                    return Carried(name, path, _shortened(value), what, value)
    return None


def _kind(index: _Index, value: str) -> str:
    """What a value of the results is (`an IBAN`)."""
    if value in index.values:
        return index.values[value].kind
    return next(v.kind for s in index.secrets.values() for k, v in s.items() if k == value)


def _grams(index: _Index) -> dict[str, list[tuple[str, int]]]:
    """The index's values and secrets by their `GRAM`-character pieces (built once)."""
    if index.grams is None:
        grams: dict[str, list[tuple[str, int]]] = {}
        secrets = [k for by_start in index.secrets.values() for k in by_start]
        for value in [*index.values, *secrets]:
            bare = _letters_and_digits(value)
            if not SPLIT_MIN_CHARS <= len(bare) <= 64:
                continue
            for p in range(len(bare) - GRAM + 1):
                found = grams.setdefault(bare[p : p + GRAM], [])
                if len(found) < _GRAM_VALUES:
                    found.append((value, p))
        index.grams = grams
    return index.grams


def _coverage(texts: Sequence[str], grams: Mapping[str, list[tuple[str, int]]]) -> dict[str, int]:
    """For each value `texts` hold pieces of, which of its characters they cover (bits)."""
    covered: dict[str, int] = {}
    piece = (1 << GRAM) - 1
    for text in texts:
        bare = _letters_and_digits(text)
        for p in range(len(bare) - GRAM + 1):
            for value, q in grams.get(bare[p : p + GRAM], ()):
                covered[value] = covered.get(value, 0) | (piece << q)
    return covered


def _letters_and_digits(text: str) -> str:
    """`text` in its last normal form, case-folded, with nothing but ASCII letters and digits."""
    return re.sub(r"[^0-9a-z]", "", normal_forms(text)[-1][0].casefold())


def _held(arg: str, index: _Index) -> list[bool]:
    """For each `RUN_CHARS`-character stretch of the argument, whether the results hold it."""
    return [
        hash(arg[i : i + RUN_CHARS]) in index.stretches for i in range(len(arg) - RUN_CHARS + 1)
    ]


def _lengthened(arg: str, held: list[bool], i: int) -> str:
    """The stretch at `i`, with every character after it the results hold in a row."""
    end = i
    while end + 1 < len(held) and held[end + 1]:
        end += 1
    return arg[i : end + RUN_CHARS]


def _shortened(text: str, limit: int = 60) -> str:
    """The shared text as a reviewer sees it: a middle cut when long."""
    if len(text) <= limit:
        return text
    return f"{text[: limit // 2]}…{text[-limit // 2 :]}"
