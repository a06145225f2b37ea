"""Questions put to an automated answerer: `ask_weather_bot`, "Ask the onboard assistant ...".

A tool that asks an assistant, a bot or a help desk a question changes nothing; one that sends
a person or an assistant on an errand ("Ask the assistant to book ...") may. Asked by
`common.safety.classify` of a verbless tool after `common.safety.noun_reads`.
"""

from __future__ import annotations

import re

from common.safety import vocabulary as vocab
from common.safety.names import ANSWERERS, ASKERS
from common.safety.wording import first_sentence, stems

_TOKEN = re.compile(r"[a-z][a-z'-]*|[,:;()]")
_STOPS = vocab.words("data", "stops")
_CLAUSE_MARKS = frozenset({":", ";", "(", ")"})


def asks_an_answerer(name_words: tuple[str, ...], description: str | None) -> str | None:
    """The answerer an `ask_*` tool's description says it asks ("Ask the onboard assistant").

    The name leads with an asking verb and the description's first sentence with the same verb,
    whose object's head, within four words, is an automated answerer: `ask_purser` on a ferry
    line asks its assistant; "Ask the purser to hold a seat" names a person, and "Ask the assistant
    to book ..." sends it on an errand: both stay held.
    """
    if not name_words or not stems(name_words[0]) & ASKERS:
        return None
    words = _TOKEN.findall(first_sentence(description).lower())
    if not words or not stems(words[0]) & ASKERS or "to" in words:
        return None  # "Ask the assistant to hold a seat": an errand, not a question
    for word in words[1:6]:
        if stems(word) & ANSWERERS:
            return str(word)
        if word in _STOPS or word in _CLAUSE_MARKS or word == ",":
            return None
    return None
