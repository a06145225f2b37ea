"""States inside a sentence, which name what a record may be, not what the tool does.

"Get the state (locked, unlocked, jammed) of a door", "History of a filing: drafted, filed,
rejected.", "List claims, filterable by status (open, under_review, approved, paid)": the
participles and verbs in such a list are values of a field. `without_states` removes them before
a sentence is read for its verbs; a list of actions ("Manage users (create, update, delete)")
stays. `leading_state` finds participles that describe a noun ("Published styles", "Addresses
that unsubscribed", "notifications sent,"): no imperative is a participle.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from common.safety import vocabulary as vocab
from common.safety.parts import can_be_noun, can_be_verb, only_a_verb

Hit = tuple[str, str] | None
"""A word's vocabulary and verb where it stands as one (`wording.found_verbs`), or None."""

_LIST_JOINS = frozenset({"and", "or"})
PAST_FORMS = frozenset(vocab.mapping("verbs", "irregular"))
"""Past forms no suffix rule reaches ("sent", "paid"): participles in a list of states."""


_STATE_PREPOSITIONS = frozenset({"at", "in", "off", "on", "out", "under"})
"""Words that open a state of more than one word ("in service", "on loan", "out of stock")."""
_PARTICLES = frozenset({"down", "in", "off", "out", "over", "up"})
"""Particles that make a participle's state two words ("checked in", "signed off")."""


def names_a_state(item: list[str]) -> bool:
    """Whether a list item names a state: a participle or a phrase a preposition opens.

    "sent", "checked in", "paid", "washing"; "in service", "on loan"; "notifications sent".
    """
    first = item[0]
    if len(item) == 2 and _participle(item[1]) and can_be_noun(first):
        return True  # "notifications sent", in a list of what a log holds
    if len(item) > 1:  # "checked in", "on loan"; not "removed from pending", a whole act
        participle = first.endswith(("ed", "en")) or first in PAST_FORMS
        two = len(item) == 2 and item[1] in _PARTICLES
        return first in _STATE_PREPOSITIONS or (participle and two)
    return first.endswith(("ed", "en", "ing")) or first in PAST_FORMS


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
    return _COLON_LIST.sub(keep, _STATE_LIST.sub(keep, without_contents(text)))


def without_contents(text: str) -> str:
    """A sentence without the fields its colon lists, nor the kinds a plural lists in brackets.

    "Shop settings: name, currency, plan", "transactions (charges, refunds, fees)": what a read
    returns, not what it does.
    """
    return _CONTENTS.sub(_contents_dropped, _KINDS.sub(_kinds_dropped, text))


_CONTENTS = re.compile(r"^([^:.;]{3,80}):([^:;]+?)(?=\.\s|\.?$|;)")
"""A sentence's opening and the list after its colon ("Shop settings: name, currency, plan")."""
_KINDS = re.compile(r"\b([a-z]+s) \(([a-z ,]+)\)", re.IGNORECASE)
"""A plural and the kinds of it in parentheses ("transactions (charges, refunds, fees)")."""
_NO_FIELD = frozenset(
    {"a", "an", "the", "its", "their", "every", "each", "it", "them", "this", "these", "your"}
)
"""Words no item of a list of fields holds: an item with one says what is done to something."""


def _item_words(items: str) -> list[list[str]] | None:
    """A list's items as words, or None when one is no field ("charges the card", "resolve it")."""
    parts = re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", items.strip().lower())
    words = [p.split() for p in parts if p.strip()]
    if len(words) < 3 or any(len(item) > 5 or _NO_FIELD & set(item) for item in words):
        return None
    return None if any(map(_acts, words)) else words


def _acts(item: list[str]) -> bool:
    """Whether a listed item says what is done, so the list is no list of fields.

    A verb in -s with its object ("charges card"), a verb alone ("create"), a next step ("then
    archive"), or a participle that names no noun after it ("acknowledged", "deleted on read";
    not "removed issues").
    """
    first, after = item[0], item[1] if len(item) > 1 else ""
    if first == "then":
        return True
    if "_" in first:
        return False  # a field's name (`away_mode_enabled`)
    if first.endswith(("ed", "en")) or first in PAST_FORMS:
        return can_be_verb(first) and not (after and can_be_noun(after))
    if only_a_verb(first):
        return True
    return bool(after) and first.endswith("s") and can_be_verb(first)


def _contents_dropped(found: re.Match[str]) -> str:
    """A sentence's opening without the fields its colon lists: what a read returns.

    "Teammates in the workspace: id, name, email, away_mode_enabled and team_ids.", "Timeline of
    an incident: triggers, notifications sent, acknowledgements, escalations, notes." Three
    items at least, each at most five words with no determiner or pronoun, none a verb in -s
    with its object; the opening is still read.
    """
    return found.group(1) if _item_words(found.group(2)) is not None else found.group(0)


def _kinds_dropped(found: re.Match[str]) -> str:
    """A plural without the plurals in parentheses after it, which name its kinds."""
    kinds = _item_words(found.group(2))
    named = kinds is not None and all(len(k) == 1 and k[0].endswith("s") for k in kinds)
    return found.group(1) if named and can_be_noun(found.group(1)) else found.group(0)


def _values_dropped(found: re.Match[str]) -> str:
    """A status word without the values after it, when they are values: short items, listed.

    "(open, on_hold, paid)", "(published / draft)", "states for a team (Backlog, Done,
    Canceled...)"; not "(and set it to solved when solve is true)", a clause about what the
    call does, nor bare verbs after a phrase ("by state for the agent (solve, escalate)").
    """
    whole = found.group(0)
    opened = min(i for i in (whole.find("("), whole.find(":")) if i >= 0)
    kept = whole[:opened].rstrip()  # "states for a team (...)" keeps "states for a team"
    values = whole[opened:].strip(" ():.").rstrip(".…")
    items = [item.split() for item in re.split(r"\s*(?:,|/|\bor\b)\s*", values) if item]
    listed = len(items) > 1 and all(len(item) <= 2 for item in items)
    if kept != found.group(1) and any(map(_bare_act, items)):
        return whole  # "by state for the agent (solve, escalate, close)": acts, not states
    return kept if listed else whole


def _bare_act(item: list[str]) -> bool:
    """Whether a list item is a bare verb ("solve", "escalate"), no state's participle."""
    word = item[0].lower()
    return only_a_verb(word) and not word.endswith(("ed", "en", "ing", "s"))


_RELATIVE_OPENERS = frozenset({"that", "which", "who"})
"""Words that open a relative clause about the noun before them."""


def leading_state(words: Sequence[str], found: Sequence[Hit]) -> set[int]:
    """The places of participles that describe a noun: leading it, or in a relative clause.

    No imperative is a participle: "Sent messages in a mailbox" lists messages, and so does
    "Addresses that unsubscribed".
    """
    acts = [hit is not None and hit[0] != "read" for hit in found]  # a read stays a read
    out = {i for i in range(1, len(words)) if acts[i] and _relative(words, i)}
    first, after = (words[0], words[1]) if len(words) > 1 else ("", "")
    if acts[:1] == [True] and _participle(first) and can_be_noun(after):
        out.add(0)
    return out


def _participle(word: str) -> bool:
    """Whether a word is a past participle ("published", "sent", "written")."""
    return word.endswith(("ed", "en")) or word in PAST_FORMS


def _relative(words: Sequence[str], i: int) -> bool:
    """Whether `words[i]` is a past verb opening a relative clause ("that unsubscribed")."""
    return words[i - 1] in _RELATIVE_OPENERS and words[i].endswith("ed")


_QUOTED = re.compile(
    r"""(?<!\w)(['"\u2018\u201c])([^'"\u2018\u2019\u201c\u201d\n]{3,300}?)['"\u2019\u201d](?!\w)"""
)
"""A quoted span: a message a record carries ("'The created activity has been deleted.'")."""
_IDENTIFIER = r"[a-z][a-z0-9_]+(?:\.[a-z][a-z0-9_]+)+"
_IDENTIFIERS = re.compile(rf"\b{_IDENTIFIER}(?:\s*(?:,|\bor\b|\band\b)\s*{_IDENTIFIER})+\b")
"""Two or more dotted names listed ("user.account.lock, app.user_membership.remove")."""


def without_quoted(text: str) -> str:
    """Text without the messages a record shows and the event names a log lists.

    "Status of an upload: 'Your activity is still being processed.', ready, error": a quoted
    message listed as a value (after ":", ",", "(", "or") says what happened to the record, not
    what the call does; so do event types a log or an event lists ("System log events such as
    user.account.lock or app.user_membership.remove"). A quote of one or two words, a quote
    that opens the text or names a step ("performs its 'approve and pay' step"), and dotted
    names anywhere else ("calls charges.create or customers.delete") stay: the fourteenth
    attack found writes in each.
    """

    def quoted(found: re.Match[str]) -> str:
        before = text[: found.start()].rstrip()
        listed = before.endswith((":", ",", "(")) or before.lower().endswith(" or")
        return " a literal " if listed and len(found.group(2).split()) >= 3 else found.group(0)

    def events(found: re.Match[str]) -> str:
        logged = _EVENTS.search(text[: found.start()]) is not None
        return " identifiers " if logged else found.group(0)

    return _IDENTIFIERS.sub(events, _QUOTED.sub(quoted, text))


_EVENTS = re.compile(r"\b(?:events?|logs?|audit)\b[^.;:]*\b(?:such as|including|e\.g\.?)\s*$", re.I)
"""An event or a log's list of types, just before the dotted names ("log events such as")."""


_FIELD = re.compile(r"\b([a-z]+)(?:_[a-z0-9]+)*_(?:at|by|on|id|ids|time|date|ts|count)\b")
"""A snake_case field name in prose (`created_at`, `updated_by`, `customer_id`)."""


def without_fields(text: str) -> str:
    """Lower-case text without the field names that no verb leads (`created_at`, `sent_at`).

    `send_at`, `pay_on` and `adjust_by` may be written as verbs ("... and send_at the given
    time"): they stay, and their words are read.
    """

    def dropped(found: re.Match[str]) -> str:
        first = found.group(1)
        state = _participle(first) or not can_be_verb(first)
        return " " if state else found.group(0)

    return _FIELD.sub(dropped, text)
