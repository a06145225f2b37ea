"""Dependency plans through the graph: parallel waves, dependencies, failures, budgets, approvals.

The expert is an in-process MCPServer server whose tools record, in Python lists, when each call
started and ended and how many ran at once, so the tests can check what really overlapped, what
waited for what, and what never ran. Overlap is proven by order, not by a clock: a call that
must overlap another holds until the other has started (or ended), so a scheduler that ran them
one after the other would never release it and the test fails at HOLD_S, on any machine.
"""

from __future__ import annotations

import asyncio
import math
import re
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from common.mcp.inprocess import register_inprocess_server
from tests.doubles import calls, tool_call
from tests.unit_tests.helpers import Thread, done, exchange, not_done, plan, system_prompt, unique

HOLD_S = 60.0
"""How long a held call waits for its condition before it fails (only a broken scheduler waits)."""

Hold = Callable[["Recorder"], bool]
"""What a call waits for before it answers."""

NOW = "2025-10-12T10:00:00+00:00"


@dataclass
class Run:
    """One tool execution on the server."""

    label: str
    args: dict[str, Any]
    start: float
    end: float = math.inf


@dataclass
class Recorder:
    """Every execution of a server's tools with its time span, and the peak concurrency."""

    runs: list[Run] = field(default_factory=list)
    running: int = 0
    peak: int = 0

    @asynccontextmanager
    async def span(self, label: str, args: dict[str, Any]) -> AsyncIterator[None]:
        run = Run(label, dict(args), time.perf_counter())
        self.runs.append(run)
        self.running += 1
        self.peak = max(self.peak, self.running)
        try:
            yield
        finally:
            self.running -= 1
            run.end = time.perf_counter()

    def labels(self) -> list[str]:
        return [r.label for r in self.runs]

    async def hold(self, until: Hold | None) -> None:
        """Wait until `until` holds (polling the loop); fail the call after HOLD_S."""
        deadline = time.monotonic() + HOLD_S
        while until is not None and not until(self):
            if time.monotonic() > deadline:
                raise ToolError(f"held past {HOLD_S}s: the overlap under test never came")
            await asyncio.sleep(0.005)

    def run(self, label: str) -> Run:
        found = [r for r in self.runs if r.label == label]
        assert len(found) == 1, f"expected one run of {label!r}, got {self.labels()}"
        return found[0]


def started(*labels: str) -> Hold:
    """Every call in `labels` has started."""
    return lambda rec: set(labels) <= set(rec.labels())


def ended(*labels: str) -> Hold:
    """Every call in `labels` has ended."""
    return lambda rec: all(any(r.end < math.inf for r in rec.runs if r.label == x) for x in labels)


def peak_reached(n: int) -> Hold:
    """`n` calls have run at once at some moment."""
    return lambda rec: rec.peak >= n


def records_server(
    rec: Recorder,
    holds: dict[str, Hold] | None = None,
    failing: frozenset[str] = frozenset(),
    every: Hold | None = None,
) -> str:
    """Register a records expert; `lookup(key)` holds on `holds[key]` (else `every`), and fails
    for keys in `failing`."""
    mcp = MCPServer(unique("records"))

    @mcp.tool()
    async def lookup(key: str, since: str = "") -> dict[str, Any]:
        """Look up the records filed under a key."""
        async with rec.span(key, {"key": key, "since": since}):
            await rec.hold((holds or {}).get(key, every))
            if key in failing:
                raise ToolError(f"no records under {key!r}")
        return {"key": key, "count": 2, "items": [{"id": f"{key}-a"}, {"id": f"{key}-b"}]}

    @mcp.tool()
    async def save_report(title: str, ids: list[str], count: int) -> str:
        """Save a report listing record ids."""
        async with rec.span(f"save:{title}", {"title": title, "ids": ids, "count": count}):
            await asyncio.sleep(0)
        return f"saved report {title!r} with {len(ids)} ids"

    register_inprocess_server(mcp.name, mcp)
    return mcp.name


def step(tid: str, tool: str, args: dict[str, Any], *deps: str, critical: bool = True) -> Any:
    """A direct step of the records expert."""
    return {
        "id": tid,
        "expert": "records",
        "task": f"Run {tool}",
        "tool": tool,
        "args": args,
        "depends_on": list(deps),
        "critical": critical,
    }


def lookup(tid: str, key: str, *deps: str, critical: bool = True) -> Any:
    return step(tid, "lookup", {"key": key}, *deps, critical=critical)


def job(tid: str, what: str, *deps: str) -> Any:
    """An orchestrated task of the records expert (no tool given)."""
    return {"id": tid, "expert": "records", "task": what, "depends_on": list(deps)}


def setup(
    scripted: Any,
    server: str,
    planner: list[Any],
    *,
    gated_saves: bool = False,
    orchestrate: list[Any] | None = None,
    assess: list[Any] | None = None,
    response: list[Any] | None = None,
    **knobs: Any,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A run context over the records expert; `save_report` needs approval if `gated_saves`."""
    ctx, models = scripted(
        planner=planner,
        orchestrate=orchestrate or [],
        assess=assess or [],
        response=response or ["Done."],
    )
    entry: dict[str, Any] = {"inprocess": server, "description": "Record lookups and reports."}
    if not gated_saves:
        entry["reversible_tools"] = ["save_report"]
    ctx["mcp_config"] = {"mcpServers": {"records": entry}}
    ctx.update(knobs)
    return ctx, models


def by_id(tasks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {t["id"]: t for t in tasks}


async def final_plan(thread: Thread) -> dict[str, dict[str, Any]]:
    """The tasks of the turn that just ended, by id."""
    return by_id((await thread.values())["previous_plan"])


def orchestrator(keys: dict[str, list[str]]) -> Callable[[list[BaseMessage], Any], AIMessage]:
    """An orchestrate reply that works from the prompt: the task's lookups, then a summary.

    Parallel tasks share one scripted model, so each reply is chosen by the task id in the
    system prompt, never by arrival order.
    """

    def reply(messages: list[BaseMessage], _meta: Any) -> AIMessage:
        found = re.search(r"Your task \((\w+)\)", str(messages[0].content))
        assert found, "the orchestrate prompt names its task"
        tid = found.group(1)
        if any(isinstance(m, ToolMessage) for m in messages):
            return AIMessage(f"{tid}: found the records")
        return calls(*(tool_call("lookup", {"key": k}) for k in keys[tid]))

    return reply


def assessor(messages: list[BaseMessage], _meta: Any) -> dict[str, Any]:
    """Done once the orchestrator summed up (a plain answer), else another round."""
    summed_up = any(isinstance(m, AIMessage) and not m.tool_calls for m in messages[1:])
    return done() if summed_up else not_done("no summary yet")


# --- parallel execution ---------------------------------------------------------------------


async def test_independent_direct_steps_run_at_the_same_time(scripted: Any) -> None:
    rec = Recorder()
    ctx, _ = setup(
        scripted,
        records_server(rec, every=started("north", "south", "east")),
        [plan(lookup("t1", "north"), lookup("t2", "south"), lookup("t3", "east"))],
    )
    thread = Thread(ctx)

    nodes = await thread.send("Look up north, south and east.")

    assert sorted(rec.labels()) == ["east", "north", "south"]
    starts = [r.start for r in rec.runs]
    ends = [r.end for r in rec.runs]
    assert max(starts) < min(ends), "every lookup started before any of them ended"
    assert rec.peak == 3
    assert nodes.count("advance") == 1, "one round ran all three"
    tasks = await final_plan(thread)
    assert [t["status"] for t in tasks.values()] == ["completed"] * 3
    assert tasks["t2"]["data"]["items"] == [{"id": "south-a"}, {"id": "south-b"}]


async def test_direct_steps_make_no_orchestrate_or_assess_model_calls(scripted: Any) -> None:
    rec = Recorder()
    ctx, models = setup(
        scripted,
        records_server(rec),
        [
            plan(
                lookup("t1", "north"),
                step("t2", "save_report", {"title": "n", "ids": [], "count": 0}, "t1"),
            )
        ],
    )
    thread = Thread(ctx)

    nodes = await thread.send("Look up north and save a report.")

    assert "orchestrate" not in nodes
    assert "assess_task" not in nodes
    assert models["orchestrate"].requests == []
    assert models["assess"].requests == []
    assert len(models["planner"].requests) == 1
    assert len(models["response"].requests) == 1
    assert rec.labels() == ["north", "save:n"]
    tasks = await final_plan(thread)
    assert tasks["t2"]["result"] == "saved report 'n' with 0 ids"


async def test_a_dependent_starts_only_after_all_its_dependencies_ended(scripted: Any) -> None:
    rec = Recorder()
    ctx, _ = setup(
        scripted,
        records_server(rec, holds={"fast": started("slow"), "slow": started("fast")}),
        [
            plan(
                lookup("t1", "fast"),
                lookup("t2", "slow"),
                lookup("t3", "${t1.data.key}+${t2.data.key}", "t1", "t2"),
            )
        ],
    )
    thread = Thread(ctx)

    await thread.send("Combine fast and slow.")

    fast, slow, combined = rec.run("fast"), rec.run("slow"), rec.run("fast+slow")
    assert fast.start < slow.end, "the two dependencies overlapped"
    assert slow.start < fast.end
    assert combined.start >= fast.end
    assert combined.start >= slow.end
    assert (await final_plan(thread))["t3"]["status"] == "completed"


async def test_a_task_starts_as_soon_as_its_own_dependencies_completed(scripted: Any) -> None:
    rec = Recorder()
    ctx, _ = setup(
        scripted,
        # The slow one ends only once the follow-up started: it must not wait for slow.
        records_server(rec, holds={"slow": started("after-fast")}),
        [plan(lookup("t1", "fast"), lookup("t2", "slow"), lookup("t3", "after-fast", "t1"))],
    )

    await Thread(ctx).send("Fast then its follow-up, and a slow one alongside.")

    assert rec.run("after-fast").start < rec.run("slow").end


async def test_max_parallel_bounds_how_many_tasks_run_at_once(scripted: Any) -> None:
    rec = Recorder()
    keys = ["k1", "k2", "k3", "k4"]
    ctx, _ = setup(
        scripted,
        records_server(rec, every=peak_reached(2)),
        [plan(*(lookup(f"t{i}", k) for i, k in enumerate(keys, start=1)))],
        max_parallel=2,
    )
    thread = Thread(ctx)

    nodes = await thread.send("Look up four keys.")

    assert sorted(rec.labels()) == keys
    assert rec.peak == 2, "never more than two at once, and the two slots were used"
    assert nodes.count("advance") == 1, "one round: each task started when a slot was free"
    assert [t["status"] for t in (await final_plan(thread)).values()] == ["completed"] * 4


async def test_templates_carry_results_into_a_dependent_step(scripted: Any) -> None:
    rec = Recorder()
    save = step(
        "t2",
        "save_report",
        {
            "title": "Report on ${t1.data.key}: ${t1.data.count} records "
            "from ${step[0].data.items[0].id}",
            "ids": "${t1.data.items.*.id}",
            "count": "${t1.data.count}",
        },
        "t1",
    )
    ctx, _ = setup(scripted, records_server(rec), [plan(lookup("t1", "north"), save)])
    thread = Thread(ctx)

    await thread.send("Report on the north records.")

    saved = [r for r in rec.runs if r.label.startswith("save:")]
    assert len(saved) == 1
    assert saved[0].args == {
        "title": "Report on north: 2 records from north-a",
        "ids": ["north-a", "north-b"],
        "count": 2,
    }
    tasks = await final_plan(thread)
    assert tasks["t2"]["status"] == "completed"
    # The plan keeps the templates; the call that ran had them resolved.
    assert tasks["t2"]["args"]["ids"] == "${t1.data.items.*.id}"


async def test_a_missing_template_path_fails_the_step_and_names_it(scripted: Any) -> None:
    rec = Recorder()
    save = step(
        "t2",
        "save_report",
        {"title": "x", "ids": "${t1.data.rows.*.id}", "count": 1},
        "t1",
        critical=False,
    )
    ctx, models = setup(scripted, records_server(rec), [plan(lookup("t1", "north"), save)])
    thread = Thread(ctx)

    await thread.send("Report on the north records.")

    assert rec.labels() == ["north"], "the step with a broken template never called its tool"
    failed = (await final_plan(thread))["t2"]
    assert failed["status"] == "failed"
    assert "'t2'" in failed["error"]
    assert "${t1.data.rows.*.id}" in failed["error"]
    assert ".rows" in failed["error"]
    assert failed["error"] in system_prompt(models["response"].requests[0])


async def test_orchestrated_tasks_run_in_parallel_each_on_its_own_messages(
    scripted: Any,
) -> None:
    rec = Recorder()
    ctx, models = setup(
        scripted,
        records_server(rec, every=started("alpha", "beta")),
        [plan(job("t1", "Find the alpha records"), job("t2", "Find the beta records"))],
        orchestrate=[orchestrator({"t1": ["alpha"], "t2": ["beta"]})] * 4,
        assess=[assessor] * 4,
    )
    thread = Thread(ctx)

    await thread.send("Find both record sets.")

    alpha, beta = rec.run("alpha"), rec.run("beta")
    assert alpha.start < beta.end
    assert beta.start < alpha.end
    assert len(models["orchestrate"].requests) == 4
    for request in models["orchestrate"].requests:
        tid = re.search(r"Your task \((\w+)\)", system_prompt(request))
        assert tid
        other = "beta" if tid.group(1) == "t1" else "alpha"
        seen = " ".join(str(m.content) for m in request["messages"][1:])
        assert other not in seen, f"{tid.group(1)} saw the other task's exchange"
    tasks = await final_plan(thread)
    for tid, key in (("t1", "alpha"), ("t2", "beta")):
        assert tasks[tid]["status"] == "completed"
        results = [m for m in exchange(tasks[tid]) if isinstance(m, ToolMessage)]
        assert len(results) == 1
        assert f'"{key}"' in str(results[0].content)
        assert tasks[tid]["data"]["key"] == key
        assert tasks[tid]["result"].endswith(f"{tid}: found the records")


# --- failures --------------------------------------------------------------------------------


async def test_a_failed_critical_task_fails_the_plan(scripted: Any) -> None:
    rec = Recorder()
    ctx, models = setup(
        scripted,
        # The slow sibling is still running when its critical sibling fails.
        records_server(rec, holds={"slow": ended("broken")}, failing=frozenset({"broken"})),
        [
            plan(
                lookup("t1", "broken"),
                lookup("t2", "slow"),
                lookup("t3", "after-broken", "t1"),
                lookup("t4", "after-slow", "t2"),
            ),
            {"decision": "continue"},
        ],
    )
    thread = Thread(ctx)

    await thread.send("Look up broken and slow, then their follow-ups.")

    assert sorted(rec.labels()) == ["broken", "slow"]
    assert rec.run("slow").end < math.inf, "the running sibling finished"
    tasks = await final_plan(thread)
    assert tasks["t1"]["status"] == "failed"
    assert "no records under 'broken'" in tasks["t1"]["error"]
    assert tasks["t2"]["status"] == "completed", "the running sibling was not cut off"
    assert tasks["t3"]["status"] == "skipped"
    assert tasks["t3"]["error"] == "t1 failed"
    assert tasks["t4"]["status"] == "cancelled"
    assert tasks["t4"]["error"] == "critical task t1 failed"
    state = await thread.values()
    assert state["plan_status"] == "failed"
    prompt = system_prompt(models["response"].requests[0])
    assert "- t1 [failed]" in prompt
    assert "no records under 'broken'" in prompt
    assert "- t3 [skipped]" in prompt
    assert "error: t1 failed" in prompt
    assert "- t4 [cancelled]" in prompt
    assert "critical task t1 failed" in prompt


async def test_a_failed_optional_task_skips_only_its_dependents(scripted: Any) -> None:
    rec = Recorder()
    ctx, models = setup(
        scripted,
        records_server(rec, failing=frozenset({"broken"})),
        [
            plan(
                lookup("t1", "broken", critical=False),
                lookup("t2", "after-broken", "t1"),
                lookup("t3", "fine"),
                lookup("t4", "after-fine", "t3"),
            ),
            {"decision": "continue"},
        ],
    )
    thread = Thread(ctx)

    await thread.send("Look up broken and fine, then their follow-ups.")

    assert sorted(rec.labels()) == ["after-fine", "broken", "fine"]
    tasks = await final_plan(thread)
    statuses = {tid: t["status"] for tid, t in tasks.items()}
    assert statuses == {"t1": "failed", "t2": "skipped", "t3": "completed", "t4": "completed"}
    assert (await thread.values())["plan_status"] == "completed"
    prompt = system_prompt(models["response"].requests[0])
    assert "- t1 [failed]" in prompt
    assert "(optional)" in prompt
    assert "error: t1 failed" in prompt


async def test_replan_once_after_a_failure(scripted: Any) -> None:
    rec = Recorder()
    replacement = plan(
        lookup("r1", "still-broken", "t1"),
        lookup("r2", "after-still-broken", "r1"),
        lookup("r3", "recovered"),
        decision="replace",
    )
    ctx, models = setup(
        scripted,
        records_server(rec, failing=frozenset({"broken", "still-broken"})),
        [
            plan(lookup("t1", "ok"), lookup("t2", "broken"), lookup("t3", "after-broken", "t2")),
            replacement,
        ],
    )
    thread = Thread(ctx)

    await thread.send("Look up ok and broken, then follow up.")

    assert len(models["planner"].requests) == 2, "one replan only, even after the 2nd failure"
    replan_prompt = system_prompt(models["planner"].requests[1])
    assert "Task t2 (records) failed:" in replan_prompt
    assert "no records under 'broken'" in replan_prompt
    assert "- t1 [completed]" in replan_prompt
    assert rec.labels().count("ok") == 1, "the completed task was kept, not run again"
    assert "still-broken" in rec.labels()
    assert "recovered" in rec.labels()
    assert "after-still-broken" not in rec.labels()
    tasks = await final_plan(thread)
    statuses = {tid: t["status"] for tid, t in tasks.items()}
    assert statuses == {"t1": "completed", "r1": "failed", "r2": "skipped", "r3": "completed"}
    notes = system_prompt(models["response"].requests[0])
    assert "Replanned after: Task t2 (records) failed" in notes


async def test_a_replan_may_continue_the_plan_as_it_was(scripted: Any) -> None:
    rec = Recorder()
    ctx, models = setup(
        scripted,
        records_server(rec, failing=frozenset({"broken"})),
        [
            plan(
                lookup("t1", "broken", critical=False),
                lookup("t2", "after-broken", "t1"),
                lookup("t3", "fine"),
            ),
            {"decision": "continue"},
        ],
    )
    thread = Thread(ctx)

    await thread.send("Look up broken and fine.")

    assert len(models["planner"].requests) == 2
    assert sorted(rec.labels()) == ["broken", "fine"]
    tasks = await final_plan(thread)
    assert [tasks[t]["status"] for t in ("t1", "t2", "t3")] == ["failed", "skipped", "completed"]


# --- budgets and strategy --------------------------------------------------------------------


async def test_step_budget_cancels_the_rest_and_the_answer_says_so(scripted: Any) -> None:
    rec = Recorder()
    ctx, models = setup(
        scripted,
        records_server(rec),
        [
            plan(
                lookup("t1", "a"),
                lookup("t2", "b"),
                lookup("t3", "c", "t1"),
                lookup("t4", "d", "t2"),
            )
        ],
        max_steps=2,
    )
    thread = Thread(ctx)

    await thread.send("Look up a and b, then c and d.")

    assert sorted(rec.labels()) == ["a", "b"]
    tasks = await final_plan(thread)
    for tid in ("t3", "t4"):
        assert tasks[tid]["status"] == "cancelled"
        assert tasks[tid]["error"] == "the step budget of 2 per turn ran out"
    prompt = system_prompt(models["response"].requests[0])
    assert "Notes on this turn:\n- The step budget of 2 per turn ran out." in prompt


async def test_attempt_budget_fails_a_task_that_never_finishes(scripted: Any) -> None:
    rec = Recorder()
    ctx, models = setup(
        scripted,
        records_server(rec),
        [plan(job("t1", "Find the gamma records"))],
        orchestrate=[calls(tool_call("lookup", {"key": "gamma"})) for _ in range(2)],
        assess=[not_done("the gamma records were not all found")] * 2,
        max_task_attempts=2,
    )
    thread = Thread(ctx)

    await thread.send("Find gamma.")

    assert len(models["orchestrate"].requests) == 2
    failed = (await final_plan(thread))["t1"]
    assert failed["status"] == "failed"
    assert failed["attempts"] == 2
    assert failed["error"] == (
        "not completed after 2 attempt(s): the gamma records were not all found"
    )
    assert failed["error"] in system_prompt(models["response"].requests[0])


async def test_conservative_strategy_runs_one_tool_call_per_turn(scripted: Any) -> None:
    rec = Recorder()
    first, second = tool_call("lookup", {"key": "one"}), tool_call("lookup", {"key": "two"})
    ctx, models = setup(
        scripted,
        records_server(rec),
        [plan(job("t1", "Find the one and two records"))],
        orchestrate=[calls(first, second), "found one"],
        assess=[assessor] * 2,
        strategy="conservative",
    )
    thread = Thread(ctx)

    await thread.send("Find one and two.")

    assert rec.labels() == ["one"]
    assert "Prefer direct steps" in system_prompt(models["planner"].requests[0])
    results = {
        m.tool_call_id: m
        for m in exchange((await final_plan(thread))["t1"])
        if isinstance(m, ToolMessage)
    }
    assert results[first["id"]].status == "success"
    assert results[second["id"]].status == "error"
    assert str(results[second["id"]].content).startswith("Not run: the conservative strategy")
    # The model is told, so it can call it again next turn.
    seen = models["orchestrate"].requests[1]["messages"]
    assert any(
        isinstance(m, ToolMessage) and "Not run: the conservative strategy" in str(m.content)
        for m in seen
    )


async def test_conservative_strategy_caps_attempts_at_two(scripted: Any) -> None:
    rec = Recorder()
    ctx, models = setup(
        scripted,
        records_server(rec),
        [plan(job("t1", "Find the gamma records"))],
        orchestrate=["still looking"] * 5,
        assess=[not_done()] * 5,
        strategy="conservative",
        max_task_attempts=5,
    )
    thread = Thread(ctx)

    await thread.send("Find gamma.")

    assert len(models["orchestrate"].requests) == 2
    assert (await final_plan(thread))["t1"]["error"].startswith("not completed after 2 attempt")


# --- approvals -------------------------------------------------------------------------------


async def test_an_irreversible_direct_step_still_asks_for_approval(scripted: Any) -> None:
    rec = Recorder()
    save = step(
        "t2",
        "save_report",
        {"title": "north", "ids": "${t1.data.items.*.id}", "count": "${t1.data.count}"},
        "t1",
    )
    ctx, models = setup(
        scripted, records_server(rec), [plan(lookup("t1", "north"), save)], gated_saves=True
    )
    thread = Thread(ctx)

    await thread.send("Report on the north records.")

    assert rec.labels() == ["north"], "the save waits for the user"
    (request,) = await thread.interrupts()
    (action,) = request["action_requests"]
    assert action["name"] == "save_report"
    assert action["args"] == {"title": "north", "ids": ["north-a", "north-b"], "count": 2}
    assert "irreversible" in action["description"]
    assert (await thread.values())["plan"][1]["status"] == "awaiting_approval"

    await thread.resume({"decisions": [{"type": "approve"}]})

    assert rec.labels() == ["north", "save:north"]
    assert (await final_plan(thread))["t2"]["status"] == "completed"
    assert models["orchestrate"].requests == []
    assert models["assess"].requests == []


async def test_two_parallel_tasks_both_needing_approval(scripted: Any) -> None:
    rec = Recorder()
    ctx, _ = setup(
        scripted,
        records_server(rec),
        [
            plan(
                step("t1", "save_report", {"title": "first", "ids": ["a"], "count": 1}),
                step("t2", "save_report", {"title": "second", "ids": ["b"], "count": 1}),
            )
        ],
        gated_saves=True,
    )
    thread = Thread(ctx)

    await thread.send("Save two reports.")

    (request,) = await thread.interrupts()
    titles = sorted(a["args"]["title"] for a in request["action_requests"])
    assert titles == ["first", "second"], "both approvals are asked at once, in one request"
    assert rec.runs == []

    await thread.resume({"decisions": [{"type": "approve"}, {"type": "approve"}]})

    assert sorted(rec.labels()) == ["save:first", "save:second"]
    assert await thread.interrupts() == []
    tasks = await final_plan(thread)
    assert [t["status"] for t in tasks.values()] == ["completed", "completed"]
    assert (await thread.answer()).content == "Done."


async def test_parallel_approvals_can_be_decided_differently(scripted: Any) -> None:
    rec = Recorder()
    ctx, _ = setup(
        scripted,
        records_server(rec),
        [
            plan(
                step("t1", "save_report", {"title": "keep", "ids": ["a"], "count": 1}),
                step("t2", "save_report", {"title": "drop", "ids": ["b"], "count": 1}),
            )
        ],
        gated_saves=True,
    )
    thread = Thread(ctx)
    await thread.send("Save two reports.")
    (request,) = await thread.interrupts()

    answers = [
        {"type": "approve" if action["args"]["title"] == "keep" else "reject"}
        for action in request["action_requests"]
    ]
    await thread.resume({"decisions": answers})

    assert rec.labels() == ["save:keep"]
    tasks = await final_plan(thread)
    assert tasks["t1"]["status"] == "completed"
    assert tasks["t2"]["status"] == "failed"
    assert "declined" in tasks["t2"]["error"]
    assert len(tasks["t2"]["declined"]) == 1


async def test_a_sibling_that_needs_no_approval_runs_once_across_the_pause(
    scripted: Any,
) -> None:
    rec = Recorder()
    ctx, models = setup(
        scripted,
        records_server(rec),
        [
            plan(
                step("t1", "save_report", {"title": "gated", "ids": ["a"], "count": 1}),
                job("t2", "Find the beta records"),
                lookup("t3", "gamma"),
            )
        ],
        gated_saves=True,
        orchestrate=[orchestrator({"t2": ["beta"]})] * 2,
        assess=[assessor] * 2,
    )
    thread = Thread(ctx)

    await thread.send("Save a report, find beta and gamma.")

    assert len(await thread.interrupts()) == 1
    assert sorted(rec.labels()) == ["beta", "gamma"], "the siblings ran while t1 waits"

    await thread.resume({"decisions": [{"type": "approve"}]})

    assert sorted(rec.labels()) == ["beta", "gamma", "save:gated"], "nothing ran twice"
    assert len(models["orchestrate"].requests) == 2
    assert len(models["assess"].requests) == 2
    tasks = await final_plan(thread)
    assert [t["status"] for t in tasks.values()] == ["completed"] * 3


async def test_a_second_turn_asks_again_for_the_same_step_id(scripted: Any) -> None:
    """With a fixed clock both turns' steps start "at the same time": they are still distinct."""
    rec = Recorder()
    first = step("t1", "save_report", {"title": "monday", "ids": ["a"], "count": 1})
    second = step("t1", "save_report", {"title": "tuesday", "ids": ["b"], "count": 1})
    ctx, _ = setup(
        scripted,
        records_server(rec),
        [plan(first), plan(second)],
        response=["Saved monday.", "Saved tuesday."],
        gated_saves=True,
        now=NOW,
    )
    thread = Thread(ctx)
    approve = {"decisions": [{"type": "approve"}]}
    await thread.send("Save the monday report.")
    await thread.resume(approve)
    assert rec.labels() == ["save:monday"]

    await thread.send("Now save the tuesday report.")

    assert len(await thread.interrupts()) == 1, "the new call needs its own approval"
    await thread.resume(approve)
    assert rec.labels() == ["save:monday", "save:tuesday"]


# --- progress --------------------------------------------------------------------------------


async def test_progress_events_are_streamed(scripted: Any) -> None:
    rec = Recorder()
    ctx, _ = setup(
        scripted,
        records_server(rec, failing=frozenset({"broken"})),
        [
            plan(
                lookup("t1", "a"),
                lookup("t2", "broken", critical=False),
                lookup("t3", "c", "t1"),
            ),
            {"decision": "continue"},
        ],
    )
    thread = Thread(ctx)
    payload = {"messages": [{"role": "user", "content": "Look up a, broken, then c."}]}

    # The plan card's UI messages share the custom stream; they carry no "event" key.
    events = [
        chunk
        async for chunk in thread.graph.astream(
            payload, thread.config, context=ctx, stream_mode="custom"
        )
        if "event" in chunk
    ]

    kinds = [e["event"] for e in events if e["event"] != "guard"]
    assert kinds[0] == "plan"
    assert [t["id"] for t in events[0]["plan"]] == ["t1", "t2", "t3"]

    def index(kind: str, tid: str) -> int:
        found = [n for n, e in enumerate(events) if e["event"] == kind and e.get("task_id") == tid]
        assert len(found) == 1, f"one {kind} event for {tid}: {events}"
        return found[0]

    for tid in ("t1", "t2", "t3"):
        assert index("task_start", tid) < index("task_end", tid)
    assert index("task_start", "t3") > index("task_end", "t1")
    ends = {e["task_id"]: e for e in events if e["event"] == "task_end"}
    assert ends["t1"]["status"] == "completed"
    assert ends["t2"]["status"] == "failed"
    assert "no records under 'broken'" in ends["t2"]["error"]
    assert ends["t3"]["status"] == "completed"
    assert events[index("task_start", "t1")]["expert"] == "records"
