"""The guard's vocabularies, read once from `vocabulary.toml` beside this module.

Words are data: which verbs change things, which only read, and the closed sets the per-server
readings (session actions, tabs, demonstrations, switches, computations, sign-ins) accept. The
file is validated where it enters, like every safety input: an unknown section or key, a
missing key, or a value of another shape stops the import with one sentence naming it, so a
typo in a vocabulary can never quietly clear a tool.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from importlib import resources
from typing import Any, Literal

Shape = Literal["words", "pairs", "pattern", "mapping", "sequence", "groups"]
"""What one vocabulary entry holds: a set of words, word pairs, a regular expression, a word ->
word mapping, an ordered word sequence, or a word -> set-of-words mapping."""

SCHEMA: dict[str, dict[str, Shape]] = {
    "verbs": {
        "destructive": "words",
        "change": "words",
        "read": "words",
        "observe": "words",
        "manner": "words",
        "manner_objects": "words",
        "head_nouns": "words",
        "source_reads": "words",
        "noun_like_reads": "words",
        "noun_like_changes": "words",
        "noun_only_reads": "words",
        "two_word_changes": "pairs",
        "irregular": "mapping",
    },
    "sentences": {
        "conjunctions": "words",
        "be": "words",
        "causatives": "words",
        "of": "words",
        "verb_places": "words",
        "lead_ins": "pattern",
        "instruction": "pattern",
        "preamble": "pattern",
        "preamble_marker": "pattern",
        "signature": "pattern",
        "enumerations": "words",
        "enumeration_pairs": "pairs",
        "adjunct_heads": "words",
        "negated_objects": "words",
        "negated_subjects": "words",
        "negators": "words",
        "negation_joins": "words",
        "periods": "words",
        "possessives": "words",
        "caller_times": "words",
        "read_only_declaration": "pattern",
        "to_the_response": "pattern",
        "delivered_by": "pattern",
        "status_values": "pattern",
        "used_up": "pattern",
        "unchanged_declaration": "pattern",
        "response_verbs": "words",
        "handed_back": "pattern",
        "note_verbs": "words",
        "advice_verbs": "words",
        "hypotheticals": "words",
        "past_be": "words",
        "recording_verbs": "words",
        "provenance_verbs": "words",
        "loss_warnings": "pattern",
        "notified": "pattern",
        "call_effects": "pattern",
        "returned_back": "pattern",
        "destinations": "words",
        "elsewhere": "words",
    },
    "names": {
        "server_words": "words",
        "state_heads": "words",
        "what_if": "words",
        "what_if_heads": "words",
        "identity_questions": "words",
        "stateful_acts": "words",
        "record_converters": "words",
        "held_values": "words",
        "trailing_reads": "words",
        "last_reads": "words",
        "listing_verbs": "words",
        "questions": "words",
        "state_questions": "words",
        "rehearsals": "words",
        "rehearsal_pairs": "pairs",
        "evaluated": "words",
        "askers": "words",
        "answerers": "words",
        "probes": "words",
        "value_makers": "words",
        "values": "words",
        "read_heads": "words",
        "account_heads": "words",
        "acting_heads": "words",
        "filings": "words",
        "filing_words": "words",
        "filing_recipients": "words",
        "object_ends": "words",
        "record_heads": "words",
        "trackers": "words",
        "tracked": "words",
        "previews": "words",
        "bound_prefixes": "words",
        "unrehearsed": "groups",
    },
    "data": {
        "stops": "words",
        "data_nouns": "words",
        "data_heads": "words",
        "act_suffixes": "sequence",
        "act_marks": "words",
        "selector_keys": "words",
        "scope_keys": "words",
        "leading_adjectives": "words",
        "window_keys": "words",
        "list_keys": "words",
        "value_keys": "words",
        "stream_options": "words",
        "filter_words": "words",
        "act_keys": "words",
        "kind_keys": "words",
        "setting_heads": "words",
        "access_grants": "words",
        "switch_keys": "words",
        "leaving_marks": "words",
        "issued_things": "words",
        "paging_tokens": "words",
        "paging_numbers": "words",
        "paging_marks": "words",
        "paging_sizes": "words",
        "written_keys": "words",
    },
    "session": {
        "verbs": "words",
        "phrases": "pairs",
        "resizable": "words",
        "objects": "words",
        "page_nouns": "words",
        "connection_nouns": "words",
    },
    "tabs": {
        "verbs": "words",
        "heads": "words",
        "words": "words",
        "browser_names": "words",
        "prepositions": "words",
        "listing": "words",
    },
    "demonstration": {
        "leads": "words",
        "nouns": "words",
        "reads": "words",
        "function_words": "words",
        "elicitation": "sequence",
        "name_verbs": "words",
        "name_words": "words",
        "pairs": "groups",
    },
    "switch": {"verbs": "words", "name_words": "words", "description": "pattern"},
    "computation": {
        "verbs": "words",
        "operands": "words",
        "words": "words",
        "parameter_types": "words",
        "names": "words",
    },
    "sign_in": {
        "verbs": "words",
        "phrases": "pairs",
        "handles": "words",
        "subjects": "words",
        "words": "words",
        "prepositions": "words",
        "credentials": "words",
    },
    "physical": {
        "verbs": "words",
        "media": "words",
        "displays": "words",
        "show_verbs": "words",
        "public_displays": "pattern",
    },
}
"""Every section and key the file must have, and the shape of each: a closed set."""


class VocabularyError(ValueError):
    """The vocabulary file does not have the shape `SCHEMA` gives; the message names where."""


def _word(value: Any) -> bool:
    """Whether a value is one lower-case word (or a comma or semicolon)."""
    return isinstance(value, str) and re.fullmatch(r"[a-z0-9][a-z0-9'-]*|[,;]", value) is not None


def _valid(shape: Shape, value: Any) -> bool:
    """Whether an entry's value has its shape."""
    if shape == "pattern":
        return isinstance(value, str) and bool(value)
    if shape == "mapping":
        return isinstance(value, Mapping) and all(map(_word, [*value, *value.values()]))
    if shape == "groups":
        return isinstance(value, Mapping) and all(
            _word(k) and isinstance(v, list) and all(map(_word, v)) for k, v in value.items()
        )
    if not isinstance(value, list) or not value:
        return False
    if shape == "pairs":
        return all(isinstance(p, list) and len(p) == 2 and all(map(_word, p)) for p in value)
    return all(map(_word, value))


def check(data: Mapping[str, Any]) -> None:
    """Raise VocabularyError unless `data` has exactly the sections, keys and shapes of SCHEMA."""
    if set(data) != set(SCHEMA):
        raise VocabularyError(f"vocabulary sections {sorted(data)} are not {sorted(SCHEMA)}.")
    for section, keys in SCHEMA.items():
        entries = data[section]
        if not isinstance(entries, Mapping) or set(entries) != set(keys):
            found = sorted(entries) if isinstance(entries, Mapping) else entries
            raise VocabularyError(f"vocabulary [{section}] has {found}, expected {sorted(keys)}.")
        for key, shape in keys.items():
            if not _valid(shape, entries[key]):
                raise VocabularyError(f"vocabulary [{section}] {key} is not {shape}.")
            if shape == "pattern":
                re.compile(entries[key])


def load(text: str | None = None) -> dict[str, Any]:
    """The vocabulary file (or `text`), parsed and checked."""
    if text is None:
        text = resources.files("common.safety").joinpath("vocabulary.toml").read_text("utf-8")
    data = tomllib.loads(text)
    check(data)
    return data


_DATA = load()


def words(section: str, key: str) -> frozenset[str]:
    """One word set of the file."""
    return frozenset(_DATA[section][key])


def pairs(section: str, key: str) -> frozenset[tuple[str, str]]:
    """One set of word pairs of the file."""
    return frozenset((a, b) for a, b in _DATA[section][key])


def pattern(section: str, key: str, flags: int = 0) -> re.Pattern[str]:
    """One regular expression of the file, compiled."""
    return re.compile(_DATA[section][key], flags)


def mapping(section: str, key: str) -> dict[str, str]:
    """One word -> word mapping of the file."""
    return dict(_DATA[section][key])


def sequence(section: str, key: str) -> tuple[str, ...]:
    """One ordered word sequence of the file."""
    return tuple(_DATA[section][key])


def groups(section: str, key: str) -> dict[str, frozenset[str]]:
    """One word -> word-set mapping of the file."""
    return {k: frozenset(v) for k, v in _DATA[section][key].items()}
