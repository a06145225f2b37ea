"""Helpers for driving the with_planner graph in unit tests: threads, scripts and logs."""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib.util
import os
import subprocess
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any
from uuid import uuid4

from langchain_core.messages import AIMessage, AnyMessage, SystemMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from strategies.with_planner.graph import build_graph
from strategies.with_planner.turn import starts_turn


def task(tid: str, expert: str, what: str = "do it") -> dict[str, str]:
    """One planner task as the model would return it."""
    return {"id": tid, "expert": expert, "task": what}


def plan(*tasks: dict[str, str], **extra: Any) -> dict[str, Any]:
    """A PlannerResult as a dict."""
    return {"plan": list(tasks), **extra}


def done(reason: str = "the exchange shows it done") -> dict[str, Any]:
    """An assessment saying the task is completed."""
    return {"completed": True, "reason": reason}


def not_done(reason: str = "more work is needed") -> dict[str, Any]:
    """An assessment saying the task is not completed."""
    return {"completed": False, "reason": reason}


def unique(prefix: str) -> str:
    """A name no other test uses (the MCP servers and their files live for the session)."""
    return f"{prefix}-{uuid4().hex[:8]}"


def _starts_turn(node: str, update: Any) -> bool:
    """Whether a streamed update is the planner's turn-start step (settings only, no plan)."""
    return node == "planner" and starts_turn(update)


@dataclass
class Thread:
    """One conversation thread on a checkpointed graph, recording the nodes each run visits."""

    ctx: dict[str, Any]
    graph: Any = field(default_factory=lambda: build_graph(InMemorySaver()))
    thread_id: str = field(default_factory=lambda: uuid4().hex)
    recursion_limit: int | None = None

    @property
    def config(self) -> dict[str, Any]:
        """The run config addressing this thread."""
        config: dict[str, Any] = {"configurable": {"thread_id": self.thread_id}}
        if self.recursion_limit is not None:
            config["recursion_limit"] = self.recursion_limit
        return config

    async def send(self, message: str | Command[Any]) -> list[str]:
        """Send a user message (or a resume command); return the nodes that completed."""
        payload: Any = message
        if isinstance(message, str):
            payload = {"messages": [{"role": "user", "content": message}]}
        visited: list[str] = []
        async for _namespace, chunk in self.graph.astream(
            payload, self.config, context=self.ctx, stream_mode="updates", subgraphs=True
        ):
            # Nodes of the task subgraph count; its wrapper node `run_task` does not, nor the
            # planner's first step of a turn, which only fixes the turn's settings.
            visited.extend(
                k
                for k, update in chunk.items()
                if k not in ("__interrupt__", "run_task") and not _starts_turn(k, update)
            )
        return visited

    async def resume(self, value: Any) -> list[str]:
        """Answer the pending interrupt."""
        return await self.send(Command(resume=value))

    async def values(self) -> dict[str, Any]:
        """The thread's current state."""
        snapshot = await self.graph.aget_state(self.config)
        return dict(snapshot.values)

    async def interrupts(self) -> list[Any]:
        """Values of the interrupts the thread is waiting on (empty when it is not paused)."""
        snapshot = await self.graph.aget_state(self.config)
        return [i.value for i in snapshot.interrupts]

    async def messages(self) -> list[AnyMessage]:
        """The conversation so far, then every task's own exchange (current plan, then last)."""
        values = await self.values()
        tasks = [*(values.get("plan") or []), *(values.get("previous_plan") or [])]
        return [*values["messages"], *(m for t in tasks for m in exchange(t))]

    async def tool_messages(self) -> list[ToolMessage]:
        """Every ToolMessage of the conversation."""
        return [m for m in await self.messages() if isinstance(m, ToolMessage)]

    async def answer(self) -> AIMessage:
        """The last message of the conversation, which must be the assistant's."""
        last = (await self.values())["messages"][-1]
        assert isinstance(last, AIMessage), f"last message is {last!r}"
        return last


def system_prompt(request: dict[str, Any]) -> str:
    """The system prompt of a recorded ScriptedChatModel request."""
    first = request["messages"][0]
    assert isinstance(first, SystemMessage)
    return str(first.content)


def log_lines(path: Path) -> list[str]:
    """Lines of a server's call log (empty when nothing was logged yet)."""
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def note_actions(workdir: Path, title: str) -> list[str]:
    """Actions (`write`, `delete`) the notes server performed on `title`, in order."""
    actions = []
    for line in log_lines(workdir / "notes.log"):
        _, action, logged_title = line.split(" ", 2)
        if logged_title == title:
            actions.append(action)
    return actions


def per_task(replies: dict[str, list[Any]]) -> list[Any]:
    """Orchestrator replies by task id: independent tasks run in parallel, in no fixed order."""
    queues = {tid: list(items) for tid, items in replies.items()}

    def reply(messages: list[Any], meta: dict[str, Any]) -> Any:
        (tid,) = [t for t in queues if f"Your task ({t}):" in str(messages[0].content)]
        return queues[tid].pop(0)

    return [reply] * sum(len(q) for q in queues.values())


CLI = str(Path(sys.executable).with_name("mcp-planner"))
"""The installed `mcp-planner` console script of this environment."""


def run_cli(
    args: list[str], cwd: Path, env: dict[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run `mcp-planner` as a user would from a script: no terminal, output captured."""
    return subprocess.run(
        [CLI, *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def invoke_cli(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`mcp-planner ARGS` in this process, as `run_cli` runs it: in `cwd`, with exactly `env`.

    Through typer's test runner, for tests whose subject is what a command says and does rather
    than the process itself (its start-up, signals, terminal): a new process costs seconds of
    imports. Settings are read afresh, and an exception that escapes the command is put on stderr
    with its traceback, as the real process would print it. Called from a test that runs an event
    loop, the command (which runs its own) goes in a thread of its own, the test waiting on it.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _invoke_here(args, cwd, env)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(_invoke_here, args, cwd, env).result()


def _invoke_here(
    args: list[str], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    from typer.testing import CliRunner

    from common.settings import get_settings
    from strategies.cli.app import app

    before, saved = Path.cwd(), dict(os.environ)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(app, args, input="")
    finally:
        os.environ.clear()
        os.environ.update(saved)
        os.chdir(before)
        get_settings.cache_clear()
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))
    return subprocess.CompletedProcess([CLI, *args], result.exit_code, result.stdout, stderr)


def exchange(task: dict[str, Any]) -> list[AnyMessage]:
    """A task's exchange: its messages while it runs, its recorded calls once it ended."""
    recorded = [
        ToolMessage(c["output"], tool_call_id=c["id"], name=c["name"], status=c["status"])
        for c in task.get("calls") or []
    ]
    return [*task.get("messages", []), *recorded]


BENCH = Path(__file__).resolve().parents[2] / "bench"
"""The folder of benchmark scripts."""


def bench_script(name: str) -> ModuleType:
    """Load `bench/<name>.py` as the module `name`.

    bench/ is a folder of scripts importing each other by name, not a package: it goes on the
    path first.
    """
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
