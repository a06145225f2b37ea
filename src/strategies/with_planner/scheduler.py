"""The scheduler's round: every task starts as soon as its own dependencies have completed.

LangGraph runs the nodes of one super-step together and begins the next only when all of
them have ended (Pregel's bulk-synchronous steps), so tasks fanned out with `Send` start in
waves: a task whose dependencies finished early would wait for unrelated, slower tasks. A
round therefore runs inside one node (`advance`), each task as a LangGraph `@task` named
`run_task` (the functional API): its result is written to the checkpoint the moment it ends,
so a run resumed after a crash or an interrupt gets finished tasks back without running them
again. An orchestrated task runs the `run_task` subgraph; a direct step (one call the plan
named) runs the `call_tool` node alone, without a subgraph's worth of checkpoints.

LangGraph numbers a node's `@task` calls in call order, and a resumed node must make the same
calls in the same order to find their results; so the round calls every task it may run at its
start, in plan order, and each then waits in this process for its dependencies and a free slot
(`max_parallel`, the step budget). A task that can no longer run in this round (a dependency
failed, waits for approval or for the user's answer) returns `NOT_RUN` and stays pending.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, cast

from langgraph.errors import GraphInterrupt
from langgraph.func import task
from langgraph.runtime import Runtime

from common.messages import last_request
from common.safety.approval import PendingCall
from strategies.with_planner.context import Context
from strategies.with_planner.plan_card import Feed, card_turn
from strategies.with_planner.plans import TERMINAL, TaskState, goes_on, render_plan, settle
from strategies.with_planner.state import (
    Awaiting,
    DependencyOutput,
    State,
    TaskInput,
    TaskOutput,
    TaskRun,
    TaskRunUpdate,
    current_turn,
)
from strategies.with_planner.turn import context_of, emit, now_iso

NOT_RUN: dict[str, bool] = {"not_run": True}
"""What a task returns when it could not start in this round (it stays pending)."""

RunTask = Callable[[TaskInput], Awaitable[Any]]
"""Runs one orchestrated task to its end, handing back a `TaskOutput` (the subgraph's `ainvoke`)."""

CallStep = Callable[[TaskRun, Runtime[Context]], Awaitable[TaskRunUpdate]]
"""Runs a direct step: the `call_tool` node, on the step's own task run."""


@dataclass
class RoundResult:
    """What a round did: the plan after it, and what its tasks handed back."""

    plan: list[TaskState]
    """Every task, with those that ran updated."""
    ran: list[str] = field(default_factory=list)
    """Ids of the tasks that ran (and ended, or stopped for approval) in this round."""
    deferred: list[PendingCall] = field(default_factory=list)
    """Calls held back in plan_only mode."""
    awaiting: list[Awaiting] = field(default_factory=list)
    """Calls tasks stopped at, waiting for a human's decision."""
    notes: list[str] = field(default_factory=list)
    """Notes for the answer (a step budget that ran out)."""


@dataclass
class _Round:
    """The round's bookkeeping while its tasks run (this process only; rebuilt on a resume)."""

    state: State
    """The graph state the round began with."""
    ctx: Context
    """The turn's settings."""
    now: str
    """When the round began (start and end times of tasks settled by it)."""
    plan: dict[str, TaskState]
    """Every task by id, updated as tasks start and end."""
    gates: dict[str, asyncio.Future[TaskInput | None]]
    """Per candidate: resolved with its input when it may start, with None when it cannot."""
    budgets: dict[str, int] = field(default_factory=dict)
    """Orchestrate rounds reserved by each task that started."""
    running: set[str] = field(default_factory=set)
    """Tasks let through and not ended yet."""
    outputs: dict[str, TaskOutput] = field(default_factory=dict)
    """What each task that ran handed back."""
    stuck: set[str] = field(default_factory=set)
    """Tasks that stopped to ask the user something: their dependents wait for a later round."""
    result: RoundResult = field(default_factory=lambda: RoundResult(plan=[]))
    """What the round hands back."""
    feed: Feed | None = None
    """The plan card, sent again after every step of the round that changed a task."""


def candidates(plan: list[TaskState]) -> list[str]:
    """Tasks this round may run, in plan order: pending, each dependency done or a candidate."""
    by_id = {t["id"]: t for t in plan}
    out: list[str] = []
    for t in plan:
        if t["status"] == "pending" and all(
            by_id[d]["status"] == "completed" or d in out for d in t["depends_on"]
        ):
            out.append(t["id"])
    return out


async def run_round(
    state: State,
    runtime: Runtime[Context],
    plan: list[TaskState],
    run_task: RunTask,
    call_step: CallStep,
    feed: Feed | None = None,
) -> RoundResult:
    """Run every task that can run now, each as soon as its dependencies have completed.

    An orchestrated task runs on `run_task`, a direct step on `call_step` alone; `feed`, when
    given, gets the plan after each step that started or ended tasks.
    """
    ctx = context_of(runtime, state)
    ids = candidates(plan)
    loop = asyncio.get_running_loop()
    r = _Round(
        state=state,
        ctx=ctx,
        now=now_iso(ctx),
        plan={t["id"]: t for t in plan},
        gates={tid: loop.create_future() for tid in ids},
        feed=feed,
    )

    calls: dict[str, asyncio.Future[Any]] = {
        tid: asyncio.ensure_future(_AS_TASK(r, tid, runtime, run_task, call_step)) for tid in ids
    }
    try:
        await _drive(r, runtime, calls)
    finally:
        for gate in r.gates.values():
            if not gate.done():
                gate.cancel()
    return _collected(r, plan)


async def _task_run(
    r: _Round, task_id: str, rt: Runtime[Context], run_task: RunTask, call_step: CallStep
) -> TaskOutput | dict[str, bool]:
    """One task of a round: waits for its gate, then runs the subgraph or the direct step."""
    given = await r.gates[task_id]
    if given is None:
        return NOT_RUN
    if given["task"]["tool"]:
        return _output(await call_step(cast(TaskRun, given), rt))
    return cast(TaskOutput, await run_task(given))


# One name for every task run, so a resumed round finds each result by its call order. Made once,
# on a module-level function: LangGraph keeps the runnable it wraps a task function in only for a
# function it can find by name in its module (a closure made per round was wrapped again for
# every task pushed, issue 45). Its arguments are not checkpointed: only what it returns is.
_AS_TASK: Any = task(name="run_task")(cast(Any, _task_run))


def _collected(r: _Round, plan: list[TaskState]) -> RoundResult:
    """The round's result: the plan as it ended, and what ran, in plan order."""
    r.result.plan = [r.plan[t["id"]] for t in plan]
    # In plan order, whichever task ended first.
    for t in plan:
        out = r.outputs.get(t["id"])
        if out is not None:
            r.result.ran.append(t["id"])
            r.result.deferred += out.get("deferred") or []
            r.result.awaiting += out.get("awaiting") or []
    return r.result


async def _drive(
    r: _Round, runtime: Runtime[Context], calls: dict[str, asyncio.Future[Any]]
) -> None:
    """Let tasks through as they become ready and take each result as it comes.

    Questions tasks stopped at (interrupts) are raised together once every other task ended.
    """
    interrupts: list[GraphInterrupt] = []
    by_future = {f: tid for tid, f in calls.items()}
    pending = set(calls.values())
    _let_through(r, runtime)
    _show(r)
    while pending:
        done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        for fut in done:
            tid = by_future[fut]
            r.running.discard(tid)
            exc = fut.exception()
            if isinstance(exc, GraphInterrupt):
                interrupts.append(exc)
                r.stuck.add(tid)
            elif exc is not None:
                raise exc
            else:
                _take(r, runtime, tid, fut.result())
        _let_through(r, runtime)
        _show(r)
    if interrupts:
        raise GraphInterrupt(tuple(i for exc in interrupts for i in exc.args[0]))


def _take(r: _Round, runtime: Runtime[Context], task_id: str, out: Any) -> None:
    """Merge what a task handed back (nothing, when it could not run)."""
    if out == NOT_RUN:
        return
    output = cast(TaskOutput, out)
    r.plan.update(output.get("plan") or {})
    r.outputs[task_id] = output
    t = r.plan[task_id]
    emit(runtime, "task_end", task_id=task_id, status=t["status"], error=t["error"])


def _show(r: _Round) -> None:
    """Hand the plan as it stands (and the calls waiting so far) to the card's feed."""
    if r.feed is not None:
        waiting = [a for out in r.outputs.values() for a in out.get("awaiting") or []]
        r.feed.show(list(r.plan.values()), waiting)


def _let_through(r: _Round, runtime: Runtime[Context]) -> None:
    """Start what is ready (within max_parallel and the step budget); tell the blocked no."""
    for t in settle(list(r.plan.values()), r.now):
        r.plan[t["id"]] = t
    ready: list[str] = []
    for tid, gate in r.gates.items():
        if gate.done() or tid in r.running:
            continue
        state = _readiness(r, r.plan[tid])
        if state == "blocked":
            gate.set_result(None)
        elif state == "ready":
            ready.append(tid)
    ready = _within_budget(r, ready)[: max(r.ctx.max_parallel - len(r.running), 0)]
    if not ready:
        return
    used = _used(r)
    share = max(1, (r.ctx.max_steps - used) // len(ready))
    view = cast(State, {**r.state, "plan": list(r.plan.values())})
    for tid in ready:
        t = r.plan[tid]
        started = t["started_at"] or r.now
        r.plan[tid] = TaskState(**{**t, "status": "running", "started_at": started})
        r.budgets[tid] = min(r.ctx.task_attempts(), share)
        r.running.add(tid)
        emit(runtime, "task_start", task_id=tid, expert=t["expert"])
        view = cast(State, {**view, "plan": list(r.plan.values())})
        r.gates[tid].set_result(task_input(view, tid, r.budgets[tid]))


def _readiness(r: _Round, t: TaskState) -> str:
    """Ready (every dependency completed), waiting (some still may), or blocked."""
    if t["status"] != "pending":
        return "blocked"
    waiting = False
    for dep in t["depends_on"]:
        d = r.plan[dep]
        if d["status"] == "completed":
            continue
        if dep in r.stuck or d["status"] in TERMINAL or d["status"] == "awaiting_approval":
            return "blocked"
        waiting = True
    return "waiting" if waiting else "ready"


def _used(r: _Round) -> int:
    """Steps spent this turn, counting the whole budget of every task still running."""
    spent = current_turn(r.state).get("steps_spent", 0)
    return spent + sum(
        r.budgets[t["id"]] if t["id"] in r.running else t["attempts"] for t in r.plan.values()
    )


def _within_budget(r: _Round, ready: list[str]) -> list[str]:
    """The ready tasks the step budget allows; when it ran out, the others are cancelled.

    A task going on with the user's decisions finishes the round they decided.
    """
    decided = [tid for tid in ready if goes_on(r.plan[tid])]
    if len(ready) == len(decided) or _used(r) < r.ctx.max_steps:
        return ready
    budget = r.ctx.max_steps
    r.result.notes.append(f"The step budget of {budget} per turn ran out.")
    error = f"the step budget of {budget} per turn ran out"
    for tid, gate in r.gates.items():
        t = r.plan[tid]
        if gate.done() or tid in r.running or tid in decided or t["status"] != "pending":
            continue
        r.plan[tid] = TaskState(**{**t, "status": "cancelled", "error": error, "ended_at": r.now})
        gate.set_result(None)
    return decided


def _output(update: Any) -> TaskOutput:
    """A direct step's call_tool update, as the run_task subgraph would hand it back."""
    out = TaskOutput(plan=update["plan"])
    if update.get("deferred"):
        out["deferred"] = update["deferred"]
    if update.get("awaiting"):
        out["awaiting"] = update["awaiting"]
    return out


def task_input(state: State, task_id: str, max_attempts: int) -> TaskInput:
    """What one task run gets: its task, the request, its dependencies' results, budget."""
    plan = state["plan"]
    by_id = {t["id"]: t for t in plan}
    task = by_id[task_id]
    inputs = {dep: dependency_output(by_id[dep]) for dep in task["depends_on"]}
    given = TaskInput(
        task=task,
        request=last_request(state["messages"]),
        plan_view=render_plan(plan),
        inputs=inputs,
        order=[t["id"] for t in plan],
        guard=state["guard"],
        max_attempts=max_attempts,
        run_context=current_turn(state).get("run_context") or {},
    )
    if turn := card_turn(state):
        given["card_turn"] = turn
    if goes_on(task):
        # It stopped for approval or an answer: it goes on from the round it stopped at.
        given["messages"] = list(task["messages"])
    return given


def dependency_output(task: TaskState) -> DependencyOutput:
    """What a finished task hands on: its result view, data, and where its whole text is."""
    out = DependencyOutput(expert=task["expert"], result=task["result"], data=task["data"])
    if full := task.get("full"):
        out["full"] = full
    return out
