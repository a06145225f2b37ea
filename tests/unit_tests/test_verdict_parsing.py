"""Reading the irreversibility analyser's answer: names, the plain-text form, JSON, structured."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common.safety.verdict import (
    IrreversibilityAnalysis,
    ParsedVerdict,
    from_structured,
    parse_verdict_text,
    resolve_tool_name,
)
from tests.doubles import analysis

CATALOG = {
    "mail": ["send_message", "list_messages"],
    "notes": ["write", "notes_write", "delete_note", "read_notes"],
    "slack": ["send_message", "list_channels"],
    "fs": ["delete-file", "ReadFile"],
}
MAIL = ("mail", "send_message")
SLACK = ("slack", "send_message")
DELETE_NOTE = ("notes", "delete_note")


def parse(text: str) -> ParsedVerdict:
    return parse_verdict_text(text, CATALOG)


# --- resolve_tool_name ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("delete_note", [DELETE_NOTE]),
        ("  delete_note\n", [DELETE_NOTE]),
        ("`delete_note`", [DELETE_NOTE]),
        ("``delete_note``", [DELETE_NOTE]),
        ("'delete_note'", [DELETE_NOTE]),
        ('"delete_note"', [DELETE_NOTE]),
        ("\u201cdelete_note\u201d", [DELETE_NOTE]),
        ("**delete_note**", [DELETE_NOTE]),
        ("*delete_note*", [DELETE_NOTE]),
        ("_delete_note_", [DELETE_NOTE]),
        ("__delete_note__", [DELETE_NOTE]),
        ("delete\\_note", [DELETE_NOTE]),
        ("delete_note.", [DELETE_NOTE]),
        ("delete_note,", [DELETE_NOTE]),
        ("delete_note;", [DELETE_NOTE]),
        ("delete_note:", [DELETE_NOTE]),
        ("delete_note()", [DELETE_NOTE]),
        ("delete_note().", [DELETE_NOTE]),
        ("`delete_note()`", [DELETE_NOTE]),
        ("delete_note(id=3)", [DELETE_NOTE]),
        ("**`delete_note`**.", [DELETE_NOTE]),
        ("[delete_note]", [DELETE_NOTE]),
        ("(delete_note)", [DELETE_NOTE]),
        ("DELETE_NOTE", [DELETE_NOTE]),
        ("Delete_Note", [DELETE_NOTE]),
        ("mcp__notes__delete_note", [DELETE_NOTE]),
        ("MCP__Notes__Delete_Note", [DELETE_NOTE]),
        ("notes__delete_note", [DELETE_NOTE]),
        ("notes_delete_note", [DELETE_NOTE]),
        ("notes.delete_note", [DELETE_NOTE]),
        ("notes/delete_note", [DELETE_NOTE]),
        ("notes:delete_note", [DELETE_NOTE]),
        ("`notes/delete_note`", [DELETE_NOTE]),
        ("mail/send_message", [MAIL]),
        ("slack:send_message", [SLACK]),
        ("mcp__slack__send_message", [SLACK]),
        ("mail_send_message", [MAIL]),
        ("send_message", [MAIL, SLACK]),
        ("`SEND_MESSAGE`", [MAIL, SLACK]),
        ("readfile", [("fs", "ReadFile")]),
        ("fs/readfile", [("fs", "ReadFile")]),
        ("delete-file", [("fs", "delete-file")]),
        ("delete_file", [("fs", "delete-file")]),
        ("send-message", [MAIL, SLACK]),
        ("list_channels", [("slack", "list_channels")]),
    ],
)
def test_resolve_accepts_decorated_and_qualified_names(
    name: str, expected: list[tuple[str, str]]
) -> None:
    assert resolve_tool_name(name, CATALOG) == expected


@pytest.mark.parametrize(
    "name",
    ["", "   ", "``", "**", "frobnicate", "mail/delete_note", "nomail/send_message", "send", "()"],
)
def test_resolve_returns_nothing_for_unknown_names(name: str) -> None:
    assert resolve_tool_name(name, CATALOG) == []


def test_literal_tool_name_beats_the_qualified_reading_on_the_same_server() -> None:
    assert resolve_tool_name("notes_write", CATALOG) == [("notes", "notes_write")]
    assert resolve_tool_name("`notes_write`", CATALOG) == [("notes", "notes_write")]


def test_qualified_reading_is_used_when_no_tool_has_the_literal_name() -> None:
    catalog = {"notes": ["write"]}
    assert resolve_tool_name("notes_write", catalog) == [("notes", "write")]
    assert resolve_tool_name("notes.write", catalog) == [("notes", "write")]


def test_explicit_qualifiers_pick_the_named_server_only() -> None:
    assert resolve_tool_name("notes/write", CATALOG) == [("notes", "write")]
    assert resolve_tool_name("notes__write", CATALOG) == [("notes", "write")]
    assert resolve_tool_name("mcp__notes__write", CATALOG) == [("notes", "write")]


def test_literal_and_qualified_readings_on_different_servers_are_both_kept() -> None:
    catalog = {"notes": ["write"], "other": ["notes_write"]}
    assert resolve_tool_name("notes_write", catalog) == [
        ("other", "notes_write"),
        ("notes", "write"),
    ]


def test_a_leading_underscore_in_a_real_tool_name_is_not_stripped_first() -> None:
    catalog = {"srv": ["_private", "private"]}
    assert resolve_tool_name("_private", catalog) == [("srv", "_private")]
    assert resolve_tool_name("`_private`", catalog) == [("srv", "_private")]


def test_a_leading_underscore_survives_on_the_key_line() -> None:
    catalog = {"srv": ["_private", "private"]}
    v = parse_verdict_text("IRREVERSIBLE: YES\nBLOCKED_TOOLS: _private", catalog)
    assert v.tools == (("srv", "_private"),)


def test_server_names_with_separators() -> None:
    catalog = {"my_notes": ["write"], "my": ["notes_write"]}
    assert resolve_tool_name("my_notes/write", catalog) == [("my_notes", "write")]
    # Both readings of a doubly ambiguous name are kept: blocking more is the safe side.
    assert set(resolve_tool_name("my_notes_write", catalog)) == {
        ("my_notes", "write"),
        ("my", "notes_write"),
    }


# --- the plain-text form: the verdict ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("IRREVERSIBLE: YES", True),
        ("IRREVERSIBLE: NO", False),
        ("irreversible: yes", True),
        ("Irreversible: No", False),
        ("IRREVERSIBLE:YES", True),
        ("   IRREVERSIBLE :   YES   ", True),
        ("IRREVERSIBLE:\tNO", False),
        ("IRREVERSIBLE: TRUE", True),
        ("IRREVERSIBLE: false", False),
        ("IRREVERSIBLE = yes", True),
        ("IRREVERSIBLE - yes", True),
        ("**IRREVERSIBLE:** **YES**", True),
        ("**IRREVERSIBLE**: YES", True),
        ("**IRREVERSIBLE: YES**", True),
        ("*Irreversible*: _no_", False),
        ("`IRREVERSIBLE`: `YES`", True),
        ("### Irreversible: yes", True),
        ("## IRREVERSIBLE: **NO**", False),
        ("- IRREVERSIBLE: YES", True),
        ("> IRREVERSIBLE: YES", True),
        ("1. IRREVERSIBLE: NO", False),
        ("Is-Irreversible: yes", True),
        ("IRREVERSIBLE: YES.", True),
        ("IRREVERSIBLE: YES - sending an email cannot be undone", True),
        ("IRREVERSIBLE: NO, nothing is sent", False),
        ("IRREVERSIBLE:\nYES", True),
        ("IRREVERSIBLE:\n\n  **NO**", False),
        ("### Irreversible\nyes", True),
        ("Some preamble.\n\nIRREVERSIBLE: YES\nBLOCKED_TOOLS: send_message", True),
    ],
)
def test_verdict_is_read(text: str, expected: bool) -> None:
    assert parse(text).irreversible is expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "I think this is fine.",
        "BLOCKED_TOOLS: send_message",
        "IRREVERSIBLE: cannot tell",
        "IRREVERSIBLE: NOTHING",
        "IRREVERSIBLE: YESTERDAY",
        "IRREVERSIBLE: notably",
        "IRREVERSIBLE: Nope",
        "IRREVERSIBLE: YES or NO",
        "IRREVERSIBLE: yes/no",
        "IRREVERSIBLE: true, but no",
        "IRREVERSIBLE:",
        "IRREVERSIBLE: maybe",
        "IRREVERSIBLE: YES\nIRREVERSIBLE: NO",
        "The answer is YES",
        "Nothing irreversible here: yes",
        "IRREVERSIBLE_TOOLS: yes",
        "Irreversibly yes",
    ],
)
def test_unclear_or_missing_verdict_is_none(text: str) -> None:
    assert parse(text).irreversible is None


def test_cannot_is_not_read_as_no() -> None:
    v = parse("IRREVERSIBLE: YES - the message cannot be unsent\nBLOCKED_TOOLS: send_message")
    assert v.irreversible is True


def test_yes_and_no_elsewhere_in_the_text_do_not_count() -> None:
    text = "No doubt about it.\nIRREVERSIBLE: YES\nBLOCKED_TOOLS: delete_note\nNo more to add."
    assert parse(text).irreversible is True


# --- the plain-text form: the blocked tools ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        ("BLOCKED_TOOLS: send_message, delete_note", [MAIL, SLACK, DELETE_NOTE]),
        ("BLOCKED_TOOLS: mail/send_message; delete_note", [MAIL, DELETE_NOTE]),
        ("BLOCKED_TOOLS: mail/send_message delete_note", [MAIL, DELETE_NOTE]),
        ("BLOCKED_TOOLS: mail/send_message and delete_note.", [MAIL, DELETE_NOTE]),
        ("BLOCKED_TOOLS: `mail/send_message`, `delete_note`", [MAIL, DELETE_NOTE]),
        ("BLOCKED_TOOLS: **mail/send_message**", [MAIL]),
        ('BLOCKED_TOOLS: ["mail/send_message", "delete_note"]', [MAIL, DELETE_NOTE]),
        ("BLOCKED_TOOLS: mcp__mail__send_message", [MAIL]),
        ("BLOCKED_TOOLS: mail_send_message", [MAIL]),
        ("BLOCKED_TOOLS: mail.send_message, notes:delete_note", [MAIL, DELETE_NOTE]),
        ("BLOCKED_TOOLS: send_message()", [MAIL, SLACK]),
        ("blocked tools: mail/send_message", [MAIL]),
        ("Blocked Tools: mail/send_message", [MAIL]),
        ("BLOCKED-TOOLS: mail/send_message", [MAIL]),
        ("blocked_tools: mail/send_message", [MAIL]),
        ("Blocked: mail/send_message", [MAIL]),
        ("Tools to block: mail/send_message", [MAIL]),
        ("**BLOCKED_TOOLS:** `mail/send_message`", [MAIL]),
        ("**Blocked tools**: mail/send_message", [MAIL]),
        ("### Blocked tools: mail/send_message", [MAIL]),
        ("BLOCKED_TOOLS: delete_note, delete_note, DELETE_NOTE", [DELETE_NOTE]),
        ("BLOCKED_TOOLS: delete_note, mail/send_message", [DELETE_NOTE, MAIL]),
        ("BLOCKED_TOOLS: send_message (emails cannot be recalled)", [MAIL, SLACK]),
        ("BLOCKED_TOOLS: mail/send_message - emails cannot be recalled", [MAIL]),
        ("**BLOCKED_TOOLS:** delete_note - gone for good", [DELETE_NOTE]),
    ],
)
def test_blocked_tools_on_the_key_line(text: str, tools: list[tuple[str, str]]) -> None:
    v = parse("IRREVERSIBLE: YES\n" + text)
    assert v.irreversible is True
    assert list(v.tools) == tools
    assert v.unknown == ()


@pytest.mark.parametrize(
    "listing",
    [
        "BLOCKED_TOOLS:\n- mail/send_message\n- delete_note",
        "BLOCKED_TOOLS:\n* mail/send_message\n* delete_note",
        "BLOCKED_TOOLS:\n+ mail/send_message\n+ delete_note",
        "BLOCKED_TOOLS:\n1. mail/send_message\n2. delete_note",
        "BLOCKED_TOOLS:\n1) mail/send_message\n2) delete_note",
        "BLOCKED_TOOLS:\nmail/send_message\ndelete_note",
        "BLOCKED_TOOLS:\n  - `mail/send_message`\n  - **delete_note**",
        "BLOCKED_TOOLS:\n\n- mail/send_message\n- delete_note",
        "BLOCKED_TOOLS:\nmail/send_message, delete_note",
        "**BLOCKED TOOLS:**\n- mail/send_message\n- delete_note",
        "### Blocked tools\n- mail/send_message\n- delete_note",
        "BLOCKED_TOOLS: mail/send_message\n- delete_note",
        "BLOCKED_TOOLS:\n```\nmail/send_message\ndelete_note\n```",
        "BLOCKED_TOOLS:\n- mail/send_message: an email cannot be recalled\n- delete_note - gone",
        "BLOCKED_TOOLS:\n- mail/send_message (an email cannot be recalled)\n- delete_note",
        "BLOCKED_TOOLS:\nmail/send_message: an email cannot be recalled\ndelete_note: gone",
    ],
)
def test_blocked_tools_listed_on_following_lines(listing: str) -> None:
    v = parse(f"IRREVERSIBLE: YES\n{listing}\n")
    assert v.tools == (MAIL, DELETE_NOTE)
    assert v.unknown == ()


def test_list_ends_at_a_blank_line() -> None:
    v = parse("IRREVERSIBLE: YES\nBLOCKED_TOOLS:\n- delete_note\n\n- mail/send_message\n")
    assert v.tools == (DELETE_NOTE,)


def test_list_ends_at_the_next_key() -> None:
    text = "BLOCKED_TOOLS:\n- delete_note\nIRREVERSIBLE: YES\nmail/send_message\n"
    v = parse(text)
    assert v.irreversible is True
    assert v.tools == (DELETE_NOTE,)


def test_list_ends_at_a_header_or_prose() -> None:
    v = parse(
        "IRREVERSIBLE: YES\nBLOCKED_TOOLS: delete_note\nThe note cannot be restored afterwards.\n"
        "### Notes\nsend_message"
    )
    assert v.tools == (DELETE_NOTE,)
    assert v.unknown == ()


def test_keys_in_any_order() -> None:
    v = parse("BLOCKED_TOOLS: delete_note\nIRREVERSIBLE: YES")
    assert v == ParsedVerdict(True, (DELETE_NOTE,), (), {})


@pytest.mark.parametrize(
    "value",
    [
        "",
        "   ",
        "none",
        "None",
        "NONE.",
        "**none**",
        "`none`",
        "n/a",
        "N/A",
        "NA",
        "-",
        "\u2014",
        "nothing",
        "Nothing",
        "[]",
        "[ ]",
        "null",
        "no tools",
        "None (only reads are planned)",
        "\n- none",
        "\n\nnone",
    ],
)
def test_no_tools_markers(value: str) -> None:
    v = parse(f"IRREVERSIBLE: NO\nBLOCKED_TOOLS: {value}")
    assert v.irreversible is False
    assert v.tools == ()
    assert v.unknown == ()


def test_yes_with_an_empty_list() -> None:
    v = parse("IRREVERSIBLE: YES\nBLOCKED_TOOLS: none")
    assert v == ParsedVerdict(True, (), (), {})
    assert parse("IRREVERSIBLE: YES\nBLOCKED_TOOLS:").tools == ()
    assert parse("IRREVERSIBLE: YES").tools == ()


def test_no_with_tools_is_reported_as_written() -> None:
    v = parse("IRREVERSIBLE: NO\nBLOCKED_TOOLS: delete_note")
    assert v.irreversible is False
    assert v.tools == (DELETE_NOTE,)


def test_unknown_names_are_reported_and_ignored() -> None:
    v = parse(
        "IRREVERSIBLE: YES\nBLOCKED_TOOLS: `frobnicate`, delete_note, mail/delete_note, frobnicate"
    )
    assert v.tools == (DELETE_NOTE,)
    assert v.unknown == ("frobnicate", "mail/delete_note")


def test_only_unknown_names() -> None:
    v = parse("IRREVERSIBLE: YES\nBLOCKED_TOOLS:\n- wipe_disk\n- **format_drive**")
    assert v.irreversible is True
    assert v.tools == ()
    assert v.unknown == ("wipe_disk", "format_drive")


def test_ambiguous_bare_name_blocks_every_server_that_has_it() -> None:
    v = parse("IRREVERSIBLE: YES\nBLOCKED_TOOLS: send_message")
    assert v.tools == (MAIL, SLACK)


def test_order_of_mention_is_kept() -> None:
    v = parse("IRREVERSIBLE: YES\nBLOCKED_TOOLS: delete_note, slack/send_message, notes/write")
    assert v.tools == (DELETE_NOTE, SLACK, ("notes", "write"))


def test_full_markdown_answer() -> None:
    text = """## Analysis

The user wants to email the summary to Bob and then remove the draft note.

**IRREVERSIBLE:** **YES**

**BLOCKED_TOOLS:**
- `mail/send_message` — an email cannot be recalled once sent
- `notes/delete_note`: the note is gone for good

Everything else only reads data.
"""
    v = parse(text)
    assert v.irreversible is True
    assert v.tools == (MAIL, DELETE_NOTE)
    assert v.unknown == ()
    assert v.reasons == {
        "mail/send_message": "an email cannot be recalled once sent",
        "notes/delete_note": "the note is gone for good",
    }


def test_reasons_section() -> None:
    text = (
        "IRREVERSIBLE: YES\n"
        "BLOCKED_TOOLS: send_message, delete_note\n"
        "REASONS:\n"
        "- send_message: messages cannot be unsent\n"
        "- delete_note: deletion is permanent\n"
        "- read_notes: only reads\n"
    )
    v = parse(text)
    assert v.tools == (MAIL, SLACK, DELETE_NOTE)
    assert v.reasons == {
        "mail/send_message": "messages cannot be unsent",
        "slack/send_message": "messages cannot be unsent",
        "notes/delete_note": "deletion is permanent",
    }


def test_reason_on_the_reasons_key_line() -> None:
    v = parse("IRREVERSIBLE: YES\nBLOCKED_TOOLS: delete_note\nREASON: delete_note: permanent")
    assert v.reasons == {"notes/delete_note": "permanent"}


def test_reason_given_next_to_the_name_wins_over_a_later_one() -> None:
    v = parse(
        "IRREVERSIBLE: YES\nBLOCKED_TOOLS:\n- delete_note: first\n\nREASONS:\n- delete_note: later"
    )
    assert v.reasons == {"notes/delete_note": "first"}


# --- JSON in the text -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"irreversible": true, "blocked_tools": ["mail/send_message", "delete_note"]}',
        '```json\n{"irreversible": true, "blocked_tools": ["mail/send_message", '
        '"delete_note"]}\n```',
        'Here is my answer:\n```\n{\n  "irreversible": true,\n  "blocked_tools": '
        '["mcp__mail__send_message", "`delete_note`"]\n}\n```\nDone.',
        '{"Irreversible": "YES", "Blocked-Tools": "mail/send_message, delete_note"}',
        '{"analysis": {"irreversible": true, "blocked_tools": ["mail/send_message", '
        '"delete_note"]}}',
        '{"irreversible": true, "blocked_tools": [{"server": "mail", "tool": "send_message"}, '
        '{"name": "delete_note"}]}',
    ],
)
def test_json_answers(text: str) -> None:
    v = parse(text)
    assert v.irreversible is True
    assert v.tools == (MAIL, DELETE_NOTE)
    assert v.unknown == ()


def test_json_with_reasons_and_unknown_names() -> None:
    text = (
        '```json\n{"irreversible": true, "blocked_tools": ["delete_note", "nuke"], '
        '"reasons": {"delete_note": "permanent", "nuke": "boom", "read_notes": "reads"}}\n```'
    )
    v = parse(text)
    assert v == ParsedVerdict(True, (DELETE_NOTE,), ("nuke",), {"notes/delete_note": "permanent"})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"irreversible": false, "blocked_tools": []}', ParsedVerdict(False, (), (), {})),
        ('{"irreversible": false}', ParsedVerdict(False, (), (), {})),
        ('{"blocked_tools": ["delete_note"]}', ParsedVerdict(None, (DELETE_NOTE,), (), {})),
        ('{"irreversible": "maybe", "blocked_tools": []}', ParsedVerdict(None, (), (), {})),
        ('{"irreversible": null, "blocked_tools": "none"}', ParsedVerdict(None, (), (), {})),
    ],
)
def test_json_edge_cases(text: str, expected: ParsedVerdict) -> None:
    assert parse(text) == expected


def test_json_without_analysis_keys_falls_back_to_the_text() -> None:
    text = 'Example call: {"id": 3}\nIRREVERSIBLE: YES\nBLOCKED_TOOLS: delete_note'
    assert parse(text) == ParsedVerdict(True, (DELETE_NOTE,), (), {})


def test_broken_json_falls_back_to_the_text() -> None:
    text = '{"irreversible": true, "blocked_tools": [\nIRREVERSIBLE: NO\nBLOCKED_TOOLS: none'
    assert parse(text) == ParsedVerdict(False, (), (), {})


# --- the structured path ----------------------------------------------------------------------


def test_structured_answer_resolves_like_text() -> None:
    answer = analysis(
        irreversible=True,
        blocked_tools=["`send_message`", "notes/delete_note", "mcp__notes__write", "frobnicate"],
        reasons={"delete_note": "permanent", "notes/write": "overwrites", "frobnicate": "?"},
    )
    v = from_structured(answer, CATALOG)
    assert v.irreversible is True
    assert v.tools == (MAIL, SLACK, DELETE_NOTE, ("notes", "write"))
    assert v.unknown == ("frobnicate",)
    assert v.reasons == {"notes/delete_note": "permanent", "notes/write": "overwrites"}


def test_structured_defaults_and_no() -> None:
    v = from_structured(analysis(irreversible=False), CATALOG)
    assert v == ParsedVerdict(False, (), (), {})


def test_structured_list_packed_into_one_string_is_split() -> None:
    answer = analysis(irreversible=True, blocked_tools=["delete_note, mail/send_message"])
    assert from_structured(answer, CATALOG).tools == (DELETE_NOTE, MAIL)


def test_structured_none_markers_are_not_unknown_tools() -> None:
    answer = analysis(irreversible=False, blocked_tools=["none", "N/A", ""])
    assert from_structured(answer, CATALOG) == ParsedVerdict(False, (), (), {})


def test_structured_schema_describes_its_fields() -> None:
    schema = IrreversibilityAnalysis.model_json_schema()
    assert set(schema["properties"]) == {
        "irreversible",
        "blocked_tools",
        "read_only_tools",
        "reasons",
    }
    assert schema["required"] == ["irreversible", "blocked_tools", "read_only_tools", "reasons"]
    assert all(p.get("description") for p in schema["properties"].values())


def test_parsed_verdict_is_frozen() -> None:
    v = ParsedVerdict(True)
    with pytest.raises(AttributeError):
        v.irreversible = False  # type: ignore[misc]
    assert (v.tools, v.unknown, dict(v.reasons)) == ((), (), {})


# --- hostile input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "*" * 50_000,
        "-" * 50_000,
        " " * 50_000 + "x",
        "IRREVERSIBLE: " + " " * 50_000 + "x",
        "BLOCKED_TOOLS: " + "*`" * 25_000,
        "BLOCKED_TOOLS: " + "a_" * 25_000,
        "a" * 50_000 + " - x",
        "``` " + " " * 50_000 + "x",
        "{" * 50_000,
        '{"a": ' * 20_000,
        "BLOCKED_TOOLS:\n" + "\n".join(f"- nope_{i}" for i in range(3_000)),
    ],
)
def test_hostile_answers_give_no_verdict_and_name_no_tool(text: str) -> None:
    # Their time, n against 8n, is measured by bench/bench_hostile.py, not here: no test may
    # depend on machine speed.
    catalog = {f"s{i}": [f"tool_{j}" for j in range(50)] for i in range(40)}
    v = parse_verdict_text(text, catalog)
    assert v.irreversible is None
    assert v.tools == ()


def test_long_lists_against_a_large_catalog() -> None:
    catalog = {f"s{i}": [f"tool_{j}" for j in range(50)] for i in range(40)}
    text = "IRREVERSIBLE: YES\nBLOCKED_TOOLS: " + ", ".join(f"tool_{j % 50}" for j in range(5_000))
    v = parse_verdict_text(text, catalog)
    assert v.irreversible is True
    assert len(v.tools) == 2_000
    assert v.tools[:2] == (("s0", "tool_0"), ("s1", "tool_0"))


# --- properties -------------------------------------------------------------------------------

_server_names = st.from_regex(r"[a-z][a-z0-9]{0,7}", fullmatch=True)
_tool_names = st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,12}[A-Za-z0-9]", fullmatch=True).filter(
    lambda n: not n.lower().startswith("mcp")
)
_catalogs = st.dictionaries(
    _server_names,
    st.lists(_tool_names, min_size=1, max_size=5, unique=True),
    min_size=1,
    max_size=4,
)
_forms = st.sampled_from(["{t}", "{s}/{t}", "{s}:{t}", "mcp__{s}__{t}"])
_wrappers = st.sampled_from(
    ["{}", "`{}`", "**{}**", "*{}*", "_{}_", "'{}'", '"{}"', "{}()", "`{}()`", "  {}  ", "[{}]"]
)
_tails = st.sampled_from(["", ".", ",", ";", ":", "!", "?"])


@settings(max_examples=300)
@given(catalog=_catalogs, data=st.data())
def test_any_decorated_catalog_name_resolves_back_to_its_tool(
    catalog: dict[str, list[str]], data: st.DataObject
) -> None:
    server = data.draw(st.sampled_from(sorted(catalog)))
    tool = data.draw(st.sampled_from(catalog[server]))
    name = data.draw(_forms).format(s=server, t=tool)
    if data.draw(st.booleans()):
        name = name.upper()
    if data.draw(st.booleans()):
        name = name.replace("_", "\\_")
    for _ in range(data.draw(st.integers(min_value=1, max_value=3))):
        name = data.draw(_wrappers).format(name)
    name += data.draw(_tails)
    assert (server, tool) in resolve_tool_name(name, catalog)


@settings(max_examples=200)
@given(catalog=_catalogs, data=st.data())
def test_qualified_names_never_resolve_to_another_server(
    catalog: dict[str, list[str]], data: st.DataObject
) -> None:
    server = data.draw(st.sampled_from(sorted(catalog)))
    tool = data.draw(st.sampled_from(catalog[server]))
    sep = data.draw(st.sampled_from(["/", ":"]))
    assert {s for s, _ in resolve_tool_name(f"`{server}{sep}{tool}`", catalog)} == {server}


@settings(max_examples=200)
@given(catalog=_catalogs, text=st.text(max_size=300))
def test_parsing_never_fails_and_only_yields_catalog_tools(
    catalog: dict[str, list[str]], text: str
) -> None:
    v = parse_verdict_text(text, catalog)
    known = {(s, t) for s, tools in catalog.items() for t in tools}
    assert set(v.tools) <= known
    assert len(set(v.tools)) == len(v.tools)


@settings(max_examples=200)
@given(catalog=_catalogs, data=st.data())
def test_written_answers_round_trip(catalog: dict[str, list[str]], data: st.DataObject) -> None:
    refs = sorted({(s, t) for s, tools in catalog.items() for t in tools})
    chosen = data.draw(st.lists(st.sampled_from(refs), unique=True, max_size=4))
    verdict = data.draw(st.booleans())
    names = [f"{s}/{t}" for s, t in chosen]
    sep = data.draw(st.sampled_from([", ", "; ", " ", "\n- ", "\n"]))
    listing = (sep.lstrip(",; ") if sep.startswith("\n") else "") + sep.join(names)
    text = f"IRREVERSIBLE: {'YES' if verdict else 'NO'}\nBLOCKED_TOOLS: {listing or 'none'}"
    v = parse_verdict_text(text, catalog)
    assert v.irreversible is verdict
    assert v.tools == tuple(chosen)
    assert v.unknown == ()


def test_a_name_written_with_one_tools_exact_case_is_that_tool_alone() -> None:
    """Found by test_written_answers_round_trip: `a/A0` also cleared or blocked `a0`."""
    catalog = {"a": ["A0", "a0"], "b": ["Drop"]}
    assert resolve_tool_name("a/A0", catalog) == [("a", "A0")]
    assert resolve_tool_name("a/a0", catalog) == [("a", "a0")]
    assert resolve_tool_name("a/A0()", catalog) == [("a", "A0")]
    assert resolve_tool_name("b/drop", catalog) == [("b", "Drop")]
