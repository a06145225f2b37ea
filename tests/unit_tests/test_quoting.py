"""`one_line`: whatever a text holds, it is shown on one line, each invisible character escaped."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from common.safety.quoting import one_line


@given(st.text())
def test_any_text_is_one_printable_line_that_keeps_each_printable_character(text: str) -> None:
    shown = one_line(text)
    assert shown.isprintable()
    assert "\n" not in shown
    if text.isprintable():
        assert shown == text
    else:
        # Each character that cannot be shown is written as its escape, in its place.
        hidden = next(c for c in text if not c.isprintable())
        assert hidden.encode("unicode_escape").decode("ascii") in shown


def test_line_breaks_controls_and_invisible_characters_are_escaped() -> None:
    assert one_line("a\nb\tc\u200bd é") == "a\\nb\\tc\\u200bd é"
