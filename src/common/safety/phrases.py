"""Phrases the guard reads as a whole: lists of what a tool finds, questions, noun adjuncts.

Readings on plain word lists, below those of `common.safety.wording`:

- an enumeration ("including returns, cancels and exchanges", "such as fills, dividends, and
  transfers") lists nouns, what a search finds or a list holds, not what the tool does; it ends
  with the item after its "and" or "or", at ";", "that", "then" or "which", at a word followed by
  its own object ("and cancel the stale ones") or, after its "and", at a word that can only be a
  verb or is a known verb's bare form (", and send replies", "(e.g. the cart) and pay for it"),
  and "including deleting ..." names an activity the tool does, so an -ing form right after the
  opener lists nothing;
- a question ("Can this order still be changed?") asks whether something can be done: its verbs
  are what is asked about, not what the tool does; so does a participle after "can be" ("whether
  the order can still be refunded");
- a change word between a name's leading read verb and the noun it modifies
  (`check_refund_request`, `get_transfer_status`) is a noun adjunct, as in "a refund request":
  singular, followed by a plain noun, never right after a verb of observing, which yields to it
  ("test-charge the card");
- a name led by a verb of observing that ends in a verb is resource-first
  (`access_token_create`): its last word is what it does;
- a negation ("changes nothing", "nothing is bought or stored", "does not modify", "without
  sending") takes the change word it negates out of the reading, and only that word: it never
  clears a tool, and "Send the invoice; nothing else is changed" still sends;
- a change word as a state or a noun: a parenthesised list of states ("(locked, unlocked,
  jammed)"), a participle saying when a plural noun's events happened ("fees charged over a
  period"), a singular noun owned ("on its current charge", under a leading read verb), and,
  for a read-named tool only, the caller's next step ("before sending it");
- a change word as a noun the tool reads (issue 44, second set): the object of a sentence's
  leading read verb ("Retrieve a charge.", "List charges, newest first"), an activity after
  "for"/"of" under one ("the fee for sending"), a plural in a sentence with no verb ("Daily
  sales report: orders, refunds and ..."), the noun after a leading head ("History of changes"),
  a noun adjunct ending a list ("tags and publish status"), and the object of a rehearsal
  ("Simulate a checkout", "Dry-run a launch"; "Simulate and then execute" executes).

The words are data in `vocabulary.toml` (`[sentences] enumerations`, `enumeration_pairs`,
`[names] questions`, the negation, period, possessive and caller-time words).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from common.safety import vocabulary as vocab
from common.safety.modifiers import LIST_ENDS, before_its_plural, fields_end
from common.safety.parts import (
    can_be_noun,
    can_be_verb,
    only_a_verb,
    singular_noun,
)
from common.safety.states import Hit, leading_state, names_a_state

OBJECT_STARTS = frozenset(
    {"a", "an", "the", "this", "that", "these", "those", "all", "any", "each", "every", "one"}
    | {"some", "new", "it", "them", "its", "their", "your", "my", "our", "to"}
)
"""Words that start a verb's object ("Post a message", "Order the parts", "Post to")."""
ENUMERATIONS = vocab.words("sentences", "enumerations")
"""Words that open a list of nouns ("including returns, cancels and exchanges")."""
ENUMERATION_PAIRS = vocab.pairs("sentences", "enumeration_pairs")
"""Two-word openers of a list of nouns ("such as", "for example", "e.g.")."""
QUESTIONS = vocab.words("names", "questions")
"""Words that open a yes/no question about what can be done (`can_upload_video`, "Can ...?")."""
_WOULD = vocab.words("sentences", "hypotheticals")
"""Modals after which "be" and a participle say what would happen ("would be merged")."""
_PAST_BE = vocab.words("sentences", "past_be")
"""Past forms of "be" after which a participle says what happened before ("were charged")."""
_RELATIVES = frozenset({"that", "which", "who"})
"""Words that open a relative clause about the noun before them ("ones that were charged")."""
_ASKING = frozenset({"what", "whether", "which", "who"})
"""Words that open an indirect question ("shows which records would be merged")."""
_MODAL_ADVERBS = frozenset({"also", "not", "still", "yet"})
"""Words that may stand between "can" and "be" ("can still be refunded")."""
_LIST_JOINS = frozenset({"and", "or"})
"""Words before a list's last item."""
_OBJECTS = OBJECT_STARTS - {"to"}
"""Words after which the word before them is a verb with its object ("cancel the stale ones");
"to" is not one of them in a list ("transfers to other accounts")."""
_ADJUNCT_HEADS = vocab.words("sentences", "adjunct_heads")
"""Nouns after which a verb-like word ending a list is a noun adjunct ("publish status")."""
_HEAD_NOUNS = vocab.words("verbs", "head_nouns")
"""Nouns after which a verb is a noun adjunct ("publish status", "order details")."""
_OBSERVE = vocab.words("verbs", "observe")
"""Verbs of observing: a change word right after one governs (`test_order_kit`)."""
_CONJUNCTIONS = vocab.words("sentences", "conjunctions")
"""Words after which another verb follows."""


def _opener(words: Sequence[str], i: int) -> int:
    """How many words open a list of nouns at `i` (1 for "including", 2 for "such as"), or 0."""
    if words[i] in ENUMERATIONS:
        return 1
    return 2 if tuple(words[i : i + 2]) in ENUMERATION_PAIRS else 0


def _items(words: Sequence[str], start: int, found: Sequence[Hit]) -> int:
    """Where the list opened before `start` ends: after its last item, or at a clause."""
    if words[start - 1 : start] == ["by"]:
        return fields_end(words, start, found)
    joined = False
    end = start
    while end < len(words):
        word, hit = words[end], found[end]
        bare = only_a_verb(word) and not word.endswith("ed")  # "and deleted ones" describes
        verb = bare or (hit is not None and hit[1] == word)
        followed = words[end + 1] if end + 1 < len(words) else ""
        ending = words[end + 2] if end + 2 < len(words) else ""
        adjunct = followed in _ADJUNCT_HEADS and ending in {"", ",", ";", "and", "or"}
        verb = verb and not adjunct  # "tags and publish status.": a noun adjunct
        if word in LIST_ENDS or (word == "," and joined) or (joined and verb):
            break  # ", and send replies", "(e.g. the cart) and pay": a verb after its "and"
        if followed in _OBJECTS and word not in OBJECT_STARTS | _LIST_JOINS | {","}:
            break  # "and cancel the stale ones": a verb with its object
        if word in _LIST_JOINS:
            if joined:
                break
            joined = True
        end += 1
    return end


def listed(words: Sequence[str], found: Sequence[Hit]) -> set[int]:
    """The places of the words a sentence lists as nouns after "including", "such as" and kin.

    `found` is each word's verb where a vocabulary knows it (`wording.found_verbs`).
    """
    nouns: set[int] = set()
    i = 0
    while i < len(words):
        width = _opener(words, i)
        if not width:
            i += 1
            continue
        start = i + width
        if start < len(words) and words[start].endswith("ing"):
            i = start  # "including deleting every draft": an activity the tool does
            continue
        end = _items(words, start, found)
        nouns.update(range(start, end))
        i = max(end, start)
    return nouns


def possible(words: Sequence[str], i: int) -> bool:
    """Whether the participle at `i` describes rather than acts: what can be done or when.

    "whether it can still be refunded", "which records would be merged"; what happened before
    the call ("rides that were charged", "had been deleted", "whether it has been published");
    "fees charged over a period"
    (`in_a_period`). A tool says what it does in the present: "is deleted", "has been sent" act.
    """
    before = [w for w in words[:i] if w not in _MODAL_ADVERBS]
    while before and (before[-1] in _LIST_JOINS | {","} or names_a_state([before[-1]])):
        before.pop()  # "were charged, refunded or disputed": each is what happened
    can_be = before[-2:-1] != [] and before[-1] == "be" and before[-2] in QUESTIONS
    after = set(words[i + 1 :])
    past = _past_of_a_noun(before) or (_whether_done(before) and not after & _CLAUSE_JOINS)
    return can_be or _would_be(before) or past or in_a_period(words, i)


_CLAUSE_JOINS = frozenset({"and", "or", "but", ",", ";", "if", "then", "unless", "otherwise"})
"""Words after "whether ... has been <done>" that may join the call's own act ("and debits")."""


def _whether_done(before: list[str]) -> bool:
    """Whether the words before a participle end "whether <subject> has been" (or "have").

    "Checks whether an indexing task has been published" asks what happened before the call;
    "Publishes the task and checks it has been published" acts by its own verb.
    """
    if before[-1:] == ["been"]:
        before = before[:-1]  # a state word, which `possible` may already have set aside
    if before[-1:] not in (["has"], ["have"]):
        return False
    asked = [k for k, w in enumerate(before[:-1]) if w == "whether"]
    return bool(asked) and not {",", ";", "and", "then"} & set(before[asked[-1] :])


def _would_be(before: list[str]) -> bool:
    """Whether the words before a participle end "<wh-word> <subject> would be".

    "Shows which records would be merged" asks what would happen; "the invoice, which would be
    finalized" says what the tool may do to it.
    """
    if before[-2:-1] == [] or before[-1] != "be" or before[-2] not in _WOULD:
        return False
    asked = [k for k, w in enumerate(before[:-2]) if w in _ASKING]
    return bool(asked) and asked[-1] < len(before) - 3


def _past_of_a_noun(before: list[str]) -> bool:
    """Whether the words before a participle end "that were", "which was", "who had been".

    A relative clause says what happened to a noun before the call ("ones that were charged");
    "the previous key was revoked" says what the tool did.
    """
    if before[-1:] and before[-1] in _PAST_BE:
        return before[-2:-1] != [] and before[-2] in _RELATIVES
    return before[-2:] == ["had", "been"] and before[-3:-2] != [] and before[-3] in _RELATIVES


def asks(sentence: str) -> bool:
    """Whether a sentence is a yes/no question about what can be done ("Can this be undone?")."""
    words = sentence.lower().split()
    return bool(words) and words[0] in QUESTIONS and sentence.rstrip().endswith("?")


def ends_in_a_verb(words: Sequence[str], found: Sequence[Hit]) -> bool:
    """Whether a name ends in a change verb's bare form or a word only a verb (`_rotate`).

    Led by a verb of observing that is also a noun (access, test, monitor), such a name is
    resource-first (`access_token_create`, `access_key_rotate`): its last word is what it does.
    """
    if len(words) < 2:
        return False
    last, hit = words[-1], found[-1]
    return (hit is None and only_a_verb(last)) or (hit is not None and hit[0] != "read")


def noun_adjuncts(words: Sequence[str], found: Sequence[Hit], in_name: bool) -> set[int]:
    """The places of destructive words that modify the next noun under a leading read verb.

    `check_refund_request`, `get_transfer_status`, "Check the state of a refund request": singular,
    a noun, followed by a noun that is no change word, not after a conjunction.
    A plural (`list_transfers`), a last word, a word right after a verb of observing
    (`verify_send_receipt`), or a name or sentence led by a change verb keeps its verb; in a
    sentence the read verb must be its first word.
    """
    lead = next((i for i, hit in enumerate(found) if hit is not None), None)
    if lead is None or found[lead] is None or (lead and not in_name):
        return set()
    leaning, verb = found[lead]  # type: ignore[misc]
    if leaning != "read":
        return set()
    adjuncts = set()
    for i in range(lead + 1, len(words) - 1):
        hit = found[i]
        if hit is None or hit[0] != "destructive" or words[i - 1] in _CONJUNCTIONS:
            continue
        if i == lead + 1 and verb in _OBSERVE:
            continue
        after = found[i + 1]
        plain = after is None or after[0] == "read"  # "a refund request", `get_transfer_status`
        if singular_noun(words[i]) and plain and can_be_noun(words[i + 1]):
            adjuncts.add(i)
    return adjuncts if in_name else adjuncts | read_objects(words, found, lead)


_DETERMINERS = OBJECT_STARTS - {"to", "it", "them", "new"}
"""Words after which the noun phrase's last word is a noun ("the prorated refund")."""
_OBJECT_ENDS = frozenset({",", "by", "for", "from", "in", "of", "on", "over", "per", "with"})
"""Words after which a read verb's object has ended ("List charges, newest first")."""


def read_objects(words: Sequence[str], found: Sequence[Hit], lead: int = 0) -> set[int]:
    """The place of a destructive word that is the object of a sentence's leading read verb.

    "Retrieve a charge.", "Explain the prorated refund ...", "List charges, newest first": after
    a determiner, or ending the object, with only nouns and adjectives between; a verb of
    observing yields to it ("test-charge"), and "List charges and refund the oldest" refunds. A
    name's such word is read by `common.safety.names`, with its description's agreement.
    """
    if found[lead] is None or found[lead][1] in _OBSERVE:  # type: ignore[index]
        return set()
    if not any(hit is not None and hit[0] == "destructive" for hit in found[lead + 1 :]):
        return set()  # nothing to read as an object; and the lexicon stays unloaded (CLI `tools`)
    for i in range(lead + 1, len(words)):
        hit = found[i]
        if hit is not None and hit[0] != "destructive":
            return set()
        if hit is None:
            adjective = words[i].endswith("ed") and words[i - 1] in _DETERMINERS  # "the prorated"
            if words[i] in _CONJUNCTIONS or (only_a_verb(words[i]) and not adjective):
                return set()
            continue
        if not can_be_noun(words[i]):
            return set()
        determined = bool(set(words[lead + 1 : i]) & _DETERMINERS)
        ends = i == len(words) - 1 or words[i + 1] in _OBJECT_ENDS
        return {i} if determined or ends else set()
    return set()


_BE = vocab.words("sentences", "be")
"""Words between a negated subject and its participle ("nothing is sent")."""
NEGATED_OBJECTS = vocab.words("sentences", "negated_objects")
"""Words after a verb that negate it ("sends nothing")."""
NEGATED_SUBJECTS = vocab.words("sentences", "negated_subjects")
"""Words before "is" and a participle that negate it ("nothing is sent", "no email is sent")."""
NEGATORS = vocab.words("sentences", "negators")
"""Words before a verb that negate it ("does not modify", "without sending")."""
NEGATION_JOINS = vocab.words("sentences", "negation_joins")
"""Words that carry a negation to the next verb ("nothing is bought or stored")."""
_NOT_ONLY = frozenset({"only", "just", "merely"})
"""Words after a negator that undo it ("not only reads but deletes")."""


def _negated_run(found: Sequence[Hit], words: Sequence[str], start: int) -> set[int]:
    """The verb at `start` and those joined to it by "or", "nor" or "," ("bought or stored")."""
    run: set[int] = set()
    j = start
    while j < len(words) and found[j] is not None:
        run.add(j)
        if j + 2 < len(words) and words[j + 1] in NEGATION_JOINS:
            j += 2
        else:
            break
    return run


def _negated_start(words: Sequence[str], i: int) -> int | None:
    """Where the verb a negation at `i` governs stands, if it governs one."""
    word = words[i]
    if word in NEGATED_SUBJECTS:  # "nothing is sent", "nothing else is changed"
        for j in range(i + 1, min(i + 4, len(words))):
            if words[j] in _BE:
                return j + 1
        return None
    if word in NEGATORS:  # "does not modify", "cannot be edited", "without sending"
        j = i + 1
        while j < len(words) and words[j] in _BE:
            j += 1
        return j if j < len(words) and words[j] not in _NOT_ONLY else None
    return None


def negated(words: Sequence[str], found: Sequence[Hit]) -> set[int]:
    """The places of the verbs a sentence says the tool does not do ("sends nothing").

    Only the negated verb (and one joined to it by "or") is taken out; a verb in another clause
    ("Send the invoice; nothing else is changed") keeps its place.
    """
    out: set[int] = set()
    for i, word in enumerate(words):
        after = words[i + 1] if i + 1 < len(words) else ""
        if word in NEGATED_OBJECTS and i and found[i - 1] is not None and after != "but":
            out.add(i - 1)  # "sends nothing", not "sends nothing but the summary"
        start = _negated_start(words, i)
        if start is not None:
            out |= _negated_run(found, words, start)
    return out


PERIODS = vocab.words("sentences", "periods")
"""Words after a participle that say when a plural noun's events happened ("over a period")."""


def in_a_period(words: Sequence[str], i: int) -> bool:
    """Whether the participle at `i` says when a plural noun's events happened.

    "fees charged over a period", "payouts sent since Monday": not what the tool does.
    """
    if not 1 < i < len(words) - 1 or words[i + 1] not in PERIODS:
        return False
    noun = words[i - 1]
    return noun.endswith("s") and can_be_noun(noun) and not singular_noun(noun)


POSSESSIVES = vocab.words("sentences", "possessives")
"""Possessives after which a singular noun is owned ("on its current charge")."""


def _reads_or_none(hit: Hit) -> bool:
    return hit is None or hit[0] == "read"


def owned(words: Sequence[str], found: Sequence[Hit]) -> set[int]:
    """The places of change words that are singular nouns owned by a possessive.

    "on its current charge": up to two words after the possessive that no change word is, in a
    sentence led by a read verb; "its own and charge the card" keeps the verb.
    """
    if not found or found[0] is None or found[0][0] != "read":
        return set()
    out: set[int] = set()
    for i, hit in enumerate(found):
        if hit is None or hit[0] == "read" or i < 2 or not singular_noun(words[i]):
            continue
        if i + 1 < len(words) and words[i + 1] in OBJECT_STARTS:
            continue  # "... its own and charge the card"
        for k in range(i - 1, max(i - 4, 0), -1):
            if words[k] in POSSESSIVES:
                if all(_reads_or_none(found[m]) for m in range(k + 1, i)):
                    out.add(i)
                break
    return out


_ACTIVITY_OF = vocab.words("sentences", "of")
"""Words after which an -ing form names an activity ("the fee for sending")."""
_LIST_MARKS = frozenset({",", "and", "or"})
"""Words around an item of a list of nouns ("orders, revenue, refunds and ...")."""


def activities(words: Sequence[str], found: Sequence[Hit]) -> set[int]:
    """The places of activities named in a sentence led by a read verb.

    "Estimate the fee for sending a given amount": an -ing form after "for"/"of" is the activity
    whose cost is read, not done; so is a bare change word after them that ends its phrase ("the
    cost of charging from a start", "a state of charge at a station"), and an -ing form right
    after the read verb that modifies a plural noun ("List charging stations"). "Prepare the
    payout for sending" (no read verb leading) keeps it.
    """
    if not found or found[0] is None or found[0][0] != "read":
        return set()
    return {i for i, hit in enumerate(found) if hit is not None and _activity(words, i)}


def _activity(words: Sequence[str], i: int) -> bool:
    """Whether the change word at `i` (not the first) names an activity, as `activities` says."""
    after = words[i + 1] if i + 1 < len(words) else ""
    if i > 1 and words[i - 1] in _ACTIVITY_OF:
        return words[i].endswith("ing") or after in _PHRASE_ENDS
    if i != 1 or not words[i].endswith("ing"):
        return False
    return can_be_noun(after) and not singular_noun(after)  # the lexicon only when needed


_PHRASE_ENDS = frozenset({"", ",", "at", "by", "for", "from", "in", "on", "per", "to", "with"})
"""Words after a noun that end its phrase ("a state of charge | at a station")."""


def noun_list(words: Sequence[str], found: Sequence[Hit]) -> set[int]:
    """The places of plural nouns listed in a sentence that has no verb at all.

    "Daily sales report: orders, revenue, refunds and average basket.": a noun phrase whose
    first word can be no verb lists what it reads; "Refunds, ..." or "Cancel the order, refunds
    ..." leads with a verb.
    """
    if not words or found[0] is not None or can_be_verb(words[0]):
        return set()
    out = set()
    for i, hit in enumerate(found):
        if hit is None or i == 0 or words[i - 1] not in _LIST_MARKS or singular_noun(words[i]):
            continue
        if (i == len(words) - 1 or words[i + 1] in _LIST_MARKS) and can_be_noun(words[i]):
            out.add(i)
    return out


def head_of(words: Sequence[str], found: Sequence[Hit]) -> set[int]:
    """The place of a noun after a sentence's leading head noun and "of" ("History of changes")."""
    if len(words) < 3 or words[0] not in _HEAD_NOUNS or words[1] != "of" or found[0] is not None:
        return set()
    return {2} if found[2] is not None and can_be_noun(words[2]) else set()


REHEARSALS = vocab.words("names", "rehearsals")
"""Verbs that show what a change would do without doing it (simulate, preview, compare)."""
REHEARSAL_PAIRS = vocab.pairs("names", "rehearsal_pairs")
"""Two-word rehearsals ("dry run")."""


UNREHEARSED = vocab.groups("names", "unrehearsed")
"""Objects after which a rehearsal verb acts ("quote" a tweet publishes one)."""


def rehearsal_width(words: Sequence[str]) -> int:
    """How many leading words are a rehearsal verb ("Simulate", "Dry-run"), or 0."""
    if words and words[0] in _REHEARSAL_FORMS:
        acts_on = _ACTS_ON.get(words[0], frozenset())
        return 0 if acts_on & set(words[1:5]) else 1
    return 2 if tuple(words[:2]) in REHEARSAL_PAIRS else 0


def with_stems_of(verbs: frozenset[str]) -> frozenset[str]:
    """The verbs and their third-person forms ("simulates")."""
    return verbs | {v + "s" for v in verbs} | {v + "es" for v in verbs}


_REHEARSAL_FORMS = with_stems_of(REHEARSALS)
"""The rehearsal verbs in the forms that lead a name or a sentence, built once (a hot path)."""
_ACTS_ON = {
    f: with_stems_of(o) for v, o in UNREHEARSED.items() for f in with_stems_of(frozenset({v}))
}
"""Each form of a rehearsal verb that acts on some objects, with those objects' forms."""


def rehearsed(words: Sequence[str], found: Sequence[Hit]) -> set[int]:
    """The places of change words in a rehearsal's object ("Simulate a checkout in ...").

    The object ends at a conjunction, a comma, "to" or "then", or at a word followed by its own
    object ("run the checks"): "Simulate and then execute the checkout" executes.
    """
    width = rehearsal_width(words)
    out = set(range(width)) if width == 2 else set()  # "dry run": the verb is no run
    for i in range(width, len(words) if width else 0):
        if words[i] in _CONJUNCTIONS or words[i] in LIST_ENDS:
            break
        if found[i] is None:
            continue
        verb_place = i > width and words[i - 1] not in _DETERMINERS
        if verb_place and set(words[i + 1 : i + 2]) & _OBJECTS:
            break  # "run the checks": a verb with its own object
        out.add(i)
    return out


ARTICLES = frozenset({"a", "an", "the", "each", "every"})
"""Words after which the next word is a noun, never the verb of the sentence."""


def determined(words: Sequence[str], found: Sequence[Hit]) -> set[int]:
    """The places of change words right after an article, in a sentence no unknown verb leads.

    "Delivery report for a broadcast", "Status of the transfer": a word after "a" or "the" is a
    noun. Only where every word before it is a read verb, a read head, a word that cannot be a
    verb or a function word: "Issue a refund" may issue one (a verb this guard does not know).
    """
    out: set[int] = set()
    for i, hit in enumerate(found):
        if hit is None or hit[0] == "read" or not i or words[i - 1] not in ARTICLES:
            continue
        if all(_plain_before(words[k], found[k], k > 0) for k in range(i - 1)):
            out.add(i)
    return out


def _plain_before(word: str, hit: Hit, inside: bool) -> bool:
    """Whether a word before an article leaves what follows it a noun (see `determined`).

    A read head counts only inside the sentence ("Delivery report for a"): leading it, it may be
    the verb ("Report a transfer to the tax office").
    """
    if hit is not None:
        return hit[0] == "read"
    plain = word in ARTICLES or word in _FUNCTION_WORDS or (inside and word in _READ_HEADS)
    return plain or not can_be_verb(word)


_READ_HEADS = vocab.words("names", "read_heads")
"""Heads of records that read ("report", "status"), nouns before an article ("report for a")."""
_FUNCTION_WORDS = frozenset(
    {"about", "at", "by", "for", "from", "in", "into", "of", "on", "per", "to", "with", "and"}
)
"""Prepositions and joins, which no verb is."""


def not_acting(words: Sequence[str], found: Sequence[Hit]) -> set[int]:
    """The places of a sentence's change words that say nothing the tool does.

    Listed nouns ("including returns", "orders, revenue, refunds"), negated verbs ("sends
    nothing"), owned nouns ("its current charge"), activities ("the fee for sending"),
    participles before their plural ("archived projects are excluded").
    """
    described = {
        i for i, hit in enumerate(found) if hit and hit[0] != "read" and before_its_plural(words, i)
    }
    return (
        described
        | listed(words, found)
        | negated(words, found)
        | owned(words, found)
        | activities(words, found)
        | noun_list(words, found)
        | head_of(words, found)
        | rehearsed(words, found)
        | determined(words, found)
        | leading_state(words, found)
    )


CALLER_TIMES = vocab.words("sentences", "caller_times")
"""Words that open a clause about what the caller does next ("before sending it")."""
_CALLER_TIME = re.compile(
    r"\b(?:" + "|".join(sorted(CALLER_TIMES)) + r")\s+[a-z]+ing\b"
    r"(?:(?!\b(?:and|or|then)\b)[^.,;:!?])*",
    re.IGNORECASE,
)
"""Such a clause, up to the next punctuation or "and", "or", "then" ("and delete the copy")."""


def without_caller_time(text: str) -> str:
    """A description without its clauses about the caller's next step ("before sending it").

    Only for a read-named tool (`common.safety.classify`): `mailer` "Validates the email before
    sending it" sends.
    """
    return _CALLER_TIME.sub(" ", text)
