"""Text folding shared by every rule: look-alike characters read as the ASCII they imitate.

Unicode look-alikes are handled by folding before any check: NFKC (fullwidth and circled
forms, ligatures), invisible format characters and combining marks dropped, common Cyrillic and
Greek look-alikes and Unicode dashes mapped to ASCII. Masking functions find matches in the
folded text and mask the corresponding characters of the original (`Folded.span`), so text
they leave alone is returned unchanged.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

MAX_DEPTH = 64
"""Nesting depth beyond which a value is not walked (and the guard fails closed)."""


def words(text: str) -> list[str]:
    """The words of a text: lists of names written as one string."""
    return text.split()


def key_tokens(key: str) -> list[str]:
    """Lower-case words of an identifier: `baseURL` → base, url; `api-key` → api, key."""
    return [t.lower() for t in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", key)]


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
class Folded:
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
def fold(text: str) -> Folded:
    """NFKC per character, invisible characters dropped, look-alikes mapped to ASCII."""
    if text.isascii():
        return Folded(text, None, len(text))
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
    return Folded("".join(out), tuple(origin), len(text))


def remap(folded: Folded, convert: Callable[[str], str]) -> Folded:
    """`folded` with each character replaced by `convert(character)`, origins kept."""
    out: list[str] = []
    origin: list[int] = []
    for j, ch in enumerate(folded.text):
        converted = convert(ch)
        out.append(converted)
        origin.extend([folded.at(j)] * len(converted))
    return Folded("".join(out), tuple(origin), folded.size)


def folded_text(text: str) -> str:
    """Just the folded text, for checks that only detect."""
    return fold(text).text
