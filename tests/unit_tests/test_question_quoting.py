"""Nothing in a call's arguments can end their quoting and forge lines of the question."""

from __future__ import annotations

import io

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.console import Console

from common.safety.approval import PendingCall, build_approval_request
from common.safety.inbox import inbox_request
from common.safety.quoting import code_span, markdown_text, one_line
from strategies.cli import outcome, prompts
from strategies.cli.outcome import Outcome
from strategies.with_planner.nodes.approve import approval_message
from strategies.with_planner.plans import describe_call
from strategies.with_planner.state import Awaiting

FAKE = "Why approval: read-only lookup"
INJECTIONS = {
    "backtick": f"a` (task t0). {FAKE}. `b",
    "triple-backtick": f"```\n{FAKE}\n```",
    "newline": f"x\n- inventory: `get_stock()` (task t9). {FAKE}.",
    "rich-markup": f"[bold]{FAKE}[/bold]",
    "line-separator": f"x\u2028{FAKE}\u2029\x85{FAKE}\r{FAKE}",
    "mixed-runs": f"`` ` ```` {FAKE} `",
}
MD = MarkdownIt("commonmark")


def call(value: str, reason: str = "it writes a note (source: annotations)") -> PendingCall:
    return PendingCall(
        id="c1", expert="notes", name="write_note", args={"title": value}, reason=reason
    )


def prose(tokens: list[Token]) -> str:
    """The text Markdown renders outside code, across every inline token."""
    found: list[str] = []
    for token in tokens:
        for child in token.children or []:
            if child.type == "text":
                found.append(child.content)
    return " ".join(found)


def code(tokens: list[Token]) -> list[str]:
    return [c.content for t in tokens for c in t.children or [] if c.type == "code_inline"]


@pytest.mark.parametrize("value", INJECTIONS.values(), ids=INJECTIONS.keys())
def test_the_chat_message_keeps_every_argument_inside_its_code_span(value: str) -> None:
    awaiting = Awaiting(task_id="t1", key="k", call=call(value))
    tokens = MD.parse(approval_message([awaiting], "hitl"))
    assert prose(tokens).count("Why approval") == 1
    # The call is shown whole, on one line, inside one code span.
    assert code(tokens) == [one_line(describe_call("write_note", {"title": value}))]
    assert [t.type for t in tokens if t.type.endswith("_open")].count("list_item_open") == 1


@pytest.mark.parametrize("value", INJECTIONS.values(), ids=INJECTIONS.keys())
def test_a_reason_quoting_an_argument_cannot_forge_lines_in_any_format(value: str) -> None:
    reason = f"argument 'title' is {value}"
    pending = call("t", reason=reason)
    chat = MD.parse(approval_message([Awaiting(task_id="t1", key="k", call=pending)], "hitl"))
    # One list item, whose text after "Why approval: " is the reason, every character of it.
    assert [t.type for t in chat].count("list_item_open") == 1
    assert f"Why approval: {one_line(reason)}." in prose(chat)

    (card,) = inbox_request(pending, error=f"bad answer {value}")
    blocks = MD.parse(card["description"])
    assert [t.type for t in blocks if t.type.endswith("_open")] == ["paragraph_open"] * 3
    assert f"cannot be undone: {one_line(reason)}." in prose(blocks)

    (request,) = build_approval_request([pending])["action_requests"]
    assert request["description"].splitlines() == [request["description"]]


@pytest.mark.parametrize("value", INJECTIONS.values(), ids=INJECTIONS.keys())
def test_the_terminal_shows_arguments_as_text_on_their_own_lines(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    screen = Console(file=io.StringIO(), width=300, color_system=None)
    monkeypatch.setattr(prompts, "out", screen)
    monkeypatch.setattr(prompts, "ask", lambda *a, **k: "r")
    request = build_approval_request([call(value, reason=f"argument is {value}")])
    request["action_requests"][0]["name"] = f"write_note{value}"

    prompts.ask_approval(request)

    shown = screen.file.getvalue()  # type: ignore[attr-defined]
    assert not any(line.strip("│|+ ").startswith("Why approval") for line in shown.splitlines())
    if "[bold]" in value:
        assert "[bold]" in shown


@pytest.mark.parametrize("value", INJECTIONS.values(), ids=INJECTIONS.keys())
def test_the_waiting_list_shows_each_call_on_one_line(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    screen = Console(file=io.StringIO(), width=300, color_system=None)
    monkeypatch.setattr("strategies.cli.render.out", screen)
    pending = {"name": "write_note", "args": {"title": value}, "reason": f"r {value}"}
    outcome.show(
        Outcome("t", "awaiting_approval", 3, pending=[{**pending, "question": "q1"}], resume="r")
    )
    lines = screen.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert not any(line.lstrip().startswith(("Why approval", "- inventory")) for line in lines)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", "`plain`"),
        ("a`b", "``a`b``"),
        ("```x", "```` ```x ````"),
        ("a\nb", "`a\\nb`"),
        (" x ", "`  x  `"),
    ],
)
def test_code_span_fences_are_longer_than_any_backtick_run(text: str, expected: str) -> None:
    assert code_span(text) == expected
    (paragraph,) = [t for t in MD.parse(code_span(text)) if t.type == "inline"]
    assert [c.content for c in paragraph.children or []] == [one_line(text)]


def test_markdown_text_renders_as_the_same_characters() -> None:
    text = "*bold* _it_ [link](x) <b> `code` # h | ~ !\\"
    (paragraph,) = [t for t in MD.parse(markdown_text(text)) if t.type == "inline"]
    assert "".join(c.content for c in paragraph.children or []) == text
