"""How a server orders the words of its tool names, and a name read in that order.

Many servers name tools resource first and verb last (`storefold.order.list`,
`ship_deployment_rollback`, `chatterly_conversation_close`). A name read verb first takes a
resource that is also a change word (order, run, issue, schedule) for the verb, and holds
`storefold.order.list`. A person reads the server's habit from its other names: when most of
them end with a verb and lead with a word that cannot be one (`product.create`,
`inventory.adjust`), the last word of this one is its verb too. The habit is read from the whole
tool list (`verbs_last`) and only ever clears a name whose last word reads and whose other
words are all nouns; the tool's own sentence can still hold it, as for any read name.
"""

from __future__ import annotations

from collections.abc import Iterable

from common.safety import vocabulary as vocab
from common.safety.names import issues_something, own_words, plural_noun
from common.safety.parts import can_be_noun
from common.safety.wording import (
    Reading,
    mentions_change,
    read_description,
    stems,
    verb_of,
)

LAST_READS = vocab.words("names", "last_reads")
"""Verbs that read whatever precedes them in a name (list, get, search; not check or test)."""
_HABIT = 3
"""How many names must show the verb-last order, at least twice as many as show the other."""


def _not_a_verb(word: str) -> bool:
    """Whether a name's word is no verb it could lead or end with: unknown as one, or a plural."""
    return verb_of(word, False) is None or plural_noun(word)


def _order(words: tuple[str, ...]) -> int:
    """+1 for a name whose verb is last (`product_create`), -1 first (`list_orders`), else 0.

    Only a word of the verb vocabularies counts as the verb, and only against a word that is
    none (`product`, `inventory`) or a plural: `order_cancel` shows no habit.
    """
    if len(words) < 2:
        return 0
    last, first = verb_of(words[-1], True), verb_of(words[0], False)
    if last is not None and _not_a_verb(words[0]):
        return 1
    if first is not None and _not_a_verb(words[-1]):
        return -1
    return 0


def verbs_last(server: str, names: Iterable[str]) -> bool:
    """Whether the server's tool names put the resource first and the verb last, as a habit."""
    orders = [_order(own_words(server, name)[1]) for name in names]
    last, first = orders.count(1), orders.count(-1)
    return last >= _HABIT and last >= 2 * first


def read_verb_last(server: str, name: str, description: str | None) -> Reading | None:
    """A name read by its last word on a server that names verbs last, or None.

    Only a verb that reads whatever precedes it (`[names] last_reads`: list, get, search; not
    check, test or verify) last, every other word a noun (`order`, `workflow_run`) and none a
    thing a read may issue (a link, a token), and no change in the description
    (`storefold.order.list`: "List orders ..."), clears.
    """
    words = own_words(server, name)[1]
    if len(words) < 2 or words[-1] not in LAST_READS or (last := verb_of(words[-1], True)) is None:
        return None
    if not all(can_be_noun(word) for word in words[:-1]) or issues_something(words[:-1]):
        return None  # `payment_link.get` makes a link
    named = set().union(*(stems(w) for w in words))  # "Issue details by id" for `issue_get`
    reading = read_description(description)
    changed = reading.verb if reading.leaning not in (None, "read") else None
    mentioned = mentions_change(description)
    if any(w is not None and not stems(w) & named for w in (changed, mentioned)):
        return None
    shown = " ".join(words)
    why = f"its server names verbs last, and its name's last word reads ({shown!r})"
    return Reading("read", last[1], why)
