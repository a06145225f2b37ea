"""Parts of speech for the guard's readings: which words of a name or a sentence are nouns.

The vocabularies (`vocabulary.toml`) say what a verb does; this module says whether a word stands
as a verb at all. "Lock", "order", "dispatch", "book" and "label" are verbs elsewhere and nouns in
`get_lock_status`, `estimate_dispatch_time` and `search_address_book`. English marks a noun by
its place: it follows a determiner or a possessive, heads a noun phrase, or modifies the next
noun (a noun adjunct, singular: "address book", "dispatch time"). Only the governing verb (the
name's leading verb, the sentence's main verb) says what the tool does.

The lexicon is `lemminflect`'s (MIT, about 0.8 MB, data shipped in its wheel, no download at run
time): for each English word, which parts of speech it can take (NOUN, VERB, ADJ, ADV) and their
lemmas, so "instances" is a plural noun and "submit" is never a noun. It is loaded on first use,
so a process that never classifies a tool never loads it. It is enough here because the readings
only ask lexical questions about words at known places ("can the word after the leading verb be a
noun?"); the places come from the name's order and the sentence's few function words.

Its table is read here, not through `lemminflect.getAllLemmas`: importing the package loads
numpy and the models it uses for words outside the table (which the guard never asks), and its
loader parses the table's 80,000 lines into nested dicts, 0.65-0.7 CPU-seconds together on the
way to a new process's first approval (issue 45's cold start). This module reads the same file
(`resources/lemma_lu.csv.gz`, sorted by word) and its overrides, found without importing the
package, in about 0.1 CPU-seconds, and looks a word up by bisection; `getAllLemmas`'s answer,
capital letters included, is what `test_parts_lexicon.py` holds it to over the whole table.

Where it falls short: it is a lexicon, not a tagger, so it cannot tell a word's part of speech
from context alone. A name made only of ambiguous words (`order_status`, `lock_door`) still
reads as verb and object, and words it does not know (product names, `sitemap`) are neither
nouns nor verbs to it: they never make a change word a noun, so the guard stays on the safe side.
A statistical tagger (spaCy, NLTK) would need a model downloaded at run time or an unofficial
re-upload of one; tool names are not sentences, and taggers trained on prose read
`search_address_book` no better.
"""

from __future__ import annotations

import gzip
import importlib.util
import logging
import threading
from bisect import bisect_left
from functools import lru_cache
from pathlib import Path

logger = logging.getLogger(__name__)

_LOADING = threading.Lock()
"""Held while the lexicon loads, so that two threads asking first read the table once."""


def _resource(name: str) -> Path:
    """A data file of lemminflect's wheel, found without importing the package (and numpy)."""
    spec = importlib.util.find_spec("lemminflect")
    places = list(spec.submodule_search_locations or []) if spec is not None else []
    if not places:
        raise ModuleNotFoundError("the guard's lexicon needs lemminflect", name="lemminflect")
    return Path(places[0]) / "resources" / name


_LOADED: list[tuple[list[str], list[str], dict[str, dict[str, tuple[str, ...]]]]] = []
"""The lexicon once read: its words, its rows and its overrides (a per-process load, like a
module's, which clearing the lookups' caches leaves in place)."""


def loaded() -> bool:
    """Whether this process has read the lexicon's table."""
    return bool(_LOADED)


def _table() -> tuple[list[str], list[str], dict[str, dict[str, tuple[str, ...]]]]:
    """The lexicon's words (sorted), its rows and its corrections, read once under `_LOADING`.

    A row is `word,category,lemma/lemma`; a correction (`all,NOUN,all`) wins over the table.
    """
    if _LOADED:
        return _LOADED[0]
    with _LOADING:
        if not _LOADED:
            rows = gzip.decompress(_resource("lemma_lu.csv.gz").read_bytes()).decode().splitlines()
            overrides: dict[str, dict[str, tuple[str, ...]]] = {}
            for line in _resource("lemma_overrides.csv").read_text().splitlines():
                if line.strip() and not line.startswith("#"):
                    word, upos, lemma = line.strip().split(",")
                    overrides.setdefault(word, {})[upos] = (lemma,)
            _LOADED.append(([row[: row.index(",")] for row in rows], rows, overrides))
    return _LOADED[0]


def _cased(lemma: str, word: str) -> str:
    """The lemma in the word's capitals, as lemminflect gives it ("Orders" -> "Order")."""
    if word.isupper():
        return lemma.upper()
    return lemma.capitalize() if word[:1].isupper() else lemma.lower()


@lru_cache(maxsize=8192)
def _lemmas(word: str) -> dict[str, tuple[str, ...]]:
    """The parts of speech a word can take, with its lemma for each (lemminflect's lexicon)."""
    words, rows, overrides = _table()
    lower = word.lower()
    found: dict[str, tuple[str, ...]] = {}
    for i in range(bisect_left(words, lower), len(words)):
        if words[i] != lower:
            break
        category, lemmas = rows[i].split(",")[1:]
        found["AUX" if category == "modal" else category.upper()] = tuple(lemmas.split("/"))
    found.update(overrides.get(lower, {}))
    return {upos: tuple(_cased(lemma, word) for lemma in got) for upos, got in found.items()}


_preloads: list[threading.Thread] = []


def preload_lexicon() -> None:
    """Begin loading the lexicon (about 0.4 CPU-seconds) in a worker thread, once per process.

    The first guard after a plan asks it of every tool name; loaded then, it holds up the
    approval. Begun while the process waits (its servers starting, the planner's model asked),
    it overlaps the wait. Nothing else changes: `_lemmas` loads it as before, waiting for this
    load if it is still under way, or failing as before if it cannot load.
    """
    if _preloads:
        return
    thread = threading.Thread(target=_load, name="preload-lexicon", daemon=True)
    _preloads.append(thread)
    thread.start()


def _load() -> None:
    try:
        _lemmas("a")
    except Exception:  # reported by the guard, which loads it again when it is needed
        logger.debug("the lexicon could not be preloaded", exc_info=True)


def can_be_noun(word: str) -> bool:
    """Whether the word can be a noun in English ("lock", "instances"; not "submit", "the")."""
    return "NOUN" in _lemmas(word)


def can_be_verb(word: str) -> bool:
    """Whether the word can be a verb in English ("lock", "verify"; not "status", "text")."""
    return "VERB" in _lemmas(word)


def only_a_verb(word: str) -> bool:
    """Whether the word can only be a verb ("generate"; not "git", "browser", "slack", "jira").

    Such a word before a name's first known verb is the name's governing verb, not a prefix.
    """
    lemmas = _lemmas(word)
    return "VERB" in lemmas and not {"NOUN", "ADJ", "PROPN"} & set(lemmas)


def noun_or_adjective(word: str) -> bool:
    """Whether the word can be a noun or an adjective ("upcoming"; not "temporarily", "a")."""
    return bool({"NOUN", "ADJ"} & set(_lemmas(word)))


def noun_or_modifier(word: str) -> bool:
    """Whether the word can be a noun, an adjective or an adverb ("hourly", "readings"; not "a")."""
    return bool({"NOUN", "ADJ", "ADV"} & set(_lemmas(word)))


def unknown_word(word: str) -> bool:
    """Whether the lexicon knows no part of speech for the word ("gps", "signups", "webhooks")."""
    return not _lemmas(word)


def singular_noun(word: str) -> bool:
    """Whether the word can be a singular noun ("address"), the only form a noun adjunct takes."""
    return word in _lemmas(word).get("NOUN", ())


def modifier_or_head(words: list[str], i: int, lead: int) -> bool:
    """Whether a change word at `i`, after the name's leading read verb at `lead`, is a noun.

    Before the name's last word, it is a noun that modifies the next noun
    (`estimate_dispatch_time`); right after the read word only when that word opens the name and
    can be a verb: in `BigQueryInsertRows` "query" follows "big", so it is a noun and "insert"
    the verb. As the last word, it heads a compound whose modifier is a singular noun
    (`search_address_book`), unlike `compute_instances_insert`, whose plural "instances" is an
    object, so "insert" is what the tool does; right after the read word it is the verb of a
    resource-first name (`search_replace`, `status_update`).
    """
    last = len(words) - 1
    if not can_be_noun(words[i]):
        return False
    if i == lead + 1 and (lead != 0 or i == last or not can_be_verb(words[lead])):
        return False
    if i < last:
        return can_be_noun(words[i + 1])
    return singular_noun(words[i - 1])


def in_noun_phrase(words: list[str], start: int, end: int, function_words: frozenset[str]) -> bool:
    """Whether `words[start:end]` is one plain noun phrase ending in a noun ("the paid invoices").

    Every word is a determiner or possessive from `function_words`, or can be a noun or an
    adjective; no comma, conjunction or preposition breaks it, and the last is a noun that is not
    a function word ("each paid ..." is a clause: each one is paid).
    """
    if end <= start:
        return False
    for word in words[start:end]:
        if word in function_words:
            continue
        lemmas = _lemmas(word)
        if "NOUN" not in lemmas and "ADJ" not in lemmas:
            return False
    last = words[end - 1]
    return last not in function_words and can_be_noun(last)
