"""Readings that clear a tool from closed sets of words: what it does touches nothing lasting.

Each reading wants every word of a name and a sentence from a closed vocabulary
(`vocabulary.toml`), so an unknown word, a digit, another script or an emoji makes it decline:

- `session_only`: a name that only acts on the server's own session (hover, scroll, navigate,
  go back, emulate, resize the window, reconnect) and a description that names no change and
  mentions a page (a robot navigates and a drone hovers in the world). Browser servers declare
  such tools writes (Playwright marks `browser_hover` destructive); holding them teaches people
  to approve browser steps unread, or to clear a whole browser server, clicks included.
- `tab_action`: the management of the session's own browser tabs (`browser_tabs`: "List,
  create, close, or select a browser tab").
- `demonstration` and `simulated_switch`: what a demo server says of its tools ("Demonstrates a
  long running operation", "Toggles simulated logging on or off"); the classifier trusts them
  only with the server's own non-destructive, closed-world declaration.
- `computation`: pure arithmetic on numbers ("Add two numbers.") whose parameters are all
  numbers: "add" computes there, it adds no record.
- `sign_in`: signing the session's own user in or out ("Log in a user with the given user ID").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from itertools import pairwise
from typing import Any

from common.safety import vocabulary as vocab
from common.safety.clauses import also_changes, later_sentences_quiet
from common.safety.wording import (
    NOUN_LIKE_READS,
    first_sentence,
    found_verbs,
    mentions_change,
    name_tokens,
    preamble_destroys,
    read_description,
    sentences,
    stems,
    verb_of,
    with_stems,
)


def closed_words(text: str | None) -> list[str]:
    """Every word of a text, lower case, digits and any script included, commas kept.

    For the readings that clear a tool from a closed vocabulary: a word they do not know, even
    "555-0100" or a sentence in another language, must make them decline, not be skipped.
    """
    return re.findall(r"[^\W_]+|[,;]", (text or "").lower())


def foreign_letters(text: str | None) -> bool:
    """Whether a text has letters outside ASCII, which the vocabularies here cannot read."""
    return any(not ch.isascii() and ch.isalpha() for ch in text or "")


_PLAIN_TEXT = re.compile(r"^[A-Za-z0-9\s.,;:'\"()\-/`*]*$")
"""Text the closed readings can read whole: no emoji, symbols or other scripts."""


def plain_text(text: str | None) -> bool:
    """Whether a text has only ASCII letters, digits, spaces and ordinary punctuation."""
    return bool(_PLAIN_TEXT.match(text or ""))


SESSION_VERBS = vocab.words("session", "verbs")
"""Verbs that act only on the server's own session: what its browser shows, its connection."""
SESSION_PHRASES = vocab.pairs("session", "phrases")
"""Two-word session actions (`go_forward` stays held: a destructive verb wins anywhere)."""
RESIZABLE = vocab.words("session", "resizable")
"""What `resize` must name to stay in the session (`resize_disk` or `resize_image` does not)."""
SESSION_OBJECTS = vocab.words("session", "objects")
"""Words a session-only name may carry after its session verb (`emulate_media`): anything else
(`navigate_to_pose`, `go_back_to_snapshot`, `emulate_hid_keyboard`) is not the session."""
PAGE_NOUNS = vocab.words("session", "page_nouns")
"""What the name or description must mention for a session verb to mean a page."""
CONNECTION_NOUNS = vocab.words("session", "connection_nouns")
"""What `reconnect` must mention to mean the server's own connection to its service."""


@lru_cache(maxsize=4096)
def session_action(name: str) -> str | None:
    """The session-only action a tool's name names (`browser_hover`, `go_back`), or None.

    At least one session verb or phrase; words before it are a prefix, words after it session
    objects (`SESSION_OBJECTS`) or read verbs that are not nouns; a change or destructive word
    anywhere (`navigate_and_submit`, `scroll_and_check_out`) disqualifies it.
    """
    words = name_tokens(name)
    found = found_verbs(words, every_form=True)
    if any(hit is not None and hit[0] != "read" for hit in found):
        return None
    action: str | None = None
    start = len(words)
    in_phrase: set[int] = set()
    for i, pair in enumerate(pairwise(words)):
        if pair in SESSION_PHRASES:
            action, start = action or " ".join(pair), min(start, i)
            in_phrase |= {i, i + 1}
    for i, word in enumerate(words):
        forms = stems(word)
        if i not in in_phrase and (
            forms & SESSION_VERBS or ("resize" in forms and RESIZABLE & set(words))
        ):
            action, start = action or min(forms & (SESSION_VERBS | {"resize"})), min(start, i)
            in_phrase.add(i)
    for i in range(start, len(words)):
        word, hit = words[i], found[i]
        plain_read = hit is not None and hit[1] not in NOUN_LIKE_READS
        if i not in in_phrase and word not in SESSION_OBJECTS and not plain_read:
            return None
    return action


@lru_cache(maxsize=4096)
def session_only(name: str, description: str | None) -> str | None:
    """The session action a tool only performs, judged by its name and its whole description.

    The name must be a `session_action`; the description's first sentence must name no change,
    no later sentence a destructive verb ("Note: hovering the 1-click button sends the order") or
    a leading change verb ("Submits the pending form first"), and the name or description must
    mention a page (`PAGE_NOUNS`; `CONNECTION_NOUNS` for reconnect; scroll needs neither).
    """
    action = session_action(name)
    if action is None or foreign_letters(description):
        return None
    if read_description(description).leaning in ("change", "destructive"):
        return None
    if mentions_change(description) or also_changes(description):
        return None
    if not later_sentences_quiet(description):
        return None
    text = (description or "").strip().lower()
    mentioned = set(name_tokens(name)) | set(re.findall(r"[a-z]+", text))
    nouns = CONNECTION_NOUNS if action == "reconnect" else PAGE_NOUNS
    if action != "scroll" and not mentioned & nouns:
        return None
    return action


TAB_VERBS = vocab.words("tabs", "verbs")
"""What a browser server does to its own tabs and pages (`browser_tabs`, `browser_close`)."""
TAB_HEADS = vocab.words("tabs", "heads")
"""What those verbs may act on: a page or window only as the browser's ("a browser window")."""
TAB_WORDS = TAB_HEADS | vocab.words("tabs", "words")
"""Every other word the sentence may carry ("Select a browser tab by index"): a closed set, so
"Create a page in the wiki" or "Close the customer's tab" is not tab management."""
BROWSER_NAMES = vocab.words("tabs", "browser_names")
"""How a tab-management name may begin when it also carries other words."""
_PREPOSITIONS = vocab.words("tabs", "prepositions")
"""Words that end a noun phrase ("a browser tab | by index")."""
_LISTING = vocab.words("tabs", "listing")
"""Words between the verbs of a list ("List, create, close, or select")."""


def _tab_verb(word: str) -> bool:
    """Whether a word is a tab verb or a plain read verb (in any inflection)."""
    hit = verb_of(word, last=False)
    return bool(stems(word) & TAB_VERBS) or (hit is not None and hit[0] == "read")


def _tab_name(words: list[str]) -> bool:
    """Whether a name only manages tabs: change words are tab verbs, the object a tab head."""
    for word, hit in zip(words, found_verbs(words, every_form=True), strict=True):
        if hit is not None and hit[0] != "read" and not stems(word) & TAB_VERBS:
            return False
    verbs = [i for i, word in enumerate(words) if _tab_verb(word)]
    if not verbs:
        return bool(words) and words[-1] in TAB_HEADS  # `browser_tabs`
    return all(w in TAB_HEADS or w in {"all", "current"} or _tab_verb(w) for w in words[verbs[0] :])


@lru_cache(maxsize=4096)
def tab_action(name: str, description: str | None) -> str | None:
    """What a tool does to the session's own browser tabs or pages ("close the page"), or None.

    The name's change words must all be `TAB_VERBS` with nothing but tabs, pages or the browser
    after them. The description must be one sentence: a list of such verbs (or plain reads)
    whose object is a tab, the browser, or a page or window of the browser ("a browser window";
    "the page" only for a `browser_` name), every other word from `TAB_WORDS`. "browser" must be
    in the name or that sentence. A Confluence page, a living-room window, a bar tab and a
    remote session are not the session's own; "Unsaved changes are lost" is a second sentence.
    Playwright declares `browser_tabs` and `browser_close` destructive: closing the session's
    own tab loses nothing a person made (a server attached to a person's own browser is
    another matter: list its tools in `irreversible_tools`).
    """
    named = name_tokens(name)
    if not name.isascii() or not plain_text(description) or not _tab_name(named):
        return None  # `_tab_name` also wants at least one word
    if len(sentences(description)) != 1:
        return None
    words = closed_words(first_sentence(description).rstrip(". "))
    start = 0
    while start < len(words) and (words[start] in _LISTING or _tab_verb(words[start])):
        start += 1
    verbs = [w for w in words[:start] if w not in _LISTING]
    if verbs and stems(verbs[-1]) & {"switch"} and words[start : start + 1] == ["to"]:
        start += 1  # "Switch to the browser tab"
    end = start
    while end < len(words) and words[end] not in _PREPOSITIONS and words[end] not in _LISTING:
        end += 1
    phrase = words[start:end]
    if not verbs or not phrase or phrase[-1] not in TAB_HEADS:
        return None
    if phrase[-1] == "browser" and with_stems(verbs) & {"create", "new", "open"}:
        return None  # "Create a new browser" provisions one (a billed cloud browser)
    of_browser = "browser" in phrase or phrase[-1] in {"tab", "tabs"}
    page_of_browser = named[:1] == ["browser"] and phrase[-1] in {"page", "pages"}
    if not (of_browser or page_of_browser):
        return None
    if any(w not in TAB_WORDS | _PREPOSITIONS for w in words[start:]):
        return None  # "Close the browser tab, open the url" is a second action
    if named[0] not in BROWSER_NAMES and not all(w in TAB_HEADS or _tab_verb(w) for w in named):
        return None  # `bar_close_tab`, `sheets_create_tab`: a prefix that is not a browser's
    if "browser" not in set(named) | set(phrase):
        return None
    return " ".join(words[:end]).replace(" ,", ",")


DEMO_LEADS = vocab.words("demonstration", "leads")
"""How every sentence of a demonstration begins, bar the elicitation clause."""
DEMO_NOUNS = vocab.words("demonstration", "nouns")
"""Protocol features and research words that can only be nouns or adjectives here."""
DEMO_PAIRS = vocab.groups("demonstration", "pairs")
"""Words that could be verbs, allowed only after the word that makes them a noun phrase
("long running", "progress updates", "MCP task-based")."""
DEMO_READS = vocab.words("demonstration", "reads")
"""The only verbs a simulated research operation may carry: it reads."""
DEMO_FUNCTION = _LISTING | vocab.words("demonstration", "function_words")
"""Words that carry no action."""
ELICITATION = vocab.sequence("demonstration", "elicitation")
"""The one clause in which a demonstration may send: it asks this client a question."""
DEMO_NAME_VERBS = vocab.words("demonstration", "name_verbs")
"""What a demonstration's name must lead with (`trigger-long-running-operation`)."""
DEMO_NAME_WORDS = DEMO_NOUNS | set(DEMO_PAIRS) | vocab.words("demonstration", "name_words")
"""What a demonstration's name may carry after its verb (`simulate-research-query`)."""


def _demo_sentence(words: list[str]) -> bool:
    """Whether a sentence leads with a demo verb and every other word is in the closed set."""
    if not words or words[0] not in DEMO_LEADS:
        return False
    for i, word in enumerate(words[1:], 1):
        if word in DEMO_NOUNS or word in DEMO_READS or word in DEMO_FUNCTION:
            continue
        if words[i - 1] not in DEMO_PAIRS.get(word, ()):
            return False
    return True


@lru_cache(maxsize=4096)
def demonstration(name: str, description: str | None) -> str | None:
    """The sentence in which a tool says it demonstrates a protocol feature, or None.

    Every sentence must lead with "Demonstrates" or "Simulates" (one with "Demonstrates") and
    carry only protocol-feature nouns (`DEMO_NOUNS`, `DEMO_PAIRS`), the verbs of reading
    research (`DEMO_READS`) and words without action, or be the clause that sends this client an
    elicitation request; the name must lead with `DEMO_NAME_VERBS` followed by such nouns. No
    other verb, not even a read verb, gets in: "Demonstrates task status updates" names a
    write. The caller also wants the server's own declaration that the tool is non-destructive
    and closed-world: this reading alone does not clear a tool.
    """
    named = name_tokens(name)
    if not name.isascii() or not named or named[0] not in DEMO_NAME_VERBS:
        return None
    if any(word not in DEMO_NAME_WORDS for word in named[1:]) or not plain_text(description):
        return None
    texts = sentences(description)
    parts = [closed_words(text) for text in texts]
    if not all(_demo_sentence(words) or tuple(words) == ELICITATION for words in parts):
        return None
    demo = next(
        (t for t, words in zip(texts, parts, strict=True) if words[:1] == ["demonstrates"]), None
    )
    return None if demo is None else demo.rstrip(".")


SWITCH_VERBS = vocab.words("switch", "verbs")
"""Verbs that switch something on or off."""
_SIMULATED_SWITCH = vocab.pattern("switch", "description")
"""The whole description of a switch of simulated notifications to this session: a closed
pattern ("Toggles simulated, random-leveled logging on or off")."""
SWITCH_NAME_WORDS = vocab.words("switch", "name_words")
"""What a switch's name may carry after its verb (`toggle-subscriber-updates`)."""


@lru_cache(maxsize=4096)
def simulated_switch(name: str, description: str | None) -> str | None:
    """The switch a tool is, when it only turns simulated notifications to this session on or off.

    The name must lead with a `SWITCH_VERBS` verb followed only by `SWITCH_NAME_WORDS`, and the
    whole description must match one closed pattern: "Toggles simulated, random-leveled logging
    on or off", "Enables simulated resource updates". "Disables simulated updates and the
    subscription" or a vendor prefix (`prod_toggle_logging`) is something else. The caller also
    wants the server's non-destructive, closed-world declaration.
    """
    words = name_tokens(name)
    if not name.isascii() or not words or not stems(words[0]) & SWITCH_VERBS:
        return None
    if any(w not in SWITCH_NAME_WORDS for w in words[1:]) or len(words) < 2:
        return None
    text = " ".join((description or "").split()).lower()
    if not _SIMULATED_SWITCH.match(text):
        return None
    return text.rstrip(".")


COMPUTE_VERBS = vocab.words("computation", "verbs")
"""Verbs of arithmetic ("Add two numbers", "Raise a number to a power")."""
OPERANDS = vocab.words("computation", "operands")
"""What arithmetic may act on: numbers, never records."""
COMPUTE_WORDS = vocab.words("computation", "words")
"""Every other word an arithmetic sentence may carry."""
NUMBER_TYPES = vocab.words("computation", "parameter_types")
"""The JSON Schema types every parameter of a computation must have."""
COMPUTE_NAMES = COMPUTE_VERBS | OPERANDS | COMPUTE_WORDS | vocab.words("computation", "names")
"""The words a computation's name and parameter names may be made of (digits aside)."""


def _number_words(name: str) -> bool:
    """Whether a name is made only of computation words and digits (`round_number`, `num1`)."""
    words = [w.rstrip("0123456789") for w in name_tokens(name)]
    return bool(words) and all(not w or w in COMPUTE_NAMES for w in words)


def _numbers_only(schema: Mapping[str, Any] | None) -> bool:
    """Whether a tool takes at least one parameter and every one is a number (or a list of them)."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping) or not properties:
        return False
    for spec in properties.values():
        kind = spec.get("type") if isinstance(spec, Mapping) else None
        items = spec.get("items") if isinstance(spec, Mapping) else None
        if kind == "array" and isinstance(items, Mapping):
            kind = items.get("type")
        if not isinstance(kind, str) or kind not in NUMBER_TYPES:
            return False
    return all(isinstance(key, str) and _number_words(key) for key in properties)


def computation(name: str, description: str | None, schema: Mapping[str, Any] | None) -> str | None:
    """The arithmetic a tool only does ("Add two numbers"), or None.

    The tool's own description must be one sentence that leads with an arithmetic verb and
    carries only number words (`OPERANDS`, `COMPUTE_WORDS`, digits); the name and every
    parameter's name must be made of such words (`COMPUTE_NAMES`), and every parameter must be
    a number. "Add a user", `add(name: str)`, `add_to_balance` or `wallet_add(wallet_id,
    amount)` is not arithmetic, nor is a tool whose service preamble destroys something.
    """
    if not name.isascii() or not plain_text(description) or not _numbers_only(schema):
        return None
    if not _number_words(name) or preamble_destroys(description) is not None:
        return None
    if len(sentences(description)) != 1:
        return None
    words = closed_words(first_sentence(description).rstrip(". "))
    if not words or not stems(words[0]) & COMPUTE_VERBS or not set(words) & OPERANDS:
        return None
    if any(w not in OPERANDS | COMPUTE_WORDS and not w.isdigit() for w in words[1:]):
        return None
    return " ".join(words)


SIGN_IN_VERBS = vocab.words("sign_in", "verbs")
"""Verbs of signing in or out (`login`, `authenticate`)."""
SIGN_IN_PHRASES = vocab.pairs("sign_in", "phrases")
"""Two-word forms ("log in", "sign out")."""
SIGN_IN_HANDLES = vocab.words("sign_in", "handles")
"""Verbs that may lead before a sign-in noun ("Handle user login")."""
SIGN_IN_SUBJECTS = vocab.words("sign_in", "subjects")
"""Whom a sign-in may act on: the session's user."""
SIGN_IN_WORDS = vocab.words("sign_in", "words")
"""Words between the verb and its subject ("the current user")."""
SIGN_IN_PREPOSITIONS = vocab.words("sign_in", "prepositions")
"""Words that may lead what follows ("with username and password")."""
SIGN_IN_CREDENTIALS = vocab.words("sign_in", "credentials")
"""Every word that may follow besides the prepositions and the tool's own name."""


def _sign_in_verb(words: list[str], i: int) -> int:
    """How many words of a sign-in verb start at `i` (0 when none): "login", "logs in"."""
    if i < len(words) and stems(words[i]) & SIGN_IN_VERBS:
        return 1
    pair = words[i : i + 2]
    phrase = len(pair) == 2 and any(
        p[0] in stems(pair[0]) and p[1] == pair[1] for p in SIGN_IN_PHRASES
    )
    return 2 if phrase else 0


_SPLIT_VERBS = frozenset(p[0] for p in SIGN_IN_PHRASES)
"""The verbs of the two-word forms, which may take their subject inside ("Log user out")."""
_PARTICLES = frozenset(p[1] for p in SIGN_IN_PHRASES)
"""Their second words ("in", "out")."""


def _split_lead(words: list[str]) -> int | None:
    """Where a split sign-in lead ends: "Logs user into | the system", "Log user out | of it"."""
    i = 1
    while i < len(words) and words[i] in SIGN_IN_SUBJECTS:
        i += 1
    if i < len(words) and words[i] in _PARTICLES:
        return i + 1
    return i if i < len(words) and words[i] == "into" else None  # "into" leads what follows


def _sign_in_lead(words: list[str]) -> int | None:
    """Where a sentence's sign-in lead ends ("Log in a user", "Handle user logout"), or None."""
    if words[:1] and words[0] in SIGN_IN_HANDLES:
        i = 1 + (words[1:2] != [] and words[1] in SIGN_IN_SUBJECTS)
        size = _sign_in_verb(words, i)
        return i + size if size else None
    size = _sign_in_verb(words, 0)
    if not size:
        return _split_lead(words) if words[:1] and stems(words[0]) & _SPLIT_VERBS else None
    i = size
    while i < len(words) and words[i] in SIGN_IN_WORDS:
        i += 1
    if i >= len(words) or words[i] not in SIGN_IN_SUBJECTS:
        return None
    while i < len(words) and words[i] in SIGN_IN_SUBJECTS:
        i += 1  # "the current logged in user session"
    return i


def _signs_in(words: list[str], named: list[str]) -> str | None:
    """The lead of one sentence that only signs the session's user in or out, or None."""
    end = _sign_in_lead(words)
    if end is None or (end < len(words) and words[end] not in SIGN_IN_PREPOSITIONS):
        return None
    allowed = SIGN_IN_PREPOSITIONS | SIGN_IN_CREDENTIALS | set(named)
    if any(w not in allowed for w in words[end:]):
        return None
    return " ".join(words[:end])


def sign_in(name: str, description: str | None) -> str | None:
    """The sign-in or sign-out a tool only performs for the session's user, or None.

    The name must carry a sign-in verb and no other change word (`trading_login`,
    `authenticate_twitter`); every sentence of the tool's own description must lead with one
    ("Log in a user", "Authenticate the user", "Handle user logout", "Logs user into the
    system", "Log user out of the system"), followed at most by a phrase led by a preposition
    and made of credential words or the name's own words ("with username and password", "with
    the travel API" for `authenticate_travel`). "Authenticate a payment", "Log in a user via
    SMS", "on all devices" or a second sentence that does anything else is something else.
    """
    named = name_tokens(name)
    if not name.isascii() or not plain_text(description) or not named:
        return None
    signs = [i for i in range(len(named)) if _sign_in_verb(named, i)]
    covered = {j for i in signs for j in range(i, i + _sign_in_verb(named, i))}
    for i, hit in enumerate(found_verbs(named, every_form=True)):
        if hit is not None and hit[0] != "read" and i not in covered:
            return None
    if not signs or preamble_destroys(description):
        return None
    own = [first_sentence(description), *sentences(description)[1:]]
    leads = [_signs_in(closed_words(text.rstrip(". ")), named) for text in own]
    return leads[0] if all(lead is not None for lead in leads) else None


PHYSICAL_VERBS = vocab.words("physical", "verbs")
"""Verbs that make something in the world when their sentence names a medium ("Print ...")."""
PHYSICAL_MEDIA = vocab.words("physical", "media")
"""What such a verb puts its output on: paper, a label, a page, a printer."""
SHOW_VERBS = vocab.words("physical", "show_verbs")
"""Verbs that put something before the public when a public display is named ("Show ...")."""
PUBLIC_DISPLAYS = vocab.pattern("physical", "public_displays", re.IGNORECASE)
"""Displays others see: display or departure boards, signage, billboards, public screens."""
DISPLAYS = vocab.words("physical", "displays")
"""Where "print" only shows text (stdout, the console), or what makes it a noun ("preview")."""


def physical_effect(description: str | None) -> str | None:
    """The verb of a sentence that makes something physical ("Print a test page on the printer").

    The tool's own first sentence must lead with the verb (imperative or "Prints"), name a
    medium (paper, a page, a label, a printer) and no display: "Print the config to stdout",
    "Print preview of the page" and "Return a printable invoice" only show or describe. A read
    verb in the name does not take such an effect back (`printers.test_page`).
    """
    sentence = first_sentence(description).lower()
    words = re.findall(r"[a-z]+", sentence)
    if words and stems(words[0]) & SHOW_VERBS and PUBLIC_DISPLAYS.search(sentence):
        return str(words[0])  # "Show a message on the display boards": others see it
    if not words or not stems(words[0]) & PHYSICAL_VERBS or words[0].endswith("ed"):
        return None
    if set(words) & DISPLAYS or not set(words[1:]) & PHYSICAL_MEDIA:
        return None
    return str(words[0])
