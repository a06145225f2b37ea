"""A tiny model's nonsense is shown as the model's, never as the product's (issue 43, item 4).

A planner model that answers with text, with a call of the schema holding no plan, or with the
names it read in its instructions is asked again in those terms; after the last attempt the
person reads what it sent, quoted and cut short, and that a larger model may be needed, never
a name from the code or the instructions. A model's words are unescaped once where a server's
template escaped them (`&#39;`), and entities it was sent (a tool's `&amp;`) stay.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from typer.testing import CliRunner

from common.model_text import unescaped
from strategies.cli import prompts
from strategies.cli.app import app
from strategies.with_planner.graph import build_graph
from strategies.with_planner.plan_failure import INTERNAL_NAMES, QUOTE_CHARS
from tests.doubles import ScriptedChatModel, install_scripted, tool_call
from tests.unit_tests.helpers import Thread, system_prompt

ECHO = "Answer: Please answer in a more formal and professional tone."
"""What SmolLM2-135M answered the planner's request with."""

INTERNAL = ("PlannerResult", "planned_tasks", "functions.", "not_covered", "next_task")
"""Names the person must never read."""


def no_internal_names(text: str) -> None:
    """Fail naming the first internal name `text` holds."""
    for name in INTERNAL:
        assert name not in text, (name, text)


async def test_text_instead_of_a_plan_is_quoted_as_the_models_after_three_attempts(
    scripted: Any,
) -> None:
    ctx, models = scripted(planner=[ECHO] * 3)
    thread = Thread(ctx)

    nodes = await thread.send("How many widgets are in stock?")

    assert nodes == ["planner"] * 3
    answer = str((await thread.answer()).content)
    assert answer == (
        "I could not make a usable plan after 3 attempts: the model did not send a plan; it "
        f'answered "{ECHO}". A larger model may be needed '
        f"(PLANNER_MODEL={ctx['planner_model']})."
    )
    # Never the product's answer: the answer writer was not asked.
    assert "response" not in models
    # The model itself is asked again in its schema's terms.
    assert "Return a corrected PlannerResult." in system_prompt(models["planner"].requests[1])
    report = (await thread.values())["report"]
    assert report["ok"] is False
    (sentence,) = report["problems"]
    assert sentence.startswith("No usable plan after 3 attempts: the model did not send a plan;")
    assert f'"{ECHO}"' in sentence
    assert "a larger model may be needed" in sentence
    no_internal_names(sentence)


async def test_a_call_of_the_schema_holding_garbage_shows_its_words_without_the_names(
    scripted: Any,
) -> None:
    garbage = {
        "decision": "functions.PlannerResult",
        "plan": "planned_tasks",
        "not_covered": "the widget&#39;s &quot;stock&quot; &amp;lt;b&amp;gt;",
    }
    reply = AIMessage(content="", tool_calls=[tool_call("PlannerResult", garbage)])
    ctx, _ = scripted(planner=[reply] * 3)
    thread = Thread(ctx)

    await thread.send("How many widgets are in stock?")

    answer = str((await thread.answer()).content)
    no_internal_names(answer)
    # Unescaped once: `&amp;lt;` is `&lt;`, never `<`.
    assert 'it answered "…; …; the widget\'s "stock" &lt;b&gt;"' in answer
    assert "&#39;" not in answer
    assert "<b>" not in answer
    assert "a larger model may be needed" in answer.lower()
    no_internal_names(" ".join((await thread.values())["report"]["problems"]))


async def test_parts_no_expert_can_do_that_name_the_instructions_are_never_shown(
    scripted: Any,
) -> None:
    echoed = {"plan": [], "not_covered": ["functions.PlannerResult", "planned_tasks"]}
    ctx, models = scripted(planner=[echoed] * 3, response=["unused"])

    thread = Thread(ctx)
    await thread.send("How many widgets are in stock?")

    answer = str((await thread.answer()).content)
    assert answer == (
        "I could not make a usable plan after 3 attempts: the model did not send a plan; it "
        "repeated names from its instructions. A larger model may be needed "
        f"(PLANNER_MODEL={ctx['planner_model']})."
    )
    assert models["response"].requests == []
    second = system_prompt(models["planner"].requests[1])
    assert "not_covered 'functions.PlannerResult' repeats functions.PlannerResult" in second


async def test_a_model_that_stops_echoing_plans_as_usual(scripted: Any) -> None:
    echoed = {"plan": [], "not_covered": ["planned_tasks"]}
    ctx, models = scripted(planner=[echoed, {"plan": []}], response=["Hello."])
    thread = Thread(ctx)

    await thread.send("Hello")

    assert (await thread.answer()).content == "Hello."
    assert len(models["planner"].requests) == 2


async def test_a_long_answer_is_quoted_in_short(scripted: Any) -> None:
    long = "word " * 100
    ctx, _ = scripted(planner=[long] * 3)
    thread = Thread(ctx)

    await thread.send("How many widgets are in stock?")

    answer = str((await thread.answer()).content)
    quoted = answer.split('it answered "', 1)[1].split('"', 1)[0]
    assert quoted.endswith("…")
    assert len(quoted) == QUOTE_CHARS + 1


async def test_the_question_back_and_the_answer_are_the_models_words_unescaped_once(
    scripted: Any,
) -> None:
    ctx, _ = scripted(planner=[{"clarification": "Which widget&#39;s stock, A &amp;amp; B?"}])
    thread = Thread(ctx)

    await thread.send("How many widgets are in stock?")

    assert (await thread.answer()).content == "Which widget's stock, A &amp; B?"


async def test_an_entity_from_a_tool_result_stays_in_the_answer(scripted: Any) -> None:
    step = {"id": "t1", "expert": "testkit", "task": "echo", "tool": "echo"}
    step["args"] = {"text": "AT&amp;T"}  # type: ignore[assignment]
    said = "AT&amp;T is the widget&#39;s maker."
    ctx, _ = scripted(planner=[{"plan": [step]}], response=[said])
    thread = Thread(ctx)

    await thread.send("Who makes the widget?")

    # The tool's `&amp;` is a faithful quote; the template's `&#39;` is the model's `'`.
    assert str((await thread.answer()).content) == "AT&amp;T is the widget's maker."


def test_unescaping_is_once_and_keeps_what_was_sent() -> None:
    assert unescaped("&amp;lt; &#39; &quot;") == "&lt; ' \""
    assert unescaped("AT&amp;T &#39;", frozenset({"&amp;"})) == "AT&amp;T '"


def test_every_node_name_that_is_no_word_is_internal() -> None:
    nodes = build_graph().get_graph(xray=True).nodes
    names = {n.split(":")[-1] for n in nodes}
    assert {n for n in names if "_" in n and not n.startswith("__")} <= INTERNAL_NAMES


@pytest.fixture
def _no_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prompts, "stdin_is_terminal", lambda: False)


@pytest.mark.usefixtures("_no_terminal")
def test_the_cli_says_what_the_model_sent_in_one_sentence_and_exits_1(
    chdir_tmp: Path, mcp_config: dict[str, Any]
) -> None:
    (chdir_tmp / "mcp.json").write_text(json.dumps(mcp_config))

    def reply(messages: list[Any], meta: dict[str, Any]) -> Any:
        # One model for every role: the analyser is asked alongside the planner.
        if meta.get("schema") == "PlannerResult":
            return "Answer: Please answer in a more formal&#44; professional tone."
        if meta.get("schema"):
            return {"irreversible": False, "blocked_tools": [], "reasons": {}}
        return "unused"

    model = install_scripted(ScriptedChatModel(script=[reply] * 8, name_="nonsense-cli"))
    runner = CliRunner()
    shown = runner.invoke(app, ["run", "Stock of WID-1?", "--model", model])
    as_json = runner.invoke(app, ["run", "Stock of WID-1?", "--model", model, "--json"])

    assert shown.exit_code == as_json.exit_code == 1, shown.output
    words = '"Answer: Please answer in a more formal, professional tone."'
    assert words in shown.stdout
    assert f"MODEL={model}" in shown.stdout
    no_internal_names(shown.stdout + shown.stderr)
    outcome = json.loads(as_json.stdout)
    (sentence,) = outcome["problems"]
    assert sentence == (
        f"No usable plan after 3 attempts: the model did not send a plan; it answered {words}; "
        f"a larger model may be needed (MODEL={model})."
    )
