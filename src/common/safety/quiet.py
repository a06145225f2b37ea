"""Whether a description says the call does something: the strict test of shape-based clearings.

The shape-based clearings (a page of a list, `common.safety.paging`; a record's state,
`common.safety.state_heads`; content handed back, `common.safety.declarations`; a phrase headed
by its data, `common.safety.noun_reads`; who the caller is) clear a tool that no verb clears, so
they ask more of its description than the verb-led readings do. The eighth attack on the guard
brought 53 writes of these shapes, most saying what they do in a clause the verb-led readings
miss: a passive ("Each conversation on the page is assigned to the caller"), a verb no
vocabulary holds ("Tickets on the page go to the calling agent", "Receive up to 10 messages"),
a later sentence ("The dump is retained for 7 days"). So the description must be a noun phrase
or lead with a read, and every later clause may only note how the result is read: a state list,
a page, a filter, a sort (`[sentences] note_verbs`). Any other word that may be a verb, known to
a vocabulary or not, holds the tool. The records the name holds are nouns ("Single sends ...
sent" for `single_sends`, "Deals, filtered by owner" for `deals`).
"""

from __future__ import annotations

import re

from common.safety import vocabulary as vocab
from common.safety.arg_kinds import key_words
from common.safety.clauses import NOTE_VERBS, also_changes, bare_imperative, later_change
from common.safety.names import GIVING_BACK
from common.safety.parts import can_be_noun, can_be_verb, unknown_word
from common.safety.states import without_states
from common.safety.wording import own_description, stems, verb_of

_PAST = "|".join(sorted(vocab.mapping("verbs", "irregular")))
_CLAUSES = re.compile(
    r"[.;!?\n]+|\s+but\s+|,\s+(?=(?:each|every|then|which|and then)\b)|,\s+(?=[a-z]+ed\b)"
    rf"|,\s+(?=(?:{_PAST})\b)"
)
"""Where a description's clauses end: sentences, ";", ", each ...", ", received ...", ", sent"."""
_TOKEN = re.compile(r"[A-Za-z_]+(?:-[a-z]+)?")
_ABBREVIATIONS = re.compile(r"\b(?:e\.g|i\.e|etc|vs)\.", re.IGNORECASE)
_LABEL = re.compile(r"^\s*[A-Za-z_]+\s*:\s*[\w/-]+(?:\s*(?:,|\||\bor\b|\band\b)\s*[\w/-]+)+\s*$")
_BE = frozenset({"is", "are", "was", "were", "be", "been", "being", "get", "gets", "got"})
_HAVE = frozenset({"has", "have", "had"})
_DONE_NOW = frozenset({"is", "are", "be", "get", "gets"})
"""The forms of "be" whose passive says what a call does as it runs (not "was", "been")."""
_OPENERS = frozenset({"a", "an", "the", "all", "up", "each", "every", "your", "its", "their"})
"""Words after a first word that make it a verb with its object: "Claims the next batch"."""


def _words(part: str) -> list[str]:
    """A clause's words in lower case, field names (`start_time`) and values (`STOPPED`) out."""
    kept = [t for t in _TOKEN.findall(without_states(part)) if "_" not in t]
    return [t.lower() for t in kept if not (t.isupper() and len(t) > 1)]


def _plural(word: str) -> bool:
    """Whether a name's word is a plural: a noun's, or a verb's -s form (`sends`, `runs`)."""
    if not word.endswith("s") or word.endswith("ss"):
        return False
    hit = verb_of(word, False)
    return can_be_noun(word) or (hit is not None and hit[1] != word)


def _participle(word: str) -> bool:
    """Whether a name's word is a change verb's irregular past form (`sent`, `paid`, `won`)."""
    hit = verb_of(word, False)
    return hit is not None and hit[1] != word and not word.endswith(("s", "ing"))


def _records(words: tuple[str, ...]) -> set[str]:
    """The stems of the plurals a name holds: its records ("sends", "runs", "deals")."""
    plurals = [w for w in words if _plural(w)]
    return set().union(*(stems(w) for w in plurals)) if plurals else set()


def _may_act(word: str, records: set[str]) -> bool:
    """Whether a word may be a verb that does something: no read, note, be, have or record."""
    if word in _BE or word in _HAVE or word in _FUNCTION or stems(word) & (NOTE_VERBS | records):
        return False
    if stems(word) & GIVING_BACK:
        return False  # "rev downloads a specific revision": it gives back
    hit = verb_of(word, False)
    return (hit is not None and hit[0] != "read") or (hit is None and can_be_verb(word))


def _opening_acts(words: list[str], records: set[str]) -> str | None:
    """The first clause's first word when it may be the call's verb, else None.

    "Mirror contacts into the warehouse", "Claims the next batch", "Receive up to 10" lead with
    a verb; "Deals, filtered by ..." for `deals`, "Bounced addresses", "Pending invites" name
    what is listed.
    """
    if not words:
        return None
    first, following = words[0], words[1] if len(words) > 1 else ""
    if following in _OPENERS and _may_act(first, set()):
        return first
    if first.endswith("s") and stems(first) & records and _bare_object(words):
        return first  # "Refunds charges disputed after ..." for `refunds`: a verb and its object
    if first.endswith("ed") or stems(first) & records or not _may_act(first, records):
        return None
    if verb_of(first, False) is not None:
        return first  # "Deletes messages older than a date": a verb the guard knows
    if stems(following) & records:
        return None  # "Single sends (marketing emails)" for `single_sends`: which records
    if following.endswith(("ing", "ed")) and can_be_verb(following):
        return None  # "Accounts following a user", "Payments applied to invoices"
    return first


def _bare_object(words: list[str]) -> bool:
    """Whether a name's plural opening a description is a verb before a bare noun object.

    A plural does not modify the noun after it (a noun adjunct is singular: "refund charges"),
    so "Refunds charges ...", "Bans members ...", "Captures authorized payments ..." act (a
    participle before a noun is its adjective); "Deals filtered by ...", "Orders placed in ..."
    and "Issues in a team" name the records.
    """
    following = words[1:3]
    if following and following[0].endswith(("ed", "ing")):
        following = following[1:]  # "authorized payments": the noun after the adjective
    if not following or following[0].endswith(("ed", "ing")) or not can_be_noun(following[0]):
        return False
    return _may_act(words[0], set())


_NEGATES = frozenset({"not", "never", "nothing", "without", "nor", "neither", "t"})
_AUX = frozenset({"do", "does", "did", "will", "would", "can", "could", "may", "might", "should"})
_FUNCTION = frozenset({"up", "down", "out", "off", "over", "back", "near", "round", "further"})
"""Words a lexicon knows as verbs that a description uses as particles ("Up to 100.")."""
_CLAUSE_OPENERS = frozenset(
    {"and", "but", "since", "because", "so", "while", "they", "it", "we", "which", "as"}
)
"""Words that end a negation's reach: a new clause ("..., since the call locks them")."""
_RELATIVES = frozenset({"that", "which", "who", "any", "ones", "those", "whose"})
_NOTE_LEADS = frozenset({"filter", "sort", "order", "include", "exclude", "limit", "paginate"})
"""Verbs whose clause only says how to read the list ("Filter archived with archived=true")."""
_GIVEN_TO = frozenset({"get", "gets", "receive", "receives"})
"""Verbs by which a later clause says someone is given something ("each recipient gets the ...")."""
_DETERMINERS = frozenset({"a", "an", "the", "its", "their", "this", "that", "no"})
_LINKS = frozenset({"each", "then", "and", "also", "will", "to", "automatically"})
_PARTICLES = frozenset({"to", "out", "down", "up", "off", "away", "over", "into", "onto"})
"""Words after a verb that send something somewhere: "goes out to the LAN", "go to the agent"."""
"""Words before a verb that make it something the call does: "each moved", "and notifies"."""


def _note(words: list[str]) -> bool:
    """Whether a clause only notes how to read the list: "Filter archived with ...", "Sorted by"."""
    first = words[0]
    base = first if first in _NOTE_LEADS else first.removesuffix("ed").removesuffix("e")
    return bool({base, base + "e"} & _NOTE_LEADS) and (first in _NOTE_LEADS or first.endswith("ed"))


def _negated_out(words: list[str]) -> set[int]:
    """The places a negation covers, the negator included.

    It holds to "and", "but", a new clause, or a "be" after its verb ("Payments not retried yet
    are retried", "has not been verified ... is restored"); with no verb in four words it ends.
    """
    out: set[int] = set()
    negation, negated = False, False
    for i, word in enumerate(words):
        if word in _NEGATES or word in _AUX:
            negation, negated = negation or word in _NEGATES, False
            out.add(i)
            continue
        if not negation:
            continue
        ended = word in _CLAUSE_OPENERS or (negated and word in _BE | _HAVE)
        ended = ended or (not negated and i > 3 and words[i - 4] in _NEGATES)
        if ended:
            negation = False
            continue
        negated = negated or bool(verb_of(word, False) or can_be_verb(word))
        negated = negated and word not in _BE | _HAVE
        out.add(i)
    return out


def _later_acts(words: list[str], records: set[str]) -> str | None:
    """A word of a later clause that says the call does something, or None.

    A later clause may note how the list is read ("Cursor-paginated.", "Filter by where, order,
    page.", "Use nextLink to page."). A verb acts when it leads the clause ("Keeps a copy"), is a
    passive ("Each conversation on the page is assigned to the caller"), follows "each", "then"
    or "and", takes an object or a destination ("Box records the download", "Tickets on the page
    go to the calling agent"), or is a change's third person ("the committed offset moves").
    """
    if _note(words):
        return None
    out = _negated_out(words)
    for i, word in enumerate(words):
        if i in out:
            continue  # "Does not place the order or hold a window": its verbs are not done
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if [word, nxt] in (["count", "as"], ["counts", "as"], ["mark", "as"]):
            return word  # "Notifications on the page count as read": the call marks them
        prev = words[i - 1] if i else ""
        if word in _GIVEN_TO and i and prev not in _BE and nxt in _OPENERS:
            return word  # "each recipient on the page gets the digest email"
        if not _may_act(word, records):
            continue
        if i == 0:
            # "Replies are not included", "Report output is returned", "rev downloads ...":
            # the clause's subject, its verb within the next three words
            be_at = next((j for j in (1, 2) if j < len(words) and words[j] in _BE | _HAVE), 0)
            relative = bool(set(words[1:be_at]) & _RELATIVES)  # "Deletes any that are merged"
            subject = (be_at and not relative) or (nxt.endswith("s") and can_be_verb(nxt))
            plural = word.endswith("s") and can_be_noun(word)
            if not (subject or (plural and stems(word) & records)):
                return word  # "Signs in ...", "Keeps a copy"; not "Replies are not included"
            continue
        if prev.endswith("s") and can_be_noun(prev) and verb_of(word, False) == ("change", word):
            return word  # "due ones run now": a plural subject and a change in its base form
        third = word.endswith("s") and verb_of(word, False) is not None
        placed = prev in _BE or prev in _LINKS or nxt in _OPENERS or nxt in _PARTICLES
        if placed and (prev != "to" or verb_of(word, False) in (None, ("change", word))):
            return word  # after "to", only an infinitive: not "to shared folders"
        if third and prev not in _DETERMINERS:
            return word
    return None


def name_acts(words: tuple[str, ...]) -> str | None:
    """A word in a name's verb place that may act: its last unless that reads, else its first.

    `contacts_export`, `records_backfill`, `lease_tasks` and `jobs_claim` may act; `tickets_next`,
    `folder_invites_list` and `payments_due` name records. Plurals and participles are records
    or their states (`single_sends`, `saved_tracks`).
    """
    if not words:
        return None
    last = verb_of(words[-1], False)
    places = [] if last is not None and last[0] == "read" else [words[-1], words[0]]
    for word in places:
        plural = _plural(word) or _participle(word)  # `single_sends`, `sent_to`
        unknown = unknown_word(word) and verb_of(word, False) is None  # `records_backfill`
        unknown = unknown or bool(stems(word) & GIVING_BACK)  # `contacts_export`: to where?
        modifier = word.endswith("ed") or (word.endswith("ing") and verb_of(word, False) is None)
        if not plural and not modifier and (unknown or _may_act(word, set())):
            return word  # not `saved_tracks`, `marketing_sends`: a participle names which
    return None


def said_later(description: str | None, words: tuple[str, ...]) -> str | None:
    """A word after a description's opening that may act, or None.

    In a later clause (`_later_acts`), or after "and" in the first with its object ("Dump the
    database as base64 and keep a copy in the bucket", "and notifies the owner"); "and return
    the file content" only gives it back.
    """
    records = _records(words)
    clauses = _clauses(description)
    first = clauses[0] if clauses else []
    for i, word in enumerate(first[:-2]):
        nxt = first[i + 1]
        if word == "and" and first[i + 2] in _OPENERS and _may_act(nxt, records):
            return nxt
    for later in clauses[1:]:
        said = _later_acts(later, records)
        if said is not None:
            return said
    return None


def _clauses(description: str | None) -> list[list[str]]:
    """A description's clauses as word lists, its lists of states set aside."""
    text = _ABBREVIATIONS.sub(";", own_description(description))  # "(i.e. leases them ...)"
    text = without_states(text)  # "status: active, rejected, hired"
    clauses = [_words(_LABEL.sub("", part)) for part in _CLAUSES.split(text)]
    # A lone word left of a label whose values were set aside ("format: JSON, CSV") says nothing.
    return [c for c in clauses if c and not (len(c) == 1 and c is not clauses[0])]


def _passive_acts(words: list[str], records: set[str]) -> str | None:
    """A passive in the first clause that says what the call does, or None.

    "Failed jobs, oldest first, are retried.": the subject is what the call lists, and the
    call acts on it. A past one says what was done before ("Recipients a campaign was sent
    to"), one after a relative word which records ("Jobs that are retried"), one after a
    subject of its own ("the owner is notified") is `said_later`'s, and a negated one is not
    done ("Replies are not included").
    """
    out = _negated_out(words)
    for i, word in enumerate(words[1:-1], start=1):
        before = set(words[max(0, i - 2) : i])
        if word not in _DONE_NOW or i in out or before & (_RELATIVES | _DETERMINERS):
            continue
        done = words[i + 1]
        if done in _LINKS and i + 2 < len(words):
            done = words[i + 2]  # "are then archived", "are automatically deleted"
        passive = done.endswith(("ed", "en")) or _participle(done)
        if passive and _may_act(done, records) and i + 1 not in out:
            return done
    return None


def description_acts(description: str | None, words: tuple[str, ...]) -> str | None:
    """What in a description may act, or None: the strict test of the shape-based clearings.

    The records the name holds (`words`' plurals) do not act ("Single sends" for `single_sends`).
    """
    named = set().union(*(stems(w) for w in words)) if words else set()
    added = also_changes(description)
    if added is not None and stems(added) & named:
        added = None  # "Single sends ... sent to a list": the name's own records
    clauses, records = _clauses(description), _records(words)
    return (
        (_opening_acts(clauses[0], records) if clauses else None)
        or (_passive_acts(clauses[0], records) if clauses else None)
        or said_later(description, words)
        or bare_imperative(description, words)
        or added
        or later_change(description)
    )


_WRITTEN = vocab.words("data", "written_keys")


def written_argument(schema: dict[str, object] | None) -> str | None:
    """An argument that carries what a write would write (`body`, `message_text`), or None."""
    properties = (schema or {}).get("properties")
    for key in properties if isinstance(properties, dict) else {}:
        words = key_words(key)
        if words and words[-1] in _WRITTEN:
            return str(key)
    return None
