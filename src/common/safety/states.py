"""Lists of states inside a sentence, which name what a record may be, not what the tool does.

"Get the state (locked, unlocked, jammed) of a door", "History of a filing: drafted, filed,
rejected.", "List claims, filterable by status (open, under_review, approved, paid)": the
participles and verbs in such a list are values of a field. `without_states` removes them before
a sentence is read for its verbs; a list of actions ("Manage users (create, update, delete)")
stays.
"""

from __future__ import annotations

import re

from common.safety import vocabulary as vocab
from common.safety.parts import can_be_verb, only_a_verb
from common.safety.phrases import names_a_state

_LIST_JOINS = frozenset({"and", "or"})
_ITEM = r"[A-Za-z]+(?:[ -][A-Za-z]+){0,2}"
_STATE_LIST = re.compile(rf"\(\s*({_ITEM}(?:\s*(?:,|\bor\b|\band\b)\s*{_ITEM})+)\s*\)")
"""A parenthesised list of items of one to three words ("(requested, approved, on loan)")."""
_COLON_LIST = re.compile(rf":\s*({_ITEM}(?:\s*(?:,|\bor\b|\band\b)\s*{_ITEM})+)\s*(?=[.;]|$)")
"""A list ending a sentence after a colon ("history of a filing: drafted, filed, rejected")."""
_STATUS_VALUES = vocab.pattern("sentences", "status_values", re.IGNORECASE)
"""A status word and the values it takes in parentheses ("by status (open, paid, closed)")."""


def without_states(text: str) -> str:
    """A sentence without its lists of states: in parentheses, or ending it after a colon.

    "(locked, unlocked, jammed)", "History of a filing: drafted, filed, rejected.". Every item
    must be a participle or adjective (-ed, -en, "sent", "checked in") or words that cannot be
    verbs; or words none of which is only a verb ("draft", "on loan") with at least
    half the items participles: "(create, update, delete)" lists actions and stays. Any list
    right after a status word names its values ("state (OK, Warn, Alert)", "(published / draft)").
    """

    def keep(match: re.Match[str]) -> str:
        parts = re.split(r"\s*,\s*|\s+(?:or|and)\s+", match.group(1).lower())
        items = [p.replace("-", " ").split() for p in parts if p and p not in _LIST_JOINS]
        if not items or not all(items):
            return match.group(0)
        nouns = all(names_a_state(i) or not any(map(can_be_verb, i)) for i in items)
        named = sum(names_a_state(item) for item in items)
        plain = all(names_a_state(i) or not any(map(only_a_verb, i)) for i in items)
        return " " if nouns or (plain and 2 * named >= len(items)) else match.group(0)

    text = _STATUS_VALUES.sub(_values_dropped, text)
    return _COLON_LIST.sub(keep, _STATE_LIST.sub(keep, text))


def _values_dropped(found: re.Match[str]) -> str:
    """A status word without the values after it, when they are values: short items, listed.

    "(open, on_hold, paid)", "(published / draft)"; not "(and set it to solved when solve is
    true)", a clause about what the call does.
    """
    values = found.group(0)[len(found.group(1)) :].strip(" ():")
    items = [item.split() for item in re.split(r"\s*(?:,|/|\bor\b)\s*", values) if item]
    listed = len(items) > 1 and all(len(item) <= 2 for item in items)
    return found.group(1) if listed else found.group(0)
