"""Arithmetic and sign-in readings, their look-alikes, and the vocabulary file's validation.

Tools written as Python functions (`add(a, b)`: "Add two numbers.") or as a service's login
step ("Log in a user with the given user ID") used to wait for approval on every call because
"add" and "login" are change verbs. Each reading clears only from closed sets of words, and a
look-alike that adds a record, pays or sends stays held.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.types import Tool, ToolAnnotations

from common.mcp.config import ServerConfig
from common.safety import vocabulary
from common.safety.classify import classify_tool
from common.safety.wording import CHANGE_VERBS, DESTRUCTIVE_VERBS

PLAIN = ServerConfig(command="srv")
NUMBERS = {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "integer"}}}
LIST = {"type": "object", "properties": {"numbers": {"type": "array", "items": {"type": "number"}}}}
TEXT = {"type": "object", "properties": {"name": {"type": "string"}}}


def tool(name: str, description: str, schema: dict[str, Any] | None = None, **hints: Any) -> Tool:
    annotations = ToolAnnotations(**hints) if hints else None
    return Tool(
        name=name, description=description, inputSchema=schema or TEXT, annotations=annotations
    )


ARITHMETIC = [
    ("add", "Add two numbers.", NUMBERS),
    ("subtract", "Subtract one number from another.", NUMBERS),
    ("multiply", "Multiply two numbers.", NUMBERS),
    ("divide", "Divide one number by another.", NUMBERS),
    ("power", "Raise a number to a power.", NUMBERS),
    ("round_number", "Round a number to a specified number of decimal places.", NUMBERS),
    ("sum_values", "Sum the values.", LIST),
    (
        "add",
        "This tool belongs to the Math API, which provides various mathematical operations. "
        "Tool description: Add two numbers.",
        NUMBERS,
    ),
]


@pytest.mark.parametrize(("name", "description", "schema"), ARITHMETIC)
def test_arithmetic_on_numbers_runs_without_asking(
    name: str, description: str, schema: dict[str, Any]
) -> None:
    v = classify_tool("math", tool(name, description, schema), PLAIN)
    assert v["irreversible"] is False, v
    assert "arithmetic" in v["reason"], v


ARITHMETIC_LOOKALIKES = [
    ("add", "Add two numbers.", TEXT),  # takes text: could be anything
    ("add_user", "Add a user.", TEXT),
    ("add", "Add two numbers to the ledger.", NUMBERS),  # a destination: a record
    ("add", "Add two numbers. Saves the result to the report.", NUMBERS),
    ("add_and_pay", "Add two numbers.", NUMBERS),
    ("add", "Add 2 numbers and send them.", NUMBERS),
    ("deposit", "Add the amount to the balance.", NUMBERS),
    ("increment_counter", "Increment the counter by a number.", NUMBERS),
    ("add", "Add two numbers \u2795.", NUMBERS),
    ("set_budget_limit", "Set the budget limit for the user.", NUMBERS),
    ("withdraw_funds", "Withdraw funds from the account balance.", NUMBERS),
    ("fund_account", "Fund the account with the specified amount.", NUMBERS),
    ("add", "Add two numbers.", {"type": "object", "properties": {}}),
]


@pytest.mark.parametrize(("name", "description", "schema"), ARITHMETIC_LOOKALIKES)
def test_what_only_looks_like_arithmetic_still_waits(
    name: str, description: str, schema: dict[str, Any]
) -> None:
    v = classify_tool("srv", tool(name, description, schema), PLAIN)
    assert v["irreversible"] is True, v


def test_arithmetic_yields_to_a_declared_write() -> None:
    declared = tool("add", "Add two numbers.", NUMBERS, readOnlyHint=False, destructiveHint=True)
    assert classify_tool("math", declared, PLAIN)["irreversible"] is True


@settings(max_examples=200, deadline=None)
@given(verb=st.sampled_from(sorted(CHANGE_VERBS | DESTRUCTIVE_VERBS)), where=st.integers(0, 2))
def test_any_other_change_verb_in_an_arithmetic_sentence_holds(verb: str, where: int) -> None:
    words = ["Add", "two", "numbers"]
    words.insert(where + 1, verb)
    v = classify_tool("math", tool("add", " ".join(words) + ".", NUMBERS), PLAIN)
    assert v["irreversible"] is True, (words, v)


SIGN_INS = [
    ("trading_login", "Handle user login."),
    ("trading_logout", "Handle user logout for trading system."),
    ("logout", "Log out the current user."),
    ("message_login", "Log in a user with the given user ID to the message application."),
    ("authenticate_twitter", "Authenticate a user with username and password."),
    ("authenticate_travel", "Authenticate the user with the travel API"),
    ("ticket_login", "Authenticate a user for ticket system."),
    ("sign_in", "Sign in the current user."),
]


@pytest.mark.parametrize(("name", "description"), SIGN_INS)
def test_signing_the_sessions_user_in_or_out_runs_without_asking(
    name: str, description: str
) -> None:
    v = classify_tool("svc", tool(name, description), PLAIN)
    assert v["irreversible"] is False, v
    assert "signs the session's user in or out" in v["reason"], v


SIGN_IN_LOOKALIKES = [
    ("authenticate_payment", "Authenticate a payment with 3-D Secure."),
    ("login", "Log in and transfer the funds."),
    ("login", "Log in a user and pay the invoice."),
    ("login_and_pay", "Log in a user."),
    ("login", "Log in a user. Sends a notification to all admins."),
    ("register_user", "Register a user with username and password."),
    ("logout_all", "Log out every device of the user and revoke their tokens."),
    ("login", "Log in a user with the bank, then archive the statements."),
    ("login", "Log in a user \u2705"),
    ("delete_user", "Log out the current user."),
    ("login", "Log in the admin."),
]


@pytest.mark.parametrize(("name", "description"), SIGN_IN_LOOKALIKES)
def test_what_only_looks_like_a_sign_in_still_waits(name: str, description: str) -> None:
    v = classify_tool("svc", tool(name, description), PLAIN)
    assert v["irreversible"] is True, v


def test_a_sign_in_yields_to_a_declared_write() -> None:
    declared = tool("login", "Log in a user.", destructiveHint=True)
    assert classify_tool("svc", declared, PLAIN)["irreversible"] is True


def test_the_shipped_vocabulary_loads_and_every_section_is_checked() -> None:
    data = vocabulary.load()
    assert set(data) == set(vocabulary.SCHEMA)
    assert "delete" in data["verbs"]["destructive"]


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda t: t.replace("[verbs]", "[verb]", 1), "sections"),
        (lambda t: t.replace("destructive = [", "destructiv = [", 1), "[verbs]"),
        (lambda t: t.replace('"delete",', '"Delete",', 1), "destructive is not words"),
        (lambda t: t.replace('"delete",', "3,", 1), "destructive is not words"),
        (lambda t: t + '\n[extra]\nwords = ["x"]\n', "sections"),
    ],
)
def test_a_malformed_vocabulary_is_refused_with_one_sentence(edit: Any, said: str) -> None:
    text = edit(vocabulary.resources.files("common.safety").joinpath("vocabulary.toml").read_text())
    with pytest.raises(vocabulary.VocabularyError) as caught:
        vocabulary.load(text)
    assert said in str(caught.value)
    assert "\n" not in str(caught.value)
