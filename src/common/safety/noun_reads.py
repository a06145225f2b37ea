"""Readings of descriptions that name data without a verb, and of questions put to an assistant.

Many servers describe a read by what it returns, with no verb at all: "Upcoming hearings for a
judge or courtroom.", "Temperature and humidity readings for a store.", "Malt, hops, yeast and
packaging on hand." A person reads a list of data. The guard reads one only when nothing in it
names an act: the noun phrase that opens the sentence (up to its first preposition, relative
word or clause mark) holds no change word and no noun made from one ("Bulk deletion of old
records", "Bookings for a guest", "Payment to a supplier" stay held), it names data (a plural, or
one of the `data_nouns`: stock, inventory, a calendar), its first word is no imperative ("Stock
the shelves"), and the tool's name has no verb of its own. A name with no description, or a
sentence with any verb this guard knows, is read elsewhere.

The noun made from a verb is found by its suffix (`act_suffixes`: deletion, removal, payment,
booking) and the change vocabulary, not by a derivational lexicon: lemminflect knows inflections
only, and the change vocabulary is where the guard's knowledge of acts lives.
"""

from __future__ import annotations

import re
from functools import lru_cache

from common.safety import vocabulary as vocab
from common.safety.names import ANSWERERS, ASKERS
from common.safety.parts import (
    can_be_noun,
    can_be_verb,
    noun_or_adjective,
    noun_or_modifier,
    only_a_verb,
    singular_noun,
)
from common.safety.wording import first_sentence, stems, verb_of

_STOPS = vocab.words("data", "stops")
_DATA_NOUNS = vocab.words("data", "data_nouns")
_ACT_SUFFIXES = vocab.sequence("data", "act_suffixes")
_ACT_MARKS = vocab.words("data", "act_marks")
_TOKEN = re.compile(r"[a-z][a-z'-]*|[,:;()]")
_CLAUSE_MARKS = frozenset({":", ";", "(", ")"})
_DETERMINERS = frozenset({"a", "an", "the", "each", "every", "this", "its", "their", "your", "our"})


def _changes(word: str) -> bool:
    """Whether the word is a change or destructive verb in any of its forms."""
    hit = verb_of(word, False)
    return hit is not None and hit[0] != "read"


def _stem_candidates(stem: str) -> list[str]:
    """What a verb may have been before a suffix was added (creat-, cancell-, submiss-)."""
    out = [stem, stem + "e", stem + "ate"]
    if len(stem) > 2 and stem[-1] == stem[-2]:
        out.append(stem[:-1])  # cancell-ation
    if stem.endswith("ss"):
        out.append(stem[:-2] + "t")  # submiss-ion
    if stem.endswith("r"):
        out.append(stem[:-1] + "er")  # registr-ation
    if stem.endswith("ic"):
        out.append(stem[:-2] + "y")  # notific-ation
    return out


@lru_cache(maxsize=4096)
def act_noun(word: str) -> str | None:
    """The change verb a noun names the act of ("deletion" -> delete, "bookings" -> book)."""
    if _changes(word):
        return word
    singular = word[:-1] if word.endswith("s") and not word.endswith("ss") else word
    for suffix in _ACT_SUFFIXES:
        if singular.endswith(suffix) and len(singular) > len(suffix) + 2:
            for stem in _stem_candidates(singular[: -len(suffix)]):
                if _changes(stem):
                    return stem
    return None


def _names_data(word: str) -> bool:
    """Whether a noun of the opening phrase names data: a plural, or a data noun."""
    plural = can_be_noun(word) and not singular_noun(word) and word.endswith("s")
    return plural or bool(stems(word) & _DATA_NOUNS)


def _opening_phrase(words: list[str]) -> list[str] | None:
    """The sentence's opening noun phrase, or None when it may open with a verb."""
    end = next((i for i, w in enumerate(words) if w in _STOPS or w in _CLAUSE_MARKS), len(words))
    if words[end : end + 1] == ["to"] or set(words[:end]) & _ACT_MARKS:
        return None  # "Pager alerts to the on-call engineer", "New discount codes": sent, made
    phrase = [w for w in words[:end] if w not in (",", "and", "or")]
    if not phrase or only_a_verb(words[0]) or not all(map(noun_or_modifier, phrase)):
        return None  # "Onboards a new customer ...": a word no lexicon knows, an article
    if can_be_verb(words[0]) and end > 1 and words[1] not in (",", "and", "or"):
        return None  # "Stock the shelves", "Stock items": an imperative with its object
    if end > 1 and not noun_or_adjective(words[0]) and can_be_verb(words[1]):
        return None  # "Temporarily hold tickets": an adverb before an imperative
    return phrase


def described_as_data(name_words: tuple[str, ...], description: str | None) -> str | None:
    """The noun phrase by which a verbless description names the data a tool returns, or None.

    `name_words` are the tool name's words with the server's own name set aside; any of them
    that is a verb keeps the tool to its other readings.
    """
    if any(_changes(w) or only_a_verb(w) for w in name_words):
        return None
    words = _TOKEN.findall(first_sentence(description).lower())
    phrase = _opening_phrase(words)
    if phrase is None or any(act_noun(w) is not None for w in phrase):
        return None
    if not any(_names_data(w) for w in phrase) or _acts_later(words, len(phrase)):
        return None
    return " ".join(phrase)


def _acts_later(words: list[str], start: int) -> bool:
    """Whether a change word past the opening phrase may say what the tool does.

    Any form counts ("the round is fixed and every player is emailed"), except a bare noun
    right after a determiner ("for a store", "each paper stock").
    """
    for i in range(start, len(words)):
        if not _changes(words[i]):
            continue
        determined = words[i - 1] in _DETERMINERS and not words[i].endswith("ed")
        if not determined:
            return True
    return False


def asks_an_answerer(name_words: tuple[str, ...], description: str | None) -> str | None:
    """The answerer an `ask_*` tool's description says it asks ("Ask the onboard assistant").

    The name leads with an asking verb and the description's first sentence with the same verb,
    whose object's head, within four words, is an automated answerer: `ask_purser` on a ferry
    line asks its assistant; "Ask the purser to hold a seat" names a person, and "Ask the assistant
    to book ..." sends it on an errand: both stay held.
    """
    if not name_words or not stems(name_words[0]) & ASKERS:
        return None
    words = _TOKEN.findall(first_sentence(description).lower())
    if not words or not stems(words[0]) & ASKERS or "to" in words:
        return None  # "Ask the assistant to hold a seat": an errand, not a question
    for word in words[1:6]:
        if stems(word) & ANSWERERS:
            return str(word)
        if word in _STOPS or word in _CLAUSE_MARKS or word == ",":
            return None
    return None
