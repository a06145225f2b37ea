"""A name that reports a state (`site_health`, `order_status`, `charge.state`) or who calls.

A name that asks who the caller is (`[names] identity_questions`: `user_whoami`) is read the
same way. Many servers name the read of a record's state by the record and a state word, and the
record is often an act (`grocerooOrderStatus(order_id)`, `drive.charge.state(vehicle_id)`), so
the name reads as "order" or "charge" to a guard that looks for verbs. A person reads the
order's status. Such a name is read as a state's report when:

- its last word is a state head (`[names] state_heads`: status, state, health), after one or
  two words naming whose (a lone `SendStatus` on a server named Send is one noun against its
  server's change word, and stays held);
- every change word before it names an act whose record has a state (`[names] stateful_acts`:
  an order, a charge, a run, a transfer); a verb that sets a state keeps its own
  (`set_wifi_status`, `clear_status`, `reset_state`, `cancel_status` stay held), and so does any
  change word the list does not name;
- every argument only chooses the record (ids, dates, a page, filters): `order_status(order_id,
  status)` sets it;
- its description, if any, does not act (`common.safety.quiet.description_acts`).
"""

from __future__ import annotations

from common.safety import vocabulary as vocab
from common.safety.choices import only_chooses
from common.safety.names import own_words
from common.safety.parts import can_be_verb, unknown_word
from common.safety.quiet import description_acts
from common.safety.wording import stems, verb_of

_HEADS = vocab.words("names", "state_heads")
_STATEFUL = vocab.words("names", "stateful_acts")
_IDENTITY = vocab.words("names", "identity_questions")


def reported_state(
    server: str, name: str, description: str | None, schema: dict[str, object] | None
) -> str | None:
    """The name's words when it reports a record's state and nothing in it may act; else None."""
    words = own_words(server, name)[1]
    asks = bool(set(words) & _IDENTITY) and len(words) <= 3  # `user_whoami`: who the caller is
    asks = asks and all(w in _IDENTITY or _names_whose(w) for w in words)  # not `page_me`
    asks = asks and (len(words) > 1 or bool(description and description.strip()))  # not a bare `me`
    if not asks and (not 2 <= len(words) <= 3 or words[-1] not in _HEADS):
        return None
    for word in words[:-1]:
        hit = verb_of(word, False)
        if hit is not None and hit[0] != "read" and not stems(word) & _STATEFUL:
            return None
    properties = (schema or {}).get("properties")
    if not only_chooses(properties if isinstance(properties, dict) else {}):
        return None
    if description_acts(description, words) is not None:
        return None
    return " ".join(words)


def _names_whose(word: str) -> bool:
    """Whether a word beside an identity question names whose (`users_me`, `get_me`), no verb."""
    hit = verb_of(word, False)
    if hit is not None:
        return hit[0] == "read"
    known = word.isalpha() and not unknown_word(word)
    return known and (not can_be_verb(word) or word.endswith("s"))
