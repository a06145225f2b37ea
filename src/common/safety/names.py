"""A tool's name read on its own server: the server's name set aside, then classes of names.

Product-prefixed servers lead every tool name with their own name (`SmartLockReadLockState` on
SmartLock, `dispatch_list_units` on dispatch), and when that name is a change word (Lock,
Dispatch, Book, Post, Pay...) it was read as every tool's verb. So the server's name (or a run of
its parts, joined or not, any case: `roadcrew-` on road-crew) is set aside at the front of a name
when something remains and the words set aside hold no read verb (on a server called search,
`search_posts` still searches), and the rest is read (`common.safety.wording`). The product's
change word does not decide alone: `SmartLockLockDoor` still locks, and a rest with no verb is
read by its description; when that says nothing either, the product's word holds the tool
(`product_verb`), as a signal the analyser may not clear. Nor does one noun left alone against
it without a description clear the tool (`SendStatus` on Send).

Then classes of names whose leading word the vocabularies mistake or do not know, each closed by
words in `vocabulary.toml` (`[names]`), and none when the name joins two actions ("and", "or"):

- a question (`can_upload_video`): it asks whether something can be done; any later change word
  must end the name and be a noun (`can_refund_order`, not `can_bus_send_frame`);
- asking an automated answerer (`ask_weather_bot`), running a probe (`run_latency_probe`),
  generating a value nothing stores (`generate_uuid`, `generate_random_password`; not
  `generate_user_password`), with no change word between verb and object;
- a name with no verb whose head noun is a search, a report, a status, a history, a trend or a
  query (`place_search`, `sales_report`), unless the description leads with a word of it that
  can be a verb no vocabulary knows, as that verb ("Export the report ...", "Reports spam to
  ...", the head itself: "Report a bug ..."), or, with no description, such a word leads or
  heads it (`export_report`, `user_report`).

- "Report ..." for a report-headed name gives an account ("Report the number of ...", "Report
  fuel use per vehicle") unless it files: "a"/"an"/"this" after it, "to"/"as" anywhere, or a
  filed thing in its object ("Report abuse", "Report the user for harassment");
- a record named by a noun-like change word (`call_history`, `order_log`) when the description
  opens with the head ("History of calls") or a read verb; tracking a thing in transit
  (`track_parcel`; not `track_event`); a preview generated of anything that is a noun
  (`generate_label_preview`; not `generate_label`); a question's verb after a bound prefix
  written apart (`CanCoPrescribe`).

- a question about a state (`is_recipient_verified`, `has_shipped`, `who_is_on_call`), with no
  destructive verb after it; a rehearsal of a change on nouns, its verb first or last
  (`simulate_checkout`, `releases_compare`, `releases_dry_run`; not `simulate_refund`), or
  "evaluate" with only a flag, a rule or a policy (`flags_evaluate`; not `browser_evaluate`);
  a read verb whose object is a destructive word (`list_charges`, `get_charge`) when the
  description reads it too ("List charges, newest first"); with none it stays held.

A reading from these classes clears nothing by itself: the tool's own sentence can still hold it
(a change verb leading it or added after "and", `common.safety.classify`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from common.safety import vocabulary as vocab
from common.safety.parts import (
    can_be_noun,
    can_be_verb,
    only_a_verb,
    singular_noun,
    unknown_word,
)
from common.safety.phrases import OBJECT_STARTS, QUESTIONS, REHEARSAL_PAIRS, rehearsal_width
from common.safety.wording import (
    CONJUNCTIONS,
    DESTRUCTIVE_VERBS,
    MANNER_VERBS,
    NOUN_LIKE_CHANGES,
    OBSERVE_VERBS,
    Reading,
    first_sentence,
    mentions_change,
    name_tokens,
    read_description,
    read_name,
    stems,
    verb_of,
    with_stems,
)

SERVER_WORDS = vocab.words("names", "server_words")
"""Words of a server's configured name that are not its product's (mcp-server-github)."""
EVALUATES = frozenset({"evaluate", "eval"})
"""The verbs that read with an `EVALUATED` object."""
EVALUATED = vocab.words("names", "evaluated")
"""What "evaluate" may evaluate and still only read: a flag, a rule, a policy."""
STATE_QUESTIONS = vocab.words("names", "state_questions")
"""Words that open a question about a state (`is_recipient_verified`, `has_shipped`)."""
ASKERS = vocab.words("names", "askers")
"""Verbs that put a question to something (`ask_weather_bot`)."""
ANSWERERS = vocab.words("names", "answerers")
"""What an asker may ask and still only read: an automated answerer (bot, assistant, model)."""
PROBES = vocab.words("names", "probes")
"""What a leading manner verb may run and still only read (`run_latency_probe`)."""
VALUE_MAKERS = vocab.words("names", "value_makers")
"""Verbs that make a value they return (`generate_uuid`)."""
VALUES = vocab.words("names", "values")
"""Values nothing stores (uuid, hash, password): what a value maker may make and still read."""
READ_HEADS = vocab.words("names", "read_heads")
"""Head nouns of names that read without a verb (`place_search`, `parcel_status`)."""
ACCOUNT_HEADS = vocab.words("names", "account_heads")
"""Heads whose verb gives an account of data ("Report the number of ...") unless it files."""
ACTING_HEADS = vocab.words("names", "acting_heads")
"""Read heads whose verb, ending a name with no description, may file or change (`user_report`)."""
GIVING_BACK = vocab.words("sentences", "response_verbs")
"""Verbs that give their output back ("Returns"): leading a description, they change nothing."""
FILINGS = vocab.words("names", "filings")
"""What a report's object names when it files rather than reads ("Report abuse")."""
RECIPIENTS = vocab.words("names", "filing_recipients")
"""Words anywhere after a report's verb that name where it is filed ("to", "as spam")."""
OBJECT_ENDS = vocab.words("names", "object_ends")
"""Words that end a report's object ("trending hashtags | among the account's followers")."""
FILING_WORDS = vocab.words("names", "filing_words")
"""Words right after a report's verb that make its object one instance filed ("a bug")."""
RECORD_HEADS = vocab.words("names", "record_heads")
"""Heads of records a noun-like change word before them names the kind of (`call_history`)."""
TRACKERS = vocab.words("names", "trackers")
"""Verbs that observe a thing in transit (`track_parcel`)."""
TRACKED = vocab.words("names", "tracked")
"""What a tracker may follow and still only read: parcels, shipments, flights."""
PREVIEWS = vocab.words("names", "previews")
"""What a value maker may make of anything and store nothing (`generate_label_preview`)."""
BOUND_PREFIXES = vocab.words("names", "bound_prefixes")
"""Prefixes a name writes as their own word (`CanCoPrescribe`): the verb asked is the next."""


@lru_cache(maxsize=256)
def _spellings(server: str) -> frozenset[str]:
    """How a server's name may lead its tools' names: any run of its parts, joined.

    Its parts are the words of its configured name but `mcp` and `server` (mcp-server-github).
    """
    parts = [w for w in name_tokens(server) if w not in SERVER_WORDS]
    return frozenset(
        "".join(parts[a:b]) for a in range(len(parts)) for b in range(a + 1, len(parts) + 1)
    )


def _prefix_length(runs: frozenset[str], words: list[str]) -> int:
    """How many leading words spell the server's name or a run of its parts (0 if none).

    The longest spelling wins, and something must remain after it: a name that only spells the
    server's name (`SmartLock` on SmartLock) is read whole.
    """
    if not runs or "".join(words) in runs:
        return 0
    for k in range(len(words) - 1, 0, -1):
        if "".join(words[:k]) in runs:
            return k
    return 0


@lru_cache(maxsize=4096)
def own_words(server: str, name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A tool name's words as (the server's own name at its front, the rest to read).

    Nothing is set aside when the front does not spell the server's name, when nothing would
    remain, or when the front is one read verb before nouns only (`fetch_url` on fetch: the
    tool's verb may be its server's name). A read verb inside a longer product name is the
    product's, not the tool's: `WattViewPayBill` pays, `WattViewSwitchTariff` is read as
    "switch tariff".
    """
    words = name_tokens(name)
    k = _prefix_length(_spellings(server), words)
    if k == 1 and (hit := verb_of(words[0], False)) is not None and hit[0] == "read":
        # `fetch_url` on fetch reads a URL, `search_posts` posts; on Check,
        # `check.item.public_token.exchange` exchanges: a rest with a word that may be its own
        # verb keeps the read word the product's, which must not clear the tool alone.
        rest = words[1:]
        own_verb = any(_may_be_its_verb(w) for w in rest)
        own_verb = own_verb or (
            len(rest) > 1 and unknown_word(rest[-1]) and not plural_noun(rest[-1])
        )
        k = 1 if own_verb else 0
    return tuple(words[:k]), tuple(words[k:])


_TRAILING_READS = vocab.words("names", "trailing_reads")
LISTING_VERBS = vocab.words("names", "listing_verbs")
"""Read verbs that list many things: a `state` after a plural and one of them filters."""
ISSUED_THINGS = vocab.words("data", "issued_things")
"""Things a call may issue (a code, a link, a token, a session): read once, here."""


def issues_something(words: tuple[str, ...]) -> bool:
    """Whether a name's resource is a thing a read of it may issue (a link, a code, a token)."""
    return bool(set(words) & ISSUED_THINGS)


def _may_be_its_verb(word: str) -> bool:
    """Whether a word after a read-verb server name may be the tool's own verb.

    A verb of the lexicon or the vocabularies (`exchange`, `snapshot`), but no plural and no
    head a read names (`metrics`, `status`).
    """
    if plural_noun(word) or word in READ_HEADS:
        return False
    return can_be_verb(word) or verb_of(word, False) is not None


def _unknown_verb(word: str) -> bool:
    """Whether a name's last word no lexicon knows may be its verb (`resize`; not `cpu`, `dns`)."""
    return len(word) > 4 and unknown_word(word) and not plural_noun(word)


def _verb_like(word: str) -> bool:
    """Whether a word of a name may be its verb: a known verb, or a word only a verb."""
    return verb_of(word, False) is not None or only_a_verb(word)


def read_as(server: str, name: str) -> str:
    """The part of a tool's name that is read, as a name (`read_lock_state`)."""
    return "_".join(own_words(server, name)[1])


def _changes(words: tuple[str, ...]) -> bool:
    """Whether any of the words is a change or destructive verb a vocabulary knows."""
    return any((hit := verb_of(w, False)) is not None and hit[0] != "read" for w in words)


def _lead(words: tuple[str, ...]) -> int | None:
    """Where a name's verb stands, past words that cannot be verbs; None if another verb leads."""
    for i, word in enumerate(words):
        if word in QUESTIONS or verb_of(word, False) is not None or stems(word) & _CLASS_LEADS:
            return i
        if can_be_verb(word):
            return None
    return None


_CLASS_LEADS = ASKERS | MANNER_VERBS | VALUE_MAKERS | TRACKERS
"""Words that lead the classes of names read here (ask, run, generate...)."""


def _question(words: tuple[str, ...], lead: int) -> Reading | None:
    """The reading of a name that asks whether something can be done (`can_upload_video`).

    The word after "can" is the verb asked about; any later change word must be the last word
    and a noun (`can_refund_order`): `can_bus_send_frame` sends on a CAN bus.
    """
    asked, later = words[lead + 1], words[lead + 2 :]
    if asked in BOUND_PREFIXES and later:  # "can co-prescribe": the verb is "prescribe"
        asked, later = later[0], later[1:]
    if verb_of(asked, False) is None and not can_be_verb(asked):
        return None
    if later and (_changes(later[:-1]) or (_changes(later[-1:]) and not can_be_noun(later[-1]))):
        return None
    shown = " ".join(words[lead:])
    return Reading("read", words[lead], f"its name asks whether something can be done ({shown!r})")


def _state_question(words: tuple[str, ...]) -> Reading | None:
    """The reading of a name that asks about a state (`is_recipient_verified`, `has_shipped`).

    What follows the question word is asked about: change words there are nouns or participles
    ("deposit required", "on call"), but a destructive verb, bare or in its "-s" form
    (`is_send_allowed`, `is_bans`), keeps its verb; its participle is asked about (`is_banned`).
    """
    if len(words) < 2 or words[0] not in STATE_QUESTIONS:
        return None
    for word in words[1:]:
        hit = verb_of(word, False)
        bare = word in DESTRUCTIVE_VERBS or (word.endswith("s") and not word.endswith("ss"))
        if hit is not None and hit[0] == "destructive" and bare:
            return None  # `is_send_allowed`, `is_bans`: a verb, not a participle asked about
    shown = " ".join(words)
    return Reading("read", words[0], f"its name asks about a state ({shown!r})")


def _read_object(words: tuple[str, ...], description: str | None) -> Reading | None:
    """The reading of a read verb whose object is a destructive word (`list_charges`), or None.

    The word ends the name, a noun after the read verb (not one of observing: `test_charge`)
    and plain nouns, and the description agrees: it reads, naming the same word ("List charges,
    newest first", "Retrieve a charge."). With no description `list_transfers` stays held.
    """
    if len(words) < 2 or not first_sentence(description):
        return None
    lead, last = verb_of(words[0], False), words[-1]
    if lead is None or lead[0] != "read" or lead[1] in OBSERVE_VERBS or not can_be_noun(last):
        return None
    if any(_verb_like(w) and not w.endswith("ed") for w in words[1:-1]):
        return None  # a participle between describes the object (`list_scheduled_charges`)
    said = with_stems(re.findall(r"[a-z]+", first_sentence(description).lower()))
    if not stems(last) & said or read_description(description).leaning != "read":
        return None
    shown = " ".join(words)
    return Reading("read", words[0], f"its name and description read what it names ({shown!r})")


def _rehearsal_split(words: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A name's rehearsal verb and the rest, else ((), words).

    The verb first or last (`simulate_checkout`, `releases_dry_run`; last, not after a change
    verb's bare form: `update_preview`), or "evaluate" with only a flag, a rule or a policy
    (`flags_evaluate`).
    """
    width = rehearsal_width(words)
    if width or not words:
        return words[:width], words[width:]
    end = 2 if rehearsal_width(words[-2:]) == 2 else rehearsal_width(words[-1:])
    lead = verb_of(words[0], False)
    if end and (lead is None or lead[1] != words[0]):  # `update_preview` updates it
        return words[-end:], words[:-end]
    for verb, rest in ((words[:1], words[1:]), (words[-1:], words[:-1])):
        if stems(verb[0]) & EVALUATES and rest and set(rest) <= EVALUATED:
            return verb, rest
    return (), words


def _rehearsal(words: tuple[str, ...]) -> Reading | None:
    """The reading of a name that rehearses or evaluates what its other words name, or None.

    Every other word is a noun (a change word only as a noun, none destructive):
    `simulate_checkout`, `releases_compare`; `simulate_refund` or `preview_publish` keeps its
    verb, and "evaluate" reads only a flag, a rule or a policy (`browser_evaluate` runs code).
    """
    verb, rest = _rehearsal_split(words)
    if not verb or not rest:
        return None
    for word in rest:
        hit = verb_of(word, False)
        if hit is not None and (hit[0] == "destructive" or not can_be_noun(word)):
            return None
        if hit is None and only_a_verb(word):
            return None
    shown = " ".join(words)
    return Reading("read", verb[0], f"its name rehearses or evaluates what it names ({shown!r})")


def _rehearsal_described(words: tuple[str, ...], description: str | None) -> Reading | None:
    """The reading of a name that rehearses a change its description rehearses too, or None.

    `publish_dry_run` with "Dry-run a package publish: ... without uploading": the description
    leads with the rehearsal, its object names the name's other words, and nothing in it changes.
    Without such a description `preview_publish` and `run_dry_run` keep their verbs.
    """
    said = re.findall(r"[a-z]+", first_sentence(description).lower())
    width = rehearsal_width(said)
    ends = rehearsal_width(words) or rehearsal_width(words[-2:]) == 2 or rehearsal_width(words[-1:])
    if not width or not ends or read_description(description).leaning is not None:
        return None
    rest = [w for w in words if not rehearsal_width([w]) and (w, "run") not in REHEARSAL_PAIRS]
    rest = [w for w in rest if w != "run" or "dry" not in words]
    if not rest or not all(stems(w) & with_stems(said[width:]) for w in rest):
        return None
    shown = " ".join(words)
    return Reading("read", said[0], f"its name and description rehearse a change ({shown!r})")


def _verb_object(words: tuple[str, ...]) -> Reading | None:
    """The reading of a question, an answerer asked, a probe run or a value made, or None."""
    lead = _lead(words)
    if lead is None or lead == len(words) - 1:
        return None
    verb, last = words[lead], words[-1]
    shown = " ".join(words[lead:])
    if verb in QUESTIONS:
        return _question(words, lead)
    if stems(verb) & VALUE_MAKERS and stems(last) & PREVIEWS and _nouns_only(words[lead + 1 : -1]):
        return Reading("read", verb, f"its name makes a preview nothing stores ({shown!r})")
    if _changes(words[lead + 1 : -1]):
        return None
    for leads, objects, what in (
        (TRACKERS, TRACKED, "tracks a thing in transit"),
        (ASKERS, ANSWERERS, "asks an automated answerer"),
        (MANNER_VERBS, PROBES, "runs a probe"),
        (VALUE_MAKERS, VALUES, "makes a value nothing stores"),
    ):
        if stems(verb) & leads and stems(last) & objects:
            if leads is VALUE_MAKERS and not set(words[lead + 1 : -1]) <= VALUES:
                return None  # `generate_user_password` may set a user's password
            return Reading("read", verb, f"its name {what} ({shown!r})")
    return None


def _nouns_only(words: tuple[str, ...]) -> bool:
    """Whether every word may be a noun here: no destructive word, a change word only noun-like."""
    for word in words:
        hit = verb_of(word, False)
        plural = word.endswith("s") and hit is not None and hit[1] in NOUN_LIKE_CHANGES
        noun = hit is None or hit[0] == "read" or (hit[0] == "change" and word in NOUN_LIKE_CHANGES)
        noun = noun or (hit is not None and hit[0] == "change" and plural)  # "tips", "orders"
        if not noun:
            return False
        if hit is None and only_a_verb(word):
            return False
    return True


def _files(said: list[str]) -> bool:
    """Whether a sentence led by an account verb files something ("Report a bug to ...")."""
    if (said[1:2] != [] and said[1] in FILING_WORDS) or set(said[1:]) & RECIPIENTS:
        return True
    end = next((i for i, w in enumerate(said[1:], 1) if w in OBJECT_ENDS), len(said))
    return bool(set(said[1:end]) & FILINGS)


def _described_as_verb(words: tuple[str, ...], description: str | None) -> bool:
    """Whether a verbless name's unknown word is its description's verb ("Export the ...")."""
    unknown = [w for w in words if can_be_verb(w) and verb_of(w, False) is None]
    if not unknown:
        return False
    said = re.findall(r"[a-z]+", first_sentence(description).lower())
    if not said:  # `export_report`, `user_report` with no description may export or report
        return words[0] in unknown or (words[-1] in unknown and words[-1] in ACTING_HEADS)
    lead = said[0]
    if not stems(lead) & with_stems(unknown):
        return False
    account = stems(lead) & ACCOUNT_HEADS and (lead == words[-1] or lead not in unknown)
    if account and not _files(said):
        return False  # "Report fuel use per vehicle" for `fuel_report`, "Reports waiting for ..."
    inflected = lead not in unknown  # "Exports ...", "Reports ..."
    followed = len(said) > 1 and said[1] in OBJECT_STARTS
    return inflected or followed or bool(stems(lead) & stems(words[-1]))


def _echoed(words: tuple[str, ...], description: str | None) -> bool:
    """Whether the description opens with the name's words as a noun phrase ("Trend of a tag").

    The words are followed by what ends an object ("of", "by", "per") or by nothing.
    """
    said = re.findall(r"[a-z]+", first_sentence(description).lower())
    n = len(words)
    if len(said) < n or not all(stems(a) & stems(b) for a, b in zip(said, words, strict=False)):
        return False
    return said[n : n + 1] == [] or said[n] in OBJECT_ENDS


def _led_by_an_unknown_verb(words: tuple[str, ...], description: str | None) -> bool:
    """Whether the description leads with a word that may be a verb this guard does not know.

    Followed by its object's first word ("the", "all", "your"), and not one of the name's own
    words, a read verb, or a verb that gives its output back ("Returns"): "Reallocates the
    campaign budget" under `budget_breakdown` may reallocate it; "Deal pipeline by stage" is a
    noun phrase.
    """
    said = re.findall(r"[a-z]+", first_sentence(description).lower())
    if len(said) < 2 or said[0] in words or not can_be_verb(said[0]):
        return False
    if said[1] not in OBJECT_STARTS:  # "Pages printed per user", "Deal pipeline by stage"
        return False
    hit = verb_of(said[0], False)
    return hit is None and not stems(said[0]) & GIVING_BACK


def _read_head(words: tuple[str, ...], description: str | None) -> Reading | None:
    """The reading of a verbless name headed by a search, report, status, history, trend, query.

    A head alone that may be a verb (`trend`) and a word before it that is only a verb (`spend`)
    read as nouns only when the description opens with the name's words ("Trend of a tag").
    """
    if not words:
        return None
    head, before = words[-1], words[:-1]
    if not stems(head) & READ_HEADS:
        return None
    if any(verb_of(w, False) is not None for w in before):
        return None
    echoed = _echoed(words, description)
    verb_like = (not before and can_be_verb(head)) or any(only_a_verb(w) for w in before)
    if not echoed and (verb_like or _described_as_verb(words, description)):
        return None
    if _led_by_an_unknown_verb(words, description):
        return None  # `payout_overview`: "Initiates payouts for all accounts ..."
    shown = " ".join(words)
    return Reading("read", head, f"its name is a {head} with no verb that changes ({shown!r})")


def _record_of(words: tuple[str, ...], description: str | None) -> Reading | None:
    """The reading of a record named by the kind of thing it records (`call_history`), or None.

    A noun-like change word before a record head is a noun when the description opens with the
    head ("History of calls ...") or a read verb; "Import the history ..." or no description
    leaves it a verb, and `call_customer` has no record head.
    """
    head, before = words[-1], words[:-1]
    if not before or not stems(head) & RECORD_HEADS or not _nouns_only(before):
        return None
    said = re.findall(r"[a-z]+", first_sentence(description).lower())
    opens = said[:1] != [] and bool(stems(said[0]) & stems(head)) and said[1:2] in (["of"], ["for"])
    # A head that is itself a read word ("status") leads a read-led description by itself:
    # "Status shown on the user's profile" for `set_status` must open "Status of ...".
    read_word = verb_of(head, False) is not None
    if not opens and (read_word or read_description(description).leaning != "read"):
        return None
    shown = " ".join(words)
    return Reading("read", head, f"its name is a {head} of what a change word names ({shown!r})")


def _echoed_object(words: tuple[str, ...], description: str | None) -> Reading | None:
    """The reading of a verbless name that a read verb's object repeats ("Computes a link budget").

    `link_budget`: the description's first sentence leads with a read verb whose object is the
    name's words in order, after at most an article, and the name's last word is no change word,
    so "link" modifies "budget" and nothing is linked.
    """
    said = re.findall(r"[a-z]+", first_sentence(description).lower())
    if len(words) < 2 or _changes(words[-1:]) or not said:
        return None
    if read_description(description).leaning != "read" or verb_of(said[0], False) is None:
        return None
    rest = said[2:] if said[1:2] in (["a"], ["an"], ["the"]) else said[1:]
    if tuple(rest[: len(words)]) != words or not all(map(can_be_noun, words)):
        return None
    shown = " ".join(words)
    return Reading("read", said[0], f"its description reads what its name names ({shown!r})")


def plural_noun(word: str) -> bool:
    """Whether the word can be a plural noun ("posts", "tips"), which no name's verb is."""
    return word.endswith("s") and can_be_noun(word) and not singular_noun(word)


def record_plural(word: str) -> bool:
    """Whether the word is the plural of a change verb that is also a record's noun.

    `issues`, `orders`, `runs`, `schedules`, `replies` (`[verbs] noun_like_changes`) name the
    records a list returns; a name's verb is never a plural, and the acts made by a suffix
    (`bookings`, `payments`, `deletions`) are not among them.
    """
    return plural_noun(word) and bool(stems(word) & NOUN_LIKE_CHANGES)


def _records_only(words: tuple[str, ...]) -> Reading | None:
    """A name whose only change words are record plurals (`issues`, `workflow_runs`): no verb."""
    changing = [w for w in words if (hit := verb_of(w, False)) is not None and hit[0] != "read"]
    if not changing or not all(map(record_plural, changing)) or any(map(only_a_verb, words)):
        return None
    return Reading(None, None, f"its name names records ({' '.join(words)!r}) and no verb")


def _resource_first(words: tuple[str, ...], description: str | None) -> Reading | None:
    """The reading of a name that puts a plural resource before its read verb (`posts_list`).

    A name's verb is a bare form, so a plural ("posts", "flags", "comments") leading it is the
    resource the last word reads; any other change word, in the name (`posts_sync_list`) or
    anywhere in the description ("Fetch new emails and move them ..."), keeps it held, even the
    resource named again ("Comments on an issue with the given body" may comment).
    """
    if len(words) < 2 or (last := verb_of(words[-1], False)) is None or last[0] != "read":
        return None
    if read_description(description).leaning not in (None, "read") or mentions_change(description):
        return None
    if not (plural_noun(words[0]) or words[-1] in _TRAILING_READS) or _changes(words[1:-1]):
        return None
    if issues_something(words[:-1]):
        return None  # `upload_url_get`, `magic_link_get`: getting one makes one
    shown = " ".join(words)
    return Reading("read", last[1], f"its name reads a plural resource it names first ({shown!r})")


@lru_cache(maxsize=4096)
def read_tool_name(server: str, name: str, description: str | None = None) -> Reading:
    """What a tool's name says on its server: its own name set aside, then the classes above."""
    prefix, words = own_words(server, name)
    base = read_name("_".join(words))
    lone = len(words) == 1 and _changes(prefix) and not first_sentence(description)
    if lone and base.leaning == "read":  # a bare `SendStatus` on Send: one noun against "send"
        return Reading(None, None, "its name has no verb but its server's name")
    reading = None
    if not CONJUNCTIONS & set(words):
        reading = _state_question(words) or _rehearsal(words) or _verb_object(words)
        reading = reading or _rehearsal_described(words, description)
        if reading is None and base.leaning == "destructive":
            reading = _read_object(words, description)
        if reading is None and base.leaning is None and not lone:
            reading = _read_head(words, description)
        if reading is None and base.leaning == "change":
            reading = _record_of(words, description) or _resource_first(words, description)
            reading = reading or _echoed_object(words, description) or _records_only(words)
    reading = reading or base
    if prefix and reading.leaning is not None:
        aside = " ".join(prefix)
        why = f"{reading.why}, its server's name ({aside!r}) set aside"
        reading = Reading(reading.leaning, reading.verb, why)
    return reading


def product_verb(server: str, name: str, description: str | None = None) -> str | None:
    """The change word of the server's name set aside from a name whose rest has no verb."""
    prefix, _ = own_words(server, name)
    if not prefix or read_tool_name(server, name, description).leaning is not None:
        return None
    hits = [verb_of(w, False) for w in prefix]
    return next((hit[1] for hit in hits if hit is not None and hit[0] != "read"), None)
