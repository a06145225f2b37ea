"""Deterministic tool classification: server config, MCP annotations, then the name and description.

Precedence: config patterns decide outright; a trusted server's annotations decide next. A name
that only acts on the server's own session (`browser_hover`, `go_back`, `browser_tabs`) with a
description that names no change clears the tool even when an untrusted server declares it a
write: the declaration says the page changes, not that anything lasting does. So does a
demonstration ("Demonstrates a long running operation") or a switch of simulated notifications
that the server declares non-destructive and closed-world. Arithmetic on numbers ("Add two
numbers") and signing the session's user in or out clear a tool no annotation declares a
write (`common.safety.readings`). Then whatever says a tool
changes something (the name's verb, a destructive verb in the description, a `readOnlyHint:
false` or `destructiveHint` annotation) makes it irreversible; an untrusted `readOnlyHint: true`
clears it only when the name (or, for a name without a verb, the description) agrees; then the
name's read verb, unless the tool's own first sentence leads with a change verb ("Write content
to a file" for `echo`); then the description's; nothing at all leaves it irreversible, unless
the `semantic` extra finds its sentence close to labelled read-only tools and far from every
write (`common.safety.likeness`, which only ever clears that "no signal" default). How names and
descriptions are read lives in `common.safety.wording`.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Literal, TypedDict

from common.mcp.config import ServerConfig
from common.safety.answerers import asks_an_answerer
from common.safety.choices import acting_choice, acting_flag
from common.safety.clauses import (
    acts_on_its_record,
    also_changes,
    bare_imperative,
    delivered,
    later_change,
    records_something,
    used_up,
)
from common.safety.declarations import declared_read_only, sent_elsewhere
from common.safety.likeness import likeness_reason
from common.safety.made_things import converts_record, grants_access
from common.safety.names import (
    LISTING_VERBS,
    READ_HEADS,
    own_words,
    plural_noun,
    product_verb,
    read_as,
    read_tool_name,
)
from common.safety.noun_reads import (
    DATA_NOUNS,
    described_as_data,
    headed_by_data,
    lists_its_arguments,
    named_by_arguments,
    named_value,
)
from common.safety.paging import paged_list, paging_argument
from common.safety.parts import can_be_verb
from common.safety.phrases import without_caller_time
from common.safety.readings import (
    computation,
    demonstration,
    physical_effect,
    session_only,
    sign_in,
    simulated_switch,
    tab_action,
)
from common.safety.state_heads import reported_state
from common.safety.what_if import what_if
from common.safety.word_order import read_verb_last, verbs_last
from common.safety.wording import (
    NOUN_LIKE_READS,
    Reading,
    acted_on_prefix,
    leading_change,
    mentions_change,
    preamble_destroys,
    read_description,
)

if TYPE_CHECKING:
    from mcp.types import Tool

VerdictSource = Literal["config", "annotation", "heuristic", "llm", "default"]
"""Which signal decided a tool's classification."""


class ToolVerdict(TypedDict):
    """The guard's decision on one tool, with where it came from."""

    server: str
    """Expert (MCP server) name."""
    tool: str
    """Tool name as the server lists it."""
    irreversible: bool
    """Whether a call needs a human's approval."""
    source: VerdictSource
    """The signal that decided."""
    reason: str
    """Why, in words a user can check."""


def _config_verdict(tool: str, cfg: ServerConfig) -> tuple[bool, str] | None:
    for pattern in cfg.irreversible_tools:
        if fnmatchcase(tool, pattern):
            return True, f"matches irreversible_tools pattern {pattern!r}"
    for pattern in cfg.reversible_tools:
        if fnmatchcase(tool, pattern):
            return False, f"matches reversible_tools pattern {pattern!r}"
    if cfg.sandboxed:
        return False, "the server is sandboxed: its effects stay in an isolated workspace"
    return None


def read_only_hint_counts(
    tool: Tool, cfg: ServerConfig, *, strict: bool = False, server: str = ""
) -> bool:
    """Whether the tool's `readOnlyHint: true` clears it on this server.

    A trusted server's hint counts. An untrusted hint counts only when the name agrees: its verb
    reads (`git_log`), or it has no verb this guard knows (`sequentialthinking`) and the
    description does not say the tool changes anything. A mislabelled tool whose name or
    description says what it changes gets no pass. `strict` (the safe default's fallback, when
    the analyser could not be consulted) wants the name's own read verb. The name is read on its
    `server` (`common.safety.names`: the server's own name at its front set aside).
    """
    ann = tool.annotations
    if ann is None or ann.read_only_hint is not True or ann.destructive_hint is True:
        return False
    if cfg.trust_annotations:
        return True
    name = read_tool_name(server, tool.name, tool.description)
    description = read_description(tool.description)
    if description.leaning in ("change", "destructive") or mentions_change(tool.description):
        return False
    if physical_effect(tool.description) is not None:
        return False
    if name.leaning == "read":
        return True
    return not strict and name.leaning is None


def _open_world(tool: Tool) -> str:
    """What the verdict reports about openWorldHint (it decides nothing by itself)."""
    ann = tool.annotations
    if ann is not None and ann.open_world_hint:
        return "; it reaches outside systems (openWorldHint=true)"
    return ""


def _annotation_verdict(tool: Tool, cfg: ServerConfig, server: str) -> tuple[bool, str] | None:
    """What the annotations say when they can decide: a trusted server's, or a stricter one's."""
    ann = tool.annotations
    if ann is None or (ann.read_only_hint is None and ann.destructive_hint is None):
        return None
    if read_only_hint_counts(tool, cfg, server=server):
        name = read_tool_name(server, tool.name, tool.description)
        if cfg.trust_annotations:
            agreement = ""
        elif name.leaning == "read":
            agreement = f", and its name agrees ({name.verb!r})"
        else:
            agreement = ", and nothing in its name or description disagrees"
        return False, f"annotated readOnlyHint=true{agreement}"
    if ann.read_only_hint is True and ann.destructive_hint is not True:
        return None  # an untrusted hint nothing agrees with: the other signals decide
    # Per the MCP spec destructiveHint defaults to true for a tool that is not read-only.
    if ann.destructive_hint:
        return True, "annotated destructiveHint=true"
    if ann.destructive_hint is None:
        return True, "annotated readOnlyHint=false; destructiveHint defaults to true"
    if cfg.trust_annotations:
        return False, "annotated destructiveHint=false on a trusted server (additive only)"
    idempotent = " and idempotentHint=true" if ann.idempotent_hint else ""
    return True, (
        f"annotated as a write (readOnlyHint=false, destructiveHint=false{idempotent}) on a "
        "server whose hints are not trusted: weak evidence, not clearance"
    )


def _session_reason(tool: Tool) -> str | None:
    """Why a tool only acts on the server's own session, or None when its words say otherwise.

    Session actions (`browser_hover`) and tab management (`browser_tabs`) clear a tool whatever
    an untrusted server declares.
    """
    action = session_only(tool.name, tool.description)
    if action is not None:
        return f"its name only acts on the server's own session ({action!r})"
    tabs = tab_action(tool.name, tool.description)
    if tabs is not None:
        return f"it only manages the session's browser tabs ({tabs!r})"
    return None


def _demo_reason(tool: Tool) -> str | None:
    """Why a tool is only a demonstration or a switch of simulated notifications, or None.

    Both readings rest on a description, which a sloppy server writes more freely than a name,
    so they also need the server's own word that the tool is non-destructive and closed-world.
    """
    ann = tool.annotations
    if ann is None or ann.destructive_hint is not False or ann.open_world_hint is not False:
        return None
    declared = "and is declared non-destructive and closed-world"
    demo = demonstration(tool.name, tool.description)
    if demo is not None:
        return f"its description says it is a demonstration ({demo!r}) {declared}"
    switch = simulated_switch(tool.name, tool.description)
    if switch is not None:
        return f"it only switches simulated notifications to this session ({switch!r}) {declared}"
    return None


def _harmless_reason(tool: Tool) -> str | None:
    """Why a tool whose change word misleads only computes or signs the session in, or None.

    "Add two numbers" with number parameters adds no record; "Log out the current user" changes
    who the session acts as, nothing lasting. Both readings want closed vocabularies and are
    asked only when no annotation declares the tool a write.
    """
    arithmetic = computation(tool.name, tool.description, tool.input_schema)
    if arithmetic is not None:
        return f"it only does arithmetic on numbers ({arithmetic!r}) and takes only numbers"
    signs = sign_in(tool.name, tool.description)
    if signs is not None:
        return f"it only signs the session's user in or out ({signs!r})"
    return None


def _read_name_verdict(
    tool: Tool, verb: str | None, why: str, server: str
) -> tuple[bool, VerdictSource, str]:
    """A read-named tool's verdict: cleared unless its own sentence leads with or adds a change."""
    leading = leading_change(tool.description)
    if leading is not None:
        return True, "heuristic", f"{leading.why}, over its name's {verb!r}"
    bare = bare_imperative(tool.description, own_words(server, tool.name)[1])
    if bare is not None:
        why = f"its description leads with the bare verb {bare!r}, which its name does not hold"
        return True, "heuristic", why
    valued = _value_set(tool, verb, server)
    if valued is not None:
        return True, "heuristic", f"its name names a value its argument {valued!r} sets"
    converted = converts_record(own_words(server, tool.name)[1], verb, tool.input_schema)
    if converted is not None:
        return True, "heuristic", f"it turns a stored record into another ({converted!r})"
    granted = grants_access(own_words(server, tool.name)[1])
    if granted is not None:
        return True, "heuristic", f"its name issues access to whoever holds it ({granted!r})"
    acted = acted_on_prefix(read_as(server, tool.name), tool.description)
    if acted is not None:
        return True, "heuristic", f"its description does what its name calls a noun ({acted!r})"
    sent = sent_elsewhere(own_words(server, tool.name)[1], tool.description)
    if sent is not None:
        return True, "heuristic", f"its description sends what its name names ({sent!r})"
    added = also_changes(tool.description) or later_change(tool.description)
    added = added or acts_on_its_record(tool.description, own_words(server, tool.name)[1])
    if added is not None:
        return True, "heuristic", f"its description says it also changes something ({added!r})"
    recorded = records_something(tool.description)
    if recorded is not None:
        return True, "heuristic", f"its description says it records something ({recorded!r})"
    channel = delivered(tool.description)
    if channel is not None:
        return True, "heuristic", f"its description says it goes out {channel!r}"
    once = used_up(tool.description)
    if once is not None:
        return True, "heuristic", f"what it reads works once, and reading it uses it up ({once!r})"
    return False, "heuristic", why


def _value_set(tool: Tool, verb: str | None, server: str) -> str | None:
    """The argument that sets what a name read by its noun names (`stock_count(sku, count)`).

    Only a name headed by its read word used as a noun (`status`, `stock_count`, `level`) may
    name a value to set; a read verb (`estimate_fee(months)`, `search(search_depth)`) asks.
    """
    if verb is None or not (verb in NOUN_LIKE_READS or verb in READ_HEADS | DATA_NOUNS):
        return None
    rest = own_words(server, tool.name)[1]
    if not rest or rest[-1] != verb or (len(rest) == 1 and can_be_verb(verb)):
        return None
    if len(rest) > 1 and plural_noun(rest[-2]) and verb in LISTING_VERBS:
        return None  # `conversations_list(state)`: what is listed comes first, a state filters it
    if verb in LISTING_VERBS and paging_argument(tool.input_schema) is not None:
        return None  # `pullrequests_list(state, page)`: a state beside a page filters the list
    return named_value(rest, tool.input_schema) or lists_its_arguments(
        tool.description, tool.input_schema
    )


def _default_reason(tool: Tool, untrusted_hint: str) -> str:
    """Why nothing cleared a tool, naming an untrusted readOnlyHint and what disagrees with it."""
    reason = "no signal says it is read-only, so it is treated as irreversible"
    if untrusted_hint:
        change = mentions_change(tool.description)
        reason += (
            f" (readOnlyHint=true is not trusted: its description mentions {change!r})"
            if change
            else " (readOnlyHint=true is not trusted and nothing agrees)"
        )
    return reason


def _by_words(
    tool: Tool, server: str, name: Reading, untrusted_hint: str
) -> tuple[bool, VerdictSource, str]:
    """The decision when no annotation decides: a read name, the description, then a default.

    A name with no verb but its server's own name, which is a change word (`book-room` on book),
    is held by that word when its description says nothing either: the product's name does not
    decide alone, but nothing else says the tool only reads. A description that declares the tool
    only reads ("Reports only.", "Read-only.") clears it when nothing else signals a change.
    `name` is the name's reading on its server (`_name_reading`).
    """
    description = read_description(tool.description)
    if name.leaning == "read":
        return _read_name_verdict(tool, name.verb, name.why, server)
    if description.leaning is not None:
        added = None
        if description.leaning == "read":  # "Shows ... Followers also get a notification."
            added = also_changes(tool.description) or later_change(tool.description)
        if added is not None:
            return True, "heuristic", f"its description says it also changes something ({added!r})"
        return description.leaning != "read", "heuristic", description.why
    declared = declared_read_only(tool.description)
    if declared is not None:  # "Reports only.": nothing but the server's name says otherwise
        return False, "heuristic", f"its description declares it only reads ({declared!r})"
    named = _named_data(tool, server)
    if named is not None:
        return False, "heuristic", named
    product = product_verb(server, tool.name, tool.description)
    if product is not None:
        why = f"its name has no verb besides its server's own name, a change word ({product!r})"
        return True, "heuristic", why + untrusted_hint
    alike = likeness_reason(tool.description)  # None unless the `semantic` extra is installed
    if alike is not None:
        return False, "heuristic", alike
    return True, "default", _default_reason(tool, untrusted_hint)


def _named_data(tool: Tool, server: str) -> str | None:
    """Why a verbless tool is cleared by a description that names data or asks an assistant.

    Only when nothing after the opening says it also changes or records something.
    """
    prefix, rest = own_words(server, tool.name)
    product = product_verb(server, tool.name, tool.description)
    # `BerthBookBoatDetails`: a brand's later word, no verb's place; not `delete_user_data`
    branded = len(prefix) > 1 and prefix[0] != product
    by_name = named_by_arguments(rest, tool.description, tool.input_schema, branded)
    if by_name is not None and (product is None or (branded and headed_by_data(rest))):
        return f"its verbless name names data ({by_name!r}) and its arguments only choose it"
    data = described_as_data(rest, tool.description, tool.input_schema)
    asked = None if data is not None else asks_an_answerer(rest, tool.description)
    if data is None and asked is None:
        return None
    text = tool.description
    if also_changes(text) or later_change(text) or records_something(text) or delivered(text):
        return None
    if data is not None:
        return f"its description names the data it returns ({data!r}) and no act"
    return f"its name and description ask an automated answerer ({asked!r})"


def _callers_next_step(tool: Tool, name_leaning: str | None) -> bool:
    """Whether a read-named tool's destructive word is only the caller's next step.

    "Check a message's spam score before sending it" for `check_spam_score`: without the clause
    about what the caller does next, the description destroys nothing. A name that does not read
    (`mailer`: "Validates the email before sending it") keeps the word.
    """
    if name_leaning != "read" or not tool.description:
        return False
    dropped = without_caller_time(tool.description)
    return dropped != tool.description and read_description(dropped).leaning != "destructive"


def _name_reading(tool: Tool, server: str, verbs_last: bool) -> Reading:
    """The tool's name read on its server; on one that names verbs last, its last word first."""
    name = read_tool_name(server, tool.name, tool.description)
    if verbs_last and name.leaning == "change":
        return read_verb_last(server, tool.name, tool.description) or name
    return name


def _by_shape(tool: Tool, server: str) -> str | None:
    """Why a tool's shape clears it though a word of it may change, or None.

    A page of a list, a what-if, a record's state; each asks its description the strict test
    (`common.safety.quiet`).
    """
    args = (server, tool.name, tool.description, tool.input_schema)
    paged = paged_list(*args)
    if paged is not None and physical_effect(tool.description) is None:
        why = f"it hands back a page of a list (its argument {paged!r} asks for the next)"
        return why + " and no word of its name or sentence acts"
    undone = what_if(*args)
    if undone is not None:
        return f"it works out an act its description says is not done ({undone!r})"
    state = reported_state(*args)
    if state is not None:
        return f"its name reports a state or asks who calls ({state!r}); its arguments only choose"
    return None


def _decide(
    tool: Tool, cfg: ServerConfig, server: str, verbs_last: bool
) -> tuple[bool, VerdictSource, str]:
    """The deterministic decision below config: annotations, name, description, default."""
    name = _name_reading(tool, server, verbs_last)
    description = read_description(tool.description)
    by_annotation = _annotation_verdict(tool, cfg, server)
    if by_annotation is not None and cfg.trust_annotations:
        return by_annotation[0], "annotation", by_annotation[1]
    session = _session_reason(tool)
    if session is not None:
        if by_annotation is not None and by_annotation[0]:
            session += f" (the server's hint is not trusted: {by_annotation[1]})"
        return False, "heuristic", session
    demo = None if by_annotation is not None and not by_annotation[0] else _demo_reason(tool)
    if demo is not None:  # only where it changes the verdict: a read's own reason reads better
        return False, "heuristic", demo
    if by_annotation is not None and by_annotation[0]:
        return by_annotation[0], "annotation", by_annotation[1]
    harmless = _harmless_reason(tool) if by_annotation is None else None
    if harmless is not None:
        return False, "heuristic", harmless
    untrusted_hint = (
        " (readOnlyHint not trusted)"
        if tool.annotations is not None and tool.annotations.read_only_hint
        else ""
    )
    shaped = _by_shape(tool, server)
    if shaped is not None:
        return False, "heuristic", shaped
    if name.leaning in ("destructive", "change"):
        return True, "heuristic", name.why + untrusted_hint
    physical = physical_effect(tool.description)
    if physical is not None:  # "Print a test page on the printer": no read name takes it back
        why = f"its description says it makes something physical ({physical!r} on a medium)"
        return True, "heuristic", why + untrusted_hint
    if description.leaning == "destructive" and not _callers_next_step(tool, name.leaning):
        return True, "heuristic", description.why + untrusted_hint
    service = preamble_destroys(tool.description) if name.leaning != "read" else None
    if service is not None:
        return True, "heuristic", f"its description's preamble names {service!r}" + untrusted_hint
    if by_annotation is not None:
        return by_annotation[0], "annotation", by_annotation[1]
    return _by_words(tool, server, name, untrusted_hint)


def classify_tool(
    server: str, tool: Tool, cfg: ServerConfig, *, verbs_last: bool = False
) -> ToolVerdict:
    """Classify one tool by the deterministic signals, in order of precedence.

    `verbs_last`: whether its server names tools resource first and verb last
    (`common.safety.word_order`); a tool classified alone is read verb first.
    """
    by_config = _config_verdict(tool.name, cfg)
    source: VerdictSource
    if by_config is not None:
        irreversible, source, reason = by_config[0], "config", by_config[1]
    else:
        irreversible, source, reason = _decide(tool, cfg, server, verbs_last)
    flag = None if irreversible or source == "config" else acting_flag(tool.input_schema)
    chosen = None if irreversible or source == "config" else acting_choice(tool.input_schema)
    if flag is not None and not cfg.trust_annotations:
        irreversible, source = True, "heuristic"
        reason = f"its argument {flag!r} switches on a change, whatever else it says"
    elif chosen is not None and not cfg.trust_annotations:
        irreversible, source = True, "heuristic"
        reason = f"its argument {chosen!r} chooses an act to carry out, whatever else it says"
    return ToolVerdict(
        server=server,
        tool=tool.name,
        irreversible=irreversible,
        source=source,
        reason=reason + _open_world(tool),
    )


def classify_tools(server: str, tools: list[Tool], cfg: ServerConfig) -> list[ToolVerdict]:
    """Classify every tool of one server, its names read in the order the server writes them."""
    last = verbs_last(server, [t.name for t in tools])
    return [classify_tool(server, t, cfg, verbs_last=last) for t in tools]
