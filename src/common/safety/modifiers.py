"""Words that say which records a read returns, not what the call does to them.

A participle before the plural it describes ("including expired and deleted ones", "Saved
cohorts"), participles listed before a status ("Sent, voided or completed status"), and the
fields a search matches after "by" ("by name, email, phone or tag") are nouns and states; the
readings of `common.safety.phrases` and `noun_reads` set them aside before they look for acts.
"""

from __future__ import annotations

from collections.abc import Sequence

from common.safety import vocabulary as vocab
from common.safety.parts import can_be_noun, can_be_verb, only_a_verb, singular_noun, unknown_word
from common.safety.states import Hit

_BE = vocab.words("sentences", "be")
LIST_ENDS = frozenset({";", "that", "then", "which", "who", "to"})
"""Words that end a list and start a clause ("including drafts; then deletes them")."""
_JOINS = frozenset({"and", "or"})


_IRREGULAR = vocab.mapping("verbs", "irregular")
_STATE_WORDS = frozenset({"ones", "state", "states", "status", "statuses"})
"""Words after participles that make them values: "Sent, voided or completed status"."""
_AUXILIARIES = _BE | {"has", "have", "had", "will", "would", "been"}
"""Words after which a participle is a verb: "is deleted", "has sent", "will be charged"."""


def _participle(word: str) -> bool:
    """Whether a word may be a past participle ("deleted", "hidden", "sent")."""
    if word in _IRREGULAR:
        return True
    if word.endswith("en"):
        return only_a_verb(word)  # "hidden", "written"; not "open"
    return word.endswith("ed") and (can_be_verb(word) or unknown_word(word))


def before_its_plural(words: Sequence[str], i: int) -> bool:
    """Whether the participle at `i` describes the plural after it, not what the call does.

    "including expired and deleted ones", "hidden and dropped events", "markers for deleted
    comments", "Saved cohorts": a participle before a plural noun (other participles and "and"
    or "or" between) names which records. After "be" or "have" it is a verb ("are deleted",
    "has deleted files"); a status after it names its values ("Sent, delivered or voided
    status"); a singular after it may be an object ("Deleted file restored"), and a
    plural after a comma may be a headline's next subject ("Doors locked, alarms armed"), and
    participles joined at a sentence's start may be a headline's acts ("Merged and deleted
    contacts").
    """
    if not _participle(words[i]) or (i and words[i - 1] in _AUXILIARIES):
        return False
    joined = False
    for j, following in enumerate(words[i + 1 :], start=i + 1):
        listed = following == "," and j + 1 < len(words) and _participle(words[j + 1])
        joined = joined or following in ("and", "or") or listed
        if following in ("and", "or") or listed or _participle(following):
            continue  # "hidden, expired and deleted ones"; not "Doors locked, alarms armed"
        plural = following.endswith("s") and not following.endswith("ss")
        plural = plural and can_be_noun(following) and not singular_noun(following)
        headline = joined and i == 0  # "Merged and deleted contacts for a list": acts
        return following in _STATE_WORDS or (plural and not headline)
    return False


def fields_end(words: Sequence[str], start: int, found: Sequence[Hit]) -> int:
    """Where a list after "by" ends: fields a search matches ("by name, email, phone or tag").

    Its items are nouns: any inflected verb ends it ("by id, or cancelled when ..."), and so
    do a destructive word ("collects it by charge to the card") and a change word after "and"
    ("by customer and cancel"); one after "or" is an item.
    """
    end = start
    while end < len(words):
        word, hit = words[end], found[end]
        inflected = hit is not None and (hit[1] != word or hit[0] == "destructive")
        after_and = end > start and words[end - 1] == "and" and hit is not None
        if word in LIST_ENDS or inflected or word.endswith("ing") or after_and:
            break
        if word not in _JOINS | {","} and not can_be_noun(word):
            break
        end += 1
    return end
