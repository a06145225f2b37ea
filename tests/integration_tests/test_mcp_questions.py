"""A server's question to the person (MCP elicitation), in every era over every transport.

The era servers' `reserve(item)` (destructive) asks a one-field form "How many units of ITEM
should be reserved?" before it writes `reserve<TAB>ITEM<TAB>UNITS` to its notes file, and
`verify_identity()` (read-only) asks the person to open an address (URL mode). A 2026-07-28 session
gets the question as `InputRequiredResult` (the call ends; the answer goes with its
continuation), a 2025 one as `elicitation/create` mid-call (the call is held). Through the graph
both become the run's question to the thread's owner, in the HITL and Agent Inbox formats.
The servers' `survey(item)` reports its progress (two notifications) in every cell too.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from common.mcp.asking import Inputs, ServerAnswer
from common.mcp.config import parse_mcp_config
from common.mcp.registry import get_registry
from strategies.cli import prompts
from strategies.cli.app import app
from tests.doubles import ScriptedChatModel, install_scripted
from tests.integration_tests.helpers import drop_pooled
from tests.integration_tests.test_mcp_eras import CELLS, EXPERT, EraServers
from tests.unit_tests.helpers import Thread, unique

pytestmark = pytest.mark.integration

ASKING_CELLS = [c for c in CELLS if c.id != "2025-only-http-stateless"]
"""Every cell but one: a stateless 1.x HTTP server cannot hear the answer to its own request
(the answer comes as a new POST that no transport of its holds), so it waits until the call's
timeout; docs/mcp-eras.md says so."""

APPROVE = {"decisions": [{"type": "approve"}]}
ANSWER = "Reserved."
RESERVE: dict[str, Any] = {
    "id": "t1",
    "expert": EXPERT,
    "task": "Reserve WID-1.",
    "tool": "reserve",
    "args": {"item": "wid-1"},
}
LINK: dict[str, Any] = {
    "id": "t1",
    "expert": EXPERT,
    "task": "Confirm who the user is.",
    "tool": "verify_identity",
    "args": {},
}


@pytest.fixture(scope="module")
async def eras(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[EraServers]:
    servers = EraServers(tmp_path_factory.mktemp("questions"))
    try:
        yield servers
    finally:
        await servers.close()


def reserved(notes: Path) -> list[str]:
    """The reservations the server wrote."""
    lines = notes.read_text(encoding="utf-8").splitlines() if notes.exists() else []
    return [line for line in lines if line.startswith("reserve\t")]


def respond(text: str) -> dict[str, Any]:
    """A HITL answer to one question."""
    return {"decisions": [{"type": "respond", "message": text}]}


async def reservation_asked(
    eras: EraServers, scripted: Any, era: str, transport: str, **ctx_extra: Any
) -> tuple[Thread, Path, int]:
    """A thread whose `reserve` call was approved and now waits on the server's question."""
    notes = eras.notes(era, transport)
    ctx, _ = scripted(planner=[{"plan": [RESERVE]}], response=[ANSWER])
    ctx["mcp_config"] = eras.config(era, transport)
    ctx.update(ctx_extra)
    thread = Thread(ctx)
    before = len(reserved(notes))
    await thread.send("Reserve some WID-1 for the order.")
    (request,) = await thread.interrupts()
    if ctx.get("interrupt_format") == "agent_inbox":
        assert request[0]["action_request"]["action"] == "reserve"
        await thread.resume([{"type": "accept", "args": None}])
    else:
        assert [a["name"] for a in request["action_requests"]] == ["reserve"]
        await thread.resume(APPROVE)
    return thread, notes, before


@pytest.mark.parametrize(("era", "transport"), ASKING_CELLS)
async def test_a_form_question_reaches_the_person_and_the_answer_goes_on(
    eras: EraServers, scripted: Any, era: str, transport: str
) -> None:
    thread, notes, before = await reservation_asked(eras, scripted, era, transport)

    (question,) = await thread.interrupts()
    (action,) = question["action_requests"]
    assert action["name"] == "ask_user"
    assert "How many units of WID-1 should be reserved?" in action["args"]["question"]
    assert action["args"]["requested_schema"]["properties"]["units"]["type"] == "integer"
    assert question["review_configs"][0]["allowed_decisions"] == ["respond", "reject"]
    assert len(reserved(notes)) == before, "nothing is reserved before the answer"

    await thread.resume(respond("7"))

    assert await thread.interrupts() == []
    (task,) = (await thread.values())["previous_plan"]
    assert reserved(notes)[before:] == ["reserve\tWID-1\t7"], (task["error"], task["result"])
    (task,) = (await thread.values())["previous_plan"]
    assert task["status"] == "completed", task
    assert "reserved 7 units of WID-1" in str(task["result"])


@pytest.mark.parametrize(("era", "transport"), [CELLS[0], CELLS[5]])
async def test_an_answer_the_form_refuses_is_asked_again_saying_why(
    eras: EraServers, scripted: Any, era: str, transport: str
) -> None:
    thread, notes, before = await reservation_asked(eras, scripted, era, transport)

    await thread.resume(respond("lots"))

    (again,) = await thread.interrupts()
    assert "units" in again["error"], again["error"]
    assert "integer" in again["error"], again["error"]
    await thread.resume(respond("5000"))
    (again,) = await thread.interrupts()
    assert "1000" in again["error"], again["error"]
    assert len(reserved(notes)) == before

    await thread.resume(respond("12"))

    assert await thread.interrupts() == []
    assert reserved(notes)[before:] == ["reserve\tWID-1\t12"]


@pytest.mark.parametrize(("era", "transport"), [CELLS[0], CELLS[5]])
async def test_a_declined_question_reserves_nothing(
    eras: EraServers, scripted: Any, era: str, transport: str
) -> None:
    thread, notes, before = await reservation_asked(eras, scripted, era, transport)

    await thread.resume({"decisions": [{"type": "reject", "message": "not now"}]})

    assert await thread.interrupts() == []
    assert len(reserved(notes)) == before
    messages = [str(m.content) for m in await thread.tool_messages()]
    assert any("decline" in m for m in messages), messages


@pytest.mark.parametrize(("era", "transport"), ASKING_CELLS)
async def test_a_url_question_shows_the_address_and_the_answer_goes_on(
    eras: EraServers, scripted: Any, era: str, transport: str
) -> None:
    ctx, _ = scripted(planner=[{"plan": [LINK]}], response=["Confirmed."])
    ctx["mcp_config"] = eras.config(era, transport)
    thread = Thread(ctx)

    await thread.send("Confirm who I am.")

    (question,) = await thread.interrupts()
    (action,) = question["action_requests"]
    assert action["name"] == "ask_user", question
    assert action["args"]["url"] == "https://accounts.example.test/link?code=7F3K"
    assert "https://accounts.example.test/link?code=7F3K" in action["args"]["question"]

    await thread.resume(respond("done"))

    assert await thread.interrupts() == []
    (task,) = (await thread.values())["previous_plan"]
    assert task["status"] == "completed", task
    assert "identity: accept" in str(task["result"])


@pytest.mark.parametrize(("era", "transport"), [CELLS[0], CELLS[5]])
async def test_agent_inbox_answers_a_server_question_with_respond(
    eras: EraServers, scripted: Any, era: str, transport: str
) -> None:
    thread, notes, before = await reservation_asked(
        eras, scripted, era, transport, interrupt_format="agent_inbox"
    )

    (question,) = await thread.interrupts()
    assert question[0]["config"]["allow_respond"] is True
    assert "requested_schema" in question[0]["action_request"]["args"]
    await thread.resume([{"type": "response", "args": "3"}])

    assert await thread.interrupts() == []
    assert reserved(notes)[before:] == ["reserve\tWID-1\t3"]


# --- A question that outlives the planner's sessions (a restart) -----------------------------


def answered(asking: Any, answer: dict[str, Any]) -> Inputs:
    """The inputs that answer every question of `asking` with `answer`."""
    answers = {q["key"]: ServerAnswer(**answer) for q in asking["questions"]}
    return Inputs(answers, asking["state"], list(asking["questions"]), asking["round"])


async def restarted(eras: EraServers, raw: dict[str, Any]) -> Any:
    """A registry over `raw` after the planner's session with it was closed (as by a restart)."""
    await drop_pooled(raw, EXPERT)
    return get_registry(parse_mcp_config(raw))


@pytest.mark.parametrize("transport", ["stdio", "http-stateless", "http-sessions"])
async def test_a_2026_question_is_answered_after_the_planner_restarts(
    eras: EraServers, transport: str
) -> None:
    raw, notes = eras.config("both", transport), eras.notes("both", transport)
    before = len(reserved(notes))
    key = unique("call")
    first = await get_registry(parse_mcp_config(raw)).call(
        EXPERT, "reserve", {"item": "wid-1"}, 20, retry_safe=False, key=key
    )
    assert first["status"] == "needs_input", first
    assert first["asking"]["state"], "the 2026 server's state comes with its question"

    registry = await restarted(eras, raw)
    done = await registry.call(
        EXPERT,
        "reserve",
        {"item": "wid-1"},
        20,
        retry_safe=False,
        key=key,
        inputs=answered(first["asking"], {"action": "accept", "content": {"units": 9}}),
    )

    # Over stdio the server restarted too and refused its old state: the call was sent afresh
    # and its same question got the answer already given (the person is not asked twice).
    assert done["status"] == "ok", done
    assert reserved(notes)[before:] == ["reserve\tWID-1\t9"]


async def test_a_held_2025_write_lost_to_a_restart_is_not_sent_again(eras: EraServers) -> None:
    raw, notes = eras.config("2025-only", "stdio"), eras.notes("2025-only", "stdio")
    before = len(reserved(notes))
    key = unique("call")
    first = await get_registry(parse_mcp_config(raw)).call(
        EXPERT, "reserve", {"item": "wid-1"}, 20, retry_safe=False, key=key
    )
    assert first["status"] == "needs_input", first
    assert first["asking"]["state"] is None, "a 2025 call is held, with no state to resend"

    registry = await restarted(eras, raw)
    lost = await registry.call(
        EXPERT,
        "reserve",
        {"item": "wid-1"},
        20,
        retry_safe=False,
        key=key,
        inputs=answered(first["asking"], {"action": "accept", "content": {"units": 9}}),
    )

    assert lost["status"] == "interrupted", lost
    assert "not sent again" in lost["content"]
    assert len(reserved(notes)) == before


async def test_a_held_2025_read_lost_to_a_restart_is_sent_again_with_its_answer(
    eras: EraServers,
) -> None:
    raw = eras.config("2025-only", "stdio")
    key = unique("call")
    first = await get_registry(parse_mcp_config(raw)).call(
        EXPERT, "verify_identity", {}, 20, retry_safe=True, key=key
    )
    assert first["status"] == "needs_input", first

    registry = await restarted(eras, raw)
    again = await registry.call(
        EXPERT,
        "verify_identity",
        {},
        20,
        retry_safe=True,
        key=key,
        inputs=answered(first["asking"], {"action": "decline", "content": None}),
    )

    # Sent again, its server asked the same question and got the answer given before at once.
    assert again["status"] == "ok", again
    assert again["content"] == "identity: decline"


@pytest.mark.parametrize(("era", "transport"), [CELLS[0], CELLS[1], CELLS[5]])
async def test_a_thread_waiting_on_a_question_goes_on_after_the_sessions_closed(
    eras: EraServers, scripted: Any, era: str, transport: str
) -> None:
    """2026: the answer goes on (over stdio, with a restarted server); a held 2025 write: reported
    unknown, never resent."""
    thread, notes, before = await reservation_asked(eras, scripted, era, transport)
    assert await thread.interrupts()

    await drop_pooled(thread.ctx["mcp_config"], EXPERT)
    await thread.resume(respond("4"))

    assert await thread.interrupts() == []
    (task,) = (await thread.values())["previous_plan"]
    if era == "both":
        assert reserved(notes)[before:] == ["reserve\tWID-1\t4"]
        assert task["status"] == "completed", task
    else:
        assert len(reserved(notes)) == before
        assert "not sent again" in str(task["error"]), task


# --- The CLI ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("era", "transport"), [CELLS[0], CELLS[5]])
def test_the_cli_without_a_terminal_waits_and_resume_answer_goes_on(
    eras: EraServers,
    chdir_tmp: Path,
    monkeypatch: pytest.MonkeyPatch,
    era: str,
    transport: str,
) -> None:
    """Each CLI command is its own run: a 2026 question goes on after its server restarted; a
    held 2025 write is reported unknown and never sent again."""
    monkeypatch.setattr(prompts, "stdin_is_terminal", lambda: False)
    notes = eras.notes(era, transport)
    (chdir_tmp / "mcp.json").write_text(json.dumps(eras.config(era, transport)))
    script: list[Any] = [{"plan": [RESERVE]}, *["IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE"] * 3]
    model = install_scripted(ScriptedChatModel(script=[*script, ANSWER], name_=unique("q")))
    thread, before, runner = unique("t"), len(reserved(notes)), CliRunner()
    run = ["run", "Reserve WID-1.", "--thread", thread, "--new", "--model", model, "--json"]

    held = runner.invoke(app, run)
    assert held.exit_code == 3, held.output
    approved = runner.invoke(app, ["resume", thread, "--model", model, "--approve", "--json"])

    assert approved.exit_code == 3, approved.output
    (pending,) = json.loads(approved.stdout)["pending"]
    assert pending["name"] == "ask_user"
    assert "How many units of WID-1" in pending["args"]["question"]
    assert f"mcp-planner resume {thread}" in approved.stderr
    refused = runner.invoke(app, ["resume", thread, "--model", model, "--answer", "many"])
    assert refused.exit_code == 3, refused.output
    assert "integer" in refused.output
    assert len(reserved(notes)) == before

    answered_ = runner.invoke(app, ["resume", thread, "--model", model, "--answer", "6"])

    if era == "both":
        assert answered_.exit_code == 0, answered_.output
        assert reserved(notes)[before:] == ["reserve\tWID-1\t6"]
    else:
        assert len(reserved(notes)) == before
        assert "not sent again" in answered_.output


# --- Progress, per era and transport ---------------------------------------------------------


@pytest.mark.parametrize(("era", "transport"), CELLS)
async def test_progress_reaches_the_caller(eras: EraServers, era: str, transport: str) -> None:
    registry = get_registry(parse_mcp_config(eras.config(era, transport)))
    heard: list[tuple[float, float | None, str | None]] = []

    async def listen(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, total, message))

    result = await registry.call(EXPERT, "survey", {"item": "wid-1"}, 20, True, progress=listen)

    assert result["content"] == "WID-1: surveyed", result
    assert heard == [(1, 2, "aisle 1 of 2"), (2, 2, "aisle 2 of 2")]
