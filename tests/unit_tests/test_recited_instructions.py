"""A model that recites its own instructions is never shown as the product's answer (issue 43).

A small model may answer by repeating its system prompt ("Name every task that failed, and
every action the user declined..."). The written answer that mostly recites the answer writer's
prompt is replaced by the results as they came, with a note that the model repeated its
instructions and a larger model may be needed; the planner's question back or text that recites
the planner's prompt is no plan. Both go through one check, `common.model_text.
repeats_instructions`; an answer that shares a phrase with the prompt is still the answer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from common.model_text import repeats_instructions
from strategies.cli import prompts
from strategies.cli.app import app
from strategies.with_planner.prompts import RESPONSE_INSTRUCTIONS
from tests.doubles import ScriptedChatModel, install_scripted
from tests.unit_tests.helpers import Thread

RECITED_ANSWER = (
    "Answer: Name every task that failed, and every action the user declined or that was held "
    "back for approval, and say why. Be concise and concrete."
)
"""An answer writer reciting its instructions."""

RECITED_QUESTION = (
    "Leave plan empty when no expert is needed (greetings, questions about yourself). Use only "
    "the expert names above."
)
"""A planner reciting its instructions as its question back."""

STEP = {"id": "t1", "expert": "testkit", "task": "echo", "tool": "echo", "args": {"text": "WID-1"}}


def said_instead(setting: str) -> str:
    """The note under the results, for the answer model set by `setting`."""
    return (
        "(The answer model repeated its instructions instead of answering, so the results are "
        f"listed as they came; a larger model may be needed ({setting}))"
    )


async def test_an_answer_reciting_its_instructions_is_replaced_by_the_results(
    scripted: Any,
) -> None:
    ctx, _ = scripted(
        planner=[{"plan": [STEP]}, {"plan": [STEP]}],
        response=[RECITED_ANSWER, "No action was held back for approval; the echo said WID-1."],
    )
    thread = Thread(ctx)

    await thread.send("Echo WID-1")

    answer = str((await thread.answer()).content)
    assert "Name every task that failed" not in answer
    assert answer.startswith("Done:\n- t1 (testkit: echo): ")
    assert "WID-1" in answer
    assert answer.endswith(said_instead(f"RESPONSE_MODEL={ctx['response_model']}"))
    assert (await thread.values())["report"]["ok"] is True

    # An answer that shares a phrase with its instructions is still the answer.
    await thread.send("Echo WID-1 again")
    assert (await thread.answer()).content == (
        "No action was held back for approval; the echo said WID-1."
    )


async def test_a_question_back_reciting_the_planners_instructions_is_no_plan(
    scripted: Any,
) -> None:
    ctx, models = scripted(planner=[{"clarification": RECITED_QUESTION}] * 3)
    thread = Thread(ctx)

    nodes = await thread.send("How many widgets are in stock?")

    assert nodes == ["planner"] * 3
    assert (await thread.answer()).content == (
        "I could not make a usable plan after 3 attempts: the model did not send a plan; it "
        "repeated its instructions. A larger model may be needed "
        f"(PLANNER_MODEL={ctx['planner_model']})."
    )
    feedback = models["planner"].requests[1]["messages"][0].content
    assert f"clarification {RECITED_QUESTION!r} repeats your instructions;" in feedback


async def test_text_reciting_the_planners_instructions_is_not_quoted(scripted: Any) -> None:
    ctx, _ = scripted(planner=[RECITED_QUESTION] * 3)
    thread = Thread(ctx)

    await thread.send("How many widgets are in stock?")

    answer = str((await thread.answer()).content)
    assert "it repeated its instructions. A larger model may be needed" in answer
    assert "Leave plan empty" not in answer


def test_words_of_the_request_are_never_counted_as_recited() -> None:
    rule = "Name every task that failed, and every action the user declined"
    assert repeats_instructions(rule, RESPONSE_INSTRUCTIONS)
    assert not repeats_instructions(rule, RESPONSE_INSTRUCTIONS, given=f"Please {rule}.")
    assert not repeats_instructions("WID-1 has 120 units in stock.", RESPONSE_INSTRUCTIONS)


def test_the_cli_shows_the_results_and_the_note_and_exits_0(
    chdir_tmp: Path, mcp_config: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prompts, "stdin_is_terminal", lambda: False)
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))

    def reply(messages: list[Any], meta: dict[str, Any]) -> Any:
        # One model for every role: the analyser is asked alongside the planner.
        if meta.get("schema") == "PlannerResult":
            return {"plan": [STEP]}
        if meta.get("schema"):
            return {"irreversible": False, "blocked_tools": [], "reasons": {}}
        return RECITED_ANSWER

    model = install_scripted(ScriptedChatModel(script=[reply] * 6, name_="reciting-cli"))
    shown = CliRunner().invoke(app, ["run", "Echo WID-1", "--model", model, "--json"])

    assert shown.exit_code == 0, shown.output
    answer = json.loads(shown.stdout)["answer"]
    assert answer.startswith("Done:\n- t1 (testkit: echo): ")
    assert answer.endswith(said_instead(f"MODEL={model}"))
    assert "Name every task that failed" not in answer
