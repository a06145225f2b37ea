"""The irreversibility guard end to end: the seed's scenarios, in our terms, on the real graph.

The `chat` expert is in-process; its tools are reversible by weak signals only (a read-like
name, an untrusted readOnlyHint), so what the scripted analyser answers decides what is held.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from strategies.with_planner.nodes.guard import PLAN_NOT_MADE
from tests.doubles import calls, tool_call
from tests.unit_tests.guard_helpers import (
    Expert,
    blocked,
    chat_server,
    db_server,
    servers,
    verdict,
)
from tests.unit_tests.helpers import (
    Thread,
    done,
    log_lines,
    not_done,
    note_actions,
    per_task,
    plan,
    system_prompt,
    task,
    unique,
)

APPROVE = {"decisions": [{"type": "approve"}]}
REJECT = {"decisions": [{"type": "reject", "message": "no"}]}
CHAT_TASK = plan(task("t1", "chat", "work with the team chat"))


def chat_thread(
    scripted: Any,
    chat: Expert,
    irreversibility: list[Any],
    orchestrate: list[Any],
    *,
    assess: list[Any] | None = None,
    response: list[Any] | None = None,
    planner: list[Any] | None = None,
    **flags: Any,
) -> tuple[Thread, dict[str, Any]]:
    ctx, models = scripted(
        planner=planner or [CHAT_TASK],
        irreversibility=irreversibility,
        orchestrate=orchestrate,
        assess=assess or [done()],
        response=response or ["Done."],
    )
    ctx["mcp_config"] = servers(chat=chat.entry(**flags))
    return Thread(ctx), models


def read_messages(call_id: str = "read") -> Any:
    return calls(tool_call("get_messages", {"channel": "general"}, call_id=call_id))


def announce(text: str, call_id: str = "ann") -> Any:
    return calls(tool_call("announce", {"text": text}, call_id=call_id))


# --- irreversible, read-only and failed analyses ------------------------------------------------


async def test_irreversible_request_blocks_the_named_tool_and_asks_before_it_runs(
    scripted: Any,
) -> None:
    chat = chat_server()
    text = unique("release")
    analysis = {
        "irreversible": True,
        "blocked_tools": ["announce"],
        "reasons": {"announce": "everyone reads it at once"},
    }
    thread, _ = chat_thread(scripted, chat, [analysis], [announce(text)])

    nodes = await thread.send("Announce the release to the whole company")

    # The task stops before its call; the graph says why in the conversation, then asks.
    assert nodes == [
        "planner",
        "irreversibility_check",
        "orchestrate",
        "call_tool",
        "advance",
        "request_approval",
    ]
    state = await thread.values()
    ann = verdict(state, "chat", "announce")
    assert ann["irreversible"] is True
    assert ann["source"] == "llm"
    assert "everyone reads it at once" in ann["reason"]
    assert verdict(state, "chat", "get_messages")["irreversible"] is False
    assert blocked(state, "chat") == {"announce", "post_message"}
    (request,) = await thread.interrupts()
    assert [a["name"] for a in request["action_requests"]] == ["announce"]
    assert request["action_requests"][0]["args"] == {"text": text}
    assert "source: llm" in request["action_requests"][0]["description"]
    assert chat.runs.calls == []

    await thread.resume(APPROVE)

    assert chat.runs.calls == [("announce", {"text": text})]
    assert (await thread.answer()).content == "Done."


async def test_read_only_request_runs_reads_without_asking(scripted: Any) -> None:
    chat = chat_server()
    thread, models = chat_thread(
        scripted,
        chat,
        ["IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE"],
        [read_messages()],
        response=["alice said hi"],
    )

    nodes = await thread.send("What was said in #general?")

    assert await thread.interrupts() == []
    assert nodes[-1] == "generate_response"
    assert chat.runs.names() == ["get_messages"]
    state = await thread.values()
    assert state["guard"]["analysis"] == "ok"
    assert state["guard"]["notes"] == []
    assert blocked(state, "chat") == {"post_message"}
    assert verdict(state, "chat", "post_message")["source"] == "annotation"
    assert len(models["irreversibility"].requests) == 1
    assert (await thread.answer()).content == "alice said hi"


@pytest.mark.parametrize(
    ("answer", "note_part"),
    [
        (RuntimeError("model is down"), "RuntimeError: model is down"),
        (TimeoutError("too slow"), "did not answer within"),
        ("I'm not sure", "not understood"),
        ("IRREVERSIBLE: maybe\nBLOCKED_TOOLS: announce", "not understood"),
        ("IRREVERSIBLE: YES and NO", "not understood"),
        ({"irreversible": "perhaps"}, "the analyser failed"),
    ],
)
async def test_analysis_failure_applies_the_safe_default(
    scripted: Any, answer: Any, note_part: str
) -> None:
    chat = chat_server()
    thread, _ = chat_thread(scripted, chat, [answer], [read_messages()])

    await thread.send("Catch me up on #general")

    state = await thread.values()
    assert state["guard"]["analysis"] == "error"
    assert any(note_part in note for note in state["guard"]["notes"]), state["guard"]["notes"]
    read = verdict(state, "chat", "get_messages")
    assert read["irreversible"] is True
    assert read["source"] == "default"
    assert read["reason"].startswith("safe default:")
    post = verdict(state, "chat", "post_message")
    assert (post["irreversible"], post["source"]) == (True, "annotation")
    # An untrusted readOnlyHint spares a tool only when its name agrees; `announce` gets no pass.
    assert verdict(state, "chat", "announce")["irreversible"] is True
    (request,) = await thread.interrupts()
    assert [a["name"] for a in request["action_requests"]] == ["get_messages"]
    assert "safe default" in request["action_requests"][0]["description"]
    assert chat.runs.calls == []


# --- the answer's forms -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("IRREVERSIBLE: YES\nBLOCKED_TOOLS: announce, get_messages", {"announce", "get_messages"}),
        ("  **IRREVERSIBLE:** **YES**  \n BLOCKED_TOOLS:  `announce`  ", {"announce"}),
        ("irreversible: yes\nblocked tools:\n- `mcp__chat__announce`\n- chat_get_messages", None),
        ("## Irreversible: **Yes**\n**Blocked_Tools**: chat/announce.", {"announce"}),
        ({"irreversible": True, "blocked_tools": ["chat/announce", "get_messages"]}, None),
    ],
)
async def test_several_and_decorated_tool_names_are_read(
    scripted: Any, answer: Any, expected: set[str] | None
) -> None:
    expected = expected or {"announce", "get_messages"}
    chat = chat_server()
    thread, _ = chat_thread(scripted, chat, [answer], [read_messages()])

    await thread.send("Announce the news and then check the replies")

    state = await thread.values()
    assert state["guard"]["analysis"] == "ok"
    assert state["guard"]["notes"] == []
    assert blocked(state, "chat") == expected | {"post_message"}
    for name in expected:
        assert verdict(state, "chat", name)["source"] == "llm"
    interrupted = bool(await thread.interrupts())
    assert interrupted == ("get_messages" in expected)
    assert chat.runs.names() == ([] if interrupted else ["get_messages"])


@pytest.mark.parametrize(
    "answer",
    [
        "IRREVERSIBLE: YES\nBLOCKED_TOOLS: NONE",
        "IRREVERSIBLE: YES\nBLOCKED_TOOLS:",
        "IRREVERSIBLE: YES",
        {"irreversible": True, "blocked_tools": []},
        "IRREVERSIBLE: YES\nBLOCKED_TOOLS: send_email",
    ],
)
async def test_yes_without_a_known_tool_blocks_every_non_read_only_tool(
    scripted: Any, answer: Any
) -> None:
    chat = chat_server()
    thread, _ = chat_thread(scripted, chat, [answer], [read_messages()])

    await thread.send("Tell everyone")

    state = await thread.values()
    read = verdict(state, "chat", "get_messages")
    assert (read["irreversible"], read["source"]) == (True, "default")
    assert "named no known tool" in read["reason"]
    # `announce`'s untrusted readOnlyHint is not backed by its name, so it is blocked too.
    assert blocked(state, "chat") == {"get_messages", "post_message", "announce"}
    assert await thread.interrupts()
    assert chat.runs.calls == []


async def test_unknown_tool_names_are_reported_and_ignored(scripted: Any) -> None:
    chat = chat_server()
    answer = "IRREVERSIBLE: YES\nBLOCKED_TOOLS: announce, send_email, slack__post"
    thread, _ = chat_thread(scripted, chat, [answer], [read_messages()], response=["read"])

    await thread.send("Announce it and read the channel")

    state = await thread.values()
    assert blocked(state, "chat") == {"announce", "post_message"}
    notes = state["guard"]["notes"]
    assert len(notes) == 2
    assert "'send_email'" in notes[0]
    assert "'slack__post'" in notes[1]
    assert all("ignored" in n for n in notes)
    assert await thread.interrupts() == []
    assert chat.runs.names() == ["get_messages"]


async def test_analyser_has_no_tools_and_sees_the_real_catalog(scripted: Any) -> None:
    chat = chat_server()
    thread, models = chat_thread(
        scripted, chat, ["IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE"], [read_messages()]
    )
    request_text = "Summarise #general for me"

    await thread.send(request_text)

    (request,) = models["irreversibility"].requests
    assert request["tools"] == []
    prompt = system_prompt(request)
    for name in ("chat/get_messages", "chat/announce", "chat/post_message"):
        assert name in prompt
    assert "Show a text to every member of the company" in prompt
    assert '"readOnlyHint": true' in prompt
    assert '"destructiveHint": true' in prompt
    # Asked alongside the planner, before any plan exists: about the request and every tool.
    assert PLAN_NOT_MADE in prompt
    assert str(request["messages"][-1].content) == request_text
    orchestrate_tools = models["orchestrate"].requests[0]["tools"]
    assert "announce" in orchestrate_tools


async def test_the_analyser_is_asked_while_the_planner_plans_not_after(scripted: Any) -> None:
    chat = chat_server()
    thread, models = chat_thread(
        scripted, chat, ["IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE"], [read_messages()]
    )
    planned = models["planner"].script[0]
    asked_before_the_plan: list[int] = []

    def plan_once_answered(messages: Any, meta: Any) -> Any:
        asked_before_the_plan.append(len(models["irreversibility"].requests))
        return planned

    models["planner"].script[0] = plan_once_answered
    # The planner answers only once the analyser was asked: were the two asked one after the
    # other, the planner would wait for a request that never comes, and the test fails.
    models["planner"].hold = lambda: len(models["irreversibility"].requests) >= 1

    await thread.send("Summarise #general for me")

    assert asked_before_the_plan == [1], "the analyser was asked before the plan came back"
    assert len(models["irreversibility"].requests) == 1, "and not asked again after it"
    assert (await thread.values())["guard"]["analysis"] == "ok"


# --- sandboxed servers, trusted annotations, skipped analyses ----------------------------------


async def test_sandboxed_server_runs_writes_without_asking_and_skips_the_analysis(
    scripted: Any,
) -> None:
    chat = chat_server()
    text = unique("sandboxed")
    post = calls(tool_call("post_message", {"channel": "dev", "text": text}, call_id="p"))
    thread, models = chat_thread(scripted, chat, [], [post], sandboxed=True)

    await thread.send("Post the build status")

    assert await thread.interrupts() == []
    assert chat.runs.calls == [("post_message", {"channel": "dev", "text": text})]
    state = await thread.values()
    assert state["guard"]["analysis"] == "skipped"
    assert state["guard"]["irreversible"] == {}
    assert {v["source"] for v in state["guard"]["verdicts"]} == {"config"}
    assert "sandboxed" in verdict(state, "chat", "post_message")["reason"]
    assert models["irreversibility"].requests == []
    assert state["guard_stats"] == {"llm_calls": 0, "llm_skipped": 1}


async def test_non_sandboxed_write_is_blocked_next_to_a_sandboxed_one(
    scripted: Any, mcp_config: dict[str, Any], workdir: Path
) -> None:
    chat = chat_server()
    title, text = unique("not-sandboxed"), unique("scratch")
    ctx, _ = scripted(
        planner=[plan(task("t1", "scratch", "post"), task("t2", "notes", "save"))],
        irreversibility=["IRREVERSIBLE: YES\nBLOCKED_TOOLS: write_note"],
        orchestrate=per_task(
            {
                "t1": [calls(tool_call("post_message", {"channel": "x", "text": text}))],
                "t2": [calls(tool_call("write_note", {"title": title, "body": "b"}))],
            }
        ),
        assess=[done(), not_done("declined")],
        response=["Posted; the note was not saved."],
    )
    ctx["max_task_attempts"] = 1
    ctx["mcp_config"] = servers(
        scratch=chat.entry(sandboxed=True), notes=mcp_config["mcpServers"]["notes"]
    )
    thread = Thread(ctx)

    await thread.send("Post to the scratch chat and save a note")

    assert chat.runs.names() == ["post_message"]
    (request,) = await thread.interrupts()
    assert [a["name"] for a in request["action_requests"]] == ["write_note"]
    state = await thread.values()
    assert blocked(state, "notes") == {"write_note", "delete_note"}
    assert blocked(state, "scratch") == set()

    await thread.resume(REJECT)

    assert note_actions(workdir, title) == []
    assert (await thread.answer()).content == "Posted; the note was not saved."


async def test_analyser_cannot_override_a_sandboxed_server(
    scripted: Any, mcp_config: dict[str, Any]
) -> None:
    chat = chat_server()
    ctx, _ = scripted(
        planner=[plan(task("t1", "scratch", "post"), task("t2", "notes", "list"))],
        irreversibility=["IRREVERSIBLE: YES\nBLOCKED_TOOLS: scratch/post_message"],
        orchestrate=per_task(
            {
                "t1": [calls(tool_call("post_message", {"channel": "x", "text": "hi"}))],
                "t2": [calls(tool_call("list_notes"))],
            }
        ),
        assess=[done(), done()],
        response=["ok"],
    )
    ctx["mcp_config"] = servers(
        scratch=chat.entry(sandboxed=True), notes=mcp_config["mcpServers"]["notes"]
    )
    thread = Thread(ctx)

    await thread.send("Post hi in the scratch chat, then list my notes")

    assert await thread.interrupts() == []
    assert chat.runs.names() == ["post_message"]
    post = verdict(await thread.values(), "scratch", "post_message")
    assert (post["irreversible"], post["source"]) == (False, "config")


async def test_trusted_demo_annotations_skip_the_analysis(
    scripted: Any, mcp_config: dict[str, Any]
) -> None:
    demo = mcp_config["mcpServers"]
    two_tasks = plan(task("t1", "inventory", "stock"), task("t2", "notes", "list"))
    lookups = {
        "t1": [calls(tool_call("get_stock", {"sku": "WID-1"}))] * 2,
        "t2": [calls(tool_call("list_notes"))] * 2,
    }

    def run(trusted: bool) -> tuple[Thread, dict[str, Any]]:
        ctx, models = scripted(
            planner=[two_tasks, two_tasks],
            irreversibility=["IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE"] * 2,
            orchestrate=per_task(lookups),
            assess=[done()] * 4,
            response=["ok"] * 2,
        )
        ctx["mcp_config"] = servers(
            inventory={**demo["inventory"], "trust_annotations": trusted},
            notes={**demo["notes"], "trust_annotations": trusted},
        )
        return Thread(ctx), models

    trusted, trusted_models = run(True)
    await trusted.send("Stock of WID-1, and my notes?")
    await trusted.send("Once more, please")

    state = await trusted.values()
    assert trusted_models["irreversibility"].requests == []
    assert state["guard"]["analysis"] == "skipped"
    assert state["guard_stats"] == {"llm_calls": 0, "llm_skipped": 2}
    assert blocked(state, "notes") == {"write_note", "delete_note"}
    assert blocked(state, "inventory") == set()
    assert await trusted.interrupts() == []

    untrusted, untrusted_models = run(False)
    await untrusted.send("Stock of WID-1, and my notes?")

    assert len(untrusted_models["irreversibility"].requests) == 1
    assert (await untrusted.values())["guard_stats"] == {"llm_calls": 1, "llm_skipped": 0}


# --- every turn is analysed afresh --------------------------------------------------------------


async def test_every_turn_is_re_analysed(scripted: Any) -> None:
    chat = chat_server()
    text = unique("turn-two")
    thread, models = chat_thread(
        scripted,
        chat,
        [
            "IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE",
            "IRREVERSIBLE: YES\nBLOCKED_TOOLS: announce",
            "IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE",
        ],
        [read_messages("r1"), announce(text), read_messages("r3")],
        planner=[CHAT_TASK] * 3,
        assess=[done()] * 3,
        response=["read", "announced", "read again"],
    )
    requests = ["What is new in #general?", "Announce the launch", "Any replies?"]

    await thread.send(requests[0])
    assert await thread.interrupts() == []

    await thread.send(requests[1])
    (request,) = await thread.interrupts()
    assert [a["name"] for a in request["action_requests"]] == ["announce"]
    assert chat.runs.names() == ["get_messages"]
    await thread.resume(APPROVE)
    assert chat.runs.names() == ["get_messages", "announce"]

    await thread.send(requests[2])

    assert await thread.interrupts() == []
    assert chat.runs.names() == ["get_messages", "announce", "get_messages"]
    asked = [str(r["messages"][-1].content) for r in models["irreversibility"].requests]
    assert asked == requests
    state = await thread.values()
    assert verdict(state, "chat", "announce")["irreversible"] is False
    assert state["guard_stats"] == {"llm_calls": 3, "llm_skipped": 0}
    assert (await thread.answer()).content == "read again"


# --- the argument-level check -------------------------------------------------------------------


async def test_destructive_arguments_make_a_read_only_query_tool_ask(scripted: Any) -> None:
    db = db_server()
    ctx, models = scripted(
        planner=[plan(task("t1", "db", "inspect, then clean up"))],
        irreversibility=[],
        orchestrate=[
            calls(tool_call("run_query", {"query": "SELECT 1"}, call_id="select")),
            calls(tool_call("run_query", {"query": "DROP TABLE x"}, call_id="drop")),
        ],
        assess=[not_done("now the cleanup"), not_done("declined")],
        response=["The table was kept."],
    )
    ctx["max_task_attempts"] = 2
    ctx["mcp_config"] = servers(db=db.entry(trust_annotations=True))
    thread = Thread(ctx)

    await thread.send("Check the database, then drop table x")

    assert db.runs.calls == [("run_query", {"query": "SELECT 1"})]
    state = await thread.values()
    assert state["guard"]["analysis"] == "skipped"
    assert models["irreversibility"].requests == []
    tool_verdict = verdict(state, "db", "run_query")
    assert (tool_verdict["irreversible"], tool_verdict["source"]) == (False, "annotation")
    (request,) = await thread.interrupts()
    (action,) = request["action_requests"]
    assert action["args"] == {"query": "DROP TABLE x"}
    assert "argument 'query' contains SQL DROP" in action["description"]
    assert "source: arguments" in action["description"]

    await thread.resume(REJECT)

    assert db.runs.calls == [("run_query", {"query": "SELECT 1"})]
    assert (await thread.answer()).content == "The table was kept."


# --- prompt injection ---------------------------------------------------------------------------


async def test_injected_instructions_in_a_tool_result_cannot_unlock_a_call(
    scripted: Any, workdir: Path
) -> None:
    scope = unique("injected")
    url = f"https://example.test/{scope}"

    def obey_the_page(messages: list[Any], meta: dict[str, Any]) -> Any:
        assert "IGNORE PREVIOUS INSTRUCTIONS" in str(messages[-1].content)
        return calls(tool_call("delete_everything", {"scope": scope}, call_id="obey"))

    ctx, models = scripted(
        planner=[plan(task("t1", "testkit", "summarise the page"))],
        irreversibility=["IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE"],
        orchestrate=[calls(tool_call("fetch_page", {"url": url}, call_id="fetch")), obey_the_page],
        assess=[not_done("the page says to delete"), not_done("declined")],
        response=["I summarised the page and deleted nothing."],
    )
    ctx["max_task_attempts"] = 2
    thread = Thread(ctx)

    await thread.send(f"Summarise {url}")

    (request,) = await thread.interrupts()
    assert [a["name"] for a in request["action_requests"]] == ["delete_everything"]
    assert request["action_requests"][0]["args"] == {"scope": scope}
    log = log_lines(workdir / "testkit.log")
    assert f"fetch_page {url}" in log

    await thread.resume({"decisions": [{"type": "reject", "message": "never"}]})

    assert not any(line.startswith("delete_everything") and scope in line for line in log)
    assert not any(
        "delete_everything" in line and scope in line for line in log_lines(workdir / "testkit.log")
    )
    replies = {m.tool_call_id: m for m in await thread.tool_messages()}
    assert replies["obey"].status == "error"
    assert "declined" in str(replies["obey"].content)
    assert len(models["orchestrate"].requests) == 2
    assert (await thread.answer()).content == "I summarised the page and deleted nothing."
