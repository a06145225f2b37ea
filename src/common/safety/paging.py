"""Arguments that page through a list: the call hands back one page of records.

A cursor, a page token or a page number is what a caller passes to get the next page of what a
call returns; a call that changes something has no next page. Of the project's labelled tool
lists (the catalog and the held-out sets, some 3,500 tools), 168 reads take one and one write
does, and that write's name carries its verb (`firecrawl_monitor_create`). Many real servers name
such lists with a plural alone, often a plural of a change verb (`HireApplications`,
`mailvane_single_sends`, `RecordPayments`), and describe them with no verb at all, so the page
is often the only thing that says the call lists. A paged call is read as a list unless:

- a word of its name is a change verb in its own form: `purchase_orders`, `transactions_sync`
  and `bulk_update_tickets` may act, where a plural (`single_sends`, `bank_transfers`, `runs`)
  or a participle (`saved_tracks`) names records;
- an argument carries what a write would write (`[data] written_keys`: a body, a text, an
  amount; a `state` beside a page filters the list);
- its description says anywhere that it does something (`common.safety.quiet`): "Pull requests
  for a repository" (a bare "pull" the name does not hold), "Unassigned conversations. Each
  conversation on the page is assigned to the caller."

The argument names are matched as data (`[data] paging_tokens`, `paging_numbers`); a number is a
page only when the schema types it as one (a string `page` may be a page's content). A position
(`[data] paging_marks`: `after`, `since_id`, `startPosition`) is a page only beside a size typed
as a number (`paging_sizes`: `first`, `limit`, `maxResults`), as GraphQL's connections and
Stripe-, QuickBooks- and Twitter-like lists take them: alone, `after` may be a date a call sets.
"""

from __future__ import annotations

import re

from common.safety import vocabulary as vocab
from common.safety.arg_kinds import key_words
from common.safety.choices import (
    FILTER_WORDS,
    an_act,
    argument_words,
    only_chooses,
    properties_of,
    shapes_a_list,
)
from common.safety.declarations import sent_elsewhere
from common.safety.names import READ_HEADS, own_words
from common.safety.noun_reads import DATA_NOUNS, act_noun
from common.safety.parts import can_be_verb
from common.safety.quiet import description_acts, name_acts, written_argument
from common.safety.wording import first_sentence, stems, verb_of

_TOKENS = vocab.words("data", "paging_tokens")
_NUMBERS = vocab.words("data", "paging_numbers")
_MARKS = vocab.words("data", "paging_marks")
_SIZES = vocab.words("data", "paging_sizes")
_NUMBER_TYPES = frozenset({"integer", "number"})


def _key(key: str) -> tuple[str, list[str]]:
    """An argument's words joined with "-" (`pageToken` -> page-token), and the words."""
    words = key_words(key)
    return "-".join(words), words


def _page_keys(properties: dict[str, object]) -> list[str]:
    """The arguments that ask for a page: a token or a page number, else a position and a size."""
    marks, sizes = [], []
    for key, spec in properties.items():
        joined, _ = _key(str(key))
        kind = spec.get("type") if isinstance(spec, dict) else None
        if joined in _TOKENS or (joined in _NUMBERS and kind in _NUMBER_TYPES):
            return [str(key)]
        marks += [str(key)] if joined in _MARKS else []
        sizes += [str(key)] if joined in _SIZES and kind in _NUMBER_TYPES else []
    return [marks[0], sizes[0]] if marks and sizes else []


def _a_choice(spec: object) -> bool:
    """Whether an argument is a choice among named values: an enum or a switch."""
    return isinstance(spec, dict) and ("enum" in spec or spec.get("type") == "boolean")


def paging_argument(schema: dict[str, object] | None) -> str | None:
    """The argument by which a call asks for a page of its results, or None."""
    keys = _page_keys(properties_of(schema))
    return keys[0] if keys else None


_KINDS = vocab.words("data", "kind_keys")
_ACT_KEYS = vocab.words("data", "act_keys")
_OPENING = re.compile(r"^\W*(?:(?:the|a|an)\s+)?([a-z-]+)\s+(of|for)\b", re.IGNORECASE)
_READ_NOUNS = READ_HEADS | DATA_NOUNS | vocab.words("data", "data_heads")


def _acting_choice(properties: dict[str, object]) -> str | None:
    """An enumerated argument, no filter by its name, one of whose values is an act.

    Beside a page, `move: solve|escalate|close`, `action: ack|resolve` or `advance:
    pick|pack|ship` (a key that is itself a change verb, values that may be verbs) is done to
    each record returned; `type: charge|refund` and `status: open|closed` (`[data] kind_keys`)
    choose them.
    """
    for key, spec in properties.items():
        values = spec.get("enum") if isinstance(spec, dict) else None
        words = argument_words(key)
        if not isinstance(values, list) or not words or set(words) & (_KINDS | FILTER_WORDS):
            continue
        named = an_act(words[-1]) or words[-1] in _ACT_KEYS  # `advance: pick|pack|ship`
        for value in values:
            first = key_words(str(value))[:1]
            if an_act(value) or (named and first and can_be_verb(first[0])):
                return str(key)
    return None


def _act_named(description: str | None) -> bool:
    """Whether a description opens by naming an act: a singular noun before "of" or "for".

    "Deletion of messages matching a search", "Cleanup of blurry photos", "Markdown of
    products": the act done to the page; not "History of a filing" nor "Status for a job".
    """
    found = _OPENING.match(first_sentence(description))
    if found is None:
        return False
    noun = found.group(1).lower()
    if noun.endswith("s") or stems(noun) & _READ_NOUNS:
        return False
    return found.group(2).lower() == "of" or act_noun(noun) is not None


def _acting_word(words: tuple[str, ...]) -> str | None:
    """A word of the name that is a change verb in its own form (`update`, not `updates`)."""
    for word in words:
        hit = verb_of(word, False)
        if hit is not None and hit[0] != "read" and hit[1] == word:
            return word
    return None


def paged_list(
    server: str, name: str, description: str | None, schema: dict[str, object] | None
) -> str | None:
    """The paging argument of a call that lists, when nothing else in it may act; else None."""
    properties = properties_of(schema)
    keys = _page_keys(properties)
    if not keys or written_argument(schema) is not None:
        return None
    rest = {
        k: v
        for k, v in properties.items()
        if k not in keys and not _a_choice(v) and not shapes_a_list(argument_words(k))
    }
    if len(keys) == 2 and not only_chooses(rest):
        return None  # `transfers(destination, amount_cents, limit, after)`: a weaker sign
    words = own_words(server, name)[1]
    if not words or _acting_word(words) is not None or name_acts(words) is not None:
        return None
    if _acting_choice(properties) is not None or _act_named(description):
        return None  # `tickets(move: solve|close, ...)`, "Deletion of messages ...": acts
    if description_acts(description, words) or sent_elsewhere(words, description):
        return None  # "Exports contacts ... to the Mailchimp audience": a page sent on
    return keys[0]
