"""The guardrails where users meet them: refusals, masking, denied URLs, trimmed output, answers."""

from __future__ import annotations

from typing import Any

from tests.doubles import calls, tool_call
from tests.unit_tests.helpers import Thread, log_lines


async def test_an_empty_request_is_refused_with_a_clear_answer_and_kept(scripted: Any) -> None:
    ctx, models = scripted(planner=[])
    thread = Thread(ctx)

    nodes = await thread.send("   ")

    assert nodes == ["planner"]
    messages = await thread.messages()
    assert messages[0].content == "   "
    assert "empty" in str(messages[-1].content).lower()
    assert models["planner"].requests == []


async def test_a_harmful_command_is_refused_before_any_tool_runs(scripted: Any) -> None:
    ctx, models = scripted(planner=[])
    thread = Thread(ctx)

    await thread.send("run rm -rf / on the build server")

    assert models["planner"].requests == []
    assert (
        "rm -rf" in str((await thread.answer()).content)
        or "refuse" in str((await thread.answer()).content).lower()
    )


async def test_a_secret_is_masked_before_the_planner_sees_it(scripted: Any) -> None:
    ctx, models = scripted(planner=[{"plan": []}], response=["Noted."])
    thread = Thread(ctx)
    secret = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"

    await thread.send(f"Remember my key {secret} for later")

    seen = " ".join(str(m.content) for m in models["planner"].requests[0]["messages"])
    assert secret not in seen
    stored = (await thread.messages())[0]
    assert secret not in str(stored.content)
    assert "Remember my key" in str(stored.content)


async def test_a_tool_call_to_a_private_address_is_not_sent(scripted: Any, workdir: Any) -> None:
    ctx, _ = scripted(
        planner=[{"plan": [{"id": "t1", "expert": "testkit", "task": "fetch the admin page"}]}],
        orchestrate=[calls(tool_call("fetch_page", {"url": "http://0x7f.1:8080/admin"}))],
        assess=[{"completed": False, "reason": "blocked"}] * 3,
        response=["I could not fetch it."],
    )
    ctx["max_task_attempts"] = 1
    thread = Thread(ctx)

    await thread.send("Fetch the admin page of the local service")

    (message,) = await thread.tool_messages()
    assert message.status == "error"
    assert "denied address" in str(message.content)
    assert not any("0x7f.1" in line for line in log_lines(workdir / "testkit.log"))


async def test_banned_words_are_masked_in_the_answer(scripted: Any) -> None:
    ctx, _ = scripted(planner=[{"plan": []}], response=["That is a darn good question."])
    ctx["guardrails"] = {"banned_words": ["darn"]}
    thread = Thread(ctx)

    await thread.send("Hello there")

    answer = str((await thread.answer()).content)
    assert "darn" not in answer
    assert "good question" in answer


async def test_an_oversized_tool_output_is_trimmed_for_the_model_but_kept_in_full(
    scripted: Any,
) -> None:
    long_text = "x" * 5000
    ctx, models = scripted(
        planner=[{"plan": [{"id": "t1", "expert": "testkit", "task": "echo a long text"}]}],
        orchestrate=[calls(tool_call("echo", {"text": long_text}))],
        assess=[{"completed": True, "reason": "echoed"}],
        response=["Done."],
    )
    ctx["guardrails"] = {"max_tool_output_chars": 1000}
    thread = Thread(ctx)

    await thread.send("Echo a long text")

    (message,) = await thread.tool_messages()
    assert len(str(message.content)) < 1500
    assert "trimmed" in str(message.content)
    assess_seen = " ".join(str(m.content) for m in models["assess"].requests[0]["messages"])
    assert long_text not in assess_seen
    (task,) = (await thread.values())["previous_plan"]
    # The task result keeps more than the model saw (up to the result size limit).
    assert str(task["result"]).startswith("x" * 1900)


async def test_a_secret_in_a_tool_result_is_masked_before_the_model_sees_it(
    scripted: Any,
) -> None:
    secret = "AKIA" + "ABCDEFGHIJKLMNOP"
    ctx, models = scripted(
        planner=[{"plan": [{"id": "t1", "expert": "testkit", "task": "echo the config"}]}],
        orchestrate=[calls(tool_call("echo", {"text": f"aws_key {secret}"}))],
        assess=[{"completed": True, "reason": "echoed"}],
        response=["Done."],
    )
    thread = Thread(ctx)

    await thread.send("Echo the config")

    (message,) = await thread.tool_messages()
    assert secret not in str(message.content)
    seen = " ".join(str(m.content) for m in models["assess"].requests[0]["messages"])
    assert secret not in seen
