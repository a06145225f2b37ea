"""Nothing fails silently: unavailable experts and uncovered parts are named in the answer."""

from __future__ import annotations

import copy
import sys
import uuid
from typing import Any

from tests.unit_tests.helpers import Thread

BOOM = "import sys; sys.stderr.write('boom: missing dependency\\n'); sys.exit(1)"


def _with_broken_mail(mcp_config: dict[str, Any], command: str, args: list[str]) -> dict[str, Any]:
    config = copy.deepcopy(mcp_config)
    del config["mcpServers"]["testkit"]  # its send_message would take the mail part
    config["mcpServers"]["mail"] = {
        "command": command,
        "args": args,
        "env": {"RUN": uuid.uuid4().hex},  # a fresh server each test, never a pooled one
        "description": "Sends e-mail to people.",
    }
    return config


async def _offline_run(mcp_config: dict[str, Any], request: str) -> dict[str, Any]:
    thread = Thread({"mcp_config": mcp_config, "model": "offline:rules"})
    await thread.send(request)
    return await thread.values()


async def test_an_expert_that_cannot_start_is_named_with_the_part_not_done(
    mcp_config: dict[str, Any],
) -> None:
    config = _with_broken_mail(mcp_config, sys.executable, ["-c", BOOM])
    values = await _offline_run(
        config, "How many units of WID-1 are in stock, then send_email the count to bob"
    )
    answer = str(values["messages"][-1].content)
    assert "Expert 'mail' is unavailable" in answer
    assert "boom: missing dependency" in answer
    assert "send_email the count to bob" in answer
    assert values["report"]["ok"] is False
    assert any("'mail'" in p for p in values["report"]["problems"])
    # The rest of the request still ran.
    assert "WID-1" in answer


async def test_a_command_that_does_not_exist_is_reported_not_dropped(
    mcp_config: dict[str, Any],
) -> None:
    config = _with_broken_mail(mcp_config, "no-such-mail-server-binary", [])
    values = await _offline_run(config, "send_email hello to bob")
    answer = str(values["messages"][-1].content)
    assert "Expert 'mail' is unavailable" in answer
    assert "send_email hello to bob" in answer
    assert values["report"]["ok"] is False


async def test_a_part_no_tool_fits_is_named_as_not_done(mcp_config: dict[str, Any]) -> None:
    values = await _offline_run(mcp_config, "send_email the weekly report to bob")
    answer = str(values["messages"][-1].content)
    assert "Not done, no expert's tools fit: send_email the weekly report to bob" in answer
    assert values["report"] == {
        "ok": False,
        "problems": ["Not done, no expert's tools fit: send_email the weekly report to bob"],
    }


async def test_a_plan_that_could_not_be_made_is_reported(scripted: Any) -> None:
    bad = {"plan": [{"id": "t1", "expert": "nobody", "task": "x"}]}
    ctx, _ = scripted(planner=[bad] * 5)
    thread = Thread(ctx)
    await thread.send("Do the impossible")
    values = await thread.values()
    assert "I could not make a usable plan" in str(values["messages"][-1].content)
    assert values["report"]["ok"] is False


async def test_a_declined_call_is_a_decision_not_a_failure(scripted: Any) -> None:
    step = {"id": "t1", "expert": "testkit", "task": "wipe", "tool": "delete_everything"}
    step["args"] = {"scope": uuid.uuid4().hex}  # type: ignore[assignment]
    ctx, _ = scripted(planner=[{"plan": [step]}], response=["You declined the wipe."])
    thread = Thread(ctx)
    await thread.send("Wipe it")
    await thread.resume({"decisions": [{"type": "reject", "message": "not today"}]})
    values = await thread.values()
    assert values["report"] == {"ok": True, "problems": []}
    assert values["messages"][-1].content == "You declined the wipe."


async def test_an_empty_model_answer_is_replaced_by_the_summary(scripted: Any) -> None:
    step = {"id": "t1", "expert": "testkit", "task": "fail", "tool": "fail"}
    step["args"] = {"message": "disk full"}  # type: ignore[assignment]
    ctx, _ = scripted(planner=[{"plan": [step]}], response=[""])
    thread = Thread(ctx)
    await thread.send("Try it")
    answer = str((await thread.answer()).content)
    assert answer.startswith("Not done:\n- t1 (testkit: fail) failed")
    assert "disk full" in answer
