"""Clauses of a description beyond its leading verb that say what else a tool changes.

A read-named tool is cleared unless its description says it changes something; the leading verb
is read in `common.safety.wording`. Here, what the rest says: a change added after "and",
"then", a comma, a semicolon or a colon in the first sentence ("Lists jobs and cancels stale
ones", "List a lot: creates the catalogue entry"); a later sentence that says the tool's object
is changed ("Review an hour of the log. It is then locked and sent to the regulator"); and a
first sentence led by a recording verb with its object ("Logs an inspection").
"""

from __future__ import annotations

import re
from functools import lru_cache

from common.safety import vocabulary as vocab
from common.safety.choices import FILTER_WORDS
from common.safety.names import GIVING_BACK
from common.safety.parts import can_be_verb, only_a_verb
from common.safety.phrases import NEGATED_SUBJECTS
from common.safety.phrases import OBJECT_STARTS as _OBJECT_STARTS
from common.safety.states import PAST_FORMS
from common.safety.wording import (
    CONJUNCTIONS,
    MANNER_VERBS,
    NOUN_LIKE_CHANGES,
    acting_words,
    first_sentence,
    found_verbs,
    read_description,
    sentences,
    stems,
    verb_of,
    words_of,
)

_COLON_CLAUSE = re.compile(r":\s*(?:it\s+|this\s+|and\s+)?([a-z]+s)\s+([a-z]+)")
"""A clause after a colon led by a verb's -s form and the next word ("...: creates the entry")."""


_ANY_OBJECT = frozenset({"it", "them", "each", "every"})
"""Words that open an object besides `_OBJECT_STARTS` ("records each view")."""


def _after_colon(description: str | None) -> str | None:
    """A change that a clause after a colon says the tool makes ("List a lot: creates the entry").

    The clause must lead with a change verb's -s form followed by its object's first word ("the",
    "a", "it"): "History: posts and comments" names nouns.
    """
    for verb, after in _COLON_CLAUSE.findall(first_sentence(description).lower()):
        hit = verb_of(verb, False)
        if hit is not None and hit[0] != "read" and after in _OBJECT_STARTS | _ANY_OBJECT:
            return hit[1]
    return None


_FIELD_SPLIT = re.compile(r",|\band\b|\bor\b")


def _fields_dropped(description: str | None) -> str | None:
    """The first sentence without a list of fields after its colon, or the description as it was.

    "Fault log: robot, error code, time, cleared or not" lists what each entry shows, states
    among them. Each item is at most three words with no object ("it", "the") and no "then",
    and its only change words are participles that name a state ("cleared or not", "created
    by", "updated at"): "Lists orders: cancels stale ones", "...: sender, subject, then archive",
    "...: time, tag" and "...: id, total, acknowledged" may act.
    """
    sentence = first_sentence(description)
    head, colon, tail = sentence.partition(":")
    if not colon or not head.strip():
        return description
    for item in _FIELD_SPLIT.split(tail.lower()):
        said = re.findall(r"[a-z]+", item)
        if len(said) > 3 or set(said) & (_OBJECT_STARTS | _ANY_OBJECT | {"then"}):
            return description
        hits = [verb_of(w, False) for w in said if not _participle(w)]
        if any(hit is not None and hit[0] != "read" for hit in hits):
            return description
        if any(_participle(w) and not _a_state(said, i, tail.lower()) for i, w in enumerate(said)):
            return description
    return head


def _participle(word: str) -> bool:
    """Whether a word is a past participle ("cleared", "sent")."""
    return word.endswith("ed") or word in PAST_FORMS


def _a_state(said: list[str], i: int, fields: str) -> bool:
    """Whether the participle `said[i]` of a listed field names a state, not what the call does.

    "cleared or not", "created by", "updated at", "notifications sent" are fields; a bare
    "acknowledged" or "cleared on read" may say what reading them does.
    """
    hit = verb_of(said[i], False)
    if hit is None or hit[0] == "read" or i > 0:
        return True  # after its noun: "notifications sent"
    return re.search(rf"\b{said[i]}\s+(?:or not|by|at)\b", fields) is not None


@lru_cache(maxsize=4096)
def also_changes(description: str | None) -> str | None:
    """A change the description's first sentence adds after "and", "then", ",", ";" or ":", if any.

    "Lists jobs and cancels stale ones" reads, then changes: the second verb says so even when the
    name reads. Words that are also common nouns ("pull requests and comments") count only after
    ";" or "then", and a verb paired with another as a modifier ("view and edit restrictions")
    does not count.
    """
    elaborated = _after_colon(description)
    if elaborated is not None:
        return elaborated
    words = acting_words(_fields_dropped(description))
    found = found_verbs(words)
    for i, hit in enumerate(found):
        if hit is not None and hit[0] != "read" and _by_means(words, i):
            return hit[1]  # "Test a campaign by delivering it to ...": the means is a change
        if hit is None or hit[0] == "read" or i < 2 or words[i - 1] not in CONJUNCTIONS:
            continue
        criterion = words[i - 1] == "or" and words[i].endswith("ed") and hit[0] != "destructive"
        if criterion and not set(words[i:]) & _CONDITIONS:
            continue  # "tasks ..., or assigned to a user"; not "or cancelled when cancel is true"
        clause = words[i - 1] in (";", "then")  # a new clause: "; archives old mail"
        clause = clause or words[i + 1 : i + 2] in (["it"], ["them"])  # "and email it"
        if found[i - 2] is not None and words[i - 2] not in _WHEN_WORDS and not clause:
            continue  # "view and edit restrictions"; not "Fetch new emails and move them", "now"
        after = words[i + 1] if i + 1 < len(words) else ""
        clause = clause or (words[i].endswith("s") and after in _OBJECT_STARTS - {"to"})
        # "... for a domain and update its verification state": a bare verb and its object.
        clause = clause or (words[i] == hit[1] and words[i - 1] == "and" and after in _DETERMINED)
        if hit[0] == "destructive" or hit[1] not in NOUN_LIKE_CHANGES or clause:
            return hit[1]
    return None


def _by_means(words: list[str], i: int) -> bool:
    """Whether the word at `i` is a gerund after "by": how the tool does what it does."""
    return i > 0 and words[i - 1] == "by" and words[i].endswith("ing")


_IDENTIFIER = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")
"""A snake_case name in prose (`updated_at`): a field's, in a sentence after the first."""
_DETERMINED = _OBJECT_STARTS - {"to", "new", "one", "that", "it", "them", "some", "any"}
"""Determiners that open the object of a bare verb after "and" ("and update its state")."""
_CONDITIONS = frozenset({"if", "unless", "when", "whenever"})
"""Words after which a participle is what the call does on a condition, not a criterion."""
_WHEN_WORDS = frozenset({"now", "again", "today", "first"})
"""Adverbs the read vocabulary knows as names (`now`) that pair with no verb ("domain now and
update its state")."""
_LATER_ADVERBS = frozenset(
    {"also", "then", "immediately", "automatically", "permanently", "afterwards", "instantly"}
)
"""Words that may stand between a later sentence's subject or "is" and its verb."""
_BE_NOW = frozenset({"is", "are", "gets", "get"})
"""Present forms of "be" after which a participle is what happens now ("It is then sent")."""
_SUBJECT_STARTS = frozenset(
    {"it", "they", "this", "these", "the", "each", "every", "all", "a", "an", "its", "their"}
)
"""Words that open the subject of a later sentence about what the tool handles ("The log is
then sent"); a sentence that opens otherwise (an argument's docs) says nothing of the kind."""
_PRONOUNS = frozenset({"it", "they", "this", "that"})
"""Subjects of a later sentence that name the tool's object or the tool ("It then sends ...")."""


_INPUTS = frozenset({"anything", "everything", "others"})
"""Subjects of a later clause that name what the caller sends ("anything else is rejected")."""
_SUBORDINATE = frozenset(
    {"if", "once", "unless", "what", "when", "where", "whether", "which", "while", "who", "whose"}
)
"""Words that open a clause about a condition or a thing, not what the tool does ("Returns true
when remote unlock is enabled", "what files are attached")."""


def _later_act(words: list[str]) -> str | None:
    """The change a later sentence says happens: "... is (then) sent", "It (then) sends ..."."""
    for i, word in enumerate(words):
        if word in _SUBORDINATE:
            return None
        rest = [w for w in words[i + 1 : i + 7] if w not in _LATER_ADVERBS]
        if not rest:
            continue
        subject = words[i - 1] if i else ""
        negated = subject in NEGATED_SUBJECTS or "no" in words[max(i - 2, 0) : i]
        # "anything else is rejected", "Only SELECT statements are accepted": the caller's input
        negated = negated or bool(_INPUTS & set(words[:i])) or words[:1] == ["only"]
        # "It is ..." (`sentences` drops a leading "It"), "The log is ...": the object's fate.
        opens = i <= 3 or (i <= 4 and words[0] in _SUBJECT_STARTS)
        if word in _BE_NOW and opens and not negated:
            changed = _changed(rest)
            if changed is not None:
                return changed
        hit = verb_of(rest[0], False)
        if word in _PRONOUNS and i == 0 and rest[0].endswith("s") and hit and hit[0] != "read":
            return hit[1]
        counted = rest[0][:1].isdigit()  # "otherwise charges 1.00 in the card currency"
        if i == 0 and (rest[0] in _DETERMINED | {"it", "them"} or counted) and word.endswith("s"):
            return _third_person_act(word, rest)  # "Sends a real test message ...": the tool
        if i == 0 and word in _ALSO and (also := _third_person_change(rest[0])) is not None:
            return also[1]  # "Also marks that admin as active": another act, whatever it acts on
        if word == "marks" and "as" in rest[1:5]:
            return "mark"  # "Opening a thread through this tool marks its messages as read"
    return None


NOTE_VERBS = vocab.words("sentences", "note_verbs")
"""Verbs a note on a list may use and still only read ("Filter by status", "Sort with ...")."""


def _third_person_act(word: str, rest: list[str]) -> str | None:
    """The change a later sentence's leading third-person verb names, or None.

    "Sends a real test message", "Records the view in the audit log", "Posts a sample event",
    "Boosts each.": a destructive or recording verb, or a change whose object is something new
    or the records themselves (`_NEW_OBJECTS`, a lone "each"). A change to a definite part of the
    call is how it reads ("Retries the request", "Scales the image", "Sets the user agent"), and
    a note on the result is no act ("Orders the results by date", "Includes ...").
    """
    if stems(word) & NOTE_VERBS:
        return None
    if stems(word) & RECORDING_VERBS:
        return word
    changed = _third_person_change(word)
    lone = rest[0] in ("each", "every", "all") and len(rest) == 1
    if changed is None or not (changed[0] == "destructive" or rest[0] in _NEW_OBJECTS or lone):
        return None
    return changed[1]


def _third_person_change(word: str) -> tuple[str, str] | None:
    """The (kind, verb) of a change or destructive verb in its third person ("sends"), or None."""
    hit = verb_of(word, False)
    if hit is None or hit[0] == "read" or hit[1] == word or not word.endswith("s"):
        return None
    return hit


_ALSO = frozenset({"also", "additionally", "then"})
"""Words opening a later sentence that adds another act to the call's ("Also marks ...")."""
_NEW_OBJECTS = frozenset({"a", "an", "another", "new", "it", "them"})
"""Words opening an object that is made by the call or is what it handles ("a real test")."""


def acts_on_its_record(description: str | None, name_words: tuple[str, ...]) -> str | None:
    """The change a later sentence's subject makes to the tool's own record, or None.

    "Check a code the user entered. A correct code approves the verification." for
    `check_verification`: the record the name reads is what the sentence's verb changes. A
    subject acting on anything else describes a part of the request or of what is read ("The
    sort parameter orders the results", "Each rule blocks the matching traffic"), and a denied
    subject ("No call changes the verification") says nothing happens.
    """
    named = set().union(*(stems(w) for w in name_words)) if name_words else set()
    for sentence in sentences(description)[1:]:
        words = re.findall(r"[a-z]+", _IDENTIFIER.sub(" ", sentence.lower()))
        if not words or words[0] not in _SUBJECT_STARTS - {"no"}:
            continue
        for i in range(2, min(len(words) - 1, 5)):
            hit = verb_of(words[i], False)
            if hit is None or hit[0] == "read" or hit[1] == words[i] or not words[i].endswith("s"):
                continue
            if words[i + 1] in _OBJECT_STARTS and any(
                stems(w) & named for w in words[i + 2 : i + 5]
            ):
                return hit[1]
            break
    return None


def _changed(rest: list[str]) -> str | None:
    """The first change among the participles after "is" ("renewed and redeployed")."""
    for k, word in enumerate(rest):
        if k % 2 == 1:
            if word not in ("and", "or"):
                return None
            continue
        if not word.endswith(("ed", "en")):
            return None
        hit = verb_of(word, False)
        if hit is not None and hit[0] != "read":
            return hit[1]
    return None


@lru_cache(maxsize=4096)
def later_change(description: str | None) -> str | None:
    """A change a sentence after the first says happens to what the tool handles, if any.

    Anywhere in the text, a flag or an argument the caller may set to act counts too
    (`_switched_act`: "or archived when archive is true").

    "Review an hour of the log. It is then locked and sent to the licensing body."; "Returns
    messages. Received messages are deleted from the queue." A negated subject ("Nothing is
    sent") and a hypothetical ("would be sent") say nothing happens.
    """
    switched = _switched_act(description)
    if switched is not None:
        return switched  # "List messages, or archived when archive is true"
    every = sentences(description)
    # The first sentence's clauses after a semicolon or "but" are later too: "Lists open orders;
    # stale ones are cancelled", "Runs the report, but the results are emailed to the team".
    clauses = re.split(r";|,?\s+but\s+", every[0])[1:] if every else []
    # A later sentence's clauses joined by "and" with a subject each: "the override is logged
    # and the privacy office is notified".
    parts = [part for sentence in every[1:] for part in _SUBCLAUSE.split(sentence)]
    # "With `refresh` set, the camera is woken ...": what happens on the caller's condition.
    parts += [m.group(1) for part in parts if (m := _CONDITIONAL_LEAD.match(part.strip()))]
    warned = _warning([*clauses, *parts]) or _call_effect(every[:1])
    if warned is not None:
        return warned
    for sentence in [*clauses, *parts]:
        # A later sentence may name a field (`updated_at`): no verb of the tool's.
        words = re.findall(r"[a-z]+|\d[\d.,]*", _IDENTIFIER.sub(" ", sentence.lower()))
        found = _later_act(words)
        if found is not None:
            return found
    return None


_LOSS_WARNINGS = vocab.pattern("sentences", "loss_warnings")
_NOTIFIED = vocab.pattern("sentences", "notified")
_CALL_EFFECTS = vocab.pattern("sentences", "call_effects")
_CONDITIONAL_LEAD = re.compile(r"(?:with|when|if|once|whenever)\b[^,]{1,60},\s*(.+)", re.I | re.S)
"""A later sentence that opens with the caller's condition: its main clause follows the comma."""


_FLAG_CONDITION = re.compile(
    r"\b(?:when|if|with)\s+`?([a-z][a-z_]*)`?\s+(?:is\s+|are\s+)?(?:set\s+to\s+)?"
    r"(?:true|set|enabled|on|yes)\b"
)
"""A condition on a flag the caller passes: "when archive is true", "with turn_off true"."""
_IF_NOT = re.compile(
    r"\b(?:and|then)\s+([a-z]+s)\b[^.;]{0,80}?\bif\s+(?:not|it\s+(?:has|is)\s+not|they\s+"
    r"(?:have|are)\s+not|so|needed|necessary)\b"
)
"""An act the call takes on what it checks: "and credits the customer if not", "then pages ..."."""
_PASS_TO = re.compile(r"\bpass(?:ing)?\s+`?[a-z][a-z_]*`?\s+(?:\w+\s+)?to\s+([a-z]+)")
"""An argument the caller passes to make the call act: "pass cancel_at to cancel it"."""


def _switched_act(description: str | None) -> str | None:
    """The change a flag the caller may set switches on, named by the flag itself, or None.

    "List messages in the inbox, or archived when archive is true", "Read a cover's position,
    or opened when open is true", "(captured if capture is true)": the flag is the act, as is the
    verb an argument is passed for ("pass cancel_at to cancel it"). Not a filter's flag ("including
    completed ones when include_completed is true"), nor a read's ("pass cursor to get more").
    """
    text = (description or "").lower()
    for passed in _PASS_TO.finditer(text):  # "pass cancel_at to cancel it at that time"
        hit = verb_of(passed.group(1), False)
        if hit is not None and hit[0] != "read":
            return hit[1]
    for then in _IF_NOT.finditer(text):  # "... has been delivered and credits the customer if not"
        verb = then.group(1)
        hit = verb_of(verb, False)
        given = bool(stems(verb) & GIVING_BACK)  # "returns the default if not set"
        if can_be_verb(verb) and not given and (hit is None or hit[0] != "read"):
            return hit[1] if hit is not None else verb
    for found in _FLAG_CONDITION.finditer(text):
        parts = found.group(1).split("_")
        if parts[0] in FILTER_WORDS:
            continue
        for part in parts:
            hit = verb_of(part, False)
            if hit is not None and hit[0] != "read":
                return hit[1]
    return None


def _call_effect(first: list[str]) -> str | None:
    """What the first sentence says the call does on its own return ("marked read on fetch")."""
    found = _CALL_EFFECTS.search(first[0].lower()) if first else None
    return None if found is None else found.group(0)


def _warning(clauses: list[str]) -> str | None:
    """A later clause's warning of a loss, of people notified or of the call's own effect.

    "Delivery is destructive", "This cannot be undone", "Followers also get a notification",
    "Returned events vanish from the buffer", "torn down on return"; not when its subject is
    negated ("Nothing is permanent until ...").
    """
    for clause in clauses:
        text = clause.lower()
        for pattern in (_LOSS_WARNINGS, _NOTIFIED, _CALL_EFFECTS):
            found = pattern.search(text)
            if found is not None and not NEGATED_SUBJECTS & set(text[: found.start()].split()):
                return found.group(0)
    return None


_SUBCLAUSE = re.compile(
    r";|,?\s+otherwise\b|,?\s+(?:and|but)\s+(?=(?:the|a|an|it|they|its|their|each|every|this|these)\b)"
    r"|,\s*which\s+(?=(?:is|are|gets|get)\b)"  # "a new image, which is stored in the timeline"
)
"""Where a later sentence's clause ends and another with its own subject begins."""


RECORDING_VERBS = vocab.words("sentences", "recording_verbs")
"""Verbs that are also nouns of records ("log", "record"): leading a sentence with an object,
they write one ("Logs an inspection")."""


@lru_cache(maxsize=4096)
def records_something(description: str | None) -> str | None:
    """The recording verb that leads the first sentence with its object ("Logs an ..."), or None."""
    words = re.findall(r"[a-z]+", first_sentence(description).lower())
    if len(words) > 1 and stems(words[0]) & RECORDING_VERBS and words[1] in _OBJECT_STARTS:
        return str(words[0])
    return None


_DELIVERED_BY = vocab.pattern("sentences", "delivered_by", re.IGNORECASE)


def delivered(description: str | None) -> str | None:
    """The channel the first sentence says its object goes out by ("... by SMS"), or None.

    After a participle the channel describes the data ("a message sent by SMS", "received via
    WhatsApp"): not what the call does.
    """
    sentence = first_sentence(description)
    if not _verb_led(sentence):
        return None  # "Conversation history via WhatsApp": data that came by a channel
    for found in _DELIVERED_BY.finditer(sentence):
        before = sentence[: found.start()].split()[-1:]
        if not before or not before[0].lower().endswith(("ed", "sent")):
            return found.group(0)
    return None


_USED_UP = vocab.pattern("sentences", "used_up", re.IGNORECASE)


def used_up(description: str | None) -> str | None:
    """A thing the first sentence names that works once ("a one-time code"), or None."""
    sentence = first_sentence(description)
    found = _USED_UP.search(sentence) if _verb_led(sentence) else None
    return found.group(0) if found else None  # not "Number of one-time codes left"


def _verb_led(sentence: str) -> bool:
    """Whether a sentence opens with a verb ("Check ...", "Returns ..."), not a noun phrase."""
    first = re.findall(r"[a-z]+", sentence.lower())[:1]
    if not first:
        return False
    word = first[0]
    return verb_of(word, False) is not None or only_a_verb(word) or bool(stems(word) & GIVING_BACK)


_INSTRUCTION = vocab.pattern("sentences", "instruction")
"""A later sentence that tells the caller when to call the tool ("Call this when you are done")."""


def later_sentences_quiet(description: str | None) -> bool:
    """Whether no sentence after the first names a destructive verb or leads with a change verb.

    "Note: hovering the 1-click button sends it" and "Submits the pending form first" say what
    else the tool does; "Call this when you are done" tells the caller when to call it.
    """
    for sentence in sentences(description)[1:]:
        if any(
            hit is not None and hit[0] == "destructive" for hit in found_verbs(words_of(sentence))
        ):
            return False
        if not _INSTRUCTION.match(sentence) and read_description(sentence).leaning == "change":
            return False
    return True


def bare_imperative(description: str | None, name_words: tuple[str, ...]) -> str | None:
    """A change verb that is also a noun leading the sentence bare, not a word of the name.

    "Update account info." for `account_info` updates it; "Order details for the given ID" for
    `order_details` and "Release notes ..." for `release_notes` name the name's own noun, and so
    does "Pull requests ..." for `pullrequests_list`, whose name writes the two words as one.
    """
    words = acting_words(description)
    if len(words) < 2 or words[0] not in NOUN_LIKE_CHANGES or words[0] in MANNER_VERBS:
        return None  # "Run a read-only query": how a read works (`leading_change`)
    if words[1] in _OBJECT_STARTS or words[1] in (",", ";"):
        return None  # "Update the account": `leading_change` reads a verb before its object
    named = set().union(*(stems(w) for w in name_words)) if name_words else set()
    joined = words[0] + words[1]  # "Pull requests for a repository" for `pullrequests.list`
    return None if stems(words[0]) & named or joined in name_words else words[0]
