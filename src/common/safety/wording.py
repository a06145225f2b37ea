"""Reading a tool's name and description the way a person does: which verb leads, what it changes.

Names are split into words (snake_case, camelCase, kebab-case, dotted), words before the first
known verb are a prefix (`git_`, `puppeteer_`, `jira_`), and the leading verb decides:
`list_commits` lists, `git_diff` diffs. Nouns that look like verbs (`commits`, `messages`,
`runs`) are then weighed as nouns. Two vocabularies say what changes things:

- `DESTRUCTIVE_VERBS` (delete, drop, send, pay, push, merge, transfer, revoke...) are rarely nouns
  in tool names and win anywhere: `get_and_delete`, `message_send`, `list_transfers` (the last
  over-blocked on purpose: a missed payment cannot be undone, a needless question can).
- `CHANGE_VERBS` (create, update, write, commit, post, run, click...) change something when they
  lead, or follow a conjunction (`get_or_create`), but are nouns after a read verb.

A third, `SESSION_VERBS` (hover, scroll, navigate, go back, emulate, resize the window,
reconnect), names actions that touch only the server's own session: `session_action` finds a name
made of one of those followed by session objects (page, url, tab, media...) and read verbs, and
`session_only` also wants a description that names no change and mentions a page or, for
reconnect, a connection (a robot navigates and a drone hovers in the world). Browser servers
declare such tools writes (Playwright marks `browser_hover` destructive); holding them teaches
people to approve browser steps unread, or to clear a whole browser server, clicks and scripts
included. `tab_action` reads the same way the management of the session's own browser tabs
(`browser_tabs`: "List, create, close, or select a browser tab"), from closed sets of verbs and
words. `demonstration` ("Demonstrates a long running operation with progress updates") and
`simulated_switch` ("Toggles simulated logging on or off") read what a demo server says of its
tools; the classifier trusts them only with the server's own non-destructive declaration.

A description weighs less than a name: it can add risk only by saying what the tool changes (a
leading change verb, or a destructive verb anywhere in its first sentence), not by mentioning a
noun ("Shows the commit log"), and it speaks for the tool only when the name says nothing.

Hand-written rather than a part-of-speech tagger: the vocabulary of MCP tool names is small, the
result must be deterministic and auditable, and a tagger would pull a model into every process.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Literal

DESTRUCTIVE_VERBS = frozenset(
    " ".join(
        (
            "delete del remove rm drop truncate purge destroy kill terminate erase wipe overwrite",
            "send publish unpublish pay push merge transfer refund charge revoke deploy undeploy",
            "uninstall ban forward broadcast notify resend transmit relay sell donate",
        )
    ).split()
)
"""Verbs whose call cannot be undone, and that tool names rarely use as nouns: they win anywhere."""
CHANGE_VERBS = frozenset(
    " ".join(
        (
            "create add insert update upsert write edit modify patch put set unset save store",
            "append replace rename move mv copy cp commit post reply comment submit approve",
            "reject assign unassign invite archive unarchive book order upload import install",
            "enable disable toggle start stop restart trigger schedule cancel close reopen reset",
            "execute exec run eval evaluate call invoke apply sync pull checkout clone fork star",
            "follow unfollow like mark lock unlock grant share link unlink attach detach",
            "tag label clear flush restore rollback revert scale rebase cherry stage unstage init",
            "fill click press select drag uncheck tap login logout sign email tweet",
            "transcode mutate register unregister subscribe unsubscribe configure",
            "increment decrement manage purchase buy trash transition acknowledge ack provision",
            "promote dispatch void capture reboot rerun retry stash consume dequeue pop",
            "confirm accept resubmit replay deliver emit finalize finalise vote upvote downvote",
            "retweet swipe enroll enrol",
        )
    ).split()
)
"""Verbs that change something when they lead a name (or follow "and"/"or"); nouns otherwise."""
READ_VERBS = frozenset(
    " ".join(
        (
            "get list read search fetch view describe show find lookup look query count inspect",
            "stat stats info status preview peek browse explore summarize summarise current now",
            "forecast convert calculate compute validate diff retrieve hover navigate screenshot",
            "snapshot scroll wait echo analyze analyse explain compare parse extract detect",
            "ping measure estimate check crawl research",
        )
    ).split()
)
"""Verbs of operations that only read or compute: they clear a tool when they lead its name."""
NOUN_LIKE_READS = frozenset(
    " ".join(
        (
            "compute snapshot status stats stat list view check query search preview info current",
            "estimate forecast diff count echo wait ping measure research crawl explore browse",
            "peek now screenshot convert",
        )
    ).split()
)
"""Read words that are also nouns (`status_update`, `compute_instances_insert`): after them a
change verb in its bare form still says what the tool does."""
NOUN_LIKE_CHANGES = frozenset(
    " ".join(
        (
            "commit post comment reply order book run archive schedule tag label link lock star",
            "like stage fill select press call sign email tweet import upload sync patch set copy",
            "clone fork scale start stop close mark share pull drag tap trigger vote",
        )
    ).split()
)
"""Change verbs that are also common nouns (`list_pull_requests`, `view_run_logs`): after a
noun-like read word they count only as the name's last word."""
NOUN_ONLY_READS = frozenset({"log", "logs"})
"""Read words only as the last word (`git_log`); leading, "log" records something (`log_event`)."""
CONJUNCTIONS = frozenset({"and", "or", "then", ",", ";"})
"""Words after which another verb follows (`get_or_create`, "Finds messages; archives them")."""
TWO_WORD_CHANGES = frozenset({("check", "out"), ("check", "in")})
"""Read words that change something with the next word ("Checks out the cart")."""
SESSION_VERBS = frozenset({"hover", "scroll", "navigate", "emulate", "reconnect"})
"""Verbs that act only on the server's own session: what its browser shows, its connection."""
SESSION_PHRASES = frozenset({("go", "back"), ("navigate", "back")})
"""Two-word session actions (`go_forward` stays held: a destructive verb wins anywhere)."""
RESIZABLE = frozenset({"browser", "window", "viewport"})
"""What `resize` must name to stay in the session (`resize_disk` or `resize_image` does not)."""
SESSION_OBJECTS = frozenset(
    " ".join(
        (
            "to the a an and url page pages tab tabs browser window viewport history back previous",
            "current element media css cpu network geolocation timezone locale device text",
        )
    ).split()
)
"""Words a session-only name may carry after its session verb (`emulate_media`): anything else
(`navigate_to_pose`, `go_back_to_snapshot`, `emulate_hid_keyboard`) is not the session."""
PAGE_NOUNS = frozenset(
    {"browser", "page", "tab", "url", "element", "viewport", "window", "media", "history", "css"}
    | {"dom", "html", "link"}
)
"""What the name or description must mention for a session verb to mean a page: a robot
navigates, a drone hovers, a deployment goes back and a radio emulates a door key, in the world."""
CONNECTION_NOUNS = frozenset({"connection", "client", "clients", "api"})
"""What `reconnect` must mention to mean the server's own connection to its service."""
_LEAD_INS = re.compile(
    r"^\s*(?:(?:use|call)\s+(?:this\s+)?(?:tool\s+)?to|this\s+tool|the\s+tool|a\s+tool\s+"
    r"(?:that|to|for)|tool\s+(?:that|to|for)|allows?\s+(?:you\s+)?to|lets?\s+you|used\s+to|"
    r"it|will|can|helps?\s+(?:you\s+)?)\s+",
    re.IGNORECASE,
)
"""Openings of descriptions that come before the verb ("Use this tool to ...")."""

Leaning = Literal["destructive", "change", "read"]
"""What a verb says a tool does."""


def name_tokens(name: str) -> list[str]:
    """Split a tool name into lower-case words (snake, kebab, dotted and camel case)."""
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", name)
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", spaced)
    return [t for t in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if t]


IRREGULAR_FORMS = {
    "sent": "send",
    "paid": "pay",
    "wrote": "write",
    "written": "write",
    "ran": "run",
    "bought": "buy",
}
"""Inflected forms no suffix rule reaches ("and sent it", "paid the invoice")."""


def stems(word: str) -> set[str]:
    """The word and its possible stems, so "Deletes", "deleting", "cancelled", "sent" meet theirs.

    Suffixes -s/-es/-d/-ed/-ing (with a dropped final e or a doubled consonant restored), -ied/-ies
    to -y, and `IRREGULAR_FORMS`. Over-generating is harmless: only known verbs are looked up.
    """
    forms = {word} | {word.removesuffix(s) for s in ("s", "es", "d", "ed") if word.endswith(s)}
    for suffix in ("ing", "ed"):
        base = word.removesuffix(suffix)
        if base != word and len(base) >= 2:
            forms |= {base, base + "e"}
            if base[-1] == base[-2]:
                forms.add(base[:-1])
    for suffix in ("ied", "ies"):
        if word.endswith(suffix):
            forms.add(word.removesuffix(suffix) + "y")
    if word in IRREGULAR_FORMS:
        forms.add(IRREGULAR_FORMS[word])
    return forms


def with_stems(words: list[str] | set[str]) -> set[str]:
    """The words plus their stems (see `stems`)."""
    return {stem for w in words for stem in stems(w)}


def _vocabulary(word: str, last: bool) -> tuple[Leaning, str] | None:
    """Which vocabulary a word (or one of its stems) belongs to, destructive first."""
    forms = stems(word)
    for leaning, vocabulary in (
        ("destructive", DESTRUCTIVE_VERBS),
        ("change", CHANGE_VERBS),
        ("read", READ_VERBS),
    ):
        hit = sorted(forms & vocabulary)
        if hit:
            return leaning, hit[0]  # type: ignore[return-value]
    if last and forms & NOUN_ONLY_READS:
        return "read", word
    return None


@dataclass(frozen=True)
class Reading:
    """What a name or a description says about a tool's effect."""

    leaning: Leaning | None
    """destructive, change or read; None when it says nothing this module understands."""
    verb: str | None
    """The word that decided, as the vocabulary spells it."""
    why: str
    """The decision in words, e.g. "its name leads with the read verb 'list'"."""


def _found(words: list[str]) -> list[tuple[Leaning, str] | None]:
    """Each word's vocabulary, two-word changes ("check out") included."""
    found = [_vocabulary(w, i == len(words) - 1) for i, w in enumerate(words)]
    for i, hit in enumerate(found[:-1]):
        if hit is not None and (hit[1], words[i + 1]) in TWO_WORD_CHANGES:
            found[i] = ("change", f"{hit[1]} {words[i + 1]}")
    return found


def _read_words(words: list[str], what: str, read_within: int | None = None) -> Reading:
    """The reading of a sequence of words: destructive anywhere, else the verbs that lead.

    A verb leads when it is the first known word or follows a conjunction; with `read_within`,
    a read verb leads only among that many first words (a change verb within three). After a
    noun-like read word (`status_update`) a later change verb in its bare form counts too.
    """
    found = _found(words)
    destructive = [hit[1] for hit in found if hit is not None and hit[0] == "destructive"]
    if destructive:
        return Reading("destructive", destructive[0], f"its {what} contains {destructive[0]!r}")
    first = next(((i, hit) for i, hit in enumerate(found) if hit is not None), None)
    verbs = [hit for i, hit in enumerate(found) if hit and i and words[i - 1] in CONJUNCTIONS]
    if first is not None:
        index, (leaning, verb) = first
        limit = None if read_within is None else (read_within if leaning == "read" else 3)
        if limit is None or index < limit:
            verbs.insert(0, (leaning, verb))
        if leaning == "read" and verb in NOUN_LIKE_READS:
            last = len(words) - 1
            verbs += [
                hit
                for i, hit in enumerate(found[index + 1 :], index + 1)
                if hit is not None
                and hit[0] == "change"
                and words[i] == hit[1]
                and (hit[1] not in NOUN_LIKE_CHANGES or i == last)
            ]
    changes = [verb for leaning, verb in verbs if leaning == "change"]
    if changes:
        return Reading(
            "change", changes[0], f"its {what} says it changes something ({changes[0]!r})"
        )
    if verbs:
        return Reading("read", verbs[0][1], f"its {what} leads with the read verb {verbs[0][1]!r}")
    return Reading(None, None, f"its {what} has no verb this guard knows")


# Readings are pure and asked for several times per tool and turn (verdict, hint, reason).
@lru_cache(maxsize=4096)
def read_name(name: str) -> Reading:
    """What a tool's name says: its leading verb, or a destructive verb anywhere in it."""
    return _read_words(name_tokens(name), "name")


_SENTENCE_END = re.compile(
    r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)(?<!\bvs\.)(?<!\bE\.g\.)(?<=[.!?])\s|\n\s*\n"
)
"""Where a sentence ends: not after "e.g.", "i.e.", "etc." or "vs." ("(e.g. the cart) and pay")."""


def first_sentence(description: str | None) -> str:
    """The description's first sentence, its lead-in ("Use this tool to") removed."""
    sentence = _SENTENCE_END.split((description or "").strip(), maxsplit=1)[0]
    previous = None
    while previous != sentence:
        previous, sentence = sentence, _LEAD_INS.sub("", sentence, count=1)
    return sentence


def _words(text: str) -> list[str]:
    """The lower-case words of a text, commas and semicolons kept as words."""
    return re.findall(r"[a-z]+|[,;]", text.lower())


@lru_cache(maxsize=4096)
def read_description(description: str | None) -> Reading:
    """What a description's first sentence says the tool does, verbs only (nouns are ignored).

    A read verb leads only as the first word and a change verb among the first three: a later
    one describes the result ("Shows the files that were added"), except a destructive verb or
    one after "and", "or", "," or ";", which count.
    """
    words = _words(first_sentence(description))
    return _read_words(words, "description", read_within=1)


_BE = frozenset({"is", "are", "was", "were", "be", "been", "being", "gets", "get"})
"""Words before a participle that describes a state ("if `part` is set"), not an action."""
_OF = frozenset({"of", "for"})
"""Words after which an -ing form names an activity ("the cost of creating"), not an action."""
_VERB_PLACES = frozenset({"that", "which", "who", "to", "and", "or", "then"})
"""Words after which a noun-like verb is a verb ("that posts", "to commit")."""


def _acting(words: list[str], i: int) -> bool:
    """Whether the word at `i` (> 0) stands in a verb's place: "that posts", "by deleting"."""
    before = words[i - 1]
    return before in _VERB_PLACES or (before == "by" and words[i].endswith("ing"))


@lru_cache(maxsize=4096)
def mentions_change(description: str | None) -> str | None:
    """A verb in the description's first sentence saying the tool changes something, if any.

    Anywhere in the sentence, not only leading ("Fires a webhook that posts the payload"), but
    not a word that is mostly a noun ("the commit log") unless in a verb's place ("that posts"),
    nor a state ("if `part` is set"), nor a change named as an activity ("the cost of creating";
    a destructive one counts even there).
    """
    words = re.findall(r"[a-z]+", first_sentence(description).lower())
    for i, hit in enumerate(_found(words)):
        if hit is None or hit[0] == "read" or (i and words[i - 1] in _BE):
            continue
        if hit[0] == "change" and words[i].endswith("ing") and i and words[i - 1] in _OF:
            continue  # a gerund as a noun: "the cost of creating a project"
        verb_place = i > 0 and _acting(words, i)
        if hit[0] == "destructive" or hit[1] not in NOUN_LIKE_CHANGES or verb_place:
            return hit[1]
    return None


@lru_cache(maxsize=4096)
def session_action(name: str) -> str | None:
    """The session-only action a tool's name names (`browser_hover`, `go_back`), or None.

    At least one session verb or phrase; words before it are a prefix, words after it session
    objects (`SESSION_OBJECTS`) or read verbs that are not nouns; a change or destructive word
    anywhere (`navigate_and_submit`, `scroll_and_check_out`) disqualifies it.
    """
    words = name_tokens(name)
    found = _found(words)
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
    if not _later_sentences_quiet(description):
        return None
    text = (description or "").strip().lower()
    mentioned = set(name_tokens(name)) | set(re.findall(r"[a-z]+", text))
    nouns = CONNECTION_NOUNS if action == "reconnect" else PAGE_NOUNS
    if action != "scroll" and not mentioned & nouns:
        return None
    return action


def sentences(description: str | None) -> list[str]:
    """The description's sentences in lower case, each without its lead-in ("Use this tool to")."""
    text = (description or "").strip().lower()
    return [first_sentence(part) for part in _SENTENCE_END.split(text) if part.strip()]


_INSTRUCTION = re.compile(r"^\W*(?:call|use|invoke)\s+(?:this|it|when|after|before|only|first)\b")
"""A later sentence that tells the caller when to call the tool ("Call this when you are done")."""


def _later_sentences_quiet(description: str | None) -> bool:
    """Whether no sentence after the first names a destructive verb or leads with a change verb.

    "Note: hovering the 1-click button sends it" and "Submits the pending form first" say what
    else the tool does; "Call this when you are done" tells the caller when to call it.
    """
    for sentence in sentences(description)[1:]:
        if any(hit is not None and hit[0] == "destructive" for hit in _found(_words(sentence))):
            return False
        if not _INSTRUCTION.match(sentence) and read_description(sentence).leaning == "change":
            return False
    return True


def closed_words(text: str | None) -> list[str]:
    """Every word of a text, lower case, digits and any script included, commas kept.

    For the readings that clear a tool from a closed vocabulary: a word they do not know, even
    "555-0100" or a sentence in another language, must make them decline, not be skipped.
    """
    return re.findall(r"[^\W_]+|[,;]", (text or "").lower())


def foreign_letters(text: str | None) -> bool:
    """Whether a text has letters outside ASCII, which the vocabularies here cannot read."""
    return any(not ch.isascii() and ch.isalpha() for ch in text or "")


TAB_VERBS = frozenset({"open", "new", "create", "close", "select", "switch", "focus"})
"""What a browser server does to its own tabs and pages (`browser_tabs`, `browser_close`)."""
TAB_HEADS = frozenset({"tab", "tabs", "page", "pages", "browser", "window", "windows"})
"""What those verbs may act on: a page or window only as the browser's ("a browser window")."""
TAB_WORDS = TAB_HEADS | frozenset(
    " ".join(
        (
            "a an the this that its their all current new active selected open other given",
            "specified previous next last first index id number title url",
        )
    ).split()
)
"""Every other word the sentence may carry ("Select a browser tab by index"): a closed set, so
"Create a page in the wiki" or "Close the customer's tab" is not tab management."""
BROWSER_NAMES = frozenset({"browser", "puppeteer", "playwright", "chrome", "tab", "tabs"})
"""How a tab-management name may begin when it also carries other words."""
_PREPOSITIONS = frozenset({"for", "on", "in", "with", "of", "to", "from", "at", "by", "into"})
"""Words that end a noun phrase ("a browser tab | by index")."""
_LISTING = frozenset({",", "and", "or"})
"""Words between the verbs of a list ("List, create, close, or select")."""


def _tab_verb(word: str) -> bool:
    """Whether a word is a tab verb or a plain read verb (in any inflection)."""
    hit = _vocabulary(word, last=False)
    return bool(stems(word) & TAB_VERBS) or (hit is not None and hit[0] == "read")


def _tab_name(words: list[str]) -> bool:
    """Whether a name only manages tabs: change words are tab verbs, the object a tab head."""
    for word, hit in zip(words, _found(words), strict=True):
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


_PLAIN_TEXT = re.compile(r"^[A-Za-z0-9\s.,;:'\"()\-/`*]*$")
"""Text the closed readings can read whole: no emoji, symbols or other scripts."""


def plain_text(text: str | None) -> bool:
    """Whether a text has only ASCII letters, digits, spaces and ordinary punctuation."""
    return bool(_PLAIN_TEXT.match(text or ""))


DEMO_LEADS = frozenset({"demonstrates", "simulates"})
"""How every sentence of a demonstration begins, bar the elicitation clause."""
DEMO_NOUNS = frozenset(
    " ".join(
        (
            "mcp protocol long operation operations progress stages steps multiple annotations",
            "metadata structured output deep research information clarification ambiguous",
        )
    ).split()
)
"""Protocol features and research words that can only be nouns or adjectives here."""
DEMO_PAIRS = {
    "running": {"long"},
    "updates": {"progress"},
    "based": {"task"},
    "task": {"mcp"},
    "content": {"structured"},
}
"""Words that could be verbs, allowed only after the word that makes them a noun phrase
("long running", "progress updates", "MCP task-based")."""
DEMO_READS = frozenset({"gathers", "analyzes", "analyses", "synthesizes", "synthesises"})
"""The only verbs a simulated research operation may carry: it reads."""
DEMO_FUNCTION = _LISTING | {"a", "an", "the", "with", "of", "that", "through", "for", ";"}
"""Words that carry no action."""
ELICITATION = (
    "if",
    "ambiguous",
    "is",
    "true",
    "and",
    "client",
    "supports",
    "elicitation",
    ",",
    "sends",
    "an",
    "elicitation",
    "request",
    "for",
    "clarification",
)
"""The one clause in which a demonstration may send: it asks this client a question."""
DEMO_NAME_VERBS = frozenset({"trigger", "simulate", "demo"})
"""What a demonstration's name must lead with (`trigger-long-running-operation`)."""
DEMO_NAME_WORDS = DEMO_NOUNS | set(DEMO_PAIRS) | {"query"}
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


SWITCH_VERBS = frozenset({"toggle", "enable", "disable"})
"""Verbs that switch something on or off."""
_SIMULATED_SWITCH = re.compile(
    r"^(?:toggles?|enables?|disables?) simulated,? (?:random-level+ed )?"
    r"(?:resource subscription |resource |progress )?(?:logging|updates|notifications)"
    r"(?: on or off| on/off)?\.?$"
)
"""The whole description of a switch of simulated notifications to this session: a closed
pattern ("Toggles simulated, random-leveled logging on or off")."""
SWITCH_NAME_WORDS = frozenset(
    {"simulated", "logging", "subscriber", "subscription", "resource", "progress", "updates"}
    | {"notifications"}
)
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


@lru_cache(maxsize=4096)
def also_changes(description: str | None) -> str | None:
    """A change the description's first sentence adds after "and", "then", "," or ";", if any.

    "Lists jobs and cancels stale ones" reads, then changes: the second verb says so even when the
    name reads. Words that are also common nouns ("pull requests and comments") count only after
    ";" or "then", and a verb paired with another as a modifier ("view and edit restrictions")
    does not count.
    """
    words = _words(first_sentence(description))
    found = _found(words)
    for i, hit in enumerate(found):
        if hit is None or hit[0] == "read" or i < 2 or words[i - 1] not in CONJUNCTIONS:
            continue
        if found[i - 2] is not None:
            continue
        clause = words[i - 1] in (";", "then")  # a new clause: "; archives old mail"
        if hit[0] == "destructive" or hit[1] not in NOUN_LIKE_CHANGES or clause:
            return hit[1]
    return None
