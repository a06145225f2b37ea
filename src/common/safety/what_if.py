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
from common.safety.phrases import NEGATED_SUBJECTS, NEGATORS
from common.safety.quiet import said_later, written_argument
from common.safety.wording import sentences, stems, verb_of, words_of

_WORKED_OUT = vocab.words("names", "rehearsals") | vocab.words("names", "what_if")
_PAIRS = vocab.pairs("names", "rehearsal_pairs")
_HEADS = vocab.words("names", "what_if_heads")
_CONDITIONS = frozenset({"unless", "except", "if", "when"})
"""Words by which a negation holds only sometimes ("Does not mark them unless ... is set")."""
_HYPOTHETICAL = re.compile(r"\bif\b[^.;]*\b(?:were|would)\b")


def _works_out(words: tuple[str, ...]) -> bool:
    """Whether a name holds a word that only works an act out (`refund_estimate`, `dry_run`).

    A head (`[names] what_if_heads`: report) does so only as the name's last word, singular:
    `run_report`, not `reports.export`, whose reports are its records.
    """
    if words[-1] in _HEADS or any(stems(w) & _WORKED_OUT for w in words):
        return True
    return any(pair in _PAIRS for pair in pairwise(words))


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
    return undone
