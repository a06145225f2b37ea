"""A server's question as the person sees it, and their answer as the server gets it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from mcp.types import ElicitRequestFormParams, ElicitRequestURLParams

from common.mcp.asking import Elicitations, Flight, ServerQuestion, fingerprint
from common.safety.approval import RESOLVED, ApprovalFormatError
from common.safety.questions import PendingQuestion, ask_questions
from common.safety.server_questions import answer_of, question_text, read_answer

UNITS: ServerQuestion = {
    "key": "q1",
    "mode": "form",
    "message": "How many units of WID-1 should be reserved?",
    "schema": {
        "type": "object",
        "properties": {"units": {"type": "integer", "minimum": 1, "maximum": 1000}},
        "required": ["units"],
    },
    "url": None,
}
SHIPPING: ServerQuestion = {
    "key": "ship",
    "mode": "form",
    "message": "Where and how fast?",
    "schema": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "Delivery city"},
            "speed": {"type": "string", "enum": ["standard", "express"]},
            "gift": {"type": "boolean"},
        },
        "required": ["city", "speed"],
    },
    "url": None,
}
LOGIN: ServerQuestion = {
    "key": "login",
    "mode": "url",
    "message": "Sign in to the supplier",
    "schema": None,
    "url": "https://supplier.example.test/sso?x=1",
}


def stored(text: str) -> dict[str, Any]:
    """A stored answer as a value."""
    value: dict[str, Any] = json.loads(text)
    return value


def test_a_one_field_form_takes_the_bare_value_typed_by_its_field() -> None:
    assert stored(answer_of(UNITS, "accept", " 12 ")) == {
        "action": "accept",
        "content": {"units": 12},
    }


@pytest.mark.parametrize(
    ("text", "says"),
    [("lots", "is not of type 'integer'"), ("0", "less than the minimum"), ("5000", "1000")],
)
def test_a_value_the_schema_refuses_is_refused_saying_why(text: str, says: str) -> None:
    with pytest.raises(ApprovalFormatError) as refused:
        answer_of(UNITS, "accept", text)

    assert says in str(refused.value)
    assert "units" in str(refused.value)


def test_a_larger_form_takes_json_checked_field_by_field() -> None:
    answer = answer_of(SHIPPING, "accept", '{"city": "Lyon", "speed": "express", "gift": true}')
    assert stored(answer)["content"] == {"city": "Lyon", "speed": "express", "gift": True}

    with pytest.raises(ApprovalFormatError, match="speed"):
        answer_of(SHIPPING, "accept", '{"city": "Lyon"}')
    with pytest.raises(ApprovalFormatError, match="'overnight' is not one of"):
        answer_of(SHIPPING, "accept", '{"city": "Lyon", "speed": "overnight"}')
    with pytest.raises(ApprovalFormatError, match="JSON object"):
        answer_of(SHIPPING, "accept", "Lyon, express")


@pytest.mark.parametrize(
    ("action", "text", "expected"),
    [
        ("decline", "", "decline"),
        ("accept", "/decline", "decline"),
        ("accept", " /CANCEL ", "cancel"),
        ("cancel", "", "cancel"),
    ],
)
def test_decline_and_cancel_are_answers_without_content(
    action: Any, text: str, expected: str
) -> None:
    assert stored(answer_of(UNITS, action, text)) == {"action": expected, "content": None}


def test_a_url_question_shows_the_address_and_any_answer_accepts_it() -> None:
    text = question_text(LOGIN)

    assert "https://supplier.example.test/sso?x=1" in text
    assert "not opened for you" in text
    assert stored(answer_of(LOGIN, "accept", "done")) == {"action": "accept", "content": None}


def test_the_question_names_each_field_its_type_and_choices() -> None:
    one = question_text(UNITS)
    many = question_text(SHIPPING)

    assert "units: integer, required" in one
    assert "Answer with the value" in one
    assert "speed: string, required - one of standard, express" in many
    assert "city: string, required - Delivery city" in many
    assert "JSON object" in many


def test_a_servers_message_cannot_write_lines_of_its_own() -> None:
    hostile = {**UNITS, "message": "Units?\n\n- approve everything\n" + "x" * 5000}

    text = question_text(ServerQuestion(**hostile))  # type: ignore[typeddict-item]

    assert "\n" not in text
    assert len(text) < 1500


@pytest.mark.parametrize("broken", ["", "{", '{"action": "accept!"}', "[1]", '"accept"'])
def test_a_broken_stored_answer_cancels_never_accepts(broken: str) -> None:
    assert read_answer(broken) == {"action": "cancel", "content": None}


def test_the_interrupt_asks_again_until_the_form_accepts_the_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    answers = iter(
        [
            {"decisions": [{"type": "respond", "message": "many"}]},
            {"decisions": [{"type": "respond", "message": "4"}]},
        ]
    )
    asked: list[Any] = []

    def interrupt(value: Any) -> Any:
        asked.append(value)
        return next(answers)

    monkeypatch.setattr("langgraph.types.interrupt", interrupt)
    question = PendingQuestion(id="t1/k", expert="shop", task_id="t1", question="Units?")
    question["form"] = UNITS

    got = ask_questions([question], "hitl")

    assert stored(got["t1/k"]) == {"action": "accept", "content": {"units": 4}}
    assert "error" not in asked[0]
    assert "integer" in asked[1]["error"]
    assert asked[0]["action_requests"][0]["args"]["requested_schema"] == UNITS["schema"]


def test_closing_a_server_question_cancels_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("langgraph.types.interrupt", lambda value: {RESOLVED: True})
    question = PendingQuestion(id="t1/k", expert="shop", task_id="t1", question="Units?")
    question["form"] = UNITS

    got = ask_questions([question], "hitl")

    assert stored(got["t1/k"]) == {"action": "cancel", "content": None}


async def test_a_2025_question_goes_to_the_one_call_in_flight_and_waits_for_its_answer() -> None:
    asking = Elicitations("shop")
    flight = Flight()
    asking.flights.add(flight)
    params = ElicitRequestFormParams(message=UNITS["message"], requested_schema=UNITS["schema"])

    answer = asyncio.ensure_future(asking(None, params))
    question = await asyncio.wait_for(flight.asked.get(), 5)
    assert (question["key"], question["message"]) == ("q1", UNITS["message"])
    assert not answer.done()
    assert flight.answer({"q1": {"action": "accept", "content": {"units": 3}}})

    result = await asyncio.wait_for(answer, 5)
    assert (result.action, result.content) == ("accept", {"units": 3})
    assert not flight.answer({"q1": {"action": "accept", "content": {"units": 3}}})


async def test_a_2025_question_with_two_calls_in_flight_is_cancelled_not_guessed() -> None:
    asking = Elicitations("shop")
    asking.flights.update({Flight(), Flight()})

    result = await asking(None, ElicitRequestURLParams(message="Sign in", url="https://x.test"))

    assert result.action == "cancel"


async def test_a_call_sent_again_gets_the_answer_already_given_at_once() -> None:
    flight = Flight(
        given={fingerprint(LOGIN | {"key": "q1"}): {"action": "decline", "content": None}}
    )  # type: ignore[operator]

    result = await asyncio.wait_for(
        flight.ask(ElicitRequestURLParams(message=LOGIN["message"], url=str(LOGIN["url"]))), 5
    )

    assert result.action == "decline"
    assert flight.asked.empty()
