"""Crash driver: one phase of a thread on SQLite or PostgreSQL, in its own process.

`python crash_driver.py PHASE --workdir DIR [--crash-at POINT] [--answer approve|reject]
[--tasks-url URL]`

- `start`: send the request; the run stops at the approval interrupt of `write_note`.
- `answer`: answer that interrupt; with `--crash-at`, the process SIGKILLs itself at that point,
  so nothing is flushed or cleaned up.
- `resume`: a new process continues the thread from its checkpoint with `ainvoke(None)`.

Each phase prints `RESULT {json}`. Models are scripted in this process; the only expert is the
notes demo server, whose NOTES_LOG counts real executions; with `--tasks-url` it is the Tasks
server there (`tests/servers/tasks_server.py`), whose `ship_order` runs as a task and whose
TASKS_LOG counts the shipments (`--crash-at after_task`: killed once the task's id is kept).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

os.environ["ALLOW_MODEL_REQUESTS"] = "false"
# The test doubles live in the repository's `tests` package, not in the installed code.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.types import Command

from common.mcp.registry import ExpertRegistry, shutdown_pool
from common.persistence import open_persistence
from common.safety.execution import CallLedger
from common.settings import Settings
from strategies.with_planner.graph import build_graph
from tests.doubles import ScriptedChatModel, calls, install_scripted, tool_call

# `nodes` re-exports the node function under the module's name: fetch the module itself.
call_tool_module = importlib.import_module("strategies.with_planner.nodes.call_tool")

TITLE = "crash-test"
ANSWER = "Saved the note."
CRASH_POINTS = ("after_answer", "after_send", "after_finish", "after_reject", "after_task")
ORDER = "A-1"


def die(point: str) -> None:
    """Report where the process dies, then die without any cleanup."""
    print("RESULT " + json.dumps({"killed_at": point}), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)


def install_crash_hook(point: str) -> None:
    """Kill this process at `point` of call_tool."""
    if point == "after_answer":
        original_run = call_tool_module.execute_call

        async def execute_call(*args: Any, **kwargs: Any) -> Any:
            die(point)
            return await original_run(*args, **kwargs)

        call_tool_module.execute_call = execute_call  # type: ignore[assignment]
    elif point == "after_send":
        original_call = ExpertRegistry.call

        async def call(self: ExpertRegistry, *args: Any, **kwargs: Any) -> Any:
            await original_call(self, *args, **kwargs)
            die(point)

        ExpertRegistry.call = call  # type: ignore[method-assign]
    elif point == "after_finish":
        original_finished = CallLedger.finished

        async def finished(self: CallLedger, *args: Any, **kwargs: Any) -> None:
            await original_finished(self, *args, **kwargs)
            die(point)

        CallLedger.finished = finished  # type: ignore[method-assign]
    elif point == "after_task":
        original_task = CallLedger.task

        async def task(self: CallLedger, *args: Any, **kwargs: Any) -> None:
            await original_task(self, *args, **kwargs)
            die(point)

        CallLedger.task = task  # type: ignore[method-assign]
    elif point == "after_reject":
        original_declined = call_tool_module.declined

        def declined(*args: Any, **kwargs: Any) -> Any:
            message = original_declined(*args, **kwargs)
            die(point)
            return message

        call_tool_module.declined = declined


def tasks_context(url: str) -> dict[str, Any]:
    """Scripted models for one turn shipping an order through the Tasks server at `url`."""
    script: dict[str, list[Any]] = {
        "planner": [{"plan": [{"id": "t1", "expert": "shop", "task": f"Ship {ORDER}"}]}],
        "irreversibility": ["IRREVERSIBLE: YES\nBLOCKED_TOOLS: ship_order"],
        "orchestrate": [calls(tool_call("ship_order", {"order": ORDER}, "c1"))],
        "assess": [{"completed": True, "reason": "shipped"}],
        "response": ["Shipped."],
    }
    ctx: dict[str, Any] = {"mcp_config": {"mcpServers": {"shop": {"url": url}}}}
    ctx["model"] = "scripted:missing"
    for role, items in script.items():
        ctx[f"{role}_model"] = install_scripted(ScriptedChatModel(script=items, name_=role))
    return ctx


def context(workdir: Path) -> dict[str, Any]:
    """Scripted models for one turn, and the notes server logging into `workdir`."""
    script: dict[str, list[Any]] = {
        "planner": [{"plan": [{"id": "t1", "expert": "notes", "task": f"Write {TITLE}"}]}],
        "irreversibility": ["IRREVERSIBLE: YES\nBLOCKED_TOOLS: write_note"],
        "orchestrate": [calls(tool_call("write_note", {"title": TITLE, "body": "b"}, "c1"))],
        "assess": [{"completed": True, "reason": "written"}],
        "response": [ANSWER],
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
                }
            }
        },
        "model": "scripted:missing",
    }
    for role, items in script.items():
        ctx[f"{role}_model"] = install_scripted(ScriptedChatModel(script=items, name_=role))
    return ctx


def tool_results(task: dict[str, Any]) -> list[dict[str, str]]:
    """Status and text of each call a task made, from its exchange or its call records.

    A task keeps its exchange while it runs; an ended one may keep only records of its calls.
    """
    results = [
        {"status": str(m.status), "content": str(m.content)}
        for m in task.get("messages", [])
        if isinstance(m, ToolMessage)
    ]
    results += [{"status": c["status"], "content": c["output"]} for c in task.get("calls", [])]
    return results


def summary(values: dict[str, Any], interrupts: list[Any]) -> dict[str, Any]:
    """What the test checks: interrupts, tool messages, statuses and the last message."""
    messages = values.get("messages", [])
    last = messages[-1] if messages else None
    tasks = [*(values.get("plan") or []), *(values.get("previous_plan") or [])]
    return {
        "interrupts": [i.value for i in interrupts],
        "tool_messages": [c for t in tasks for c in tool_results(t)],
        "statuses": [t["status"] for t in values.get("previous_plan") or values.get("plan") or []],
        "answer": last.content if isinstance(last, AIMessage) and not last.tool_calls else None,
    }


async def main() -> None:
    """Run one phase."""
    parser = argparse.ArgumentParser()
    parser.add_argument("phase", choices=["start", "answer", "resume"])
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--crash-at", choices=CRASH_POINTS)
    parser.add_argument("--answer", choices=["approve", "reject"], default="approve")
    parser.add_argument("--tasks-url")
    opts = parser.parse_args()
    if opts.crash_at:
        install_crash_hook(opts.crash_at)
    config: Any = {"configurable": {"thread_id": "crash"}}
    # PERSISTENCE / DATABASE_URI from the environment choose SQLite or PostgreSQL.
    settings = Settings(
        checkpoint_path=opts.workdir / "checkpoints.sqlite",
        store_path=opts.workdir / "store.sqlite",
    )
    async with open_persistence(settings) as (saver, store):
        graph = build_graph(checkpointer=saver, store=store)
        ctx = tasks_context(opts.tasks_url) if opts.tasks_url else context(opts.workdir)
        payload: Any = None
        if opts.phase == "start":
            request = f"Ship order {ORDER}" if opts.tasks_url else f"Write the note {TITLE}"
            payload = {"messages": [{"role": "user", "content": request}]}
        elif opts.phase == "answer":
            decision = (
                {"type": "approve"}
                if opts.answer == "approve"
                else {"type": "reject", "message": "no"}
            )
            payload = Command(resume={"decisions": [decision]})
        try:
            await graph.ainvoke(payload, config, context=ctx)
        finally:
            await shutdown_pool()
        snapshot = await graph.aget_state(config)
        print(
            "RESULT " + json.dumps(summary(snapshot.values, list(snapshot.interrupts))), flush=True
        )


if __name__ == "__main__":
    asyncio.run(main())
