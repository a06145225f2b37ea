"""Crash driver: one phase of a thread over a SQLite checkpointer, in a process of its own.

Run by `test_crash_exactly_once.py` as `python crash_driver.py PHASE --workdir DIR ...`:

- `start`: send the request; the run stops at the approval interrupt of `write_note`.
- `approve` / `reject`: answer that interrupt; with `--crash-at`, the process SIGKILLs itself at
  a precise point (see `CRASH_POINTS`), so nothing gets to clean up or flush.
- `resume`: a new process continues the thread from its checkpoint with `ainvoke(None)`.

Every phase prints one line `RESULT {json}` on stdout (the run's outcome, or where it was about to
be killed). Models are scripted and installed in this process; the only expert is the notes demo
server, whose NOTES_LOG is the count of real executions.

Durability: the invocations keep LangGraph's default (`"async"`, the CLI's mode) on purpose.
`durability` only decides whether the checkpoint of one super-step is saved before the next step
starts; every crash here happens inside `call_tool`, where the durable state is made of *pending
writes* (the resume value, each `@task` result), and LangGraph submits those to the checkpointer
in the background in every durability mode, `"sync"` included. So the kill hooks do not rely on
the mode: before killing they poll the SQLite file, through a connection of their own, until the
write the scenario needs is committed.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ["ALLOW_MODEL_REQUESTS"] = "false"
os.environ.pop("OPENAI_API_KEY", None)
os.environ.pop("OPENAI_BASE_URL", None)

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.types import Command

import common.safety.execution as execution
from common.mcp.registry import shutdown_pool
from common.persistence import sqlite_checkpointer
from common.testing import ScriptedChatModel, calls, install_scripted, tool_call
from strategies.with_planner.graph import build_graph

# `nodes` re-exports the node function under the module's name, so fetch the module itself.
call_tool_node = importlib.import_module("strategies.with_planner.nodes.call_tool")

CALL_ID = "call_write_1"
RESUME = "__resume__"
RETURN = "__return__"

CRASH_POINTS = {
    "before_marker": "the approval (plain form) is committed; call_tool re-ran up to the call",
    "after_marker": "the start marker is committed; the call is about to be sent",
    "on_log_line": "the notes server logged the write (watcher thread, no waiting)",
    "after_result": "the call's result task is committed; call_tool has not completed",
    "on_decline": "a reject decision is committed; call_tool is building its reply",
}
"""Where `--crash-at` kills the answering process, and what is durable by then."""

SERDE = JsonPlusSerializer()
"""The checkpointer's default serializer, to decode writes read straight from the file."""


def emit(**data: Any) -> None:
    """Print the phase's single result line."""
    print("RESULT " + json.dumps(data, default=str), flush=True)


def die(point: str, **detail: Any) -> None:
    """SIGKILL this process now: no cleanup, no flush, exactly like a crash."""
    emit(killed_at=point, **detail)
    sys.stderr.write(f"crash_driver: SIGKILL at {point}: {detail}\n")
    sys.stderr.flush()
    os.kill(os.getpid(), signal.SIGKILL)


# -- Reading the checkpoint file the way a new process would --------------------------------------


def committed_writes(db: Path, thread: str) -> list[dict[str, Any]]:
    """Pending writes of the thread's latest checkpoint, as committed in the SQLite file."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        row = con.execute(
            "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' "
            "ORDER BY checkpoint_id DESC LIMIT 1",
            (thread,),
        ).fetchone()
        if row is None:
            return []
        rows = con.execute(
            "SELECT task_id, task_path, idx, channel, type, value FROM writes "
            "WHERE thread_id = ? AND checkpoint_id = ? ORDER BY task_id, idx",
            (thread, row[0]),
        ).fetchall()
    finally:
        con.close()
    out = []
    for task_id, task_path, idx, channel, type_, value in rows:
        try:
            decoded = SERDE.loads_typed((type_, value))
        except Exception as exc:  # evidence only: never fail on an undecodable value
            decoded = f"<undecodable {type_}: {exc}>"
        out.append(
            {
                "checkpoint_id": row[0],
                "task_id": task_id,
                "task_path": task_path,
                "idx": idx,
                "channel": channel,
                "value": decoded,
            }
        )
    return out


async def wait_for_write(
    db: Path, thread: str, matches: Callable[[dict[str, Any]], bool], timeout_s: float = 20.0
) -> dict[str, Any]:
    """Poll the file until a committed pending write `matches`; exit 3 when none comes."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        writes = await asyncio.to_thread(committed_writes, db, thread)
        found = next((w for w in writes if matches(w)), None)
        if found is not None:
            return found
        await asyncio.sleep(0.01)
    emit(error=f"no matching committed write within {timeout_s}s", writes=writes)
    os._exit(3)


def is_resume(w: dict[str, Any]) -> bool:
    """The approval (or rejection) as sent with Command(resume=...)."""
    return w["channel"] == RESUME


def is_marker(w: dict[str, Any]) -> bool:
    """The result of `approved_call_started`: a `pid:uuid:call_id` token."""
    return w["channel"] == RETURN and isinstance(w["value"], str) and w["value"].endswith(CALL_ID)


def is_result(w: dict[str, Any]) -> bool:
    """The result of `tool_call`: a CallRecord."""
    return w["channel"] == RETURN and isinstance(w["value"], dict) and "status" in w["value"]


# -- Crash hooks ----------------------------------------------------------------------------------


def install_crash_hook(point: str, db: Path, thread: str, notes_log: Path, title: str) -> None:
    """Arrange for this process to SIGKILL itself at `point`."""
    original_run_once = call_tool_node.run_once
    original_tool_call = execution.tool_call

    if point == "before_marker":

        async def run_once(*args: Any, **kwargs: Any) -> Any:
            resume = await wait_for_write(db, thread, is_resume)
            die(point, resume=resume["value"])
            return await original_run_once(*args, **kwargs)  # not reached

        call_tool_node.run_once = run_once  # type: ignore[assignment]
    elif point == "after_marker":
        # run_once looks `tool_call` up in its module when it reaches the send.
        async def tool_call_(*args: Any, **kwargs: Any) -> Any:
            marker = await wait_for_write(db, thread, is_marker)
            die(point, marker=marker["value"])
            return await original_tool_call(*args, **kwargs)  # not reached

        execution.tool_call = tool_call_  # type: ignore[assignment]
    elif point == "after_result":

        async def run_once(*args: Any, **kwargs: Any) -> Any:
            record = await original_run_once(*args, **kwargs)
            stored = await wait_for_write(db, thread, is_result)
            die(point, returned=record, stored=stored["value"])
            return record  # not reached

        call_tool_node.run_once = run_once  # type: ignore[assignment]
    elif point == "on_log_line":
        watch_log(notes_log, title)
    elif point == "on_decline":
        original_declined = call_tool_node._declined

        def declined(*args: Any, **kwargs: Any) -> Any:
            # Sync hook (call_tool calls _declined without awaiting): read the file directly.
            deadline = time.monotonic() + 20
            while not any(is_resume(w) for w in committed_writes(db, thread)):
                if time.monotonic() > deadline:
                    emit(error="the rejection was never committed")
                    os._exit(3)
                time.sleep(0.01)
            die(point)
            return original_declined(*args, **kwargs)  # not reached

        call_tool_node._declined = declined  # type: ignore[assignment]
    elif point != "none":
        raise SystemExit(f"unknown crash point {point!r}; known: {', '.join(CRASH_POINTS)}")


def watch_log(notes_log: Path, title: str) -> None:
    """A thread that SIGKILLs the process as soon as the server logs the write of `title`."""
    wanted = f" write {title}"

    def watch() -> None:
        while True:
            try:
                lines = notes_log.read_text(encoding="utf-8").splitlines()
            except OSError:
                lines = []
            if any(line.endswith(wanted) for line in lines):
                # No emit(): printing could block; the test reads the log itself.
                os.kill(os.getpid(), signal.SIGKILL)
            time.sleep(0.001)

    threading.Thread(target=watch, daemon=True).start()


def slow_task_results(saver: AsyncSqliteSaver, delay_s: float) -> None:
    """Delay storing `@task` results, as a busy or remote checkpoint store would."""
    original = saver.aput_writes

    async def aput_writes(config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
        if any(channel == RETURN for channel, _ in writes):
            await asyncio.sleep(delay_s)
        await original(config, writes, task_id, task_path)

    saver.aput_writes = aput_writes  # type: ignore[method-assign]


# -- The run --------------------------------------------------------------------------------------


def build_context(workdir: Path, title: str) -> dict[str, Any]:
    """Scripted models for every role, and the notes server writing in `workdir`."""
    plan = {
        "decision": "replace",
        "next_task": 0,
        "plan": [{"id": "t1", "expert": "notes", "task": f"Write the note {title!r}."}],
    }

    def assess(messages: list[Any], meta: dict[str, Any]) -> dict[str, Any]:
        last = next(m for m in reversed(messages) if isinstance(m, ToolMessage))
        done = last.status != "error"
        return {"completed": done, "reason": str(last.content)[:200]}

    def respond(messages: list[Any], meta: dict[str, Any]) -> AIMessage:
        return AIMessage(content=f"Finished the note request for {title!r}.")

    roles: dict[str, list[Any]] = {
        "planner": [plan],
        "irreversibility": ["IRREVERSIBLE: YES\nBLOCKED_TOOLS: write_note"],
        "orchestrate": [
            calls(tool_call("write_note", {"title": title, "body": "crash test"}, CALL_ID))
        ],
        "assess": [assess],
        "response": [respond],
    }
    ctx: dict[str, Any] = {
        "mcp_config": {
            "mcpServers": {
                "notes": {
                    "command": sys.executable,
                    "args": ["-m", "common.demo_servers.notes"],
                    "env": {
                        "NOTES_FILE": str(workdir / "notes.json"),
                        "NOTES_LOG": str(workdir / "notes.log"),
                    },
                    "description": "Team notes: list, read, write, delete.",
                }
            }
        },
        "model": "scripted:missing",
        "approval_mode": "interrupt",
        # One round: a task whose call failed or was declined fails instead of retrying.
        "max_task_attempts": 1,
    }
    for role, script in roles.items():
        model = ScriptedChatModel(script=list(script), name_=role)
        ctx[f"{role}_model"] = install_scripted(model, f"{role}-{os.getpid()}")
    return ctx


def describe(state: dict[str, Any], interrupts: Any) -> dict[str, Any]:
    """What a test needs from a finished or paused run."""
    messages = state.get("messages") or []
    plan = state.get("previous_plan") or state.get("plan") or []
    return {
        "interrupts": [{"id": i.id, "value": i.value} for i in interrupts or []],
        "last_message": {"type": messages[-1].type, "content": str(messages[-1].content)}
        if messages
        else None,
        "plan": [{"id": t["id"], "status": t["status"], "error": t.get("error")} for t in plan],
        "tool_messages": [
            {"name": m.name, "status": m.status, "content": str(m.content)}
            for m in messages
            if isinstance(m, ToolMessage)
        ],
    }


async def run(args: argparse.Namespace) -> None:
    workdir = Path(args.workdir)
    db = workdir / "checkpoints.sqlite"
    notes_log = workdir / "notes.log"
    config: dict[str, Any] = {"configurable": {"thread_id": args.thread}}
    ctx = build_context(workdir, args.title)
    async with sqlite_checkpointer(db) as saver:
        if args.slow_task_results:
            slow_task_results(saver, args.slow_task_results)
        graph = build_graph(checkpointer=saver)
        payload: Any
        if args.phase == "start":
            payload = {"messages": [{"role": "user", "content": f"Save a note {args.title!r}."}]}
        elif args.phase in ("approve", "reject"):
            install_crash_hook(args.crash_at, db, args.thread, notes_log, args.title)
            pending = [i.id for i in (await graph.aget_state(config)).interrupts]
            payload = Command(resume=decision_value(args.phase, args.resume_form, pending))
        else:
            payload = None
        asked_again: list[dict[str, Any]] = []
        durability = {"durability": args.durability} if args.durability else {}
        try:
            result = await graph.ainvoke(payload, config, context=ctx, **durability)
            if args.phase == "resume" and args.answer and result.get("__interrupt__"):
                # The thread asks again: answer it in this process, as a user would.
                asked = result["__interrupt__"]
                asked_again = [{"id": i.id, "value": i.value} for i in asked]
                again = decision_value(args.answer, args.resume_form, [i.id for i in asked])
                result = await graph.ainvoke(
                    Command(resume=again), config, context=ctx, **durability
                )
        finally:
            await shutdown_pool()
        snapshot = await graph.aget_state(config)
        emit(
            phase=args.phase,
            asked_again=asked_again,
            **describe(snapshot.values, result.get("__interrupt__")),
            writes=await asyncio.to_thread(committed_writes, db, args.thread),
        )


def decision_value(kind: str, form: str, interrupt_ids: list[str]) -> Any:
    """The resume value for one approve or reject, plain or keyed by interrupt id (the CLI's)."""
    decision: dict[str, Any] = {"type": kind}
    if kind == "reject":
        decision["message"] = "not now"
    value = {"decisions": [decision]}
    return {i: value for i in interrupt_ids} if form == "map" else value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("phase", choices=["start", "approve", "reject", "resume"])
    parser.add_argument("--workdir", required=True, help="notes store, log and checkpoints")
    parser.add_argument("--thread", required=True)
    parser.add_argument("--title", required=True, help="title of the note to write")
    parser.add_argument("--crash-at", default="none", choices=["none", *CRASH_POINTS])
    parser.add_argument(
        "--resume-form",
        default="plain",
        choices=["plain", "map"],
        help="plain {'decisions': [...]}, or map: keyed by interrupt id (the CLI's form)",
    )
    parser.add_argument(
        "--answer",
        choices=["approve", "reject"],
        help="resume: how to answer if the thread asks for approval again",
    )
    parser.add_argument(
        "--durability", choices=["sync", "async", "exit"], help="default: LangGraph's (async)"
    )
    parser.add_argument(
        "--slow-task-results", type=float, default=0.0, help="seconds to delay @task results"
    )
    args = parser.parse_args(argv)
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
