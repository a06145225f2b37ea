"""The plan_only release and the execution policy on replays: the user's word always holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore

from common.guardrails.config import GuardrailConfig
from common.mcp import ExpertRegistry, ExpertUnavailable, outcome
from common.mcp.config import McpConfig
from common.safety.approval import (
    ApproveDecision,
    EditDecision,
    EditedAction,
    RejectDecision,
    decision_of,
    record_of,
)
from common.safety.execution import CallLedger, CallSpec, Executed, LedgerEntry, execute_call
from tests.doubles import calls, tool_call
from tests.unit_tests.guard_helpers import chat_server, servers, verdict
from tests.unit_tests.helpers import Thread, done, note_actions, plan, task, unique

ANNOUNCE_IS_IRREVERSIBLE = "IRREVERSIBLE: YES\nBLOCKED_TOOLS: announce"
NOTHING_IRREVERSIBLE = "IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE"


def test_a_decision_survives_its_record() -> None:
    edit = EditDecision(type="edit", edited_action=EditedAction(name="t", args={"a": 1}))
    for decision in (ApproveDecision(type="approve"), RejectDecision(type="reject"), edit):
        assert decision_of(record_of(decision)) == decision
    assert record_of(ApproveDecision(type="approve")) == {"type": "approve"}


async def held_announcement(scripted: Any, second_verdict: str) -> tuple[Thread, Any, str]:
    """A plan_only turn that holds one `announce` (gated only by the analyser's verdict)."""
    chat = chat_server()
    text = unique("held")
    ctx, _ = scripted(
        planner=[plan(task("t1", "chat", "announce it"))],
        irreversibility=[ANNOUNCE_IS_IRREVERSIBLE, second_verdict],
        orchestrate=[calls(tool_call("announce", {"text": text}, call_id="ann"))],
        assess=[done()],
        response=["Proposed: announce it.", "Handled."],
    )
    ctx["mcp_config"] = servers(chat=chat.entry())
    ctx["approval_mode"] = "plan_only"
    thread = Thread(ctx)
    await thread.send("Announce the news")
    assert chat.runs.calls == []
    assert len((await thread.values())["deferred"]) == 1
    return thread, chat, text


async def test_a_rejected_held_call_never_runs_even_when_the_gate_clears_it(
    scripted: Any,
) -> None:
    thread, chat, _ = await held_announcement(scripted, NOTHING_IRREVERSIBLE)

    await thread.send(json.dumps({"decisions": [{"type": "reject", "message": "no"}]}))

    state = await thread.values()
    assert verdict(state, "chat", "announce")["irreversible"] is False
    assert chat.runs.calls == []
    (step,) = state["previous_plan"]
    (declined,) = step["declined"]
    assert "announce" in declined


async def test_an_edited_held_call_runs_as_edited_even_when_the_gate_clears_it(
    scripted: Any,
) -> None:
    thread, chat, text = await held_announcement(scripted, NOTHING_IRREVERSIBLE)
    edited = {"name": "announce", "args": {"text": text + " (edited)"}}

    await thread.send(json.dumps({"decisions": [{"type": "edit", "edited_action": edited}]}))

    assert chat.runs.calls == [("announce", {"text": text + " (edited)"})]


class _NoExperts(ExpertRegistry):
    """A registry whose expert is unreachable: only the ledger can answer."""

    async def tools(self, expert: str, max_age_s: float | None = None) -> Any:
        raise ExpertUnavailable(expert, "down")


async def test_a_replayed_outcome_is_masked_and_trimmed_like_a_fresh_one() -> None:
    ledger = CallLedger(InMemoryStore(), "thread")
    secret = "sk-abcdefghij1234567890klmn"
    await ledger.finished("k", outcome("ok", f"token {secret} " + "x" * 500))
    spec = CallSpec(
        key="k",
        expert="e",
        name="t",
        args={},
        gated=True,
        timeout_s=1.0,
        guardrails=GuardrailConfig(max_tool_output_chars=100),
    )

    result = await execute_call(spec, _NoExperts(McpConfig(servers={})), ledger)

    assert isinstance(result, Executed)
    assert secret not in result.outcome["content"]
    assert secret not in result.shown
    assert len(result.shown) < len(result.outcome["content"])


async def test_a_call_the_ledger_replays_reaches_the_model_masked(
    scripted: Any, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-abcdefghij1234567890klmn"
    title = unique("replayed")
    ctx, _ = scripted(
        planner=[plan(task("t1", "notes", "Save the note"))],
        orchestrate=[calls(tool_call("write_note", {"title": title, "body": "b"}, call_id="w1"))],
        assess=[done()],
        response=["Saved."],
    )
    thread = Thread(ctx)
    await thread.send("Save a note")

    async def finished_before(self: CallLedger, key: str) -> LedgerEntry:
        # As if an earlier run of this node had sent the call and recorded its output.
        return outcome("ok", f"Saved; the token is {secret}")

    monkeypatch.setattr(CallLedger, "lookup", finished_before)
    await thread.resume({"decisions": [{"type": "approve"}]})

    (reply,) = await thread.tool_messages()
    assert reply.status == "success"
    assert "the token is" in str(reply.content)
    assert secret not in str(reply.content)
    assert note_actions(workdir, title) == []
