"""Reading tool names and descriptions: leading verbs decide, destructive verbs win anywhere."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.types import Tool, ToolAnnotations

from common.mcp.config import ServerConfig
from common.safety import vocabulary as vocab
from common.safety.classify import classify_tool
from common.safety.names import read_tool_name
from common.safety.parts import can_be_noun, singular_noun
from common.safety.readings import TAB_VERBS, session_action, simulated_switch, tab_action
from common.safety.wording import (
    CHANGE_VERBS,
    DESTRUCTIVE_VERBS,
    OBSERVE_VERBS,
    READ_VERBS,
    first_sentence,
    name_tokens,
    read_description,
    read_name,
    stems,
    verb_of,
)

PLAIN = ServerConfig(command="srv")


def tool(name: str, description: str | None = None, **hints: Any) -> Tool:
    annotations = ToolAnnotations(**hints) if hints else None
    return Tool(name=name, description=description, inputSchema={}, annotations=annotations)


@pytest.mark.parametrize(
    "name",
    [
        "list_commits",
        "git_diff",
        "git_log",
        "git_status",
        "puppeteer_hover",
        "puppeteer_navigate",
        "puppeteer_screenshot",
        "slack_get_channel_history",
        "searchRepositories",
        "get-pull-request-comments",
        "browser.take_screenshot",
        "jira_get_issue",
        "fetch",
    ],
)
def test_a_leading_read_verb_clears_a_name_whatever_nouns_follow(name: str) -> None:
    assert read_name(name).leaning == "read", read_name(name)
    assert classify_tool("srv", tool(name), PLAIN)["irreversible"] is False


@pytest.mark.parametrize(
    ("name", "verb"),
    [
        ("get_and_delete", "delete"),
        ("list_then_send", "send"),
        ("message_send", "send"),
        ("git_push", "push"),
        ("merge_pull_request", "merge"),
        ("revokeToken", "revoke"),
        ("PAY-INVOICE", "pay"),
        ("list_transfers", "transfer"),
        ("search_and_replace", "replace"),
        ("get_or_create_user", "create"),
        ("git_commit", "commit"),
        ("slack_post_message", "post"),
        ("puppeteer_click", "click"),
        ("issue_create", "issue"),  # like `order_create`: the first change word is named
        ("log_event", None),
    ],
)
def test_names_that_change_something_are_held(name: str, verb: str | None) -> None:
    reading = read_name(name)
    if verb is None:
        assert reading.leaning is None  # "log" leading a name records something: no clearance
    else:
        assert reading.leaning in ("destructive", "change")
        assert reading.verb == verb
        assert repr(verb) in reading.why
    assert classify_tool("srv", tool(name), PLAIN)["irreversible"] is True


def test_a_description_adds_risk_only_when_it_says_what_changes() -> None:
    """Mentioning a noun ("commit") is not changing anything; a destructive verb always counts."""
    assert read_description("Shows the commit logs of the repository.").leaning == "read"
    assert read_description("Use this tool to delete a page.").leaning == "destructive"
    assert read_description("Creates a branch.").leaning == "change"
    assert read_description("Returns files, then sends a summary to Slack.").leaning == (
        "destructive"
    )
    # A verb deep in the sentence describes the result, not the tool.
    assert read_description("Provides the files that were added.").leaning is None
    git_diff = tool("git_diff", "Shows differences between branches or commits", readOnlyHint=True)
    assert classify_tool("srv", git_diff, PLAIN)["irreversible"] is False


def test_a_read_name_keeps_its_clearance_against_a_change_worded_description() -> None:
    """`read_query` says "Execute a SELECT": the arguments are checked per call instead."""
    v = classify_tool("srv", tool("read_query", "Execute a SELECT query"), PLAIN)
    assert v["irreversible"] is False
    assert "'read'" in v["reason"]


def test_a_read_name_with_a_destructive_description_is_held() -> None:
    v = classify_tool("srv", tool("get_messages", "Reads and deletes the messages."), PLAIN)
    assert v["irreversible"] is True
    assert "description" in v["reason"]
    assert "'delete'" in v["reason"]


def test_untrusted_additive_idempotent_hints_are_weak_evidence_and_open_world_is_reported() -> None:
    t = tool(
        "create_directory",
        readOnlyHint=False,
        destructiveHint=False,
        idempotentHint=True,
        openWorldHint=True,
    )
    v = classify_tool("srv", t, PLAIN)
    assert v["irreversible"] is True
    assert "weak evidence, not clearance" in v["reason"]
    assert "openWorldHint" in v["reason"]
    read = classify_tool("srv", tool("fetch", "Fetches a URL.", openWorldHint=True), PLAIN)
    assert read["irreversible"] is False
    assert "openWorldHint" in read["reason"]


@settings(max_examples=300, deadline=None)
@given(
    verb=st.sampled_from(sorted(DESTRUCTIVE_VERBS)),
    read=st.sampled_from(sorted(READ_VERBS - {"echo", "wait", "now", "current", "status"})),
    noun=st.sampled_from(["emails", "items", "messages", "invoices", "x"]),
    participle_first=st.booleans(),
)
def test_a_participle_after_a_read_verb_describes_its_noun_and_alone_it_acts(
    verb: str, read: str, noun: str, participle_first: bool
) -> None:
    """`get_sent_emails` and `view_messages_sent` read; `emails_sent` alone says nothing safe."""
    participle = verb + ("d" if verb.endswith("e") else "ed")
    words = [read, participle, noun] if participle_first else [read, noun, participle]
    assert read_name("_".join(words)).leaning == "read", words
    alone = read_name("_".join([noun, participle]))
    assert alone.leaning == "destructive", (noun, participle, alone)


def test_the_tools_own_sentence_decides_and_a_leading_change_outranks_a_read_name() -> None:
    preamble = (
        "This tool belongs to the Gorilla file system. It is a simple file system that allows "
        "users to perform basic file operations such as navigating directories, creating files "
        "and directories, reading and writing to files, etc. Tool description: "
    )
    echo = tool("echo", preamble + "Write content to a file or display it in the terminal.")
    v = classify_tool("srv", echo, PLAIN)
    assert v["irreversible"] is True
    assert "'Write content to a file" in v["reason"], v
    assert "'echo'" in v["reason"], v
    trading = (
        "This tool belongs to the trading system, which allows users to trade stocks, manage "
        "their account, and view stock information. Tool description: Get the stock price."
    )
    v = classify_tool("srv", tool("get_stock_info", trading), PLAIN)
    assert v["irreversible"] is False, v
    v = classify_tool(
        "srv", tool("get_stock_info", trading.replace("Tool description:", "")), PLAIN
    )
    assert v["irreversible"] is False, v
    # The service's own verbs never decide, nor do they hide the tool's: a removal still holds.
    v = classify_tool("srv", tool("watchlist", trading.replace("Get the", "Remove the")), PLAIN)
    assert v["irreversible"] is True, v
    # A destructive verb in the preamble still holds a tool whose name does not read.
    cleanup = (
        "This tool belongs to the cleanup service, which allows users to delete stale branches. "
        "Lists them."
    )
    v = classify_tool("srv", tool("branches", cleanup), PLAIN)
    assert v["irreversible"] is True, v
    assert "preamble" in v["reason"], v
    assert classify_tool("srv", tool("list_branches", cleanup), PLAIN)["irreversible"] is False
    # A first sentence that says what the tool does is not a preamble, whatever it begins with.
    job = "This tool is part of the cleanup job, which deletes stale branches. Lists them."
    assert classify_tool("srv", tool("list_branches", job), PLAIN)["irreversible"] is True
    # An execution verb says how a query tool reads; its arguments are checked per call.
    v = classify_tool("srv", tool("read_query", "Execute a SELECT query"), PLAIN)
    assert v["irreversible"] is False, v


@pytest.mark.parametrize(
    "description",
    [
        "Liquidates the portfolio, converting every position to cash.",
        "Rebalances the portfolio and then checks the drift.",
        "Amortizes the loan, fetching the bank statement.",
    ],
)
def test_a_read_verb_after_an_unknown_leading_verb_clears_nothing(description: str) -> None:
    """An unknown verb leads: a read later in the sentence says nothing of what the tool does."""
    assert read_description(description).leaning is None
    v = classify_tool("srv", tool("portfolio_liquidation", description), PLAIN)
    assert v["irreversible"] is True, v


def test_a_signature_line_is_not_the_tools_sentence_and_loaders_read_from_a_source() -> None:
    """LlamaIndex writes `name(params) -> type` first; "Load X from Y" reads, "into Y" writes."""
    calendar = "load_data(number_of_results: int = 100, start_date: str = None) -> List[Doc]\n"
    v = classify_tool("srv", tool("load_data", calendar + "Load data from user's calendar."), PLAIN)
    assert v["irreversible"] is False, v
    mail = "load_data() -> List[Document]\nLoad emails from the user's account."
    assert classify_tool("srv", tool("load_data", mail), PLAIN)["irreversible"] is False
    for writes in (
        "load_fixture(path: str)\nLoad the fixture into the database.",
        "load(table: str)\nLoad data from S3 to Redshift.",
        "load_data(q: str)\nLoad data from the queue and delete it.",
        "send(to: str) -> None\nSend a message to a user.",
    ):
        v = classify_tool("srv", tool(writes.split("(")[0], writes), PLAIN)
        assert v["irreversible"] is True, (writes, v)


def test_first_sentence_drops_lead_ins() -> None:
    assert first_sentence("Use this tool to list files. It deletes nothing.") == "list files."
    assert first_sentence("This tool lets you search issues") == "search issues"
    assert first_sentence(None) == ""


# --- the old guarantee, drawn with bad values too -----------------------------------------------

_INFLECTIONS = ("", "s", "es", "ed")
"""Endings drawn onto any verb; a bare "-d" is a past form only after an e ("saved"): "band" is
no form of "ban"."""
_SEPARATORS = ("_", "-", ".", " ", "/", ":", "__")
_WORDS = sorted(READ_VERBS | CHANGE_VERBS | {"and", "or", "all", "the", "x2"})
_filler = st.one_of(st.sampled_from(_WORDS), st.text(st.characters(codec="utf-8"), max_size=8))


@st.composite
def destructive_names(draw: st.DrawFn) -> tuple[str, str]:
    """A name carrying a destructive verb among read verbs, nouns and (between separators) any text.

    Camel case only splits at a lower-to-upper step, so camel-cased names are drawn from words.
    """
    verb = draw(st.sampled_from(sorted(DESTRUCTIVE_VERBS)))
    # A participle after a read verb describes a noun (`get_sent_emails`): drawn below instead.
    word = verb + draw(st.sampled_from(_INFLECTIONS[:-1]))
    if draw(st.booleans()):
        before = draw(st.lists(st.sampled_from(_WORDS), max_size=3))
        after = draw(st.lists(st.sampled_from(_WORDS), max_size=3))
        words = [*before, word, *after]
        return words[0] + "".join(w.capitalize() for w in words[1:]), verb
    before = draw(st.lists(_filler, max_size=3))
    after = draw(st.lists(_filler, max_size=3))
    style = draw(st.sampled_from((str.lower, str.upper, str.capitalize)))
    return draw(st.sampled_from(_SEPARATORS)).join(map(style, [*before, word, *after])), verb


def _noun_adjunct(name: str, verb: str) -> bool:
    """Whether the drawn destructive word modifies the next noun under a leading read verb.

    Issue 44's one exception (`check_refund_request`: a refund request is checked): the bare word,
    a singular noun, not the last, right before a word that can be a noun and is no change verb,
    after the name's first known word, a read verb that is not a verb of observing right before
    it, and not after "and" or "or" (test_guard_product_names.py has its examples).
    """
    words = name_tokens(name)
    known = [j for j, w in enumerate(words) if verb_of(w, False) is not None]
    lead = known[0] if known else 0
    first = verb_of(words[lead], False) if words else None
    if first is None or first[0] != "read" or not singular_noun(verb):
        return False
    for i, word in enumerate(words[:-1]):
        after = verb_of(words[i + 1], False)
        if (
            word == verb
            and i > lead
            and words[i - 1] not in {"and", "or"}
            and not (i == lead + 1 and first[1] in OBSERVE_VERBS)
            and can_be_noun(words[i + 1])
            and (after is None or after[0] == "read")
        ):
            return True
    return False


def _state_report(name: str, verb: str) -> bool:
    """Whether a name reports the state of the act its destructive word names (`charge_status`).

    `common.safety.state_heads`: two or three words ending in a state head, the act one whose
    record has a state (`[names] stateful_acts`); `cancel_status` and `delete_state` stay held.
    """
    words = name_tokens(name)
    heads = vocab.words("names", "state_heads")
    acts = vocab.words("names", "stateful_acts")
    named = any(verb in stems(w) for w in words[:-1])  # `transfersStatus`: inflected too
    return 2 <= len(words) <= 3 and words[-1] in heads and verb in acts and named


@settings(max_examples=400, deadline=None)
@given(drawn=destructive_names(), description=st.one_of(st.none(), st.text(max_size=60)))
def test_no_name_with_a_destructive_verb_is_ever_cleared_by_the_name_layer(
    drawn: tuple[str, str], description: str | None
) -> None:
    name, verb = drawn
    if _noun_adjunct(name, verb):
        return  # issue 44: `check_refund_request` reads; the writes beside it are tested apart
    if _state_report(name, verb):
        return  # issue 44: `charge_status` reports a charge's state (test_guard_nineteenth_pass)
    reading = read_name(name)
    assert reading.leaning == "destructive", (name, reading)
    for hints in ({}, {"readOnlyHint": True}, {"readOnlyHint": True, "idempotentHint": True}):
        v = classify_tool("srv", tool(name, description, **hints), PLAIN)
        assert v["irreversible"] is True, (name, hints, v)


@settings(max_examples=300, deadline=None)
@given(name=st.text(max_size=40), description=st.one_of(st.none(), st.text(max_size=80)))
def test_any_name_gets_a_verdict_with_a_reason_and_unknown_words_are_held(
    name: str, description: str | None
) -> None:
    v = classify_tool("srv", tool(name, description), PLAIN)
    assert v["reason"]
    named = read_tool_name("srv", name, description)
    if named.leaning is None and read_description(description).leaning is None:
        # Only a noun phrase of known words that names data clears such a tool (issue 44:
        # "Attempts", `hourly_temperature`); text no lexicon knows is held by the default.
        cleared_by_nouns = not v["irreversible"] and "names data" in v["reason"]
        cleared_by_nouns |= not v["irreversible"] and "names the data" in v["reason"]
        # `me`, `whoami`: a name that asks who calls (`common.safety.state_heads`).
        cleared_by_nouns |= not v["irreversible"] and "asks who calls" in v["reason"]
        if not cleared_by_nouns:
            assert (v["irreversible"], v["source"]) == (True, "default")


@pytest.mark.parametrize(
    ("name", "description", "read_only_hint"),
    [
        ("compute.instances.insert", "Creates an instance.", None),
        ("snapshot_revert", None, None),
        ("search_replace", "Replace an exact block of text in a file.", None),
        ("status_update", None, None),
        ("ticket_status_set", None, None),
        ("list_archive", None, None),
        ("query_save", None, None),
        ("BigQueryInsertRows", None, None),
        ("search_console_submit_sitemap", None, None),
        ("manage_issues", "Search, view, edit issues.", None),
        ("complete_purchase", "Checks out the current cart with the saved card.", None),
        ("bulk_mail", "Given a list of email addresses, creates an account for each.", None),
        ("cleanup_inbox", "Finds messages older than 30 days; archives them.", None),
        ("webhook", "Fires a webhook that posts the payload.", True),
        ("jira_transition", "Moves an issue to another status.", True),
        ("void_invoice", None, True),
        ("git_stash", None, True),
    ],
)
def test_change_verbs_after_noun_like_reads_lists_and_punctuation_are_held(
    name: str, description: str | None, read_only_hint: bool | None
) -> None:
    """Names that start with a noun that is also a read word (`status_update`), descriptions
    whose change verb follows a comma, and untrusted read-only hints on tools that change."""
    hints = {"readOnlyHint": read_only_hint} if read_only_hint else {}
    v = classify_tool("srv", tool(name, description, **hints), PLAIN)
    assert v["irreversible"] is True, v


@pytest.mark.parametrize(
    "name", ["list_pull_requests", "view_run_logs", "jira_get_create_fields", "git_diff_staged"]
)
def test_nouns_after_a_read_verb_stay_nouns(name: str) -> None:
    assert classify_tool("srv", tool(name), PLAIN)["irreversible"] is False


DECLARED_WRITE = {"readOnlyHint": False, "destructiveHint": True}


@pytest.mark.parametrize(
    ("name", "description", "action"),
    [
        ("browser_hover", "Hover over element on page", "hover"),
        ("browser_navigate", "Navigate to a URL", "navigate"),
        ("browser_navigate_back", "Go back to the previous page in the history", "navigate back"),
        ("go_back", "Go back to the previous page.", "go back"),
        ("browser_resize", "Resize the browser window", "resize"),
        ("resizeViewport", None, "resize"),
        ("emulate_media", "Emulate CSS media features for the page.", "emulate"),
        ("scroll_and_get_text", None, "scroll"),
        ("kubectl_reconnect", "Reconnect to the API server by recreating clients.", "reconnect"),
    ],
)
def test_session_only_actions_are_cleared_against_an_untrusted_write_declaration(
    name: str, description: str | None, action: str
) -> None:
    """Browser servers declare hovering a destructive write; the name says it only changes what
    the session's page shows, and the reason says which word decided and which hint was ignored."""
    v = classify_tool("srv", tool(name, description, **DECLARED_WRITE), PLAIN)
    assert v["irreversible"] is False, v
    assert f"session ({action!r})" in v["reason"], v
    assert "destructiveHint=true" in v["reason"], v


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("navigate_and_submit", None),
        ("hover_delete_button", None),
        ("navigate_to_checkout", None),
        ("resize_disk", "Resize a persistent disk."),
        ("resize_image", None),
        ("go_forward", None),
        ("browser_close", "Close the page and submit the form"),
        ("browser_hover", "Hover over the buy button and click it."),
        ("browser_navigate", "Navigates to the URL and deletes the cookies."),
        ("scroll", "Posts the feed item that is scrolled into view."),
    ],
)
def test_a_change_anywhere_in_the_name_or_description_keeps_a_session_tool_held(
    name: str, description: str | None
) -> None:
    v = classify_tool("srv", tool(name, description, **DECLARED_WRITE), PLAIN)
    assert v["irreversible"] is True, v


def test_a_trusted_servers_write_declaration_still_decides_for_session_actions() -> None:
    trusted = ServerConfig(command="srv", trust_annotations=True)
    v = classify_tool("srv", tool("browser_hover", "Hover over element", **DECLARED_WRITE), trusted)
    assert (v["irreversible"], v["source"]) == (True, "annotation")


_SESSION_WORDS = ["hover", "scroll", "navigate", "emulate", "reconnect", "go back", "browser"]


@settings(max_examples=400, deadline=None)
@given(
    before=st.lists(st.sampled_from([*_SESSION_WORDS, *sorted(READ_VERBS)]), max_size=3),
    verb=st.sampled_from(sorted(DESTRUCTIVE_VERBS | CHANGE_VERBS)),
    inflection=st.sampled_from(_INFLECTIONS),
    after=st.lists(st.one_of(st.sampled_from(_SESSION_WORDS), _filler), max_size=3),
    separator=st.sampled_from(_SEPARATORS),
    style=st.sampled_from((str.lower, str.upper, str.capitalize)),
)
def test_no_name_carrying_a_change_or_destructive_verb_is_a_session_action(
    before: list[str],
    verb: str,
    inflection: str,
    after: list[str],
    separator: str,
    style: Any,
) -> None:
    """Session verbs around any change or destructive verb (inflected, in any case, with any
    text between separators) never make a session action, so the write declaration holds."""
    words = [w for part in [*before, verb + inflection, *after] for w in part.split()]
    name = separator.join(map(style, words))
    assert session_action(name) is None, name
    v = classify_tool("srv", tool(name, None, **DECLARED_WRITE), PLAIN)
    assert v["irreversible"] is True, (name, v)


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("deleting", "delete"),
        ("sending", "send"),
        ("paying", "pay"),
        ("dropping", "drop"),
        ("cancelled", "cancel"),
        ("cancelling", "cancel"),
        ("committed", "commit"),
        ("copied", "copy"),
        ("sent", "send"),
        ("paid", "pay"),
        ("written", "write"),
        ("Deletes".lower(), "delete"),
    ],
)
def test_inflected_forms_meet_their_verb(word: str, stem: str) -> None:
    assert stem in stems(word)


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("get_report", "Fetches the report, deleting it afterwards."),
        ("get_report", "Fetches the report and sent it to the team."),
        ("read_inbox", "Reads new mail, paying any invoice found."),
        ("list_jobs", "Lists jobs, cancelling stale ones."),
        ("list_jobs", "Lists jobs and cancels stale ones."),
        ("get_mail", "Reads the inbox; archives old mail."),
        ("fetch_feed", "Fetches the feed, then posts a summary."),
    ],
)
def test_a_read_name_is_held_when_its_description_adds_a_change(
    name: str, description: str
) -> None:
    """A second verb after "and", ",", ";" or "then" is a second action, in any inflection, and
    an untrusted readOnlyHint does not clear it either."""
    for hints in ({}, {"readOnlyHint": True}):
        v = classify_tool("srv", tool(name, description, **hints), PLAIN)
        assert v["irreversible"] is True, (hints, v)
        assert "description" in v["reason"], v


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("list_prs", "Lists pull requests and comments."),
        ("confluence_get_page_restrictions", "Get view and edit restrictions for a page."),
        ("get_cost", "Returns the cost of creating a new project or branch."),
        ("read_query", "Execute a SELECT query"),
    ],
)
def test_nouns_modifiers_and_activities_in_a_description_do_not_hold_a_read_name(
    name: str, description: str
) -> None:
    for hints in ({}, {"readOnlyHint": True}):
        v = classify_tool("srv", tool(name, description, **hints), PLAIN)
        assert v["irreversible"] is False, (hints, v)


def test_a_read_only_hint_counts_when_the_description_names_a_change_only_as_an_activity() -> None:
    """Supabase's cost notice speaks of "the cost of creating a project": it creates nothing."""
    description = "Tells the user the cost of creating a new project."
    v = classify_tool("srv", tool("project_cost", description, readOnlyHint=True), PLAIN)
    assert v["irreversible"] is False, v
    deleting = "Tells the user the cost of deleting a project."
    v = classify_tool("srv", tool("project_cost", deleting, readOnlyHint=True), PLAIN)
    assert v["irreversible"] is True, v
    # Named `confirm_cost`, it is held: `confirm_payment_intent` charges a card.
    v = classify_tool("srv", tool("confirm_cost", description, readOnlyHint=True), PLAIN)
    assert v["irreversible"] is True, v


_RO = {"readOnlyHint": False, "openWorldHint": False}
_DW = DECLARED_WRITE
SESSION_LOOKALIKES: list[tuple[str, str | None, dict[str, Any] | None]] = [
    # Real servers: a ROS navigation server, Flipper Zero servers (a radio that opens doors).
    ("navigate_to_pose", "Navigate the robot to a specific pose in the map frame.", _RO),
    ("rfid_emulate", "Emulate an RFID tag by protocol + data.", None),
    ("ibutton_emulate", "Emulate an iButton key.", None),
    (
        "rfid_emulate",
        "Emulate a 125 kHz card for a duration (Flipper pretends to BE the card).",
        None,
    ),
    # Input injection, motion in the world, reconnects with side effects.
    ("emulate_hid_keyboard", "Emulate a USB keyboard and type keystrokes into the host.", _DW),
    ("emulate_keystrokes", "Emulate keystrokes in the focused window.", _DW),
    ("robot_navigate", "Navigate the robot to a waypoint.", _DW),
    ("drone_hover", "Hover the drone at the current altitude.", _DW),
    ("hover_and_land", "Hover then land the drone.", _DW),
    ("reconnect", "Reconnect to the broker and replay buffered messages.", _DW),
    ("reconnect_and_resubmit", "Reconnect to the exchange and resubmit open orders.", _DW),
    ("reconnect_bank_account", None, None),
    ("reconnect_peer", "Reconnect to the peer, force-closing the channel if it is silent.", _DW),
    ("reconnect", "Reconnect to the exchange, i.e. re-authenticate and resubmit open orders.", _DW),
    # Change words next to a session verb, "check out" split in two.
    ("navigate_and_confirm", None, _DW),
    ("scroll_and_accept_terms", None, _DW),
    ("go_back_and_resend", None, _DW),
    ("navigate_and_check_out", None, _DW),
    ("scroll_and_upvote", None, _DW),
    ("navigate_and_vote", None, _DW),
    # "Back" to a lasting state; resizing what is not the session's window.
    ("go_back_to_snapshot", "Go back to a VM snapshot (the current disk is discarded).", _DW),
    ("resize_browser_fleet", "Resize the browser fleet (billed per instance).", _DW),
    ("resize_maintenance_window", "Resize the maintenance window of the cluster.", _DW),
    # What a later sentence or an abbreviation hides.
    ("browser_navigate", "Navigate to a page (e.g. the cart) and pay for the items in it.", _DW),
    ("browser_navigate", "Navigate to the URL.\nIf it is a form action, payment is charged.", _DW),
    ("browser_hover", "Hover over an element. Note: hovering the 1-click button sends it.", _DW),
    ("browser_navigate", "Navigate to the URL and accept the terms.", _DW),
    # A second review: robots and rovers that mention an API or a connection, rollbacks, and a
    # change in a later sentence.
    ("robot_navigate", "Navigate the robot to a goal pose through the ROS action client.", _DW),
    ("navigate", "Drive the rover to the GPS waypoint using the MAVLink connection.", _DW),
    ("go_back", "Return the deployment to the previous release.", _DW),
    ("navigate_back", "Roll the database back to the previous migration.", _DW),
    ("browser_navigate", "Navigate to a URL. Submits the pending form first.", _DW),
    ("browser_navigate", "Navigate to a URL. Confirms any open dialog.", _DW),
]
"""Tools that look like session actions but act in the world (from an adversarial review)."""


@pytest.mark.parametrize(("name", "description", "hints"), SESSION_LOOKALIKES)
def test_session_lookalikes_stay_held(
    name: str, description: str | None, hints: dict[str, Any] | None
) -> None:
    v = classify_tool("srv", tool(name, description, **(hints or {})), PLAIN)
    assert v["irreversible"] is True, v


@pytest.mark.parametrize(
    ("name", "description", "tabs"),
    [
        ("browser_tabs", "List, create, close, or select a browser tab.", "create, close, or"),
        ("browser_close", "Close the page", "close the page"),
        ("browser_tab_close", "Close a browser tab.", "close a browser tab"),
        ("browser_tab_new", "Open a new tab in the browser.", "open a new tab"),
        ("browser_tab_select", "Select a browser tab by index.", "select a browser tab"),
        (
            "browser_switch_tab",
            "Switch to the given browser tab.",
            "switch to the given browser tab",
        ),
        ("close_browser_window", "Close the browser window.", "close the browser window"),
    ],
)
def test_managing_the_sessions_own_browser_tabs_is_cleared_against_a_write_declaration(
    name: str, description: str, tabs: str
) -> None:
    """Playwright declares `browser_tabs` and `browser_close` destructive; closing the session's
    own tab loses nothing a person made, and the reason names the words that decided."""
    v = classify_tool("srv", tool(name, description, **DECLARED_WRITE), PLAIN)
    assert v["irreversible"] is False, v
    assert "browser tabs" in v["reason"], v
    assert tabs in v["reason"], v
    assert "destructiveHint=true" in v["reason"], v


TAB_LOOKALIKES = [
    ("confluence_create_page", "Create a new Confluence page."),
    ("close_tab", "Closes the customer's tab."),
    ("browser_close_tab", "Close the customer's tab."),
    ("close_window", "Close the living room window."),
    ("puppeteer_select", "Select an element on the page with Select tag"),
    ("browser_select_option", "Select an option in a dropdown of the browser page."),
    ("browser_close", "Close the browser and delete its profile."),
    ("browser_create_page", "Create a page in the wiki with the browser."),
    ("browser_tabs", "List, create, close, or select a browser tab. Closing one posts its form."),
    ("browser_tabs", "List or close browser tabs. Note: closing a tab sends the draft."),
    ("browser_tabs", "Close a browser tab, then submit the order."),
    ("browser_close_and_checkout", "Close the browser tab."),
    ("browser_tabs", None),
    ("stop_session", "Stop the user's remote desktop session."),
    # From an adversarial review: wiki pages, remote sessions, desktop windows, what a later
    # sentence or another script says.
    ("create_page", "Create a new page. Returns the page URL, which you can open in a browser."),
    ("confluence_create_page", "Create a new page with the given title in the browser."),
    ("wiki_new_page", "Create a new page with the given title and url. Works without a browser."),
    ("browserbase_session_create", "Create a new browser session."),
    ("stop_session", "Stop the current browser session."),
    ("close_window", "Close the window with the given title. Works for any application."),
    ("open_tab", "Open a new tab. Shown in the browser dashboard."),
    ("browser_close", "Close the browser. The profile directory is discarded."),
    ("browser_close", "Close the browser. Unsaved changes are lost."),
    ("browser_close", "Close the page. If it has a beforeunload handler, it is confirmed."),
    (
        "browser_tabs",
        "Close the browser tab. \u540c\u65f6\u63d0\u4ea4\u8868\u5355\u5e76\u4ed8\u6b3e\u3002",
    ),
    ("browser_tabs", "Close browser tab 3 and 555-0100"),
    # A second review: provisioning a browser, a prefix that is not a browser's, a second clause.
    ("create_browser", "Create a new browser."),
    ("bar_open_tab", "Open a new tab in the browser."),
    ("bar_close_tab", "Close the tab by number in the browser."),
    ("sheets_create_tab", "Create a new tab in the browser."),
    ("kiosk_close_browser", "Close the browser."),
    ("browser_tabs", "Close the browser tab, open the url"),
]
"""Tools that look like tab management but act on lasting things."""


@pytest.mark.parametrize(("name", "description"), TAB_LOOKALIKES)
def test_tab_management_lookalikes_stay_held(name: str, description: str | None) -> None:
    assert tab_action(name, description) is None
    v = classify_tool("srv", tool(name, description, **DECLARED_WRITE), PLAIN)
    assert v["irreversible"] is True, v


@settings(max_examples=300, deadline=None)
@given(
    verb=st.sampled_from(sorted((DESTRUCTIVE_VERBS | CHANGE_VERBS) - TAB_VERBS)),
    inflection=st.sampled_from(_INFLECTIONS),
    where=st.sampled_from(("name", "verb", "object", "later")),
)
def test_no_tab_tool_with_another_change_or_destructive_verb_is_cleared(
    verb: str, inflection: str, where: str
) -> None:
    """A change or destructive verb other than opening, closing or selecting tabs, in the name,
    the verb list, the object or a later sentence, keeps the write declaration deciding."""
    word = verb + inflection
    name = f"browser_{word}_tab" if where == "name" else "browser_tabs"
    description = {
        "verb": f"List, close or {word} a browser tab.",
        "object": f"Close the browser tab and {word} it.",
        "later": f"Close a browser tab. {word.capitalize()} the page too.",
    }.get(where, "Close a browser tab.")
    v = classify_tool("srv", tool(name, description, **DECLARED_WRITE), PLAIN)
    assert v["irreversible"] is True, (name, description, v)


_DEMO = {"destructiveHint": False, "openWorldHint": False}


@pytest.mark.parametrize(
    ("name", "description", "hints"),
    [
        (
            "trigger-long-running-operation",
            "Demonstrates a long running operation with progress updates.",
            {**_DEMO, "readOnlyHint": True, "idempotentHint": True},
        ),
        (
            "simulate-research-query",
            "Simulates a deep research operation that gathers, analyzes, and synthesizes "
            "information. Demonstrates MCP task-based operations with progress through multiple "
            "stages. If 'ambiguous' is true and client supports elicitation, sends an elicitation "
            "request for clarification.",
            {**_DEMO, "readOnlyHint": False},
        ),
        ("demo-progress-stages", "Demonstrates progress updates through multiple stages.", _DEMO),
    ],
)
def test_a_declared_non_destructive_demonstration_is_cleared(
    name: str, description: str, hints: dict[str, Any]
) -> None:
    """The reference server's demo operations only report progress (or ask the user): its
    declaration of a non-destructive, closed-world tool and the description agree."""
    v = classify_tool("srv", tool(name, description, **hints), PLAIN)
    assert v["irreversible"] is False, v
    assert "demonstration" in v["reason"], v
    assert "non-destructive" in v["reason"], v


DEMO_LOOKALIKES: list[tuple[str, str | None, dict[str, Any] | None]] = [
    # The same demo without the server's word for it.
    ("trigger-long-running-operation", "Demonstrates a long running operation.", None),
    (
        "trigger-long-running-operation",
        "Demonstrates a long running operation.",
        {**_DEMO, "openWorldHint": True},
    ),
    (
        "trigger-long-running-operation",
        "Demonstrates a long running operation.",
        {"destructiveHint": True, "openWorldHint": False},
    ),
    # A demonstration that acts.
    ("trigger_build", "Demonstrates CI by triggering a real build.", _DEMO),
    ("create_branch", "Demonstrates creating a branch.", _DEMO),
    ("demo_issue", "Demonstrates how to create issues in the repository.", _DEMO),
    ("demo_webhook", "Demonstrates webhooks. Posts the payload to the URL.", _DEMO),
    ("demo_payment", "Demonstrates payments by charging the card.", _DEMO),
    ("demo_email", "Demonstrates email. Sends a message to the given address.", _DEMO),
    ("run_demo", "Runs the deploy script. Demonstrates progress.", _DEMO),
    ("purge_demo", "Demonstrates a purge.", _DEMO),
    ("demo_flow", "Demonstrates a flow that deletes stale rows.", _DEMO),
    ("simulate-research-query", "Demonstrates research. Sends the report to the team.", _DEMO),
    ("demo", "Shows how it works. Demonstrates nothing. Then it drops the table.", _DEMO),
    ("demo", None, _DEMO),
    # From an adversarial review: actions after a colon, in a bullet list, in words the verb
    # lists lack, in the world, and "showcase" as publishing.
    ("git_workflow_demo", "Demonstrates the git workflow\n- Creates a branch\n- Commits", _DEMO),
    ("notes_demo", "Demonstrates the notes API: creates a note, then lists it.", _DEMO),
    ("write_demo_file", "Demonstrates file output: writes a report to disk.", _DEMO),
    ("demo_persistence", "Demonstrates persistence, writing the value to the database.", _DEMO),
    ("execute_sql", "Demonstrates SQL execution against the database.", _DEMO),
    ("load_sample_data", "Demonstrates analytics by loading a sample dataset.", _DEMO),
    ("load_demo_data", "Demonstrates the CRM. Any existing contacts are lost.", _DEMO),
    (
        "issue_invoice",
        "Issues a new invoice to the customer. Demonstrates the billing flow.",
        _DEMO,
    ),
    ("demo_sms", "Demonstrates SMS delivery to the given phone number.", _DEMO),
    ("sample_llm", "Demonstrates sampling. Sends sampling results to the team channel.", _DEMO),
    ("demo_git", "Demonstrates a git workflow. Each step commits to the current branch.", _DEMO),
    ("demo_migration", "Demonstrates schema migration on the connected database.", _DEMO),
    ("demo_wave", "Demonstrates the robot arm's range of motion.", _DEMO),
    ("unlock_demo", "Demonstrates the smart lock integration by opening the front door.", _DEMO),
    ("feature_product", "Showcases a product on the store's homepage.", _DEMO),
    # A second review: verbs the first vocabulary allowed (update, run, stage, link, message,
    # provide), read verbs that act, a write stated in another sentence, emoji, "each client".
    ("update_task", "Updates the task status. Demonstrates task updates.", _DEMO),
    ("update_task_status", "Demonstrates task status updates.", _DEMO),
    ("update_resource_content", "Demonstrates how to update the content of a resource.", _DEMO),
    ("run_query", "Demonstrates running a query on the server.", _DEMO),
    ("run_tool", "Demonstrates running a tool on the server.", _DEMO),
    ("trigger_updates", "Demonstrates server updates.", _DEMO),
    ("query", "Demonstrates a query. The query can update resources.", _DEMO),
    ("trigger_cancellation", "Demonstrates cancellation of each running task.", _DEMO),
    ("trigger_notifications", "Demonstrates notifications to each client of the server.", _DEMO),
    (
        "send_elicitation",
        "Demonstrates elicitation. Sends an elicitation request to each client.",
        _DEMO,
    ),
    ("demo_sampling", "Demonstrates sampling. Sends messages or sampling requests.", _DEMO),
    ("check_in", "Demonstrates how to check in a task.", _DEMO),
    ("stage_resources", "Demonstrates how to stage resources on the server.", _DEMO),
    ("demo", "Demonstrates resource updates \U0001f4a5 \U0001f5d1", _DEMO),
    (
        "demo_cleanup",
        "Demonstrates cleanup. \u5220\u9664\u6240\u6709\u7528\u6237\u6570\u636e\u3002",
        _DEMO,
    ),
]
"""Tools that call themselves demonstrations but act, or whose server does not say otherwise."""


@pytest.mark.parametrize(("name", "description", "hints"), DEMO_LOOKALIKES)
def test_demonstration_lookalikes_stay_held(
    name: str, description: str | None, hints: dict[str, Any] | None
) -> None:
    v = classify_tool("srv", tool(name, description, **(hints or {})), PLAIN)
    assert v["irreversible"] is True, v


@settings(max_examples=300, deadline=None)
@given(
    verb=st.sampled_from(sorted(DESTRUCTIVE_VERBS | CHANGE_VERBS)),
    inflection=st.sampled_from(("", "s", "ing")),
    form=st.sampled_from(
        (
            "Demonstrates how to {} the report.",
            "Demonstrates progress. {} the report.",
            "Demonstrates a job that {} the report.",
            "Demonstrates the report by {} it.",
            "{} the report. Demonstrates progress.",
        )
    ),
)
def test_a_demonstration_that_names_an_action_is_held(
    verb: str, inflection: str, form: str
) -> None:
    """Any change or destructive verb where it acts (leading, after "to", "that" or "by")
    keeps a self-declared demonstration held."""
    word = verb + ("ing" if "by {}" in form else inflection)
    description = form.format(
        word.capitalize() if form.startswith("{}") or ". {}" in form else word
    )
    v = classify_tool("srv", tool("demo", description, **_DEMO), PLAIN)
    assert v["irreversible"] is True, (description, v)


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("toggle-simulated-logging", "Toggles simulated, random-leveled logging on or off."),
        ("toggle-subscriber-updates", "Toggles simulated resource subscription updates on or off."),
        ("enable_notifications", "Enables simulated notifications."),
    ],
)
def test_a_switch_of_simulated_session_notifications_is_cleared(
    name: str, description: str
) -> None:
    v = classify_tool("srv", tool(name, description, readOnlyHint=False, **_DEMO), PLAIN)
    assert v["irreversible"] is False, v
    assert "simulated notifications" in v["reason"], v


SWITCH_LOOKALIKES: list[tuple[str, str | None, dict[str, Any] | None]] = [
    ("toggle_chaos", "Toggles simulated failures on the production service.", _DEMO),
    (
        "toggle-simulated-logging",
        "Toggles simulated logging on or off. Also deletes old logs.",
        _DEMO,
    ),
    ("toggle_logging", "Toggles logging on or off.", _DEMO),
    ("toggle_audit_logging", "Toggles simulated logging on or off.", _DEMO),
    ("enable_maintenance", "Enables simulated maintenance mode.", _DEMO),
    ("toggle-simulated-logging", "Toggles simulated logging on or off.", None),
    (
        "toggle-simulated-logging",
        "Toggles simulated logging on or off.",
        {**_DEMO, "openWorldHint": True},
    ),
    ("toggle_and_purge_logging", "Toggles simulated logging on or off.", _DEMO),
    ("toggle_logging", "Toggles simulated logging for all users.", _DEMO),
    (
        "toggle-simulated-logging",
        "Toggles simulated logging on or off. \u6e05\u7a7a\u5ba1\u8ba1\u65e5\u5fd7",
        _DEMO,
    ),
    ("enable_notifications", "Enables simulated notifications on 555-0100", _DEMO),
    ("disable_subscription", "Disables simulated subscription.", _DEMO),
    ("disable_subscription", "Disables simulated updates and the subscription.", _DEMO),
    ("disable_subscriber_notifications", "Disables simulated logging and the subscriber.", _DEMO),
    ("pagerduty_disable_notifications", "Disables simulated notifications.", _DEMO),
    ("prod_toggle_logging", "Toggles simulated logging on or off.", _DEMO),
]
"""Switches that reach beyond simulated notifications to this session, or lack the declaration."""


@pytest.mark.parametrize(("name", "description", "hints"), SWITCH_LOOKALIKES)
def test_switch_lookalikes_stay_held(
    name: str, description: str | None, hints: dict[str, Any] | None
) -> None:
    v = classify_tool("srv", tool(name, description, **(hints or {})), PLAIN)
    assert v["irreversible"] is True, v


@settings(max_examples=300, deadline=None)
@given(word=st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12))
def test_a_switch_with_any_other_word_is_not_simulated_notifications(word: str) -> None:
    """The switch reading is a closed set: one word outside it, anywhere, and it does not apply."""
    known = {"simulated", "random", "leveled", "levelled", "on", "off", "the", "a", "and", "or"}
    known |= {"logging", "log", "logs", "notifications", "notification", "updates", "update"}
    known |= {"resource", "resources", "subscription", "subscriptions", "subscriber", "progress"}
    if word in known:
        return
    assert (
        simulated_switch("toggle_logging", f"Toggles simulated {word} logging on or off.") is None
    )
    assert (
        simulated_switch(f"toggle_{word}_logging", "Toggles simulated logging on or off.") is None
    )


@settings(max_examples=400, deadline=None)
@given(word=st.text(min_size=1, max_size=12).filter(lambda w: w.strip() != ""))
def test_a_demonstration_with_any_word_outside_its_vocabulary_is_not_cleared(word: str) -> None:
    """The demonstration reading is a closed vocabulary: any other word (a verb, a robot, a
    digit, an emoji, another script) anywhere in the name or description keeps the tool held."""
    from common.safety.readings import (
        DEMO_FUNCTION,
        DEMO_LEADS,
        DEMO_NAME_WORDS,
        DEMO_NOUNS,
        DEMO_PAIRS,
        DEMO_READS,
        closed_words,
        demonstration,
        plain_text,
    )

    known = DEMO_NOUNS | DEMO_READS | DEMO_FUNCTION | set(DEMO_PAIRS) | DEMO_LEADS
    extra = closed_words(word)
    if plain_text(word) and all(w in known for w in extra):
        return
    base = "Demonstrates a long running operation with progress updates."
    for description in (f"{base} {word}", f"Demonstrates {word} with progress updates."):
        assert demonstration("trigger-long-running-operation", description) is None, description
    # A name may also carry the words of the demonstrations' own names (`simulate-research-query`).
    if extra and not all(w in known | DEMO_NAME_WORDS for w in extra):
        assert demonstration(f"trigger_{word.lower()}", base) is None, word
