"""Execution policy: what happens to a call the approval policy lets run, before and after it.

Before: a call whose arguments reach a denied address, or do not match the tool's input schema,
is not sent (`Refused`). During: a gated (irreversible) call goes through the call ledger.
After: secrets in the output are masked and the text for the model is trimmed; a replayed
outcome gets the same treatment as a fresh one.

The ledger makes an approved call run once, even across a crash and a resume. LangGraph re-runs
an interrupted or crashed node from its start. Before a gated call is sent, a ledger entry
"started" is written and awaited in the graph's store; once the call returns, its outcome is
written too. A re-run finds the entry: a finished call's outcome is replayed and nobody is asked
again; a call that was started but never finished (the process died in between) is not sent
again: whether it ran is unknown, and it is reported so. A gated call is therefore sent at most
once, and exactly once when the process survives.

A gated call that timed out (the registry cancels it on the server and reports it "interrupted")
is recorded as "unknown": it may have happened, so a re-run replays that outcome and never
resends it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from common.guardrails.config import GuardrailConfig
from common.guardrails.output import trim_tool_output
from common.guardrails.secrets import mask_secrets
from common.guardrails.urls import denied_urls
from common.mcp.asking import Inputs
from common.mcp.errors import ExpertUnavailable
from common.mcp.outcome import ToolOutcome, outcome
from common.mcp.schema import check_args
from common.served.identity import DEFAULT_USER, user_namespace

if TYPE_CHECKING:
    # Types only: the live graph must not import the MCP SDK before its first call.
    from mcp.shared.dispatcher import ProgressFnT

    from common.mcp.registry import ExpertRegistry

_PROCESS_STORE = InMemoryStore()
"""Ledger of graphs compiled without a store: as durable as their in-memory state."""


@dataclass(frozen=True)
class TaskStarted:
    """A call its server runs as a task (`common.mcp.tasks`): polled again, never resent."""

    task_id: str
    """The task's id on its server."""


LedgerEntry = ToolOutcome | Literal["started"] | TaskStarted
"""What the ledger knows of a call: its outcome, that it was sent without an answer yet, or
the task it became."""


class CallLedger:
    """Per-thread record of gated calls in a LangGraph store."""

    def __init__(self, store: BaseStore | None, thread_id: str, owner: str = DEFAULT_USER) -> None:
        self.store = store if store is not None else _PROCESS_STORE
        self.namespace = user_namespace("call_ledger", owner, thread_id)

    async def lookup(self, key: str) -> LedgerEntry | None:
        """The call's recorded state, or None if it was never started."""
        item = await self.store.aget(self.namespace, key)
        if item is None:
            return None
        value = item.value
        if value.get("state") == "started":
            return "started"
        if value.get("state") == "task":
            return TaskStarted(str(value["task_id"]))
        record: ToolOutcome = value["record"]
        return record

    async def started(self, key: str, expert: str, name: str, args: dict[str, Any]) -> None:
        """Record, before sending, that the call is about to go out."""
        value = {"state": "started", "expert": expert, "name": name, "args": args}
        await self.store.aput(self.namespace, key, value, index=False)

    async def task(self, key: str, task_id: str) -> None:
        """Record that the call became a task on its server, before it is polled."""
        await self.store.aput(
            self.namespace, key, {"state": "task", "task_id": task_id}, index=False
        )

    async def finished(self, key: str, record: ToolOutcome) -> None:
        """Record the call's outcome ("unknown" when it may or may not have taken effect)."""
        state = "unknown" if record["status"] == "interrupted" else "done"
        await self.store.aput(self.namespace, key, {"state": state, "record": record}, index=False)


def unknown_outcome(expert: str, name: str) -> ToolOutcome:
    """The outcome of a call cut off by a crash: not resent, reported as unknown."""
    return outcome(
        "interrupted",
        f"The process stopped while {name!r} was being sent to {expert!r}; whether it ran is "
        "unknown, so it was not sent again. Check the expert before retrying.",
    )


def replay(entry: LedgerEntry, expert: str, name: str) -> ToolOutcome:
    """What a re-run reports for a call the ledger already knows."""
    if entry == "started" or isinstance(entry, TaskStarted):
        return unknown_outcome(expert, name)
    return entry


def goes_on(entry: LedgerEntry, spec: CallSpec) -> bool:
    """Whether a recorded call stopped at its server's questions and now has their answers.

    The call goes on (a 2026 server's continuation, a held 2025 call): it is "started" again,
    so a crash meanwhile still leaves it unknown, never sent a third time.
    """
    asked = isinstance(entry, dict) and entry["status"] == "needs_input"
    return asked and spec.inputs is not None


@dataclass(frozen=True)
class CallSpec:
    """One call the approval policy lets run, with what sending it safely needs."""

    key: str
    """Ledger key: unique per call within the thread."""
    expert: str
    """Expert (MCP server) that runs it."""
    name: str
    """Tool name."""
    args: dict[str, Any]
    """Arguments, exactly as sent."""
    gated: bool
    """Irreversible: sent through the ledger (at most once) and never retried."""
    timeout_s: float
    """How long the call may take."""
    guardrails: GuardrailConfig
    """Denied addresses before the call; secret masking and output trimming after it."""
    progress: ProgressFnT | None = None
    """Hears the server's progress notifications while the call runs (None: not asked for)."""
    inputs: Inputs | None = None
    """The person's answers to the questions the call's server asked (None: none asked)."""


@dataclass(frozen=True)
class Refused:
    """A call that was not sent, and why (in words the model and the user can act on)."""

    reason: str
    """Starts with "Not run:"."""


@dataclass(frozen=True)
class Executed:
    """A call's outcome after the output policy: secrets masked, text for the model trimmed."""

    outcome: ToolOutcome
    """The outcome, secrets masked; its content is the full output."""
    shown: str
    """What the model sees: the content, trimmed to the guardrails' limit."""


async def execute_call(
    spec: CallSpec, registry: ExpertRegistry, ledger: CallLedger | None
) -> Executed | Refused:
    """Send one call under the execution policy: checks before, ledger during, masking after."""
    refused = await refuse_before_call(spec, registry)
    if refused is not None:
        return refused
    sent = await run_once(ledger, spec, registry)
    return after_call(sent, spec.guardrails)


async def refuse_before_call(spec: CallSpec, registry: ExpertRegistry) -> Refused | None:
    """Why a call must not be sent at all: a denied URL in its arguments, or bad arguments."""
    urls = denied_urls(spec.args, spec.guardrails)
    if urls:
        return Refused(
            f"Not run: the arguments reach a denied address ({', '.join(urls)}); private, "
            "loopback, link-local and metadata addresses are refused (GUARDRAILS allowed_hosts)."
        )
    try:
        tools = {t.name: t for t in await registry.tools(spec.expert)}
    except ExpertUnavailable:
        # The call itself reports the expert as unavailable.
        return None
    tool = tools.get(spec.name)
    if tool is not None and (problems := check_args(tool, spec.args)):
        return Refused(
            f"Not run: the arguments do not match {spec.name!r}'s input schema: "
            f"{'; '.join(problems)}."
        )
    return None


def after_call(result: ToolOutcome, cfg: GuardrailConfig) -> Executed:
    """The output policy: a secret a tool returns must not reach the model, nor flood it."""
    if cfg.mask_secrets:
        result = ToolOutcome(**{**result, "content": mask_secrets(result["content"])[0]})
    text = result["content"]
    limit = cfg.max_tool_output_chars
    shown = trim_tool_output(text, GuardrailConfig(max_tool_output_chars=limit)) if limit else text
    return Executed(result, shown)


async def run_once(
    ledger: CallLedger | None, spec: CallSpec, registry: ExpertRegistry
) -> ToolOutcome:
    """Send a call; a gated one goes through the ledger so it is never sent twice.

    A gated call that became a task has the task's id recorded before it is polled; a re-run
    polls that task instead of sending the call again.
    """
    tasks = None
    if spec.gated and ledger is not None:
        entry = await ledger.lookup(spec.key)
        resumed = entry.task_id if isinstance(entry, TaskStarted) else None
        if entry is not None and resumed is None and not goes_on(entry, spec):
            return replay(entry, spec.expert, spec.name)
        if resumed is None:
            await ledger.started(spec.key, spec.expert, spec.name, spec.args)
        # Here, not at the top: the graph must not import the MCP SDK before its first call.
        from common.mcp.calls import TaskHooks

        tasks = TaskHooks(task_id=resumed, on_task=partial(ledger.task, spec.key))
    result = await registry.call(
        spec.expert,
        spec.name,
        spec.args,
        spec.timeout_s,
        retry_safe=not spec.gated,
        progress=spec.progress,
        key=spec.key,
        inputs=spec.inputs,
        tasks=tasks,
    )
    if spec.gated and ledger is not None:
        await ledger.finished(spec.key, result)
    return result
