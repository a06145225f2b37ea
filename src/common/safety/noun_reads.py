"""Readings of descriptions that name data without a verb.

Many servers describe a read by what it returns, with no verb at all: "Upcoming hearings for a
judge or courtroom.", "Temperature and humidity readings for a store.", "Malt, hops, yeast and
packaging on hand." A person reads a list of data. The guard reads one only when nothing in it
names an act: the noun phrase that opens the sentence (up to its first preposition, relative
word or clause mark) holds no change word and no noun made from one ("Bulk deletion of old
records", "Bookings for a guest", "Payment to a supplier" stay held), it names data (a plural, or
one of the `data_nouns`: stock, inventory, a calendar), its first word is no imperative ("Stock
the shelves"), and the tool's name has no verb of its own. A name with no description, or a
sentence with any verb this guard knows, is read elsewhere.

The noun made from a verb is found by its suffix (`act_suffixes`: deletion, removal, payment,
booking) and the change vocabulary, not by a derivational lexicon: lemminflect knows inflections
only, and the change vocabulary is where the guard's knowledge of acts lives.
"""

from __future__ import annotations

import re
from functools import lru_cache

from common.safety import vocabulary as vocab
from common.safety.choices import (
    FILTER_WORDS,
    WINDOW_KEYS,
    a_value,
    argument_words,
    only_chooses,
    properties_of,
    repeats_head,
    selects,
    selects_only,
    switch,
)
from common.safety.modifiers import before_its_plural
from common.safety.names import (
    ACTING_HEADS,
    READ_HEADS,
    VALUE_MAKERS,
    record_plural,
)
from common.safety.parts import (
    can_be_noun,
    can_be_verb,
    noun_or_adjective,
    noun_or_modifier,
    only_a_verb,
    singular_noun,
    unknown_word,
)
from common.safety.quiet import said_later
from common.safety.states import without_contents
from common.safety.wording import SOURCE_READS, first_sentence, stems, verb_of

_STOPS = vocab.words("data", "stops")
DATA_NOUNS = vocab.words("data", "data_nouns")
"""Nouns that name data or a value without a plural (stock, inventory, price, level)."""
_ACT_SUFFIXES = vocab.sequence("data", "act_suffixes")
_ACT_MARKS = vocab.words("data", "act_marks")
_TOKEN = re.compile(r"[a-z][a-z'-]*|[,:;()]")
_CLAUSE_MARKS = frozenset({":", ";", "(", ")"})
_DETERMINERS = frozenset({"a", "an", "the", "each", "every", "this", "its", "their", "your", "our"})
_PROVENANCE = vocab.words("sentences", "provenance_verbs")
_LEADING_ADJECTIVES = vocab.words("data", "leading_adjectives")
_VALUE_KEYS = vocab.words("data", "value_keys")
_SETTING_HEADS = vocab.words("data", "setting_heads")
_LEAVING_MARKS = vocab.words("data", "leaving_marks")
_GIVEN_BACK = frozenset({"return", "returns"})
_SENT_TO = frozenset({"to", "into", "onto", "with", "by", "via"})
"""Words after a participle that name where the data went or what changed it."""
_DESTRUCTIVE_STEMS = frozenset(w for w in vocab.words("verbs", "destructive") if len(w) > 2)
_ACCOUNTS = READ_HEADS - ACTING_HEADS
"""Read heads nothing files or writes ("status", "history"; not "report", "log", "queue")."""
_HEADS = vocab.words("data", "data_heads")
_DATA_HEADS = READ_HEADS | _HEADS
"""Heads of a phrase that name what is given back ("Product details", "Profit and loss report")."""
_FUNCTION_WORDS = (
    _DETERMINERS | _STOPS | frozenset({"and", "but", "if", "into", "nor", "onto", "upon"})
)
"""Words the lexicon leaves unknown that are never a noun phrase's ("a", "the", "with", "into")."""


def _changes(word: str) -> bool:
    """Whether the word is a change or destructive verb in any of its forms."""
    hit = verb_of(word, False)
    return hit is not None and hit[0] != "read"


def _stem_candidates(stem: str) -> list[str]:
    """What a verb may have been before a suffix was added (creat-, cancell-, submiss-)."""
    out = [stem, stem + "e", stem + "ate"]
    if len(stem) > 2 and stem[-1] == stem[-2]:
        out.append(stem[:-1])  # cancell-ation
    if stem.endswith("ss"):
        out.append(stem[:-2] + "t")  # submiss-ion
    if stem.endswith("r"):
        out.append(stem[:-1] + "er")  # registr-ation
    if stem.endswith("ic"):
        out.append(stem[:-2] + "y")  # notific-ation
    return out


@lru_cache(maxsize=4096)
def act_noun(word: str) -> str | None:
    """The change verb a noun names the act of ("deletion" -> delete, "bookings" -> book)."""
    if _changes(word):
        return word
    singular = word[:-1] if word.endswith("s") and not word.endswith("ss") else word
    for suffix in _ACT_SUFFIXES:
        if singular.endswith(suffix) and len(singular) > len(suffix) + 2:
            for stem in _stem_candidates(singular[: -len(suffix)]):
                if _changes(stem):
                    return stem
    return None


def _act(word: str) -> bool:
    """Whether a word of a verbless name or phrase names an act (`refunds`; not `issues`)."""
    return act_noun(word) is not None and not record_plural(word)


def _names_data(word: str) -> bool:
    """Whether a noun of the opening phrase names data: a plural, a data noun, a read head."""
    return _plural(word) or bool(stems(word) & (DATA_NOUNS | _DATA_HEADS))


def _opening_phrase(
    words: list[str], given_back: bool = False, name_head: str = "", chosen: bool = False
) -> list[str] | None:
    """The sentence's opening noun phrase, or None when it may open with a verb.

    A phrase headed by what it gives back opens with no imperative when the name ends with the
    same head (`ProductDetails`: "Product details at a store"); `node_drain`'s "Drain info for
    a node" drains.

    After "Returns" (`given_back`) the phrase is that verb's object: "free lane slots" is no
    imperative. When the arguments only choose (`chosen`), a plural's participle that places
    its records ends the phrase (`_placed_records`).
    """
    while words[:1] and words[0] in _DETERMINERS:
        words = words[1:]  # "The account's watchlists."
    end = next((i for i, w in enumerate(words) if w in _STOPS or w in _CLAUSE_MARKS), len(words))
    if words[end : end + 1] == ["to"] or set(words[:end]) & _ACT_MARKS:
        return None  # "Pager alerts to the on-call engineer", "New discount codes": sent, made
    if chosen and _placed_records(words, end):
        end -= 1  # "Credits consumed per warehouse": the phrase is "Credits"
    phrase = [w for w in words[:end] if w not in (",", "and", "or")]
    first = words[0].removesuffix("'s") if words else ""  # "Today's ...": a possessive
    # "Enrolled MFA factors", "Submitted scorecards": a participle before its noun describes it.
    described = _changes(first) and first.endswith("ed") and len(phrase) > 1
    described = described and _noun_like(phrase[1])  # not "Desired capacity": a value to set
    counted = len(phrase) > 1 and bool(stems(phrase[-1]) & _ACCOUNTS)  # "CPU usage metrics"
    if not phrase or (_may_lead_as_verb(first) and not described):
        return None
    if not _known(first) and not counted:
        return None  # "Onboards customers": a word no lexicon knows may be the verb
    modifiers = _modifiers(words[:end], described)
    if not all(map(_modifier, modifiers)) or ";" in words or _trailing_participle(words[:end]):
        return None  # "Onboards a new customer ...", "balance, credited by ...": acts
    bare = not words[0].endswith(("ing", "ed"))  # "Cupping scores": no imperative's form
    imperative = bare and can_be_verb(words[0]) and words[0] not in _LEADING_ADJECTIVES
    imperative = imperative and not given_back
    accounted = counted  # "Service status"
    # "Product details at a store": a head the name ends with, after a word no verb list knows
    headed = len(phrase) > 1 and bool(stems(phrase[-1]) & (_ACCOUNTS | _HEADS) & stems(name_head))
    headed = headed and verb_of(first, False) is None and not stems(first) & SOURCE_READS
    accounted = accounted or headed
    if imperative and not accounted and end > 1 and words[1] not in (",", "and", "or"):
        return None  # "Stock the shelves", "Stock items": an imperative with its object
    if end > 1 and not described and not noun_or_adjective(first) and can_be_verb(words[1]):
        return None  # "Temporarily hold tickets": an adverb before an imperative
    return phrase


def _modifiers(phrase: list[str], described: bool) -> list[str]:
    """The words of an opening phrase that must each modify or head it.

    Not a participle that names which records ("Submitted scorecards" when `described`,
    "including expired and deleted ones"), nor the joins of a list.
    """
    return [
        w
        for i, w in enumerate(phrase)
        if w not in (",", "and", "or")
        and not (described and i == 0)
        and not before_its_plural(phrase, i)
    ]


def _noun_like(word: str) -> bool:
    """Whether a word may stand in a noun phrase: a noun, or a word no lexicon knows (`MFA`)."""
    return can_be_noun(word) or unknown_word(word)


def _known(word: str) -> bool:
    """Whether the lexicon knows the word, or each part of a hyphenated one ("end-of-day")."""
    parts = word.split("-")
    return all(
        (part and not unknown_word(part)) or part in _FUNCTION_WORDS or part in _DATA_HEADS
        for part in parts
    )


def _may_lead_as_verb(word: str) -> bool:
    """Whether a phrase's first word can only be a verb that may act ("Generating invoices").

    A gerund of a verb that neither changes nor makes names an activity ("Tracking events",
    "Watering guidance"); any other word that is only a verb leads as one.
    """
    if word.endswith("ing") and not _changes(word) and not stems(word) & VALUE_MAKERS:
        return False
    return only_a_verb(word)


def _participle(word: str) -> bool:
    """Whether the word may be a past participle ("reported", "credited", "overwritten")."""
    if word.endswith("en"):
        return only_a_verb(word)  # "overwritten", "written"; not "given", "open"
    return word.endswith("ed") and (can_be_verb(word) or unknown_word(word))


_LISTING = frozenset({"including", "incl", "namely", "such"})
"""Words that open a list of what a read includes ("including deleted ones")."""
_CALL_TIMES = frozenset({"call", "called", "calling", "now", "immediately", "request"})
"""Words that place a participle's act at the call ("by this call", "now"): the call's own."""
_PLACES = frozenset(
    {"across", "at", "between", "by", "during", "for", "in", "on", "over", "per", "since", "within"}
)
"""Prepositions after a plural's participle that say where or when its records came to be.

Not "from": "Jobs claimed from the queue" may be the claim."""


def _placed_records(words: list[str], end: int) -> bool:
    """Whether the phrase ends in a plural and its participle, placed by the next word.

    "Credits consumed per warehouse", "Timers and routines configured on the bridge", "Scores
    recorded for a coffee": the participle of a verb that makes records (`provenance_verbs`)
    says how they came to be (only when the arguments only choose them). Not another verb's
    ("Invoices voided for a customer"), not a destination ("Payments sent to a friend"), not a
    singular ("Message posted in a channel" may be the post).
    """
    if end < 2 or end >= len(words) or words[end] not in _PLACES or _CALL_TIMES & set(words):
        return False  # "Backups created for the database by this call": made now
    done = words[end - 1]
    return _participle(done) and bool(stems(done) & _PROVENANCE) and _plural(words[end - 2])


def _trailing_participle(words: list[str]) -> bool:
    """Whether a participle in the phrase follows its head ("the balance, credited ...").

    Before a noun it describes ("Last reported position"); after one it may say what the call
    does to it.
    """
    for i, word in enumerate(words):
        following = words[i + 1] if i + 1 < len(words) else ""
        described = bool(following) and (can_be_noun(following) or unknown_word(following))
        if _participle(word) and not described:
            return True
    return False


def _modifier(word: str) -> bool:
    """Whether a word of the opening phrase modifies or heads it ("hourly", "today's", "GPS").

    A word the lexicon does not know (an acronym, a product's name) stands in a noun phrase;
    the phrase's first word must be known (`_opening_phrase`), and a known word names the data.
    """
    if word.endswith("'s"):
        word = word[:-2]
    if word.endswith(("ed", "ing")) and can_be_verb(word):  # "Last reported", "tasting notes"
        return not _changes(word)  # not "cancelled", "sending"
    return noun_or_modifier(word) or (unknown_word(word) and word not in _FUNCTION_WORDS)


def _given_back(words: list[str], name_words: tuple[str, ...]) -> list[str]:
    """The words after a leading "Returns" and its determiners, or the words as they were.

    "Returns live positions of trams" names what it gives back, unless the name itself returns
    something (`return_book`: "Returns a book to the shelf").
    """
    if words[:1] not in (["returns"], ["return"]) or _GIVEN_BACK & set(name_words):
        return words
    rest = words[1:]
    while rest and (rest[0] in _DETERMINERS or rest[0].endswith("'s")):
        rest = rest[1:]
    return rest


def described_as_data(
    name_words: tuple[str, ...], description: str | None, schema: dict[str, object] | None = None
) -> str | None:
    """The noun phrase by which a verbless description names the data a tool returns, or None.

    `name_words` are the tool name's words with the server's own name set aside; any of them
    that is a verb keeps the tool to its other readings. A leading "Returns" gives back what
    follows it ("Returns today's walks for a walker"). An argument of `schema` that carries the
    value the phrase names keeps the tool held (`_sets_a_value`).
    """
    if any(
        (_changes(w) and not record_plural(w)) or (only_a_verb(w) and not w.endswith("ing"))
        for w in name_words
    ):
        return None  # a gerund names an activity: `tasting_notes`
    said = _TOKEN.findall(without_contents(first_sentence(description)).lower())
    words = _given_back(said, name_words)
    head = name_words[-1] if name_words else ""
    chosen = selects_only(schema) is not False
    phrase = _opening_phrase(words, words is not said, head, chosen)
    if phrase is not None and said_later(description, name_words) is not None:
        return None  # "Backup data for an instance. A new backup is taken at call time."
    if phrase is None:
        return None
    described = phrase[0].endswith("ed") and len(phrase) > 1  # "Submitted scorecards"
    if described and _changes(phrase[0]) and selects_only(schema) is False:
        return None  # "Posted announcements ..." (text), "Replaced topics ..." (names): acts
    heads = _heads(words)
    if any(_act(w) for w in phrase[1 if described else 0 :] if w in heads):
        return None
    if not any(_names_data(w) for w in phrase) or _acts_later(words, len(phrase), chosen):
        return None
    if stems(phrase[-1]) & _HEADS and not only_chooses(properties_of(schema)):
        return None  # "Contact details." (contact_id, email, phone): the details may be set
    if set(words) & _LEAVING_MARKS or _sets_a_value(phrase, schema) is not None:
        return None  # "... for an outgoing payment"; "Price of a variant" (variant_id, price)
    if lists_its_arguments(description, schema) is not None:
        return None  # "Video metadata: title, description" (video_id, title, description)
    return " ".join(phrase)


_QUERY_OBJECTS = frozenset({"filter", "filters", "options", "params", "query", "where"})


def _an_object(properties: dict[str, object]) -> str | None:
    """An object argument that is no query's filter: what a verbless description's call sets."""
    for key, spec in properties.items():
        words = argument_words(key)
        shaped = isinstance(spec, dict) and spec.get("type") == "object"
        if shaped and words and not {words[-1]} & (_QUERY_OBJECTS | FILTER_WORDS):
            return str(key)
    return None


def _heads(words: list[str]) -> set[str]:
    """The heads of a sentence's opening phrase: its last noun, and those coordinated with it.

    "Available delivery and pickup windows": the windows; "delivery" names which, as "payment"
    does in "payment methods". "Payments, refunds and fees" lists three heads: a one-word last
    part makes the words before each "and", "or" or "," heads too.
    """
    end = next((i for i, w in enumerate(words) if w in _STOPS or w in _CLAUSE_MARKS), len(words))
    raw = words[:end]
    joins = [i for i, w in enumerate(raw) if w in (",", "and", "or")]
    if not raw:
        return set()
    heads = {raw[-1]}
    if joins and len(raw) - joins[-1] - 1 == 1:
        heads |= {raw[i - 1] for i in joins if i > 0 and raw[i - 1] not in (",", "and", "or")}
    return heads


def _sets_a_value(phrase: list[str], schema: dict[str, object] | None) -> str | None:
    """The argument that carries the value a verbless description names, or None.

    A description may name the value a tool sets as if it were data: "Price of a product
    variant" (variant_id, price), "Working location of the user for a date" (date, location),
    "Watering duration for a zone" (zone_id, minutes). Such an argument is named by the phrase's
    head (`_repeats_head`: "Feeding portions" (portions)); or is one that carries what is
    written (`_written`: a `value`, a `body`, a list beside an id); or, under a singular head, a
    number or a flag that bounds nothing (`window_keys`, `selector_keys`, `filter_words`) beside
    another argument or after a gerund ("Brewing strength and cup count" (strength, cups)).
    Numbers alone may still choose what to read ("Stations near a point" (lat, lng, radius)),
    and so may a number for a series ("Soil moisture readings" (field_id, depth_cm)).
    """
    properties = properties_of(schema)
    repeated = repeats_head(phrase[-1], properties) or _written(properties)
    if repeated is not None:
        return repeated
    shaped = _an_object(properties)  # "Notification preferences of the user" (prefs: object)
    if shaped is not None:
        return shaped
    gerund, single = phrase[0].endswith("ing"), not _plural(phrase[-1])
    numbers = [key for key, spec in properties.items() if a_value(key, spec)]
    if numbers and single and (gerund or len(numbers) < len(properties)):
        return numbers[0]
    return None


_LISTED = re.compile(r"[:(]([^:()]+)")


def lists_its_arguments(description: str | None, schema: dict[str, object] | None) -> str | None:
    """An argument that is no selector named in the fields a description lists, or None.

    "Video metadata: title, description, tags" (video_id, title, description): the fields it
    lists are what the call writes.
    """
    keys = {" ".join(argument_words(k)): str(k) for k in properties_of(schema)}
    for listed in _LISTED.findall(first_sentence(description).lower()):
        for item in re.split(r"\s*,\s*|\s+and\s+|\s+or\s+", listed):
            key = keys.get(item.strip().replace("_", " "))
            if key is not None and not selects(argument_words(key)):
                return key
    return None


def named_value(name_words: tuple[str, ...], schema: dict[str, object] | None) -> str | None:
    """The argument that sets what a verbless name names, or None.

    `stock_count(sku, count)`, `service_status(bay_id, status)`, `status(status_text)`: an
    argument repeats the name's head, or carries what is written (`product_status(product_id,
    value)`), or switches it (`sentry_status(vehicle_id, enabled)`). Under a head that names a
    value (`[data] data_nouns`: `inventory_level(item_id, available)`), a number beside another
    argument sets it too.
    """
    if not name_words:
        return None
    properties = properties_of(schema)
    head = name_words[-1]
    repeated = repeats_head(head, properties, any_word=True)
    repeated = repeated or _written(properties, False)
    if repeated is None and stems(head) & _SETTING_HEADS:
        repeated = switch(properties)  # not `browser_snapshot(boxes)`: an option of a read
    if repeated is not None or not stems(head) & DATA_NOUNS:
        return repeated
    numbers = [key for key, spec in properties.items() if a_value(key, spec)]
    return numbers[0] if numbers and len(numbers) < len(properties) else None


def headed_by_data(name_words: tuple[str, ...]) -> bool:
    """Whether a name ends in a head nothing acts on: `boat_details`, `job_timeline`, `status`.

    On a server whose brand holds a change word after its first (BerthBook) such a name is no
    act's object (`BerthBookBoatDetails`); where the change word leads, it may be the tool's
    own verb (`delete_user_data` on gdpr-delete, `send_invoice_details` on Send).
    """
    return bool(name_words) and bool(stems(name_words[-1]) & (_ACCOUNTS | _HEADS))


def _written(properties: dict[str, object], lists: bool = True) -> str | None:
    """The argument that carries what a call writes, whatever the phrase names, or None.

    One named as a payload (`[data] value_keys`: value, body, content, amount, state), or (with
    `lists`) a list of things beside an id: `users` or `urls` beside the record they are added
    to. A list of ids (`variant_ids`) or of filters (`fields`, `statuses`) chooses what is read.
    A name read by its verb (`plan_estimate(plan_id, procedures)`) takes lists as its input, so
    `named_value` leaves them out.
    """
    ids = [k for k in properties if argument_words(k)[-1:] in (["id"], ["uuid"])]
    for key, spec in properties.items():
        words = argument_words(key)
        if words and words[-1] in _VALUE_KEYS:
            return str(key)
        listed = lists and isinstance(spec, dict) and spec.get("type") == "array"
        chosen = not words or words[-1] == "ids" or bool(FILTER_WORDS & {words[0], words[-1]})
        if listed and ids and not chosen:
            return str(key)
    return None


def _acts_later(words: list[str], start: int, chosen: bool = False) -> bool:
    """Whether a change word past the opening phrase may say what the tool does.

    Any form counts ("the round is fixed and every player is emailed"), except a bare noun
    right after a determiner ("for a store", "each paper stock") or after a preposition and
    one noun ("in pickup order").
    """
    for i in range(start, len(words)):
        if chosen and _placed_records(words, i + 1):
            continue  # "Timers configured on the bridge" (no argument but a choice)
        if _participle(words[i]) and not _reads(words[i]):
            after = words[i + 1] if i + 1 < len(words) else ""
            if words[i - 1] == "," or after in _SENT_TO:
                return True  # ", texted to the roaster", "logged to the sheet", "increased by"
        if words[i + 1 : i + 2] in (["to"], ["into"]) and _verb_not_plural(words[i]):
            return True  # "with end-of-day sweep to savings": something goes somewhere
        if not _changes(words[i]) or _describes(words, i):
            continue  # "including expired and deleted ones": which records, not an act
        if words[i].endswith("ed") and not _before_its_noun(words, i):
            return True  # "is fixed"; not "for a saved roast profile"
        if words[i - 1] in _DETERMINERS:
            continue
        if words[i].endswith("s") or not _after_preposition(words, i):
            return True
    return False


def _describes(words: list[str], i: int) -> bool:
    """Whether a participle past a verbless opening names which records, not the call's act.

    A destructive one only in a list of what is included ("including expired and deleted
    ones"): "Returns the names of deleted branches" may be what a cleanup gives back.
    """
    if not before_its_plural(words, i):
        return False
    hit = verb_of(words[i], False)
    return hit is None or hit[0] != "destructive" or bool(_LISTING & set(words[:i]))


def _verb_not_plural(word: str) -> bool:
    """Whether the word may be a verb that is not a read's and not a plural noun."""
    return can_be_verb(word) and not _reads(word) and not _plural(word)


def _reads(word: str) -> bool:
    """Whether the word is a form of a read verb ("filtered", "sorted")."""
    hit = verb_of(word, False)
    return hit is not None and hit[0] == "read"


def _before_its_noun(words: list[str], i: int) -> bool:
    """Whether a participle stands between a determiner and a noun ("a saved roast profile")."""
    following = words[i + 1] if i + 1 < len(words) else ""
    return i > 0 and words[i - 1] in _DETERMINERS and can_be_noun(following)


def _after_preposition(words: list[str], i: int) -> bool:
    """Whether `words[i]` heads a noun phrase after a preposition or a determiner.

    One or two nouns may stand before it: "in pickup order", "in the co-op store", "from the
    hive scale".
    """
    for back in (1, 2):
        if i - back - 1 < 0:
            return False
        before, opener = words[i - back], words[i - back - 1]
        if (not can_be_noun(before) and _known(before)) or _changes(before):
            return False
        if opener in _STOPS or opener in _DETERMINERS:
            return True
    return False


def _paid_out(word: str) -> bool:
    """Whether a word is made on a destructive verb ("payouts", "sendouts"): money or mail left."""
    return any(word.startswith(verb) for verb in _DESTRUCTIVE_STEMS)


def _plural(word: str) -> bool:
    """Whether the word can be a plural noun ("fines", "takings"): never a name's bare verb.

    A word the lexicon does not know ("signups") may modify data but never names it alone.
    """
    if not word.endswith("s") or word.endswith("ss"):
        return False
    return can_be_noun(word) and not singular_noun(word)


def named_by_arguments(
    name_words: tuple[str, ...],
    description: str | None,
    schema: dict[str, object] | None,
    branded: bool = False,
) -> str | None:
    """The data a verbless name with no description names, when its arguments only choose it.

    `shelf.fines(patron_id)`, `WashDailyTakings(site_id, date)`: every word a noun or a modifier,
    none a change word or a noun made from one (`refunds`, `booking_history` stay held), the
    first no bare verb (`export_report` may export), the head names data (a plural, a data noun),
    and every argument an id, a code, a date or a page. A `message` or an `amount` may be written.
    Arguments that shape a list (a query, a page, how many: `_shapes_a_list`) say the name lists
    records, so a record plural (`schedules(query)`) and a first word no verb vocabulary knows
    (`sprint_issues(sprint_id, jql, max_results)`) may stand in it.
    """
    selects = selects_only(schema)
    if first_sentence(description) or not name_words or selects is False:
        return None
    listed = selects is None
    if listed and repeats_head(name_words[-1], properties_of(schema), any_word=True) is not None:
        return None  # `spending_limits(card_id, limit)`: the list's own word is the value set
    bounded = any(set(argument_words(k)[-1:]) & WINDOW_KEYS for k in properties_of(schema))
    if bounded and stems(name_words[-1]) & DATA_NOUNS:
        return None  # `project_quota(project, limit, offset)`: the limit may be the quota
    if any(
        (_changes(w) if listed else act_noun(w) is not None) or not _modifier(w) or _paid_out(w)
        for w in name_words
        if not (listed and record_plural(w))
    ):
        return None
    if unknown_word(name_words[0]) and len(name_words) > 1:
        return None  # `onboard_customers`: a word no lexicon knows may be the verb
    first, head = name_words[0], name_words[-1]
    # `BerthBookBoatDetails` (`branded`: after a brand of two words) may open with a noun that
    # is also a verb; `claim_reward_details` on Claim may be the claim of a reward.
    headed = branded and len(name_words) > 1 and headed_by_data(name_words)
    bare = can_be_verb(first) and not _plural(first) and not first.endswith("ing")
    noun = verb_of(first, False) is None and can_be_noun(first)
    bare = bare and not ((listed or headed) and noun)
    if bare or not (_plural(head) or stems(head) & DATA_NOUNS or headed):
        return None  # `export_report`, `user_report`: the verb may be the first or last word
    return " ".join(name_words)
