"""Plan validation: each problem is a sentence the planner can act on; invalid plans never run.

The unit tests check `validate_plan` against tool schemas shaped like MCPServer's; the graph tests
use a live in-process server, so the schema checked is the one the server really lists.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer
from mcp.types import Tool

from common.mcp.inprocess import register_inprocess_server
from common.mcp.schema import check_args
from common.settings import get_settings
from strategies.with_planner.plans import Task, planned, validate_plan
from tests.unit_tests.helpers import Thread, plan, system_prompt, unique

LOOKUP = Tool(
    name="lookup",
    description="Look up records.",
    inputSchema={
        "type": "object",
        "properties": {
            "key": {"type": "string", "title": "Key"},
            "limit": {"type": "integer", "title": "Limit", "default": 10},
        },
        "required": ["key"],
    },
)
SAVE = Tool(
    name="save_report",
    description="Save a report.",
    inputSchema={
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "ids": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["title", "ids"],
    },
)
CATALOG: dict[str, Any] = {"records": [LOOKUP], "reports": [SAVE], "offline": None}


def t(tid: str, expert: str = "records", *deps: str, **extra: Any) -> Task:
    return Task(id=tid, expert=expert, task=f"do {tid}", depends_on=list(deps), **extra)


def problems(*tasks: Task, next_task: int = 0) -> list[str]:
    return validate_plan([planned(t) for t in tasks], next_task, CATALOG, 12)


# --- each problem, alone ---------------------------------------------------------------------


def test_a_valid_plan_has_no_problems() -> None:
    assert (
        problems(
            t("t1", tool="lookup", args={"key": "north"}),
            t("t2"),
            t(
                "t3",
                "reports",
                "t1",
                "t2",
                tool="save_report",
                args={"title": "${t2.result}", "ids": "${t1.data.items.*.id}"},
            ),
        )
        == []
    )


def test_unknown_expert() -> None:
    assert problems(t("t1", "weather")) == [
        "Task 't1' names unknown expert 'weather'; known: records, reports, offline."
    ]


def test_unknown_tool_lists_the_experts_tools() -> None:
    assert problems(t("t1", tool="delete_all", args={})) == [
        "Task 't1': expert 'records' has no tool 'delete_all' (lookup)."
    ]


def test_missing_required_argument() -> None:
    assert problems(t("t1", "reports", tool="save_report", args={"title": "x"})) == [
        "Task 't1' (save_report): missing required argument 'ids'"
    ]


def test_wrong_argument_type() -> None:
    assert problems(t("t1", tool="lookup", args={"key": "north", "limit": "ten"})) == [
        "Task 't1' (lookup): limit: 'ten' is not of type 'integer'"
    ]


def test_wrong_type_inside_a_list_names_the_position() -> None:
    assert problems(t("t1", "reports", tool="save_report", args={"title": "x", "ids": [1]})) == [
        "Task 't1' (save_report): ids.0: 1 is not of type 'string'"
    ]


def test_a_direct_step_with_no_args_reports_every_required_one() -> None:
    assert problems(t("t1", "reports", tool="save_report")) == [
        "Task 't1' (save_report): missing required argument 'title'",
        "Task 't1' (save_report): missing required argument 'ids'",
    ]


def test_a_whole_value_template_is_not_type_checked_but_embedded_text_is() -> None:
    # `${t0.data.count}` may resolve to an integer; "${t0.data.count}0" is always a string.
    ok = t("t1", "records", "t0", tool="lookup", args={"key": "k", "limit": "${t0.data.count}"})
    assert problems(t("t0"), ok) == []
    text = t("t1", "records", "t0", tool="lookup", args={"key": "k", "limit": "${t0.data.n}0"})
    assert problems(t("t0"), text) == [
        "Task 't1' (lookup): limit: '${t0.data.n}0' is not of type 'integer'"
    ]


def test_dependency_on_an_unknown_task() -> None:
    assert problems(t("t1"), t("t2", "records", "t9")) == [
        "Task 't2' depends on unknown task 't9'."
    ]


def test_dependency_on_itself() -> None:
    assert problems(t("t1", "records", "t1")) == ["Task 't1' depends on itself."]


@pytest.mark.parametrize(
    ("tasks", "cycle"),
    [
        ([t("t1", "records", "t2"), t("t2", "records", "t1")], "t1 -> t2 -> t1"),
        (
            [t("t0"), t("t1", "records", "t3"), t("t2", "records", "t1"), t("t3", "records", "t2")],
            "t1 -> t3 -> t2 -> t1",
        ),
    ],
)
def test_a_dependency_cycle_is_named(tasks: list[Task], cycle: str) -> None:
    assert problems(*tasks) == [f"The dependencies form a cycle: {cycle}."]


def test_a_diamond_is_not_a_cycle() -> None:
    assert (
        problems(
            t("a"), t("b", "records", "a"), t("c", "records", "a"), t("d", "records", "b", "c")
        )
        == []
    )


def test_a_template_on_a_task_that_is_not_a_dependency() -> None:
    bad = t("t2", tool="lookup", args={"key": "${t1.data.key}"})
    assert problems(t("t1"), bad) == [
        "Task 't2' uses the result of 't1' in its args but does not depend on it; "
        "add it to depends_on."
    ]


def test_a_step_position_template_counts_as_that_task() -> None:
    bad = t("t2", tool="lookup", args={"key": "${step[0].data.key}"})
    assert problems(t("t1"), bad) == [
        "Task 't2' uses the result of 't1' in its args but does not depend on it; "
        "add it to depends_on."
    ]
    good = t("t2", "records", "t1", tool="lookup", args={"key": "${step[0].data.key}"})
    assert problems(t("t1"), good) == []


def test_a_malformed_template_is_reported() -> None:
    bad = t("t2", "records", "t1", tool="lookup", args={"key": "${t1.data..key}"})
    assert problems(t("t1"), bad) == ["Task 't2': malformed path in template ${t1.data..key}"]


def test_date_templates_are_not_task_references() -> None:
    step = t("t1", tool="lookup", args={"key": "k ${dates.last_week.from}"})
    assert problems(step) == []


def test_a_date_template_with_an_unknown_period() -> None:
    step = t("t1", tool="lookup", args={"key": "since ${dates.next_month.from}"})
    assert problems(step) == [
        "Task 't1': ${dates.next_month.from}: unknown date reference 'next_month'; use today, "
        "yesterday, this week, last week, this month or last N days"
    ]


def test_args_without_a_tool() -> None:
    assert problems(t("t1", args={"key": "x"})) == [
        "Task 't1' has args but no tool; give both for a direct step."
    ]


def test_an_unreachable_expert_skips_the_tool_checks_only() -> None:
    assert problems(t("t1", "offline", tool="anything", args={"x": 1})) == []
    bad = t("t2", "offline", tool="anything", args={"x": "${t1.result}"})
    assert problems(t("t1"), bad) == [
        "Task 't2' uses the result of 't1' in its args but does not depend on it; "
        "add it to depends_on."
    ]


def test_every_problem_of_a_plan_is_reported_at_once() -> None:
    found = problems(
        t("t1", "weather"),
        t("t2", "records", "t2"),
        t("t3", tool="lookup", args={"limit": 1}),
        t("t4", "records", "t5"),
        t("t5", "records", "t4"),
    )
    assert found == [
        "Task 't1' names unknown expert 'weather'; known: records, reports, offline.",
        "Task 't2' depends on itself.",
        "Task 't3' (lookup): missing required argument 'key'",
        "The dependencies form a cycle: t4 -> t5 -> t4.",
    ]


def test_check_args_checks_each_value_against_the_schema() -> None:
    assert check_args(LOOKUP, {"key": "k"}) == []
    assert check_args(LOOKUP, {"key": None}) == ["key: None is not of type 'string'"]


# --- through the graph: feedback, retries, nothing runs --------------------------------------


def live_server(ran: list[str]) -> str:
    mcp = MCPServer(unique("validated"))

    @mcp.tool()
    async def lookup(key: str, limit: int = 10) -> dict[str, Any]:
        """Look up the records under a key."""
        ran.append(f"lookup {key}")
        return {"key": key, "ids": [f"{key}-1"]}

    @mcp.tool()
    async def save_report(title: str, ids: list[str]) -> str:
        """Save a report listing record ids."""
        ran.append(f"save {title}")
        return "saved"

    register_inprocess_server(mcp.name, mcp)
    return mcp.name


def graph_context(
    scripted: Any, ran: list[str], planner: list[Any], **roles: list[Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    roles.setdefault("response", ["Done."])
    ctx, models = scripted(planner=planner, orchestrate=[], assess=[], **roles)
    entry = {
        "inprocess": live_server(ran),
        "description": "Records.",
        "reversible_tools": ["save_report"],
    }
    ctx["mcp_config"] = {"mcpServers": {"records": entry}}
    return ctx, models


def direct(tid: str, tool: str, args: dict[str, Any], *deps: str) -> dict[str, Any]:
    return {
        "id": tid,
        "expert": "records",
        "task": f"call {tool}",
        "tool": tool,
        "args": args,
        "depends_on": list(deps),
    }


async def test_the_live_schema_is_checked_and_the_problem_sent_back(scripted: Any) -> None:
    ran: list[str] = []
    wrong = plan(direct("t1", "lookup", {"key": "north", "limit": "all"}))
    fixed = plan(direct("t1", "lookup", {"key": "north", "limit": 5}))
    ctx, models = graph_context(scripted, ran, [wrong, fixed])
    thread = Thread(ctx)

    nodes = await thread.send("Look up north.")

    assert nodes[:3] == ["planner", "planner", "irreversibility_check"]
    first, second = (system_prompt(r) for r in models["planner"].requests)
    problem = "Task 't1' (lookup): limit: 'all' is not of type 'integer'"
    assert problem not in first
    assert f"Your previous plan could not be used:\n- {problem}" in second
    assert ran == ["lookup north"], "only the corrected plan ran"


@pytest.mark.parametrize(
    ("bad_plan", "problem"),
    [
        (
            plan(direct("t1", "lookup", {"limit": 1})),
            "Task 't1' (lookup): missing required argument 'key'",
        ),
        (
            plan(direct("t1", "erase", {"key": "x"})),
            "Task 't1': expert 'records' has no tool 'erase' (lookup, save_report).",
        ),
        (
            plan(direct("t1", "lookup", {"key": "a"}, "t7")),
            "Task 't1' depends on unknown task 't7'.",
        ),
        (
            plan(direct("t1", "lookup", {"key": "a"}, "t1")),
            "Task 't1' depends on itself.",
        ),
        (
            plan(
                direct("t1", "lookup", {"key": "a"}, "t2"),
                direct("t2", "lookup", {"key": "b"}, "t1"),
            ),
            "The dependencies form a cycle: t1 -> t2 -> t1.",
        ),
        (
            plan(
                direct("t1", "lookup", {"key": "a"}),
                direct("t2", "save_report", {"title": "r", "ids": "${t1.data.ids}"}),
            ),
            "Task 't2' uses the result of 't1' in its args but does not depend on it; "
            "add it to depends_on.",
        ),
        (
            plan({"id": "t1", "expert": "weather", "task": "forecast"}),
            "Task 't1' names unknown expert 'weather'; known: records.",
        ),
    ],
)
async def test_each_problem_reaches_the_planner_and_nothing_runs_meanwhile(
    scripted: Any, bad_plan: dict[str, Any], problem: str
) -> None:
    ran: list[str] = []
    ctx, models = graph_context(scripted, ran, [bad_plan, plan()])
    thread = Thread(ctx)

    nodes = await thread.send("Do the thing.")

    assert nodes == ["planner", "planner", "generate_response"]
    assert problem in system_prompt(models["planner"].requests[1])
    assert ran == []


async def test_after_three_rounds_the_user_gets_the_problems_and_nothing_ran(
    scripted: Any,
) -> None:
    rounds = get_settings().max_planner_retries + 1
    assert rounds == 3
    ran: list[str] = []
    # One valid step next to invalid ones: an invalid plan runs nothing at all.
    bad = plan(
        direct("t1", "lookup", {"key": "north"}),
        direct("t2", "save_report", {"title": 7, "ids": "${t1.data.ids}"}),
        direct("t3", "lookup", {"key": "x"}, "t3"),
    )
    ctx, models = graph_context(scripted, ran, [bad] * rounds)
    thread = Thread(ctx)

    nodes = await thread.send("Report on north.")

    assert nodes == ["planner"] * rounds
    prompts = [system_prompt(r) for r in models["planner"].requests]
    for later in prompts[1:]:
        assert "Task 't3' depends on itself." in later
    answer = str((await thread.answer()).content)
    assert answer.startswith(f"I could not make a usable plan after {rounds} attempts:")
    assert "- Task 't2' (save_report): title: 7 is not of type 'string'" in answer
    assert (
        "- Task 't2' uses the result of 't1' in its args but does not depend on it; "
        "add it to the tasks it depends on." in answer
    )
    # The model was told in its schema's terms; the person reads them in words.
    assert "depends_on" not in answer
    assert "a larger model may be needed" in answer
    assert "- Task 't3' depends on itself." in answer
    assert ran == []
    assert models["orchestrate"].requests == []
    assert models["response"].requests == []
    state = await thread.values()
    assert state["plan"] == []
    assert "guard" not in state, "the guard never ran on an invalid plan"


async def test_the_retry_count_starts_afresh_on_the_next_turn(scripted: Any) -> None:
    ran: list[str] = []
    bad = plan(direct("t1", "lookup", {}))
    good = plan(direct("t1", "lookup", {"key": "south"}))
    ctx, _ = graph_context(
        scripted, ran, [bad, bad, bad, bad, bad, good], response=["Found south."]
    )
    thread = Thread(ctx)

    await thread.send("Look something up.")
    assert ran == []
    nodes = await thread.send("Look up south.")

    assert nodes.count("planner") == 3
    assert ran == ["lookup south"]
    assert (await thread.answer()).content == "Found south."
