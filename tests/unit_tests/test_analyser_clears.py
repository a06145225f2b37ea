"""The analyser may clear what only ignorance holds, and nothing a signal holds.

A tool with no deterministic signal (a verbless name such as `pwd`, a description no vocabulary
reads) is held by the "no signal" default; the analyser's positive statement that, for this
request, it only reads clears it. Config, annotations, a change word and argument rules always
keep their holds.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from mcp.server.mcpserver import MCPServer
from mcp.types import Tool, ToolAnnotations

from common.mcp.config import ServerConfig
from common.mcp.inprocess import register_inprocess_server
from common.safety.analysis import (
    AnalysisOutcome,
    AnalysisRecord,
    analyse,
    apply_analysis,
    from_record,
    needs_analysis,
    only_ignorance_holds,
    to_record,
)
from common.safety.classify import ToolVerdict, classify_tools
from common.safety.gate import Gate
from common.safety.prompts import IRREVERSIBILITY_SYSTEM_PROMPT
from common.safety.verdict import (
    IrreversibilityAnalysis,
    ParsedVerdict,
    from_structured,
    parse_verdict_text,
)
from tests.doubles import ScriptedChatModel, analysis, calls, tool_call
from tests.unit_tests.guard_helpers import Executions, Expert, servers, verdict
from tests.unit_tests.helpers import Thread, done, not_done, plan, task, unique

PWD_DESCRIPTION = "Return the current working directory path."
SQL_SCHEMA = {"type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]}


def _tool(name: str, description: str, annotations: ToolAnnotations | None = None) -> Tool:
    schema = SQL_SCHEMA if name == "shop_db" else {"type": "object"}
    return Tool(name=name, description=description, inputSchema=schema, annotations=annotations)


PLAIN = ServerConfig(command="srv")
BOX = [
    _tool("pwd", PWD_DESCRIPTION),
    _tool("shop_db", "The shop database, in SQL."),
    _tool("delete_file", "Delete a file."),
    # No change verb leads, but the sentence says what it changes: a signal, not ignorance.
    _tool("hook", "Fires a webhook that posts the payload."),
]
CATALOG: dict[str, list[Tool]] = {
    "box": BOX,
    "configured": [_tool("pwd", PWD_DESCRIPTION)],
    "annotated": [_tool("pwd", PWD_DESCRIPTION, ToolAnnotations(destructiveHint=True))],
}
CONFIGS = {
    "box": PLAIN,
    "configured": ServerConfig(command="srv", irreversible_tools=["pw*"]),
    "annotated": PLAIN,
}
NAMES = {server: [t.name for t in tools] for server, tools in CATALOG.items()}
EVERY_TOOL = [f"{server}/{name}" for server, names in NAMES.items() for name in names]


def _verdicts(catalog: dict[str, list[Tool]] = CATALOG) -> list[ToolVerdict]:
    return [v for s, tools in catalog.items() for v in classify_tools(s, tools, CONFIGS[s])]


def _one(verdicts: list[ToolVerdict], server: str, tool: str) -> ToolVerdict:
    (found,) = [v for v in verdicts if (v["server"], v["tool"]) == (server, tool)]
    return found


def _final(answer: IrreversibilityAnalysis | str) -> list[ToolVerdict]:
    parsed = (
        parse_verdict_text(answer, NAMES)
        if isinstance(answer, str)
        else parse_verdict_text(answer.model_dump_json(), NAMES)
    )
    return apply_analysis(_verdicts(), AnalysisOutcome("ok", verdict=parsed), CATALOG, CONFIGS)


# --- the rule, in one place ---------------------------------------------------------------------


def test_the_deterministic_holds_are_what_the_scenarios_assume() -> None:
    verdicts = _verdicts()
    sources = {(v["server"], v["tool"]): (v["irreversible"], v["source"]) for v in verdicts}
    assert sources == {
        ("box", "pwd"): (True, "default"),
        ("box", "shop_db"): (True, "default"),
        ("box", "delete_file"): (True, "heuristic"),
        ("box", "hook"): (True, "default"),
        ("configured", "pwd"): (True, "config"),
        ("annotated", "pwd"): (True, "annotation"),
    }


@pytest.mark.parametrize(
    ("server", "tool", "clearable"),
    [
        ("box", "pwd", True),
        ("box", "shop_db", True),
        ("box", "delete_file", False),
        ("box", "hook", False),
        ("configured", "pwd", False),
        ("annotated", "pwd", False),
    ],
)
def test_only_the_no_signal_default_is_the_analysers_to_clear(
    server: str, tool: str, clearable: bool
) -> None:
    by_name = {t.name: t for t in CATALOG[server]}
    assert only_ignorance_holds(_one(_verdicts(), server, tool), by_name[tool]) is clearable


def test_an_open_or_cleared_verdict_is_not_a_hold_to_clear() -> None:
    pwd = _one(_verdicts(), "box", "pwd")
    for source in ("heuristic", "llm", "annotation", "config"):
        assert not only_ignorance_holds({**pwd, "source": source}, BOX[0])  # type: ignore[typeddict-item]
    assert not only_ignorance_holds({**pwd, "irreversible": False}, BOX[0])


# --- clearing -----------------------------------------------------------------------------------

CLEARING_ANSWERS: list[IrreversibilityAnalysis | str] = [
    analysis(
        irreversible=False,
        read_only_tools=["pwd"],
        reasons={"pwd": "it prints the working directory"},
    ),
    "IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE\nREAD_ONLY_TOOLS: box/pwd",
    "irreversible: no\nblocked tools: none\nread-only tools:\n- `pwd` - it prints the directory",
    "**IRREVERSIBLE:** NO\n**READ_ONLY:** pwd",
    '```json\n{"irreversible": false, "blocked_tools": [], "read-only tools": ["pwd"]}\n```',
    '{"irreversible": false, "read_only": [{"server": "box", "tool": "pwd", "reason": "reads"}]}',
]


@pytest.mark.parametrize("answer", CLEARING_ANSWERS, ids=repr)
def test_a_default_held_tool_named_read_only_is_cleared(
    answer: IrreversibilityAnalysis | str,
) -> None:
    final = _final(answer)

    pwd = _one(final, "box", "pwd")
    assert (pwd["irreversible"], pwd["source"]) == (False, "llm")
    assert pwd["reason"].startswith("cleared by the analyser: ")
    assert _one(final, "box", "shop_db")["irreversible"] is True


def test_the_analysers_reason_is_kept_or_a_plain_one_given() -> None:
    with_reason = _one(_final(CLEARING_ANSWERS[0]), "box", "pwd")
    without = _one(_final("IRREVERSIBLE: NO\nREAD_ONLY_TOOLS: pwd"), "box", "pwd")

    assert with_reason["reason"] == "cleared by the analyser: it prints the working directory"
    assert without["reason"] == "cleared by the analyser: it only reads for this request"


def test_a_yes_that_names_a_tool_to_hold_still_clears_the_read_only_one() -> None:
    final = _final(analysis(irreversible=True, blocked_tools=["shop_db"], read_only_tools=["pwd"]))

    assert _one(final, "box", "pwd")["irreversible"] is False
    assert _one(final, "box", "shop_db")["irreversible"] is True


@pytest.mark.parametrize(
    "answer",
    [
        analysis(irreversible=False, blocked_tools=["pwd"], read_only_tools=["pwd"]),
        "IRREVERSIBLE: YES\nBLOCKED_TOOLS: pwd\nREAD_ONLY_TOOLS: pwd",
        analysis(irreversible=False),
        "IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE",
        "IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE\nREAD_ONLY_TOOLS: NONE",
        analysis(irreversible=False, read_only_tools=["cwd", "box/ls"]),
    ],
    ids=repr,
)
def test_a_tool_named_in_both_lists_or_not_named_stays_held(
    answer: IrreversibilityAnalysis | str,
) -> None:
    pwd = _one(_final(answer), "box", "pwd")

    assert (pwd["irreversible"], pwd["source"]) == (True, "default")


def test_unknown_read_only_names_are_reported_and_ignored() -> None:
    parsed = parse_verdict_text("IRREVERSIBLE: NO\nREAD_ONLY_TOOLS: pwd, cwd", {"box": ["pwd"]})

    assert parsed.read_only == (("box", "pwd"),)
    assert parsed.unknown == ("cwd",)


def test_a_hold_any_signal_gave_is_never_cleared() -> None:
    everything = analysis(irreversible=False, read_only_tools=EVERY_TOOL)

    final = _final(everything)

    held = {(v["server"], v["tool"]): v for v in final if v["irreversible"]}
    assert set(held) == {
        ("box", "delete_file"),
        ("box", "hook"),
        ("configured", "pwd"),
        ("annotated", "pwd"),
    }
    assert held[("box", "delete_file")]["source"] == "heuristic"
    assert held[("box", "hook")]["source"] == "default"
    assert held[("configured", "pwd")]["source"] == "config"
    assert held[("annotated", "pwd")]["source"] == "annotation"
    assert not any("cleared by the analyser" in v["reason"] for v in held.values())


def test_a_cleared_tool_is_still_checked_per_call() -> None:
    final = _final(analysis(irreversible=False, read_only_tools=["shop_db"]))
    gate = Gate(final)
    tools = {t.name: t for t in BOX}

    select = gate.check("box", "shop_db", {"sql": "SELECT 1"}, tools, PLAIN)
    drop = gate.check("box", "shop_db", {"sql": "DROP TABLE orders"}, tools, PLAIN)

    assert (select.needs_approval, select.source) == (False, "llm")
    assert select.reason.startswith("cleared by the analyser")
    assert (drop.needs_approval, drop.source) == (True, "arguments")
    assert "DROP" in drop.reason


# --- reading the read-only list ------------------------------------------------------------------

PARSE_CATALOG = {"box": ["pwd", "shop_db", "delete_file"], "mail": ["send_message"]}
PWD = ("box", "pwd")
SHOP = ("box", "shop_db")
DELETE = ("box", "delete_file")
SEND = ("mail", "send_message")


@pytest.mark.parametrize(
    ("text", "blocked", "read_only"),
    [
        ("IRREVERSIBLE: YES\nBLOCKED_TOOLS: delete_file\nREAD_ONLY_TOOLS: pwd", [DELETE], [PWD]),
        ("IRREVERSIBLE: YES\nREAD_ONLY_TOOLS: pwd\nBLOCKED_TOOLS: delete_file", [DELETE], [PWD]),
        ("IRREVERSIBLE: NO\nRead-only tools:\n- `pwd`\n- box.shop_db\n\nDone.", [], [PWD, SHOP]),
        ("IRREVERSIBLE: NO\nREADONLY: mcp__box__pwd, shop_db", [], [PWD, SHOP]),
        ("IRREVERSIBLE: NO\nREAD_ONLY_TOOLS: NONE", [], []),
        (
            "IRREVERSIBLE: NO\nREAD_ONLY_TOOLS:\npwd\nI checked every tool above carefully.",
            [],
            [PWD],
        ),
        ("IRREVERSIBLE: NO\nBLOCKED_TOOLS:\n- send_message\nREAD ONLY:\n- pwd", [SEND], [PWD]),
        (
            '{"irreversible": true, "blocked_tools": "send_message", "readonly_tools": "pwd"}',
            [SEND],
            [PWD],
        ),
        ('{"irreversible": false, "read_only_tools": "none"}', [], []),
    ],
)
def test_the_read_only_list_is_read_like_the_blocked_one(
    text: str, blocked: list[tuple[str, str]], read_only: list[tuple[str, str]]
) -> None:
    parsed = parse_verdict_text(text, PARSE_CATALOG)

    assert list(parsed.tools) == blocked
    assert list(parsed.read_only) == read_only
    assert parsed.unknown == ()


def test_reasons_attach_to_read_only_tools_in_every_form() -> None:
    text = "IRREVERSIBLE: NO\nREAD_ONLY_TOOLS: pwd\nREASONS:\n- pwd: it prints the directory"
    structured = analysis(irreversible=False, read_only_tools=["pwd"], reasons={"pwd": "prints"})

    assert parse_verdict_text(text, PARSE_CATALOG).reasons == {"box/pwd": "it prints the directory"}
    assert from_structured(structured, PARSE_CATALOG).reasons == {"box/pwd": "prints"}


# --- the safe default clears nothing -------------------------------------------------------------

MALFORMED_CLEARING_ANSWERS: list[Any] = [
    RuntimeError("model is down"),
    TimeoutError("too slow"),
    "",
    "I'm not sure",
    "READ_ONLY_TOOLS: pwd",
    "IRREVERSIBLE: maybe\nBLOCKED_TOOLS: NONE\nREAD_ONLY_TOOLS: pwd",
    "IRREVERSIBLE: YES and NO\nREAD_ONLY_TOOLS: pwd",
    "IRREVERSIBLE: YES\nBLOCKED_TOOLS: NONE\nREAD_ONLY_TOOLS: pwd",
    "IRREVERSIBLE: YES\nREAD_ONLY_TOOLS: pwd",
    "IRREVERSIBLE: YES\nBLOCKED_TOOLS: send_email\nREAD_ONLY_TOOLS: pwd",
    {"irreversible": "perhaps", "read_only_tools": ["pwd"]},
    {"irreversible": True, "blocked_tools": [], "read_only_tools": ["pwd"]},
    {"read_only_tools": ["pwd"]},
]
"""Failed or unusable answers that nevertheless try to clear `pwd`."""


@pytest.mark.parametrize("answer", MALFORMED_CLEARING_ANSWERS, ids=repr)
async def test_a_failed_or_unusable_answer_clears_nothing(answer: Any) -> None:
    model = ScriptedChatModel(script=[answer])
    outcome = await analyse(model, CATALOG, "(plan)", [HumanMessage("Where am I?")], 5.0)

    final = apply_analysis(_verdicts(), outcome, CATALOG, CONFIGS)

    # Not understood, or a YES naming no known tool to hold: the safe default applies.
    assert outcome.status == "error" or (outcome.verdict is not None and not outcome.verdict.tools)
    assert all(v["irreversible"] for v in final)
    assert _one(final, "box", "pwd")["source"] == "default"
    assert not any("cleared by the analyser" in v["reason"] for v in final)


# --- when the analyser is asked ------------------------------------------------------------------


def test_a_default_hold_is_reason_enough_to_ask() -> None:
    only_pwd = {"box": [BOX[0]]}

    assert needs_analysis(_verdicts(only_pwd), CONFIGS, only_pwd)


def test_nothing_is_asked_when_every_hold_has_a_signal() -> None:
    signals = {
        "box": [BOX[2], BOX[3]],
        "configured": CATALOG["configured"],
        "annotated": CATALOG["annotated"],
    }

    assert not needs_analysis(_verdicts(signals), CONFIGS, signals)


# --- the answer's field, the prompt, the record --------------------------------------------------


def test_the_structured_answer_states_read_only_tools_positively() -> None:
    field = IrreversibilityAnalysis.model_fields["read_only_tools"]

    assert field.description is not None
    assert "only read or compute" in field.description
    assert "read_only_tools" in IrreversibilityAnalysis.model_json_schema()["required"]


def test_the_prompt_asks_for_read_only_tools_and_when_to_name_one() -> None:
    assert "`read_only_tools`" in IRREVERSIBILITY_SYSTEM_PROMPT
    assert "READ_ONLY_TOOLS:" in IRREVERSIBILITY_SYSTEM_PROMPT
    assert "only when every call it could make for this request only reads or computes" in " ".join(
        IRREVERSIBILITY_SYSTEM_PROMPT.split()
    )


def test_the_record_keeps_the_read_only_list_and_older_records_still_load() -> None:
    parsed = ParsedVerdict(False, read_only=(("box", "pwd"),), reasons={"box/pwd": "reads"})
    outcome = AnalysisOutcome("ok", verdict=parsed)
    record = to_record(outcome, CATALOG)

    assert record["read_only"] == [["box", "pwd"]]
    assert from_record(record) == outcome
    older: AnalysisRecord = {k: v for k, v in record.items() if k != "read_only"}  # type: ignore[assignment]
    assert from_record(older).verdict == ParsedVerdict(False, reasons={"box/pwd": "reads"})


# --- through the graph ---------------------------------------------------------------------------


def shell_server() -> Expert:
    """An expert whose tools no deterministic signal reads: `pwd` and `shop_db`."""
    runs = Executions()
    mcp = MCPServer(unique("shell"))

    @mcp.tool(name="pwd", description=PWD_DESCRIPTION)
    def pwd() -> str:
        runs.record("pwd")
        return "/home/alice"

    @mcp.tool(name="shop_db", description="The shop database, in SQL.")
    def shop_db(sql: str) -> str:
        runs.record("shop_db", sql=sql)
        return "ok"

    register_inprocess_server(mcp.name, mcp)
    return Expert(mcp.name, runs)


def shell_thread(
    scripted: Any, shell: Expert, analysis: Any, orchestrate: list[Any], **extra: Any
) -> tuple[Thread, dict[str, Any]]:
    ctx, models = scripted(
        planner=[plan(task("t1", "shell", "look around"))],
        irreversibility=[analysis],
        orchestrate=orchestrate,
        assess=extra.pop("assess", [done()]),
        response=extra.pop("response", ["Done."]),
    )
    ctx.update(extra)
    ctx["mcp_config"] = servers(shell=shell.entry())
    return Thread(ctx), models


async def test_a_cleared_tool_runs_without_an_interrupt(scripted: Any) -> None:
    shell = shell_server()
    analysis = {
        "irreversible": False,
        "blocked_tools": [],
        "read_only_tools": ["pwd"],
        "reasons": {"pwd": "it prints the working directory"},
    }
    thread, models = shell_thread(
        scripted, shell, analysis, [calls(tool_call("pwd"))], response=["/home/alice"]
    )

    await thread.send("Which directory am I in?")

    assert await thread.interrupts() == []
    assert shell.runs.names() == ["pwd"]
    state = await thread.values()
    pwd = verdict(state, "shell", "pwd")
    assert (pwd["irreversible"], pwd["source"]) == (False, "llm")
    assert pwd["reason"] == "cleared by the analyser: it prints the working directory"
    assert verdict(state, "shell", "shop_db")["irreversible"] is True
    assert len(models["irreversibility"].requests) == 1
    assert (await thread.answer()).content == "/home/alice"


async def test_an_analyser_that_does_not_clear_it_leaves_it_held(scripted: Any) -> None:
    shell = shell_server()
    thread, models = shell_thread(
        scripted, shell, "IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE", [calls(tool_call("pwd"))]
    )

    await thread.send("Which directory am I in?")

    # Asked although no verdict was open: only ignorance held `pwd`.
    assert len(models["irreversibility"].requests) == 1
    (request,) = await thread.interrupts()
    assert [a["name"] for a in request["action_requests"]] == ["pwd"]
    assert "source: default" in request["action_requests"][0]["description"]
    assert shell.runs.calls == []


async def test_a_cleared_query_tool_still_asks_for_a_destructive_statement(
    scripted: Any,
) -> None:
    shell = shell_server()
    thread, _ = shell_thread(
        scripted,
        shell,
        "IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE\nREAD_ONLY_TOOLS: shop_db",
        [
            calls(tool_call("shop_db", {"sql": "SELECT 1"}, call_id="select")),
            calls(tool_call("shop_db", {"sql": "DROP TABLE orders"}, call_id="drop")),
        ],
        assess=[not_done("now the cleanup"), not_done("declined")],
        response=["The table was kept."],
        max_task_attempts=2,
    )

    await thread.send("Count the orders, then drop the table")

    assert shell.runs.calls == [("shop_db", {"sql": "SELECT 1"})]
    (request,) = await thread.interrupts()
    (action,) = request["action_requests"]
    assert action["args"] == {"sql": "DROP TABLE orders"}
    assert "source: arguments" in action["description"]

    await thread.resume({"decisions": [{"type": "reject", "message": "no"}]})

    assert shell.runs.calls == [("shop_db", {"sql": "SELECT 1"})]
