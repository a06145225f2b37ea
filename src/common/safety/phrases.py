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
  (`access_token_create`): its last word is what it does.

The words are data in `vocabulary.toml` (`[sentences] enumerations`, `enumeration_pairs`,
`[names] questions`).
"""

from __future__ import annotations

from collections.abc import Sequence

from common.safety import vocabulary as vocab
from common.safety.parts import can_be_noun, only_a_verb, singular_noun

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
_MODAL_ADVERBS = frozenset({"also", "not", "still", "yet"})
"""Words that may stand between "can" and "be" ("can still be refunded")."""
_LIST_ENDS = frozenset({";", "that", "then", "which", "who", "to"})
"""Words that end a list and start a clause ("including drafts; then deletes them")."""
_LIST_JOINS = frozenset({"and", "or"})
"""Words before a list's last item."""
_OBJECTS = OBJECT_STARTS - {"to"}
"""Words after which the word before them is a verb with its object ("cancel the stale ones");
"to" is not one of them in a list ("transfers to other accounts")."""
_OBSERVE = vocab.words("verbs", "observe")
"""Verbs of observing: a change word right after one governs (`test_order_kit`)."""
_CONJUNCTIONS = vocab.words("sentences", "conjunctions")
"""Words after which another verb follows."""


Hit = tuple[str, str] | None
"""A word's vocabulary and verb where it stands as one (`wording.found_verbs`), or None."""


def _opener(words: Sequence[str], i: int) -> int:
    """How many words open a list of nouns at `i` (1 for "including", 2 for "such as"), or 0."""
    if words[i] in ENUMERATIONS:
        return 1
    return 2 if tuple(words[i : i + 2]) in ENUMERATION_PAIRS else 0


def _items(words: Sequence[str], start: int, found: Sequence[Hit]) -> int:
    """Where the list opened before `start` ends: after its last item, or at a clause."""
    joined = False
    end = start
    while end < len(words):
        word, hit = words[end], found[end]
        bare = only_a_verb(word) and not word.endswith("ed")  # "and deleted ones" describes
        verb = bare or (hit is not None and hit[1] == word)
        if word in _LIST_ENDS or (word == "," and joined) or (joined and verb):
            break  # ", and send replies", "(e.g. the cart) and pay": a verb after its "and"
        followed = words[end + 1] if end + 1 < len(words) else ""
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
    """Whether the participle at `i` says what can be done ("whether it can still be refunded")."""
    before = [w for w in words[:i] if w not in _MODAL_ADVERBS]
    return before[-2:-1] != [] and before[-1] == "be" and before[-2] in QUESTIONS


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
    return adjuncts
