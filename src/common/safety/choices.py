"""What a tool's arguments do to a read: choose it, bound it, shape a list of it, or set a value.

A verbless name or description names data; whether a call only reads it depends on what its
arguments carry. An id, a date, a page or the container to look in (`[data] selector_keys`,
`scope_keys`) chooses; a `limit` bounds; a query or a cursor shapes a list (`list_keys`); a
number or a flag that names a state (`switch_keys`) may be the value the call sets. The readings
of `common.safety.noun_reads`, `paging` and `state_heads` ask these.
"""

from __future__ import annotations

from common.safety import vocabulary as vocab
from common.safety.arg_kinds import key_words
from common.safety.wording import stems, verb_of

_SELECTOR_KEYS = vocab.words("data", "selector_keys")
_SCOPE_KEYS = vocab.words("data", "scope_keys")
_IDS = frozenset({"id", "uuid", "uid", "gid"}) | _SCOPE_KEYS
"""Last words of arguments that each name one record or container: a second may be linked."""
WINDOW_KEYS = vocab.words("data", "window_keys")
"""Last words of number arguments that bound a read (`limit`, `days`)."""
FILTER_WORDS = vocab.words("data", "filter_words")
"""First or last words of flags and lists that only shape a read (`include_closed`, `fields`)."""
_LIST_KEYS = vocab.words("data", "list_keys")
_SWITCH_KEYS = vocab.words("data", "switch_keys")
_NUMBERS = frozenset({"number", "integer"})
_STREAM_OPTIONS = vocab.words("data", "stream_options")
_ACT_KEYS = vocab.words("data", "act_keys")


def properties_of(schema: dict[str, object] | None) -> dict[str, object]:
    """A schema's arguments by name; none when it has no object of them."""
    properties = (schema or {}).get("properties") or {}
    return properties if isinstance(properties, dict) else {}


def argument_words(key: object) -> list[str]:
    """An argument name's words, lower case, a unit set aside (`price_per_day` -> price)."""
    words = key_words(key)
    return words[: words.index("per")] if "per" in words[1:] else words


def selects(words: list[str]) -> bool:
    """Whether an argument's words name a choice of what to read (`patron_id`, `page_size`).

    A `size` alone (`node_pool_size`) is a value; a page's size bounds the read.
    """
    if not words or words[-1] not in _SELECTOR_KEYS | _SCOPE_KEYS:
        return False
    return words[-1] != "size" or "page" in words


def repeats_head(head: str, properties: dict[str, object], any_word: bool = False) -> str | None:
    """The argument that is no selector and is named by `head` (its last word, or `any_word`)."""
    for key in properties:
        words = argument_words(key)
        if not words or (selects(words) and words[-1] not in _SCOPE_KEYS):
            continue  # `account_regions(account, region)`: the region is the head, set
        if any(stems(w) & stems(head) for w in (words if any_word else words[-1:])):
            return str(key)
    return None


def a_value(key: object, spec: object) -> bool:
    """Whether an argument is a number or a flag that neither selects nor bounds what is read."""
    words = argument_words(key)
    if not words or selects(words) or words[-1] in WINDOW_KEYS:
        return False
    kind = spec.get("type") if isinstance(spec, dict) else None
    return kind in _NUMBERS or (kind == "boolean" and words[-1] in _SWITCH_KEYS)


def switch(properties: dict[str, object]) -> str | None:
    """A flag beside another argument that names a state (`switch_keys`): what the call sets.

    `sentry_status(vehicle_id, enabled)`; not `pod_status(pod, previous)`, an option of the read.
    """
    for key, spec in properties.items():
        words = argument_words(key)
        flag = isinstance(spec, dict) and spec.get("type") == "boolean"
        if flag and words and len(properties) > 1 and words[-1] in _SWITCH_KEYS:
            return str(key)
    return None


def only_chooses(properties: dict[str, object]) -> bool:
    """Whether every argument picks, bounds or filters what is read (ids, dates, a page)."""
    for key in properties:
        words = argument_words(key)
        if not words or not (
            selects(words) or words[-1] in WINDOW_KEYS or FILTER_WORDS & {words[0], words[-1]}
        ):
            return False
    return True


def shapes_a_list(words: list[str]) -> bool:
    """Whether an argument only shapes a list: its query or a page of it (`[data] list_keys`)."""
    return bool(set(words[-1:]) & _LIST_KEYS) or words[-2:] in (
        ["page", "token"],
        ["next", "token"],
    )


def selects_only(schema: dict[str, object] | None) -> bool | None:
    """Whether every argument only chooses what to read (`patron_id`, `date`, `page_size`).

    None when an argument shapes a list (`query`, `max_results`, `page_token`) and the rest
    choose or bound it (`limit`); a bound with no query may be the value set (`limit`).
    """
    ids, shaped, bounded = 0, False, False
    for key in properties_of(schema):
        words = argument_words(key)
        if words and shapes_a_list(words):
            shaped = True
        elif words and words[-1] in WINDOW_KEYS:
            bounded = True
        elif not selects(words):
            return False
        ids += words[-1] in _IDS
    if ids > 1 or (bounded and not shaped):
        return False  # a second id may be what the call links (`subscription_items`)
    return None if shaped else True


def acting_flag(schema: dict[str, object] | None) -> str | None:
    """A boolean argument named by a change verb alone: the call acts when the caller sets it.

    `kube_pods(namespace_id, evict)`, `beacon_alerts(service_id, acknowledge)`,
    `gmail_drafts(draft_id, send)`: whatever the name and description say, the flag is an act.
    Not a filter's flag (`include_deleted`, `show_archived`), a state (`archived`), nor how a
    read streams (`[data] stream_options`: `kubectl_logs(follow)`).
    """
    for key, spec in properties_of(schema).items():
        words = argument_words(key)
        flag = isinstance(spec, dict) and spec.get("type") == "boolean"
        if not flag or len(words) != 1 or words[0] in FILTER_WORDS | _STREAM_OPTIONS:
            continue  # `refund_shipping` on a calculation, `follow` on logs: no act
        if words[0].endswith("ed"):
            continue  # `archived`: a state
        hit = verb_of(words[0], False)
        if hit is not None and hit[0] != "read":
            return str(key)
    return None


def acting_choice(schema: dict[str, object] | None) -> str | None:
    """An enumerated argument named as what to do, one of whose values is an act.

    `pods(namespace, op: restart|evict)`, `moderation_queue(verdict: keep|hide|delete)`,
    `mailbox_threads(then: none|archive|trash)`: the call carries out the value chosen (`[data]
    act_keys`). Not `type: charge|refund`, `channel: email|sms` nor `action: block|allow` on a
    list of firewall rules: by other names, such values choose what is read.
    """
    for key, spec in properties_of(schema).items():
        values = spec.get("enum") if isinstance(spec, dict) else None
        words = argument_words(key)
        named = isinstance(values, list) and bool(words) and words[-1] in _ACT_KEYS
        if named and any(an_act(value) for value in values or ()):
            return str(key)
    return None


def an_act(value: object) -> bool:
    """Whether an enumerated value leads with a change verb in its own form (`restart`)."""
    first = key_words(str(value))[:1]
    hit = verb_of(first[0], False) if first else None
    return hit is not None and hit[0] != "read" and hit[1] == first[0]
