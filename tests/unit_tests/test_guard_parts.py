"""The guard reads a noun as a noun: parts of speech decide which word is the tool's verb.

A change word used as a noun ("lock" in `get_lock_status`, "sent" in "transactions sent or
received") no longer holds a read tool; verbs of observing read with their object and yield to a
change word they qualify ("test-charge the card"); the writes next to them stay held.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from mcp.types import Tool

from common.mcp.config import ServerConfig
from common.safety.classify import classify_tool
from common.safety.parts import can_be_noun, modifier_or_head, only_a_verb, singular_noun
from common.safety.wording import name_tokens

PLAIN = ServerConfig(command="srv")


def _held(name: str, description: str | None = None) -> bool:
    tool = Tool(name=name, description=description, inputSchema={"type": "object"})
    return classify_tool("srv", tool, PLAIN)["irreversible"]


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("estimate_dispatch_time", "Estimate the dispatch time for an incident."),
        ("search_address_book", "Search the address book by name."),
        ("history", "Search transactions sent or received by the account."),
        ("inbox", "List messages sent by the team today."),
        ("get_lock_status", "Get the lock status of a door."),
        ("check_label_text", "Check the label text of a sample."),
    ],
)
def test_a_change_word_used_as_a_noun_does_not_hold_a_read_tool(
    name: str, description: str
) -> None:
    assert not _held(name, description)


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("measure_temperature", None),
        ("verify_signature", "Verify the signature of a document."),
        ("signature", "Verify the signature of a document."),
        ("weigh_sample", "Weigh the sample on the balance."),
        ("test_sample", "Test a sample for contamination."),
        ("monitor_pressure", "Monitor the pressure of the tank."),
        ("predict_delay", "Predict the delay of a flight."),
        ("decode_protocol", "Decode digital protocols from acquired data."),
    ],
)
def test_verbs_of_observing_read_with_their_objects(name: str, description: str | None) -> None:
    assert not _held(name, description)


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("verify_and_transfer", "Verify the balance and transfer the funds."),
        ("card", "Test-charge the card."),
        ("test_order_kit", None),
        ("kit", "Test-order the kit."),
        ("monitor_and_restart", None),
        ("predict_and_trade", None),
        ("monitor", "Start monitoring the tank."),
        ("verify_email", "Verify the address and activate the account."),
    ],
)
def test_a_verb_of_observing_before_a_change_word_does_not_clear_it(
    name: str, description: str | None
) -> None:
    assert _held(name, description)


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("compute.instances.insert", None),
        ("BigQueryInsertRows", None),
        ("search_console_submit_sitemap", None),
        ("status_update", None),
        ("search_replace", None),
        ("check_lock_unlock", None),
        ("orders", "Search orders placed and paid today."),
        ("invoice", "Get the invoice paid."),
        ("overdue", "Lists overdue invoices, with reminders sent automatically to each customer."),
        ("generate_test_signal", "Generate a test signal and inject it as ADC data."),
        ("lookup_book", "Book the room it finds."),
    ],
)
def test_the_governing_verb_still_holds_writes_next_to_nouns(
    name: str, description: str | None
) -> None:
    """Resource-first names, plural objects, verbs that cannot be nouns, participles after a
    clause or a causative, and a verb no vocabulary knows before a read word all stay held."""
    assert _held(name, description)


def test_the_lexicon_tells_nouns_from_verbs_and_plurals_from_modifiers() -> None:
    assert can_be_noun("lock")
    assert can_be_noun("status")
    assert not can_be_noun("submit")
    assert singular_noun("address")
    assert not singular_noun("instances")
    assert only_a_verb("generate")
    assert not only_a_verb("git")
    assert not only_a_verb("browser")
    words = name_tokens("search_address_book")
    assert modifier_or_head(words, 2, 0)
    words = name_tokens("compute_instances_insert")
    assert not modifier_or_head(words, 2, 0)


def test_the_lexicon_is_loaded_only_when_a_tool_is_read() -> None:
    """Importing the guard (as the CLI's `tools` command does) does not load the lexicon."""
    code = (
        "import sys, common.safety.classify, common.safety.wording, common.safety.parts as p; "
        "assert not p.loaded(); "
        "from common.safety.wording import read_name; read_name('estimate_dispatch_time'); "
        "assert p.loaded()"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
