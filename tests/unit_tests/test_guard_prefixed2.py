"""Issue 44, third pass: the classes the second product-prefixed set showed (its held-out measure
was 1 missed, 18 of 66 read-only tools held; it is a tuning list since).

Each class with examples written here in other words than the set's, and the writes beside them
that must stay held.
"""

from __future__ import annotations

import pytest
from mcp.types import Tool, ToolAnnotations

from common.mcp.config import ServerConfig
from common.safety.classify import ToolVerdict, classify_tool
from common.safety.readings import physical_effect

PLAIN = ServerConfig(command="srv")


def _verdict(
    server: str, name: str, description: str | None = None, hint: bool | None = None
) -> ToolVerdict:
    annotations = None if hint is None else ToolAnnotations(readOnlyHint=hint)
    tool = Tool(
        name=name, description=description, inputSchema={"type": "object"}, annotations=annotations
    )
    return classify_tool(server, tool, PLAIN)


def _held(server: str, name: str, description: str | None = None) -> bool:
    return _verdict(server, name, description)["irreversible"]


# 1. Printing on paper, a label or a device is a change; no read verb in the name takes it back.


@pytest.mark.parametrize(
    ("server", "name", "description"),
    [
        ("paperjet", "paperjet_printers_test_page", "Print a test page on the printer."),
        ("labelhub", "labelhub.check_alignment", "Print an alignment sheet on the label printer."),
        ("kiosk", "kiosk_verify_receipt", "Prints a sample receipt to verify the roll."),
        ("office", "office_get_badge", "Print the visitor's badge."),
    ],
)
def test_printing_on_a_medium_is_held_whatever_the_name_reads(
    server: str, name: str, description: str
) -> None:
    verdict = _verdict(server, name, description)
    assert verdict["irreversible"], verdict


def test_an_untrusted_read_only_hint_does_not_clear_printing_on_paper() -> None:
    verdict = _verdict("paperjet", "test_page", "Print a test page on the printer.", hint=True)
    assert verdict["irreversible"], verdict


@pytest.mark.parametrize(
    "description",
    [
        "Print the current configuration to stdout.",
        "Print the page's title to the console.",
        "Print preview of the page as it would look on paper.",
        "Return a printable version of the invoice page.",
        "Pages printed per printer over a period.",
        "Show the printer's paper level.",
    ],
)
def test_printing_to_a_display_or_as_a_noun_is_no_physical_effect(description: str) -> None:
    assert physical_effect(description) is None


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("show_config", "Print the current configuration to stdout."),
        ("get_printable_invoice", "Return a printable version of the invoice page."),
        ("render_preview", "Print preview of the page as it would look on paper."),
    ],
)
def test_display_printing_under_a_read_name_still_reads(name: str, description: str) -> None:
    verdict = _verdict("docs", name, description)
    assert not verdict["irreversible"] or "physical" not in verdict["reason"], verdict
