"""What a description declares about the tool itself: it only reads, it keeps nothing, it returns.

A server may say outright that its tool changes nothing ("Read-only.", "Computation only.", "The
memory is not changed.") or that it hands its output back ("... and returns it as base64"). The
guard believes such a declaration only of a first sentence whose verb it can vouch for: a read,
a verb that gives its output back, or one that makes a value. "Rebalances the portfolio.
Computation only." says one thing with its verb and another with its declaration, and stays
held. A value maker that may issue what it makes (a key, a code, a voucher, a link, an invoice:
`issued_things`) is believed only when the declaration is about the made thing and says it is
not kept ("Generates the invoice PDF and returns it. The invoice is not stored.").
"""

from __future__ import annotations

import re

from common.safety import vocabulary as vocab
from common.safety.clauses import also_changes, later_change, used_up
from common.safety.names import ASKERS, GIVING_BACK, ISSUED_THINGS, VALUE_MAKERS
from common.safety.parts import only_a_verb, unknown_word
from common.safety.quiet import said_later
from common.safety.wording import first_sentence, own_description, stems, verb_of

READ_ONLY_DECLARATION = vocab.pattern("sentences", "read_only_declaration", re.IGNORECASE)
"""A clause that declares the tool only reads ("Read-only.", "Reports only.")."""


TO_THE_RESPONSE = vocab.pattern("sentences", "to_the_response", re.IGNORECASE)
"""Words that put a tool's output in its own response ("to the response", "in the reply")."""
ELSEWHERE = vocab.words("sentences", "elsewhere")
"""Places that keep an output, which a sentence sending it to the response must not name."""
UNCHANGED_DECLARATION = vocab.pattern("sentences", "unchanged_declaration", re.IGNORECASE)
"""A clause saying one thing is left as it was ("The memory is not changed.")."""
RETURNED_BACK = vocab.pattern("sentences", "returned_back", re.IGNORECASE)
"""A first sentence's closing "and returns it": its object goes back to the caller."""
HANDED_BACK = vocab.pattern("sentences", "handed_back", re.IGNORECASE)
"""Words that put the content in the call's own result ("as base64", "returned inline")."""
DESTINATIONS = vocab.words("sentences", "destinations")
"""Prepositions that name where a sentence's object goes ("to Mailchimp", "into Xero")."""
ISSUED = vocab.words("data", "act_marks")
"""Words of things a call makes or hands out ("credentials", "token", "new")."""
_NOT_KEPT = frozenset({"saved", "stored", "kept", "written", "filed"})
"""The participles by which a declaration says the made thing itself is not kept."""
ADVICE_VERBS = vocab.words("sentences", "advice_verbs")
"""Verbs that give advice back ("Suggest crops ..."): a declaration is believed after them."""


def declared_read_only(description: str | None) -> str | None:
    """The clause by which a description declares the tool only reads, or None.

    "Read-only.", "Reports only.", "Returns text only; nothing is saved", "Applies nothing.", "The
    memory is not changed." stand as clauses of their own; so does a first sentence that puts
    the output in the response and names no place that keeps it ("Exports the results as CSV
    text in the response"). Each is believed only of a first sentence it can vouch for
    (`_vouched`). The caller clears on one only when nothing else signals a change.
    """
    sentence = first_sentence(description)
    words = re.findall(r"[a-z0-9]+", sentence.lower())
    found = READ_ONLY_DECLARATION.search(description or "")
    if found:
        return found.group(0).strip(" .;!?") if _vouched(words, sentence) else None
    made = bool(words) and _makes_and_returns(words, sentence)
    if not words or not (made or _gives_back(words[0])) or also_changes(description):
        return None
    if later_change(description):
        return None
    unchanged = UNCHANGED_DECLARATION.search(description or "")
    if unchanged and _sent_on(sentence):
        return None  # "Exports the segment to Google Ads. The segment is not modified."
    if unchanged and (not made or _made_thing_not_kept(unchanged.group(0), words)):
        return unchanged.group(0).strip(" .;!?")
    if made:
        return None  # a made thing given back may still be kept: only a declaration vouches
    response = TO_THE_RESPONSE.search(sentence) or _returned_back(sentence, words)
    if response and not set(words) & ELSEWHERE:
        return response.group(0).strip(" .;!?")
    handed = HANDED_BACK.search(own_description(description))  # "... as base64"
    if handed and not set(words) & DESTINATIONS and _nothing_else(description):
        return handed.group(0).strip(" .;!?")
    return None


def _vouched(words: list[str], sentence: str) -> bool:
    """Whether a first sentence may carry a declaration that the tool only reads.

    It opens with no verb, with a read, a response, an advice or an asking verb, or with a value
    maker that issues nothing, and a verb that gives something back sends it nowhere; not with
    a verb the guard does not know as a read ("Rebalances the portfolio ...", "Prorates the
    subscription ...") nor a maker of a code ("Generates a gift card code ...").
    """
    if not words:
        return True
    if stems(words[0]) & VALUE_MAKERS:
        return not set(words) & (ISSUED | ISSUED_THINGS) and not _sent_on(sentence)
    if stems(words[0]) & ADVICE_VERBS or _gives_back(words[0]):
        return not _sent_on(sentence)  # "Suggests a friend to a user": sent
    if stems(words[0]) & ASKERS:
        return True  # "Ask the desk a question. Answers only."
    return not (unknown_word(words[0]) or only_a_verb(words[0]))


def _sent_on(sentence: str) -> bool:
    """Whether a first sentence names where its object goes, other than the tool's response.

    "to Google Ads", "into the team's Slack channel", "to the dock"; not "to the response".
    """
    rest = TO_THE_RESPONSE.sub(" ", sentence)
    return bool(set(re.findall(r"[a-z]+", rest.lower())) & DESTINATIONS)


def _made_thing_not_kept(declaration: str, words: list[str]) -> bool:
    """Whether a made thing that may be issued is the one the declaration says is not kept.

    "Generates the invoice PDF and returns it. The invoice is not stored." vouches; "Generates
    an API key ... The project is not changed." speaks of something else, and the key may be
    kept. A made thing that issues nothing needs no more than the declaration.
    """
    issued = set(words) & ISSUED_THINGS
    if not issued:
        return True
    said = re.findall(r"[a-z]+", declaration.lower())
    return bool(set(said) & issued) and bool(set(said) & _NOT_KEPT)


def _returned_back(sentence: str, words: list[str]) -> re.Match[str] | None:
    """The closing "and returns it" of a sentence that names no destination ("to Xero")."""
    return None if set(words) & DESTINATIONS else RETURNED_BACK.search(sentence)


def sent_elsewhere(name_words: tuple[str, ...], description: str | None) -> str | None:
    """The name's own word that the description leads with, sending its object to a store.

    `export_log` reads by its name's "log", but "Exports the log to the S3 bucket" exports:
    a word of the name that no vocabulary knows leads the sentence, which names a destination
    and a place that keeps things (`destinations`, `elsewhere`).
    """
    words = re.findall(r"[a-z0-9]+", first_sentence(description).lower())
    if not words or verb_of(words[0], False) is not None:
        return None
    if not any(stems(words[0]) & stems(word) for word in name_words):
        return None
    if not set(words) & DESTINATIONS or not set(words) & ELSEWHERE:
        return None
    return str(words[0])


def _makes_and_returns(words: list[str], sentence: str) -> bool:
    """Whether a value maker leads a sentence that returns what it made, with no credential.

    "Generates a PDF ... and returns it as base64"; a key or a token may be issued and kept.
    """
    if not stems(words[0]) & VALUE_MAKERS or set(words) & ISSUED:
        return False
    return _returned_back(sentence, words) is not None


def _gives_back(word: str) -> bool:
    """Whether a sentence's first word may vouch for a declaration that the tool only reads.

    A read verb or a verb that gives its output back ("Returns", "Exports"); not a word this
    guard does not know as such, which may be the act ("Turns the lights on ...", "Onboards").
    """
    hit = verb_of(word, False)
    if hit is not None:
        return hit[0] == "read"
    return bool(stems(word) & GIVING_BACK)


def _nothing_else(description: str | None) -> bool:
    """Whether content handed back is all the call does: nothing kept, used up or sent after.

    "Dump the database as base64 and keep a copy in the bucket", "Export the secret as raw text.
    The secret is destroyed after export." and "... behind a one-time share link" do more.
    """
    return said_later(description, ()) is None and used_up(description) is None
