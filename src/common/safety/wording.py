"""Reading a tool's name and description the way a person does: which verb leads, what it changes.

Names are split into words (snake_case, camelCase, kebab-case, dotted), words before the first
known verb are a prefix (`git_`, `puppeteer_`, `jira_`), and the leading verb decides:
`list_commits` lists, `git_diff` diffs. Nouns that look like verbs (`commits`, `messages`,
`runs`) are then weighed as nouns. Two vocabularies say what changes things:

- `DESTRUCTIVE_VERBS` (delete, drop, send, pay, push, merge, transfer, revoke...) are rarely nouns
  in tool names and win anywhere: `get_and_delete`, `message_send`, `list_transfers` (the last
  over-blocked on purpose: a missed payment cannot be undone, a needless question can).
- `CHANGE_VERBS` (create, update, write, commit, post, run, click...) change something when they
  lead, or follow a conjunction (`get_or_create`), but are nouns after a read verb.

Inflections are read as people read them: a past participle (`get_sent_emails`, "messages sent
by the user", `get_deleted_items`) describes its noun, and in a name an -ing or -ed form of a
change verb is a prefix or an adjective (`posting_get_login_status`), not what the tool does.

The words live in `vocabulary.toml` (read by `common.safety.vocabulary`); the readings that clear
a tool from closed sets of words (session actions, tabs, demonstrations, switches, computations,
sign-ins) are in `common.safety.readings`.

A description is read by the tool's own sentence: a preamble that describes the whole service
("This tool belongs to the trading system, which allows users to ...", or whatever comes before
"Tool description:") is dropped first (`own_description`).

A description adds risk only by saying what the tool changes (a leading change verb, or a
destructive verb anywhere in its own first sentence), not by mentioning a noun ("Shows the commit
log"); a leading change verb outranks a read verb in the name (`echo`: "Write content to a file
..."). It clears a tool only when the name says nothing.

Whether a word stands as a verb at all is a question of parts of speech (`common.safety.parts`,
on a shipped English lexicon): a change word that modifies the next noun or heads a compound
(`estimate_dispatch_time`, `search_address_book`) or ends the read verb's object ("Search
transactions sent or received") is a noun; a word that can only be a verb leads a name even when
no vocabulary knows it (`generate_test_signal`). Verbs of observing (measure, verify, weigh) read
with a noun as object and yield to a change word they qualify ("test-charge the card").

Lists ("including returns, cancels"), questions ("Can this be changed?"), noun adjuncts
(`check_refund_request`), negations ("sends nothing") and states ("(locked, unlocked)") are read
by `common.safety.phrases`; a name on its own server by `common.safety.names`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from common.safety import vocabulary as vocab
from common.safety.parts import can_be_verb, in_noun_phrase, modifier_or_head, only_a_verb
from common.safety.phrases import OBJECT_STARTS as _OBJECT_STARTS
from common.safety.phrases import asks, ends_in_a_verb, not_acting, noun_adjuncts
from common.safety.phrases import possible as _possible
from common.safety.states import without_fields, without_quoted, without_states

DESTRUCTIVE_VERBS = vocab.words("verbs", "destructive")
"""Verbs whose call cannot be undone, and that tool names rarely use as nouns: they win anywhere."""
CHANGE_VERBS = vocab.words("verbs", "change")
"""Verbs that change something when they lead a name (or follow "and"/"or"); nouns otherwise."""
READ_VERBS = vocab.words("verbs", "read")
"""Verbs of operations that only read or compute: they clear a tool when they lead its name."""
OBSERVE_VERBS = vocab.words("verbs", "observe")
"""Verbs of observing and checking: they read with a noun as object, not before a change word."""
MANNER_VERBS = vocab.words("verbs", "manner")
"""Change verbs that under a read name say how it reads ("Execute a SELECT query")."""
MANNER_OBJECTS = vocab.words("verbs", "manner_objects")
"""What a manner verb's object must name for it to say how the tool reads ("a SELECT query")."""
HEAD_NOUNS = vocab.words("verbs", "head_nouns")
"""Nouns after which a leading noun-like verb is a noun ("Order details", "Release notes")."""
NOUN_LIKE_READS = vocab.words("verbs", "noun_like_reads")
"""Read words that are also nouns (`status_update`): after them a bare change verb still counts."""
_LISTING_VERBS = vocab.words("names", "listing_verbs")
NOUN_LIKE_CHANGES = vocab.words("verbs", "noun_like_changes")
"""Change verbs that are also common nouns (`list_pull_requests`): after a noun-like read word
they count only as the name's last word."""
NOUN_ONLY_READS = vocab.words("verbs", "noun_only_reads")
"""Read words only as the last word (`git_log`); leading, "log" records something (`log_event`)."""
TWO_WORD_CHANGES = vocab.pairs("verbs", "two_word_changes")
"""Read words that change something with the next word ("Checks out the cart")."""
IRREGULAR_FORMS = vocab.mapping("verbs", "irregular")
"""Inflected forms no suffix rule reaches ("and sent it", "paid the invoice"): all past forms."""
CONJUNCTIONS = vocab.words("sentences", "conjunctions")
"""Words after which another verb follows (`get_or_create`, "Finds messages; archives them")."""
_LEAD_INS = vocab.pattern("sentences", "lead_ins", re.IGNORECASE)
"""Openings of descriptions that come before the verb ("Use this tool to ...")."""
_PREAMBLE = vocab.pattern("sentences", "preamble", re.IGNORECASE)
"""A first sentence about the whole service, not the tool ("This tool belongs to ...")."""
_PREAMBLE_MARKER = vocab.pattern("sentences", "preamble_marker")
"""What ends a preamble ("... Tool description: ...")."""
_SIGNATURE = vocab.pattern("sentences", "signature")
"""A first line that is the tool's own signature ("load_data(query: str) -> List[Document]")."""

Leaning = Literal["destructive", "change", "read"]
"""What a verb says a tool does."""


def name_tokens(name: str) -> list[str]:
    """Split a tool name into lower-case words (snake, kebab, dotted and camel case)."""
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", name)
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", spaced)
    return [t for t in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if t]


@lru_cache(maxsize=8192)
def stems(word: str) -> frozenset[str]:
    """The word and its possible stems, so "Deletes", "deleting", "cancelled", "sent" meet theirs.

    Suffixes -s/-es/-ed/-ing and -d after an e (with a dropped final e or a doubled consonant
    restored), -ied/-ies to -y, and `IRREGULAR_FORMS`. Over-generating is harmless: only known
    verbs are looked up.
    """
    forms = {word} | {word.removesuffix(s) for s in ("s", "es", "ed") if word.endswith(s)}
    if word.endswith("ed"):  # "saved" -> "save"; "band" is no form of "ban"
        forms.add(word[:-1])
    for suffix in ("ing", "ed"):
        base = word.removesuffix(suffix)
        if base != word and len(base) >= 2:
            forms |= {base, base + "e"}
            if base[-1] == base[-2]:
                forms.add(base[:-1])
    for suffix in ("ied", "ies"):
        if word.endswith(suffix):
            forms.add(word.removesuffix(suffix) + "y")
    if word in IRREGULAR_FORMS:
        forms.add(IRREGULAR_FORMS[word])
    return frozenset(forms)


def with_stems(words: list[str] | set[str]) -> set[str]:
    """The words plus their stems (see `stems`)."""
    return {stem for w in words for stem in stems(w)}


@lru_cache(maxsize=8192)  # pure, and asked of the same words many times per tool list
def verb_of(word: str, last: bool) -> tuple[Leaning, str] | None:
    """Which vocabulary a word (or one of its stems) belongs to, destructive first."""
    forms = stems(word)
    for leaning, vocabulary in (
        ("destructive", DESTRUCTIVE_VERBS),
        ("change", CHANGE_VERBS),
        ("read", READ_VERBS),
        ("read", OBSERVE_VERBS),
    ):
        hit = sorted(forms & vocabulary)
        if hit:
            return leaning, hit[0]  # type: ignore[return-value]
    if last and forms & NOUN_ONLY_READS:
        return "read", word
    return None


@dataclass(frozen=True)
class Reading:
    """What a name or a description says about a tool's effect."""

    leaning: Leaning | None
    """destructive, change or read; None when it says nothing this module understands."""
    verb: str | None
    """The word that decided, as the vocabulary spells it."""
    why: str
    """The decision in words, e.g. "its name leads with the read verb 'list'"."""


_BE = vocab.words("sentences", "be")
"""Words before a participle that describes a state ("if `part` is set"), not an action."""
_OF = vocab.words("sentences", "of")
"""Words after which an -ing form names an activity ("the cost of creating"), not an action."""
_VERB_PLACES = vocab.words("sentences", "verb_places")
"""Words after which a noun-like verb is a verb ("that posts", "to commit")."""
_CAUSATIVES = vocab.words("sentences", "causatives")
"""Read verbs after whose object a participle says what they had done ("Get the invoice paid")."""
_AUXILIARIES = _BE | {"has", "have", "had", "will", "would", "been"}
"""Words after which a past participle is the verb of a clause ("is deleted", "has sent")."""


def _inflection(word: str, verb: str) -> Literal["base", "participle", "gerund"]:
    """Which form of `verb` a word is: "sent" and "deleted" are participles, "posting" a gerund."""
    if word in IRREGULAR_FORMS or (word.endswith("ed") and word != verb):
        return "participle"
    if word.endswith("ing") and word != verb:
        return "gerund"
    return "base"


def _verb_form(words: list[str], i: int, hit: tuple[Leaning, str], in_name: bool) -> bool:
    """Whether the word at `i` says what the tool does, rather than describing a noun.

    In a name, a participle after a read verb describes a noun next to it (`get_sent_emails`,
    `view_messages_sent`; not `find_deleted`), and a change verb's -ing form is a prefix
    (`posting_get_login_status`). In a sentence, see `_participle_acts`.
    """
    if hit[0] == "read":
        return True
    form = _inflection(words[i], hit[1])
    if form == "participle" and in_name:
        read_before = any((r := verb_of(w, False)) and r[0] == "read" for w in words[:i])
        after_read = (r := verb_of(words[i - 1], False)) is not None and r[0] == "read"
        next_to_noun = i + 1 < len(words) or not after_read
        return not (read_before and next_to_noun)
    if form == "participle":
        return _participle_acts(words, i, hit[0])
    return not (in_name and form == "gerund" and hit[0] == "change")


def _participle_acts(words: list[str], i: int, leaning: Leaning) -> bool:
    """Whether a participle in a sentence is the tool's action, not a description of a noun.

    A destructive one acts unless it reads as an adjective: followed by "by" ("messages sent by
    the user"), after a determiner or a word of time ("the sent items", "recently deleted"), or
    right after the sentence's leading read verb ("Get published posts") or the plain noun phrase
    that is its object ("Search transactions sent or received"; not after a causative: "Get the
    invoice paid"); "with reminders sent automatically", "each paid from the balance" act. A
    change verb's participle acts only as a clause's verb: after "is", "has", "and", "that" or an
    adverb ("and saved", "is updated").
    """
    before = words[i - 1] if i else ""
    if leaning == "change":
        if _possible(words, i) or _paired_with_an_adjective(words, i):
            return False  # "ones that were charged or voided": what happened before the call
        return before in _AUXILIARIES | CONJUNCTIONS | _VERB_PLACES or (
            before.endswith("ly") and before not in _ADJECTIVE_MARKS
        )
    if words[i + 1 : i + 2] == ["by"] or before in _ADJECTIVE_MARKS or _possible(words, i):
        return False  # "messages sent by", "the sent items", "can be refunded", "sent since"
    lead = verb_of(words[0], False) if words else None
    if lead is None or lead[0] != "read":
        return True
    if i == 1:
        return False  # "Get published posts"
    # "Search transactions sent or received": the participle ends the read verb's object
    describes = in_noun_phrase(words, 1, i, _ADJECTIVE_MARKS | _OBJECT_STARTS)
    return words[0] in _CAUSATIVES or not describes


_PAIR_ENDS = frozenset({"at", "by", "during", "for", "in", "on", "over", "per", "since"})
"""Prepositions after a pair of participles that place the noun's events ("per zone")."""


def _paired_with_an_adjective(words: list[str], i: int) -> bool:
    """Whether a participle after "and"/"or" pairs with one describing the plural noun before.

    "alarms raised and cleared per zone": both describe the alarms, placed by a preposition.
    "Files are uploaded and deleted" acts ("are" before the pair), and so does a headline
    "spam messages flagged and trashed".
    """
    if i < 3 or words[i - 1] not in ("and", "or") or i + 1 >= len(words):
        return False
    first, noun = words[i - 2], words[i - 3]
    placed = words[i + 1] in _PAIR_ENDS  # "raised and cleared per zone"; not "... and trashed."
    return placed and first.endswith("ed") and noun.endswith("s") and noun not in _AUXILIARIES | _BE


_ADJECTIVE_MARKS = frozenset(
    {"the", "a", "an", "all", "any", "your", "my", "our", "their", "its", "his", "her", "of"}
    | {"recently", "previously", "newly", "already", "not", "never", "yet"}
)
"""Words after which a participle describes a noun ("the sent items", "recently deleted")."""


def found_verbs(
    words: list[str], in_name: bool = False, every_form: bool = False
) -> list[tuple[Leaning, str] | None]:
    """Each word's vocabulary where it stands as a verb, two-word changes ("check out") included.

    `every_form` counts every inflection as a verb: the readings that clear a tool from closed
    sets want no participle to slip through as an adjective.
    """
    found = [verb_of(w, i == len(words) - 1) for i, w in enumerate(words)]
    if not in_name and not every_form:  # "including returns, cancels and exchanges": nouns
        for i in not_acting(words, found):
            found[i] = None  # "including returns", "sends nothing", "on its current charge"
    lead = next((i for i, hit in enumerate(found) if hit is not None), 0)
    first = found[lead] if in_name and found else None
    if first is not None and first[1] in OBSERVE_VERBS and ends_in_a_verb(words, found):
        found[lead] = None  # `access_token_create`: resource first, its last word governs
    for i, hit in enumerate(found[:-1]):
        after = found[i + 1]
        if hit is not None and hit[1] in OBSERVE_VERBS and after is not None and after[0] != "read":
            found[i] = None  # "test-charge the card", `verify_send`: the change word governs
    if not every_form:
        found = [
            hit if hit is None or _verb_form(words, i, hit, in_name) else None
            for i, hit in enumerate(found)
        ]
    for i, hit in enumerate(found[:-1]):
        particle = _particle(words, i) if hit is not None else None
        if hit is not None and particle is not None:
            found[i] = ("change", f"{hit[1]} {particle}")
    for i in set() if every_form else noun_adjuncts(words, found, in_name):
        found[i] = None  # `check_refund_request`: a refund request is checked
    return found


def _particle(words: list[str], i: int) -> str | None:
    """The particle that makes the verb at `i` a two-word change ("check in"), else None.

    Next to the verb, or after its object when no object follows it ("Checks a route off as
    treated", "Check a guest in at the desk"; not "Check the box in the corner").
    """
    verb = verb_of(words[i], False)
    if verb is None:
        return None
    if (verb[1], words[i + 1]) in TWO_WORD_CHANGES:
        return words[i + 1]
    if words[i + 1] not in _OBJECT_STARTS | {"it", "them"}:
        return None
    for j in range(i + 2, min(i + 5, len(words))):
        after = words[j + 1] if j + 1 < len(words) else ""
        if (verb[1], words[j]) in TWO_WORD_CHANGES and after not in _OBJECT_STARTS:
            return words[j]
    return None


def _read_words(words: list[str], what: str, read_within: int | None = None) -> Reading:
    """The reading of a sequence of words: destructive anywhere, else the verbs that lead.

    A verb leads when it is the first known word or follows a conjunction; with `read_within`,
    a read verb leads only among that many first words (a change verb within three), and a read
    after a conjunction clears nothing unless one led ("Exercises an option, converting it").
    After a noun-like read word (`status_update`) a later change verb in its bare form counts.
    """
    found = found_verbs(words, in_name=what == "name")
    destructive = [hit[1] for hit in found if hit is not None and hit[0] == "destructive"]
    if destructive:
        return Reading("destructive", destructive[0], f"its {what} contains {destructive[0]!r}")
    first = next(((i, hit) for i, hit in enumerate(found) if hit is not None), None)
    verbs = [hit for i, hit in enumerate(found) if hit and i and words[i - 1] in CONJUNCTIONS]
    led = False
    if first is not None:
        index, (leaning, verb) = first
        limit = None if read_within is None else (read_within if leaning == "read" else 3)
        if read_within is not None and verb in NOUN_LIKE_CHANGES and leaning == "change":
            limit = 1  # "Load emails from the account": a noun after an unknown verb
        # `generate_test_signal`: a verb no vocabulary knows leads, "test" is a noun; a gerund
        # before a listing verb with its object names a part of the API (`sharing_list_links`);
        # not before `get` (`impersonating_get_token` issues one) nor a last read word
        # (`billing_info` may set it)
        objected = index < len(words) - 1 and verb in _LISTING_VERBS
        ahead = [w for w in words[:index] if not (objected and w.endswith("ing"))]
        if what == "name" and leaning == "read" and any(map(only_a_verb, ahead)):
            limit = 0
        if limit is None or index < limit:
            verbs.insert(0, (leaning, verb))
            led = True
        if leaning == "read" and verb in NOUN_LIKE_READS:
            last = len(words) - 1
            verbs += [
                hit
                for i, hit in enumerate(found[index + 1 :], index + 1)
                if hit is not None
                and hit[0] == "change"
                and words[i] == hit[1]
                and (hit[1] not in NOUN_LIKE_CHANGES or i == last)
                and not modifier_or_head(words, i, index)
            ]
    changes = [verb for leaning, verb in verbs if leaning == "change"]
    if changes:
        return Reading(
            "change", changes[0], f"its {what} says it changes something ({changes[0]!r})"
        )
    if what == "name" and _unknown_verb_joined(words, found):
        led = False  # `predict_and_trade`: a verb no vocabulary knows after "and" is not cleared
    if verbs and led:  # "Exercises an option, converting it": a later read vouches for nothing
        return Reading("read", verbs[0][1], f"its {what} leads with the read verb {verbs[0][1]!r}")
    return Reading(None, None, f"its {what} has no verb this guard knows")


def _unknown_verb_joined(words: list[str], found: list[tuple[Leaning, str] | None]) -> bool:
    """Whether a word after a conjunction can be a verb that no vocabulary knows (`and_trade`)."""
    return any(
        hit is None and i and words[i - 1] in CONJUNCTIONS and can_be_verb(words[i])
        for i, hit in enumerate(found)
    )


# Readings are pure and asked for several times per tool and turn (verdict, hint, reason).
@lru_cache(maxsize=4096)
def read_name(name: str) -> Reading:
    """What a tool's name says: its leading verb, or a destructive verb anywhere in it."""
    return _read_words(name_tokens(name), "name")


@lru_cache(maxsize=4096)
def acted_on_prefix(name: str, description: str | None) -> str | None:
    """A verb a name carries as a prefix or adjective that the description does, if any.

    `booking_check` reads by its name ("booking" is a prefix), but "Check availability and book
    the room" books: the word the name passed over as a noun is the description's verb.
    """
    words = name_tokens(name)
    passed = {
        hit[1]
        for hit, kept in zip(
            found_verbs(words, every_form=True), found_verbs(words, in_name=True), strict=True
        )
        if hit is not None and kept is None and hit[0] != "read"
    }
    if not passed:
        return None
    sentence = words_of(first_sentence(description))
    for word, hit in zip(sentence, found_verbs(sentence), strict=True):
        if hit is not None and hit[1] in passed and _inflection(word, hit[1]) == "base":
            return hit[1]
    return None


_SENTENCE_END = re.compile(
    r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)(?<!\bvs\.)(?<!\bE\.g\.)(?<=[.!?])\s|\n\s*\n"
)
"""Where a sentence ends: not after "e.g.", "i.e.", "etc." or "vs." ("(e.g. the cart) and pay")."""


def _service_statement(sentence: str) -> bool:
    """Whether a sentence only says what service a tool belongs to (and what that allows).

    "This function is part of the car API and starts the engine" names what the tool does: a
    change verb before the "which"/"that" clause makes it the tool's own sentence.
    """
    if not _PREAMBLE.match(sentence):
        return False
    head = re.split(r"\b(?:which|that)\b", sentence.lower(), maxsplit=1)[0]
    hits = found_verbs(words_of(head), every_form=True)
    return not any(hit is not None and hit[0] != "read" for hit in hits)


@lru_cache(maxsize=4096)
def own_description(description: str | None) -> str:
    """The part of a description that speaks of the tool itself, its service's preamble dropped.

    A first line that is the tool's own signature ("load_data(query: str) -> List[Document]") is
    dropped. A first sentence that only says what the tool belongs to ("This tool belongs to the
    trading system, which allows users to trade stocks, manage their account...") is the
    service's, and so, after such a sentence, is everything before "Tool description:": their
    verbs are the service's, not this tool's.
    """
    text = without_quoted((description or "").strip())
    signature = _SIGNATURE.match(text)
    if signature is not None and text[signature.end() :].strip():
        text = text[signature.end() :].strip()  # its parameter names are not verbs
    first, *rest = _SENTENCE_END.split(text, maxsplit=1)
    if not rest or not rest[0].strip() or not _service_statement(first):
        return text  # "Deletes the repository. Tool description: Get info." has no preamble
    marker = _PREAMBLE_MARKER.search(text)
    if marker is not None and text[marker.end() :].strip():
        return text[marker.end() :].strip()
    return rest[0].strip()


@lru_cache(maxsize=4096)
def preamble_destroys(description: str | None) -> str | None:
    """A destructive verb in the service preamble `own_description` drops, if any.

    The preamble speaks of the service, not the tool; but "part of the cleanup job, which deletes
    stale branches" may be all a verbless tool says of itself, so the caller still holds such a
    tool when its name does not read.
    """
    text = (description or "").strip()
    own = own_description(description)
    if own == text:
        return None
    dropped = words_of(text[: len(text) - len(own)] if text.endswith(own) else text)
    hits = found_verbs(dropped, every_form=True)
    return next((hit[1] for hit in hits if hit is not None and hit[0] == "destructive"), None)


def first_sentence(description: str | None) -> str:
    """The tool's own first sentence, its lead-in ("Use this tool to") removed."""
    sentence = _SENTENCE_END.split(own_description(description), maxsplit=1)[0]
    previous = None
    while previous != sentence:
        previous, sentence = sentence, _LEAD_INS.sub("", sentence, count=1)
    return sentence


def words_of(text: str) -> list[str]:
    """The lower-case words of a text, commas and semicolons kept as words, field names not."""
    return re.findall(r"[a-z]+|[,;]", without_fields(text.lower()))


def acting_words(description: str | None) -> list[str]:
    """The words of the tool's own first sentence; none when it asks a question ("Can ...?")."""
    return list(_sentence_words(description))


@lru_cache(maxsize=4096)
def _sentence_words(description: str | None) -> tuple[str, ...]:
    """`acting_words`, kept: several readings of one tool ask for them."""
    raw = _SENTENCE_END.split(own_description(description), maxsplit=1)[0]
    return () if asks(raw) else tuple(words_of(without_states(first_sentence(description))))


@lru_cache(maxsize=4096)
def read_description(description: str | None) -> Reading:
    """What a description's first sentence says the tool does, verbs only (nouns are ignored).

    A read verb leads only as the first word and a change verb among the first three: a later
    one describes the result ("Shows the files that were added"), except a destructive verb or
    one after "and", "or", "," or ";", which count.
    """
    sentence = first_sentence(description)
    words = acting_words(description)
    reading = _read_words(words, "description", read_within=1)
    if reading.leaning is None and _loads_from_a_source(words):
        reading = Reading("read", words[0], "its description loads from a source")
    if reading.leaning is None:
        return reading
    shown = sentence if len(sentence) <= QUOTED else sentence[: QUOTED - 1].rstrip() + "…"
    why = reading.why.replace("its description", f"its description ({shown!r})", 1)
    return Reading(reading.leaning, reading.verb, why)


SOURCE_READS = vocab.words("verbs", "source_reads")
"""Verbs that read when they name only a source ("Load emails from the user's account")."""
_DESTINATIONS = frozenset({"into", "to", "onto", "in"})
"""Words that name where something goes ("Load the fixture into the database")."""


def _loads_from_a_source(words: list[str]) -> bool:
    """Whether a sentence leads with a `SOURCE_READS` verb and names a source but no destination."""
    leads = bool(words) and bool(stems(words[0]) & SOURCE_READS)
    return leads and "from" in words and not _DESTINATIONS & set(words)


QUOTED = 64
"""How much of the deciding sentence a reason quotes: enough to find it, short enough to read."""


@lru_cache(maxsize=4096)
def leading_change(description: str | None) -> Reading | None:
    """The reading of a tool's own first sentence when it leads with a change verb, else None.

    "Write content to a file ... or display it" leads with "write": the sentence that says what
    the tool does outranks a read verb in its name (`echo`). Only the leading verb (among the
    first three words) counts here, when it acts (`_not_an_action`); a later "and comments" may
    be a noun.
    """
    words = acting_words(description)
    found = found_verbs(words)
    first = next((i for i, hit in enumerate(found) if hit is not None), None)
    hit = found[first] if first is not None and first < 3 else None
    if hit is None or hit[0] == "read" or _not_an_action(words, first or 0, hit[1]):
        return None
    reading = read_description(description)
    return reading if reading.leaning in ("change", "destructive") else None


def _not_an_action(words: list[str], i: int, verb: str) -> bool:
    """Whether a leading change word says how a read tool works, or heads a noun phrase.

    "Execute a SELECT query" reads (a manner verb whose object is a read); "Order details for
    the given ID", "Release notes" and "Updates posted to the feed" are nouns. "Run a shell
    command", "Capture the payment" and "Post a message" act.
    """
    after = words[i + 1 : i + 5]
    if verb in MANNER_VERBS:
        return bool(set(after) & MANNER_OBJECTS)
    following = after[0] if after else ""
    if following.endswith("ing") and verb_of(following, False) is not None:
        return False  # "Start monitoring the tank": the -ing form is the verb's object
    if (
        following in HEAD_NOUNS
        or _inflection(following, following.removesuffix("ed")) == "participle"
    ):
        return True
    noun_like = verb in NOUN_LIKE_CHANGES and not words[i].endswith("ing")
    return noun_like and following not in _OBJECT_STARTS and not following.isdigit()


def _acting(words: list[str], i: int) -> bool:
    """Whether the word at `i` (> 0) stands in a verb's place: "that posts", "by deleting"."""
    before = words[i - 1]
    return before in _VERB_PLACES or (before == "by" and words[i].endswith("ing"))


@lru_cache(maxsize=4096)
def mentions_change(description: str | None) -> str | None:
    """A verb in the description's first sentence saying the tool changes something, if any.

    Anywhere in the sentence, not only leading ("Fires a webhook that posts the payload"), but
    not a word that is mostly a noun ("the commit log") unless in a verb's place ("that posts"),
    nor a state ("if `part` is set"), nor a change named as an activity ("the cost of creating";
    a destructive one counts even there).
    """
    words = re.findall(r"[a-z]+", without_states(first_sentence(description)).lower())
    for i, hit in enumerate(found_verbs(words)):
        if hit is None or hit[0] == "read" or (i and words[i - 1] in _BE):
            continue
        if hit[0] == "change" and words[i].endswith("ing") and i and words[i - 1] in _OF:
            continue  # a gerund as a noun: "the cost of creating a project"
        verb_place = i > 0 and _acting(words, i)
        if hit[0] == "destructive" or hit[1] not in NOUN_LIKE_CHANGES or verb_place:
            return hit[1]
    return None


def sentences(description: str | None) -> list[str]:
    """The tool's own sentences in lower case, each without its lead-in ("Use this tool to")."""
    text = own_description(description).lower()
    return [first_sentence(part) for part in _SENTENCE_END.split(text) if part.strip()]
