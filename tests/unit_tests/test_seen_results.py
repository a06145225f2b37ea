"""The thread's record of what each expert returned: bounded, per expert, beside the checkpoints."""

from __future__ import annotations

from langchain_core.messages import ToolMessage
from langgraph.store.memory import InMemoryStore

from strategies.with_planner.seen import (
    SEEN_CHARS,
    SEEN_RESULTS,
    SENT_CALLS,
    SENT_CHARS,
    SeenResults,
    result_text,
)


def answer(text: str, artifact: object = None, **extra: object) -> ToolMessage:
    return ToolMessage(text, tool_call_id="c", artifact=artifact, additional_kwargs=extra)


def test_a_result_is_its_whole_output_then_its_structured_values_each_bounded() -> None:
    message = answer(
        "short view",
        artifact={"rows": [{"iban": "DE89370400440532013000", "n": 3, "ok": True}]},
        full_output="x" * (SEEN_CHARS + 50),
    )
    text = result_text(message)
    assert text == "x" * SEEN_CHARS + "\nDE89370400440532013000\n3"


async def test_each_expert_keeps_its_latest_results_only() -> None:
    store = InMemoryStore()
    record = SeenResults(store, "thread-1")
    for i in range(SEEN_RESULTS + 5):
        await record.add("mail", f"call-{i}", answer(f"mail {i}"))
    await record.add("web", "call-w", answer("page"))
    await record.add("mail", f"call-{SEEN_RESULTS + 4}", answer(f"mail {SEEN_RESULTS + 4}"))

    texts = await record.texts()

    assert texts["web"] == ["page"]
    assert texts["mail"] == [f"mail {i}" for i in reversed(range(5, SEEN_RESULTS + 5))]
    assert len(await store.asearch((*record.namespace, "mail"), limit=99)) == (SEEN_RESULTS)


async def test_threads_do_not_share_a_record() -> None:
    store = InMemoryStore()
    await SeenResults(store, "a").add("mail", "k", answer("secret"))
    assert await SeenResults(store, "b").texts() == {}


async def test_an_expert_named_with_periods_is_recorded_under_its_name() -> None:
    record = SeenResults(InMemoryStore(), "t")
    await record.add("mail.example.com", "k", answer("hello"))
    assert await record.texts() == {"mail.example.com": ["hello"]}


def test_a_structured_value_under_a_secret_name_keeps_its_label() -> None:
    message = answer("ok", artifact={"user": "bob", "password": "hunter22", "pin_code": 4839})
    assert result_text(message) == "ok\nbob\npassword: hunter22\n4839"


async def test_what_was_sent_is_kept_per_destination_bounded_and_read_by_a_new_process() -> None:
    store = InMemoryStore()
    record = SeenResults(store, "thread-1")
    for i in range(SENT_CALLS + 3):
        await record.add_sent("chat: finance", f"call-{i}", f"part {i}")
    await record.add_sent("sites collector.example", "call-w", "x" * (SENT_CHARS + 10))

    sent = await SeenResults(store, "thread-1").sent()

    assert sent["chat: finance"] == [f"part {i}" for i in range(3, SENT_CALLS + 3)]
    assert sent["sites collector.example"] == ["x" * SENT_CHARS]
    assert await SeenResults(store, "thread-2").sent() == {}
