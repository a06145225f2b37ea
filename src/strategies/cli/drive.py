"""Drive a thread of the with_planner graph: stream it, answer its interrupts, read how it ended."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing, asynccontextmanager
from typing import TYPE_CHECKING, Any, cast

from common.mcp.registry import shutdown_pool
from common.models import ModelCallError
from strategies.cli import prompts, startup_done
from strategies.cli.answers import (
    Preset,
    already_answered,
    answered_ids,
    check_unanswered,
    pending_of,
    preset_values,
)
from strategies.cli.exits import CliProblem
from strategies.cli.experts import start_experts
from strategies.cli.outcome import Outcome, finished, model_failed, waiting
from strategies.cli.render import PlanBoard, line, notice, out, render_event, render_update
from strategies.cli.thread_lock import thread_lock
from strategies.with_planner.offline import ANNOUNCEMENT, OFFLINE_MODEL
from strategies.with_planner.turn import starts_turn

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.store.base import BaseStore
    from langgraph.types import Command, Interrupt

    from strategies.with_planner.context import Context

# The persistence backends and the graph are imported once the experts are starting
# (`run_thread`): the servers initialize in their own processes meanwhile.


def resume_command(interrupts: list[Interrupt], answers: list[Any]) -> Command[Any]:
    """The resume command: each answer keyed by the id of the question it answers.

    Keyed, an answer reaches only the question that was shown: if another one waits by the time
    it arrives (a new message replaced it), the graph refuses it and nothing runs. A process
    that dies before the graph used an answer leaves the question waiting (asked again).
    """
    from langgraph.types import Command

    return Command(resume={i.id: a for i, a in zip(interrupts, answers, strict=True)})


def no_thread(thread: str, new_hint: bool = False) -> CliProblem:
    """The one line for a thread id that does not exist (with `new_hint`: how to start it)."""
    start = "; add --new to start a new thread under that id" if new_hint else ""
    return CliProblem(f"No thread {thread!r} here (mcp-planner threads lists them){start}.")


def answer_here(interrupts: list[Interrupt]) -> Command[Any] | None:
    """Ask in the terminal; None when there is no terminal (the caller reports and exits 3)."""
    if not prompts.stdin_is_terminal():
        return None
    return resume_command(interrupts, [prompts.ask_in_terminal(i.value) for i in interrupts])


async def _stream(
    graph: Any, payload: Any, config: RunnableConfig, ctx: Context, hint: str
) -> None:
    """Run the graph on `payload`, showing its progress.

    An answer to a question that no longer waits (another terminal answered it first) is
    refused with one line: before it is sent, or once sending it ran nothing.
    """
    state = await graph.aget_state(config)
    ids = answered_ids(payload)
    check_unanswered(ids, list(state.interrupts), state.values, hint)
    # Held while the graph runs only: the checks before and after read, and say who answered.
    async with thread_lock(config["configurable"]["thread_id"]):
        parts = graph.astream(
            payload, config, context=ctx, stream_mode=["updates", "custom"], subgraphs=True
        )
        # Closed here however the showing ends (a closed output, say): the run's tasks are
        # cancelled at once, as at Ctrl-C, before anything else runs or the lock is let go.
        async with aclosing(parts):
            shown = await show_progress(
                ((mode, chunk) async for _ns, mode, chunk in parts), state.values.get("plan") or []
            )
    if ids and not shown:
        # Answered in between: LangGraph ran nothing for an answer nobody waited for.
        raise already_answered(ids, (await graph.aget_state(config)).values, hint)


async def show_progress(parts: AsyncIterator[tuple[str, Any]], plan: list[Any]) -> int:
    """Show a run's (stream mode, chunk) parts as they come: the live plan, nodes and events.

    How many parts there were: none means the run did nothing.
    """
    from rich.live import Live

    board = PlanBoard()
    board.seed(plan)
    count = 0
    # The live table stops before any prompt, so questions are never overdrawn.
    with Live(board, console=out, refresh_per_second=8):
        async for mode, chunk in parts:
            count += 1
            if mode == "custom":
                board.apply(cast(dict[str, Any], chunk))
                render_event(cast(dict[str, Any], chunk))
                continue
            for node, update in cast(dict[str, Any], chunk).items():
                if node not in ("__interrupt__", "run_task") and not starts_turn(update):
                    render_update(node)
    if not out.is_terminal and board.tasks:
        # Outside a terminal Live leaves the cursor after the table's last border.
        out.line()
    return count


async def _first_payload(
    graph: Any, config: RunnableConfig, thread: str, preset: Preset | None
) -> Command[Any] | list[Interrupt] | None:
    """What resuming sends first.

    Preset or prompted answers; None to just continue a stopped run; or the interrupts still
    unanswered when there is no terminal to ask in.
    """
    state = await graph.aget_state(config)
    if state.created_at is None:
        raise no_thread(thread)
    pending = list(state.interrupts)
    if preset is not None:
        return resume_command(pending, preset_values(preset, pending, thread, state.values))
    if not pending:
        return None
    return answer_here(pending) or pending


async def run_thread(
    payload: Any,
    thread: str,
    ctx: Context,
    hint: str,
    preset: Preset | None = None,
    close_sessions: bool = True,
    existing: bool | None = None,
) -> Outcome:
    """Run (payload) or resume (payload None) the thread until it ends or waits for a person.

    A run with `existing` True on a thread that has no checkpoint is refused (`no_thread`), one
    with `existing` False on a thread that has one (`--new`); None takes either.
    """
    config: RunnableConfig = {"configurable": {"thread_id": thread}}
    async with experts_started(ctx, close_sessions), _persistence() as (saver, store):
        from strategies.with_planner.graph import build_graph

        graph = build_graph(checkpointer=saver, store=store)
        startup_done()
        try:
            if payload is None:
                payload = await _first_payload(graph, config, thread, preset)
                if isinstance(payload, list):
                    return await _waiting(graph, config, thread, hint)
            else:
                await _refuse_if_waiting(graph, config, thread, existing)
            if ctx.model == OFFLINE_MODEL:
                notice(ANNOUNCEMENT)
            while True:
                await _stream(graph, payload, config, ctx, hint)
                # Parallel tasks may wait on several interrupts at once.
                interrupts = list((await graph.aget_state(config)).interrupts)
                if not interrupts:
                    break
                payload = answer_here(interrupts)
                if payload is None:
                    return await _waiting(graph, config, thread, hint)
        except ModelCallError as exc:
            # The thread stays at its last step; resuming retries the node that failed.
            return model_failed(thread, exc.advice(f"run `{hint}` to retry"), hint)
        state = await graph.aget_state(config)
    show_guard_stats(state.values)
    return finished(thread, state.values)


@asynccontextmanager
async def _persistence() -> AsyncIterator[tuple[BaseCheckpointSaver[Any], BaseStore]]:
    """The settings' checkpointer and store (`common.persistence`), imported when opened."""
    from common.persistence import open_persistence

    async with open_persistence() as opened:
        yield opened


@asynccontextmanager
async def experts_started(ctx: Context, close: bool) -> AsyncIterator[None]:
    """Start every expert before the graph is built, so servers start while this process works.

    With `close`, every session is closed at the end (a chat keeps them for its next turn).
    """
    try:
        await start_experts(ctx.mcp_config)
        yield
    finally:
        if close:
            await shutdown_pool()


def show_guard_stats(values: dict[str, Any]) -> None:
    """Say how many turns of the thread needed the irreversibility model."""
    stats = values.get("guard_stats")
    if stats:
        line(
            f"irreversibility analysis on this thread: {stats['llm_calls']} model call(s), "
            f"{stats['llm_skipped']} turn(s) settled without the model",
            "dim",
        )


async def _refuse_if_waiting(
    graph: Any, config: RunnableConfig, thread: str, existing: bool | None
) -> None:
    """A new request must not silently drop calls that still wait for the user's decision.

    `existing` True: the thread must exist (a mistyped id must not start a thread of its own);
    False: it must not (`--new` must not continue an old thread unawares).
    """
    state = await graph.aget_state(config)
    if existing is True and state.created_at is None:
        raise no_thread(thread, new_hint=True)
    if existing is False and state.created_at is not None:
        raise CliProblem(
            f"Thread {thread!r} already exists: leave out --new to continue it, or choose "
            "another id."
        )
    pending = list(state.interrupts)
    if pending:
        raise still_waiting(thread, len(pending), f"mcp-planner resume {thread}")


def still_waiting(thread: str, count: int, resume: str) -> CliProblem:
    """The one line refusing a new request on a thread that waits for a decision."""
    return CliProblem(
        f"Thread {thread!r} still waits for your decision on {count} pending "
        f"request(s): answer with {resume} (--approve, --reject or "
        "--decisions), or start a new thread without --thread."
    )


async def _waiting(graph: Any, config: RunnableConfig, thread: str, hint: str) -> Outcome:
    state = await graph.aget_state(config)
    plan = state.values.get("plan") or []
    return waiting(thread, pending_of(list(state.interrupts)), plan, hint)
