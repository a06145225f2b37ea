"""Rule 9: configured banned words masked in an answer, through look-alikes and leetspeak."""

from __future__ import annotations

import re

from common.guardrails.config import GuardrailConfig
from common.guardrails.text import fold, folded_text, remap

_LEET = str.maketrans(
    {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"}
)
"""Digits and signs standing for letters (`sh1t`, `@ss`)."""


def _banned_key(text: str) -> str:
    """A banned word as it is matched: folded and case-folded."""
    return folded_text(text).casefold()


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
    base = remap(fold(text), str.casefold)
    leet = remap(base, lambda c: c.translate(_LEET))
    for variant, forms in ((base, words), (leet, [w.translate(_LEET) for w in words])):
        alternation = "|".join(r"\s+".join(re.escape(p) for p in w.split()) for w in forms)
        pattern = re.compile(rf"(?<!\w)(?:{alternation})(?!\w)")
        for m in pattern.finditer(variant.text):
            start, end = variant.span(m.start(), m.end())
            for i in range(start, end):
                if not chars[i].isspace():
                    chars[i] = "*"
    return "".join(chars)
