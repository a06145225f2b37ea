"""What a tool whose name reads may still make: access for whoever holds it, or a new record.

`get_temporary_link` issues a link a stranger may use, whatever its verb; `convert_lead(lead_id)`
turns the stored lead into an account and `droplet_snapshot(droplet_id)` stores an image, though
"convert" and "snapshot" read elsewhere (`convert_currency(amount)`, `browser_snapshot()`).
Both are asked of a tool its name clears (`common.safety.classify`).
"""

from __future__ import annotations

import re
from itertools import pairwise

from common.safety import vocabulary as vocab
from common.safety.wording import stems

_ACCESS_GRANTS = vocab.words("data", "access_grants")
_GRANTED = frozenset({"key", "keys", "link", "links", "token", "tokens", "url", "urls"})


def grants_access(words: tuple[str, ...]) -> str | None:
    """The words of a name that issue access whatever its verb (`get_temporary_link`), or None."""
    for first, second in pairwise(words):
        if first in _ACCESS_GRANTS and second in _GRANTED:
            return f"{first} {second}"
    return None


_CONVERTERS = vocab.words("names", "record_converters")
_HELD_VALUES = vocab.words("names", "held_values")
"""What a stored balance holds (`balance`, `funds`): converting one picked by an id moves it."""


def converts_record(
    words: tuple[str, ...], verb: str | None, schema: dict[str, object] | None
) -> str | None:
    """The argument picking the stored record a converting `verb` makes something of, or None.

    `convert_lead(lead_id)`: the lead becomes an account; `droplet_snapshot(droplet_id)` stores
    an image; `convert_balance(profile_id, quote_id)` exchanges the money a stored balance
    holds; `convert_units(value)` and `convert_currency(amount)` only compute.
    """
    if verb is None or not stems(verb) & _CONVERTERS:
        return None
    named = {w for w in words if not stems(w) & _CONVERTERS}
    properties = (schema or {}).get("properties") or {}
    for key in properties if isinstance(properties, dict) else ():
        parts = [w.lower() for w in re.findall(r"[A-Z]?[a-z]+", str(key))]
        if parts[-1:] == ["id"] and (set(parts[:-1]) & named or named & _HELD_VALUES):
            return str(key)
    return None
