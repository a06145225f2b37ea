"""A call that works out what an act would do and says the act does not happen.

`storefold.order.calculate_refund` "Calculate refund amounts ... without creating a refund",
`tradePreviewOrder` "Estimates cost ... of an order without submitting it", `relatiaRunReport`
"... the saved report is not changed", `fly-refund-estimate` "Estimated refund if the booking
were cancelled now": the name holds an act (a refund, an order, a deploy) and a word that only
works it out (`[names] rehearsals`, `what_if`: estimate, preview, quote, calculate, validate, a
report, a dry run), and the description says the act is not done: a negation of a change verb
("without submitting", "does not place", "nothing is saved"),
or a hypothetical ("if the booking were cancelled"). A person reads a what-if. It clears only
when nothing else in the description acts (`common.safety.quiet.said_later`, a negated clause
set aside) and no argument carries what a write would write.
"""

from __future__ import annotations

import re
from itertools import pairwise

from common.safety import vocabulary as vocab
from common.safety.clauses import also_changes, later_change
from common.safety.names import own_words
from common.safety.parts import can_be_noun, can_be_verb
from common.safety.phrases import NEGATED_SUBJECTS, NEGATORS
from common.safety.quiet import said_later, written_argument
from common.safety.wording import leading_change, sentences, stems, verb_of, words_of

_WORKED_OUT = vocab.words("names", "rehearsals") | vocab.words("names", "what_if")
_PAIRS = vocab.pairs("names", "rehearsal_pairs")
_HEADS = vocab.words("names", "what_if_heads")
_CONDITIONS = frozenset({"unless", "except", "if", "when"})
"""Words by which a negation holds only sometimes ("Does not mark them unless ... is set")."""
_HYPOTHETICAL = re.compile(r"\bif\b[^.;]*\b(?:were|would)\b")


def _works_out(words: tuple[str, ...]) -> bool:
    """Whether a name holds a word that only works an act out, and no verb before it.

    The word may stand anywhere (`calculate_refund`, `order.calculate_refund`,
    `refund_estimate`, `checkout_quote`; `[names] what_if_heads` only last: `run_report`); what
    follows it is its object (`validate_deploy`), and what precedes it must name the act as a
    noun: `delete_estimate`, `send_test_preview` and `compare_and_merge` act.
    """
    if set(words) & {"and", "or", "then"}:
        return False
    for p, word in enumerate(words):
        last = p == len(words) - 1
        worked = bool(stems(word) & _WORKED_OUT) or (last and word in _HEADS)
        worked = worked or tuple(words[p : p + 2]) in _PAIRS
        if worked:
            return not any(_acts_as_verb(w) for w in words[:p])
    return False


def _acts_as_verb(word: str) -> bool:
    """Whether a word before a what-if's word may be the name's verb.

    A verb in its own form that is a read (`convert_estimate_to_invoice`) or no noun
    (`delete_estimate`, `complete_calculated_draft_order`); a change that is also a noun names
    the act worked out (`refund_estimate`, `checkout_quote`).
    """
    hit = verb_of(word, False)
    if hit is not None and hit[1] == word:
        return hit[0] == "read" or not can_be_noun(word)
    return hit is None and can_be_verb(word) and not can_be_noun(word)


def no_effect(description: str | None) -> str | None:
    """The change a description says is not done ("submitting" in "without submitting it").

    A change verb within three words after a negator ("without creating a refund", "does not
    place the order", "nothing is saved", "the saved report is not changed"), be and auxiliaries
    between, or a hypothetical ("if the booking were cancelled now").
    """
    for sentence in sentences(description):
        hypothetical = _HYPOTHETICAL.search(sentence)
        if hypothetical:
            return hypothetical.group(0)
        words = words_of(sentence)
        if _CONDITIONS & set(words):
            continue  # "Does not mark reports as exported unless mark_as_exported is set"
        for i, word in enumerate(words):
            if word not in NEGATORS and word not in NEGATED_SUBJECTS:
                continue
            for after in words[i + 1 : i + 4]:
                hit = verb_of(after, False)
                if hit is not None and hit[0] != "read":
                    return after
    return None


def what_if(
    server: str, name: str, description: str | None, schema: dict[str, object] | None
) -> str | None:
    """The act a what-if's description says is not done, when nothing else in it acts."""
    words = own_words(server, name)[1]
    if not words or not _works_out(words) or written_argument(schema) is not None:
        return None
    undone = no_effect(description)
    if undone is None or said_later(description, words) is not None:
        return None
    if also_changes(description) or later_change(description):
        return None  # "Suggest an estimate for an issue and set it. Nothing is saved."
    if leading_change(description) is not None or _by_doing(description):
        return None  # "Places the previewed order.", "Validate it by sending micro-deposits"
    return undone


def _by_doing(description: str | None) -> bool:
    """Whether the description says how the call works by a change ("by sending two deposits")."""
    for sentence in sentences(description):
        words = words_of(sentence)
        for before, word in pairwise(words):
            hit = verb_of(word, False)
            if before == "by" and word.endswith("ing") and hit is not None and hit[0] != "read":
                return True
    return False
