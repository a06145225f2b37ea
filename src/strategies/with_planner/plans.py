"""Plans as dependency graphs: what the planner returns, validation, and task tracking.

The planner's answer (`PlannerResult`) must fit strict structured outputs (see
`common.strict_schema`): closed objects only, every field required, no defaults. A direct step's
arguments, an open object shaped by the tool's own schema, therefore travel as one JSON-encoded
string, `PlannedStep.args_json`, the way OpenAI-style tool calls carry theirs; `planned_tasks`
parses them into the `Task` the rest of the code uses, and `validate_plan` checks them against
the tool's live schema, so a bad one is a problem the planner is asked to fix. A JSON string
was chosen over a list of name/value pairs because it keeps nested values and templates as the
tool takes them and models write it the way they write tool-call arguments; dropping strictness
for this one schema would have left the planner's whole answer unconstrained.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal, NotRequired

from langchain_core.messages import AIMessage, ToolMessage
from pydantic import BaseModel, Field, TypeAdapter
from typing_extensions import TypedDict

from common.mcp.asking import Asking
from common.mcp.schema import check_args
from common.safety.approval import DecisionRecord
from strategies.with_planner.results import VIEW_CHARS, FullResult, trim
from strategies.with_planner.templates import TemplateError, date_problems, referenced_tasks

if TYPE_CHECKING:
    from mcp.types import Tool

TaskStatus = Literal[
    "pending",
    "ready",
    "running",
    "awaiting_approval",
    "completed",
    "failed",
    "skipped",
    "cancelled",
]
"""Where a task is in its life."""

PlanStatus = Literal["ready", "in_progress", "completed", "failed", "cancelled"]
"""Where the whole plan is."""

TERMINAL: frozenset[str] = frozenset({"completed", "failed", "skipped", "cancelled"})
"""Statuses a task never leaves."""


class Task(TypedDict):
    """One step of a plan, carried out by one expert: the planner's fields, listed once.

    The planner's answer is validated into this shape (pydantic fills the defaults), and
    `TaskState` extends it with the runtime fields, so a planner field is added here only.
    The optional keys are always present once validated (see `new_task_state`).
    """

    id: Annotated[str, Field(description="Short unique id, e.g. 't1'.")]
    """Short unique id, e.g. `t1`."""
    expert: Annotated[
        str, Field(description="Name of the expert (MCP server) that does this task.")
    ]
    """Name of the expert (MCP server) that does this task."""
    task: Annotated[
        str, Field(description="What to do, in plain language, with every needed detail.")
    ]
    """What to do, in plain language."""
    depends_on: NotRequired[
        Annotated[
            list[str],
            Field(default_factory=list, description="Ids of tasks whose results this one needs."),
        ]
    ]
    """Ids of tasks that must complete first."""
    critical: NotRequired[
        Annotated[
            bool,
            Field(
                default=True, description="False when the rest of the plan can go on without it."
            ),
        ]
    ]
    """Whether its failure fails the plan (else only its dependents are skipped)."""
    tool: NotRequired[
        Annotated[
            str | None,
            Field(
                default=None,
                description="For a direct step: the expert's tool to call, with `args` fully "
                "specified.",
            ),
        ]
    ]
    """Tool of a direct step, run without the orchestrate and assess models."""
    args: NotRequired[
        Annotated[
            dict[str, Any] | None,
            Field(
                default=None,
                description="Arguments of a direct step; may use ${t1.result}, "
                "${t1.data.items[0].id}, ${t1.data.items.*.id} or ${dates.last_week.from}.",
            ),
        ]
    ]
    """Arguments of a direct step, possibly templated."""


_TASK: TypeAdapter[Task] = TypeAdapter(Task)


# The docstrings of the planner's schemas are their descriptions in the schema the model reads:
# they name nothing of the code (a small model repeats such names to the user).
class PlannedStep(BaseModel):
    """One task of the plan: the expert that does it, and for a direct step its tool call."""

    id: str = Field(description="Short unique id, e.g. 't1'.")
    """Short unique id."""
    expert: str = Field(description="Name of the expert (MCP server) that does this task.")
    """Name of the expert that does this task."""
    task: str = Field(description="What to do, in plain language, with every needed detail.")
    """What to do, in plain language."""
    depends_on: list[str] = Field(description="Ids of tasks whose results this one needs.")
    """Ids of tasks that must complete first."""
    critical: bool = Field(description="False when the rest of the plan can go on without it.")
    """Whether its failure fails the plan."""
    tool: str | None = Field(
        description="For a direct step: the expert's tool to call, with args_json; else null."
    )
    """Tool of a direct step."""
    args_json: str | None = Field(
        description="For a direct step: the tool's arguments as one JSON object in a string, "
        'e.g. "{\\"city\\": \\"Paris\\"}"; values may use ${t1.result}, ${t1.data.items[0].id}, '
        "${t1.data.items.*.id} or ${dates.last_week.from}. Null when there is no tool."
    )
    """The direct step's arguments, JSON-encoded."""


class PlannerResult(BaseModel):
    """The plan for the user's request: tasks for the experts, or a question back."""

    decision: Literal["continue", "replace"] = Field(
        description="'continue' the previous plan from next_task, or 'replace' it with plan.",
    )
    """Continue the previous plan, or replace it."""
    plan: list[PlannedStep] = Field(
        description="Tasks; independent ones run in parallel. Empty when no expert is needed.",
    )
    """Tasks; empty when no expert is needed."""
    next_task: int = Field(description="Index of the first task to run (0 for a new plan).")
    """Index of the first task to run (with `continue`)."""
    clarification: str | None = Field(
        description="A question for the user when the request is too unclear to plan; else null.",
    )
    """A question for the user when the request cannot be planned yet."""
    not_covered: list[str] = Field(
        description="Parts of the request that no available expert's tools can do, each quoted "
        "or summarised from the request; empty when the plan covers everything.",
    )
    """Parts of the request no available expert can do: named in the answer as not done."""


def planned_tasks(result: PlannerResult) -> tuple[list[Task], list[str]]:
    """The answer's steps as tasks, and the problems (sentences the planner can fix) in them.

    The one place the wire form becomes the `Task` the state, templates and scheduler use.
    """
    tasks: list[Task] = []
    problems: list[str] = []
    for step in result.plan:
        args: dict[str, Any] | None = None
        if step.args_json is not None and step.args_json.strip():
            try:
                decoded = json.loads(step.args_json)
            except json.JSONDecodeError as exc:
                decoded, why = None, f"is not valid JSON ({exc.msg})"
            else:
                why = f"is a JSON {type(decoded).__name__}"
            if isinstance(decoded, dict):
                args = decoded
            else:
                problems.append(
                    f"Task {step.id!r}: args_json {why}; give the tool's arguments as one "
                    'JSON object in a string, e.g. "{\\"name\\": \\"value\\"}".'
                )
        tasks.append(
            Task(
                id=step.id,
                expert=step.expert,
                task=step.task,
                depends_on=list(step.depends_on),
                critical=step.critical,
                tool=step.tool,
                args=args,
            )
        )
    return tasks, problems


def step_answer(task: Task) -> dict[str, Any]:
    """The wire form of `task` (what a model writes for it): the inverse of `planned_tasks`."""
    spec = planned(task)
    args = spec.get("args")
    return {
        "id": spec["id"],
        "expert": spec["expert"],
        "task": spec["task"],
        "depends_on": list(spec.get("depends_on", [])),
        "critical": spec.get("critical", True),
        "tool": spec.get("tool"),
        "args_json": None if args is None else json.dumps(args, ensure_ascii=False),
    }


CALL_OUTPUT_CHARS = VIEW_CHARS
"""Characters of a call's output an ended task keeps: as much as a result's view."""

CALL_ARG_CHARS = 500
"""Characters of one string argument an ended task keeps of a call it made."""


class CallRecord(TypedDict):
    """A call an ended task made, as it is remembered: what was called and a view of its answer."""

    id: str
    """The call's id (as on its tool message)."""
    name: str
    """The tool called."""
    args: dict[str, Any]
    """Its arguments, long strings trimmed."""
    status: Literal["success", "error"]
    """Whether the tool answered or the call failed, was declined or was not run."""
    output: str
    """What it answered, as the model saw it (at most `CALL_OUTPUT_CHARS`, said when cut)."""


class TaskState(Task):
    """A task as tracked in graph state: the planner's fields plus its run."""

    approval: DecisionRecord | None
    """A decision the user already gave for this direct step (approving held-back calls)."""
    decisions: dict[str, DecisionRecord]
    """Decisions on the calls this task stopped at, by call key; used once, when it goes on."""
    answers: NotRequired[dict[str, str]]
    """The user's answers to the `ask_user` calls it stopped at, by call key; used once.

    An MCP server's question is answered under `<call key>#<question key>`, as JSON."""
    asking: NotRequired[dict[str, Asking]]
    """Calls stopped at their server's questions, by call key: what going on needs; used once."""
    status: TaskStatus
    """Lifecycle status."""
    attempts: int
    """Orchestrate rounds (or direct calls) used."""
    result: str | None
    """What the task produced, as text: the view the model sees (trimmed when long)."""
    full: FullResult | None
    """Where the whole text is when `result` is trimmed (in state, or in the store by key)."""
    data: Any
    """Structured result of its last successful tool call, for templates (None when stored)."""
    error: str | None
    """Why it failed or was skipped, in words a user can act on."""
    declined: list[str]
    """Tool calls the user declined during this task."""
    started_at: str | None
    """ISO time it started running."""
    ended_at: str | None
    """ISO time it reached a final status."""
    messages: list[Any]
    """The task's own exchange while it runs or waits for approval; empty once it ended."""
    calls: NotRequired[list[CallRecord]]
    """The calls it made, kept when it ended instead of its exchange (absent in older threads)."""


PLANNED_FIELDS: tuple[str, ...] = tuple(Task.__annotations__)
"""The planner's fields of a task, in order (the part of a TaskState the planner wrote)."""


def goes_on(task: TaskState) -> bool:
    """Whether the task stopped for a person and has their decisions or answers to go on with."""
    return bool(task.get("decisions") or task.get("answers"))


def planned(task: Task) -> Task:
    """The planner's fields of `task` (also of a TaskState), with every default filled in."""
    return _TASK.validate_python({k: v for k, v in task.items() if k in PLANNED_FIELDS})


def new_task_state(task: Task) -> TaskState:
    """A fresh, pending task."""
    spec = planned(task)
    tool, args = spec.get("tool"), spec.get("args")
    return TaskState(
        id=spec["id"],
        expert=spec["expert"],
        task=spec["task"],
        depends_on=list(spec.get("depends_on", [])),
        critical=spec.get("critical", True),
        tool=tool,
        args=dict(args) if args is not None else ({} if tool else None),
        approval=None,
        decisions={},
        status="pending",
        attempts=0,
        result=None,
        full=None,
        data=None,
        error=None,
        declined=[],
        started_at=None,
        ended_at=None,
        messages=[],
        calls=[],
    )


def call_records(messages: Sequence[Any]) -> list[CallRecord]:
    """The calls of an exchange, each with a bounded view of its arguments and answer."""
    sent = {c["id"]: c for m in messages if isinstance(m, AIMessage) for c in m.tool_calls}
    records: list[CallRecord] = []
    for m in messages:
        if not isinstance(m, ToolMessage):
            continue
        call = sent.get(m.tool_call_id)
        records.append(
            CallRecord(
                id=m.tool_call_id,
                name=call["name"] if call else str(m.name),
                args=_bounded(call["args"]) if call else {},
                status="error" if m.status == "error" else "success",
                output=trim(str(m.content), CALL_OUTPUT_CHARS),
            )
        )
    return records


def _bounded(value: Any) -> Any:
    """`value` with every string longer than `CALL_ARG_CHARS` cut to a view."""
    if isinstance(value, str):
        return trim(value, CALL_ARG_CHARS)
    if isinstance(value, dict):
        return {k: _bounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_bounded(v) for v in value]
    return value


def ended(task: TaskState) -> TaskState:
    """An ended task as the plan keeps it: its calls recorded, its exchange dropped.

    The exchange is written into every later checkpoint of the thread, while what dependents,
    the planner and the answer read is the result, data, error and the calls. A task that has
    not ended keeps its exchange (one waiting for approval goes on from it).
    """
    if task["status"] not in TERMINAL or not task["messages"]:
        return task
    calls = [*task.get("calls", []), *call_records(task["messages"])]
    return TaskState(**{**task, "messages": [], "calls": calls})


def remembered(task: TaskState) -> TaskState:
    """A task as the next turn keeps it (`previous_plan`): ended, no exchange."""
    return ended(task) if task["status"] in TERMINAL else TaskState(**{**task, "messages": []})


def _cycle(plan: Sequence[Task]) -> list[str] | None:
    deps = {t["id"]: [d for d in t["depends_on"] if d != t["id"]] for t in plan}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        """Depth-first from `node`: the cycle through the current path, if one closes."""
        state[node] = 1
        stack.append(node)
        for nxt in deps.get(node, []):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt in deps and nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for t in plan:
        if t["id"] not in state and (found := visit(t["id"])):
            return found
    return None


def validate_plan(
    plan: Sequence[Task],
    next_task: int,
    catalog: Mapping[str, Sequence[Tool] | None],
    max_tasks: int,
) -> list[str]:
    """Problems that stop a plan from running, each a sentence the planner can fix.

    `catalog` maps every configured expert to its live tools (None when it is unreachable).
    """
    problems: list[str] = []
    ids = [t["id"] for t in plan]
    known = ", ".join(catalog) or "(none configured)"
    if len(plan) > max_tasks:
        problems.append(f"The plan has {len(plan)} tasks; at most {max_tasks} are allowed.")
    for dup in sorted({i for i in ids if ids.count(i) > 1}):
        problems.append(f"Task id {dup!r} is used more than once; ids must be unique.")
    for t in plan:
        if t["expert"] not in catalog:
            problems.append(
                f"Task {t['id']!r} names unknown expert {t['expert']!r}; known: {known}."
            )
        problems += _dependency_problems(t, ids)
        problems += _direct_step_problems(t, catalog.get(t["expert"]), ids)
    if (cycle := _cycle(plan)) is not None:
        problems.append(f"The dependencies form a cycle: {' -> '.join(cycle)}.")
    if next_task < 0 or (plan and next_task >= len(plan)):
        problems.append(f"next_task is {next_task} but the plan has {len(plan)} task(s).")
    return problems


def _dependency_problems(t: Task, ids: list[str]) -> list[str]:
    problems = []
    for dep in t["depends_on"]:
        if dep == t["id"]:
            problems.append(f"Task {t['id']!r} depends on itself.")
        elif dep not in ids:
            problems.append(f"Task {t['id']!r} depends on unknown task {dep!r}.")
    return problems


def _direct_step_problems(t: Task, tools: Sequence[Tool] | None, ids: list[str]) -> list[str]:
    if t["tool"] is None:
        if t["args"]:
            return [f"Task {t['id']!r} has args but no tool; give both for a direct step."]
        return []
    problems: list[str] = []
    try:
        refs = referenced_tasks(t["args"] or {}, ids)
        problems += [f"Task {t['id']!r}: {p}" for p in date_problems(t["args"] or {})]
    except TemplateError as exc:
        refs, problems = set(), [f"Task {t['id']!r}: {exc}"]
    for ref in sorted(refs - set(t["depends_on"])):
        problems.append(
            f"Task {t['id']!r} uses the result of {ref!r} in its args but does not depend on it; "
            "add it to depends_on."
        )
    if tools is None:
        return problems
    by_name = {tool.name: tool for tool in tools}
    if t["tool"] not in by_name:
        names = ", ".join(by_name) or "none"
        return [
            *problems,
            f"Task {t['id']!r}: expert {t['expert']!r} has no tool {t['tool']!r} ({names}).",
        ]
    problems += [
        f"Task {t['id']!r} ({t['tool']}): {p}"
        for p in check_args(by_name[t["tool"]], t["args"] or {})
    ]
    return problems


def plan_status(plan: Sequence[TaskState]) -> PlanStatus:
    """The plan's status from its tasks."""
    if not plan:
        return "ready"
    statuses = [t["status"] for t in plan]
    if any(t["status"] == "failed" and t["critical"] for t in plan):
        return "failed"
    if all(s in TERMINAL for s in statuses):
        if all(s == "cancelled" for s in statuses):
            return "cancelled"
        return "completed"
    if all(s == "pending" for s in statuses):
        return "ready"
    return "in_progress"


# How a dependency's end reads after its id in a dependent's reason ("t2 skipped: t1 failed").
_ENDED_AS = {"failed": "failed", "skipped": "was skipped", "cancelled": "was cancelled"}


def settle(plan: Sequence[TaskState], now: str) -> list[TaskState]:
    """Skip the dependents of failed tasks; after a critical failure cancel what has not started."""
    by_id = {t["id"]: TaskState(**t) for t in plan}
    critical_failure = next(
        (t for t in by_id.values() if t["status"] == "failed" and t["critical"]), None
    )
    changed = True
    while changed:
        changed = False
        for t in by_id.values():
            if t["status"] != "pending":
                continue
            blocked = [d for d in t["depends_on"] if by_id[d]["status"] in TERMINAL - {"completed"}]
            if blocked:
                dep = by_id[blocked[0]]
                t["status"], t["ended_at"] = "skipped", now
                t["error"] = f"{dep['id']} {_ENDED_AS[dep['status']]}"
                changed = True
    if critical_failure is not None:
        for t in by_id.values():
            if t["status"] == "pending":
                t["status"], t["ended_at"] = "cancelled", now
                t["error"] = f"critical task {critical_failure['id']} failed"
    return [by_id[t["id"]] for t in plan]


def ready_tasks(plan: Sequence[TaskState]) -> list[TaskState]:
    """Pending tasks whose dependencies all completed, in plan order."""
    done = {t["id"] for t in plan if t["status"] == "completed"}
    return [t for t in plan if t["status"] == "pending" and set(t["depends_on"]) <= done]


def render_plan(plan: list[TaskState], detailed: bool = False) -> str:
    """The plan as lines with dependencies and statuses (and, when detailed, results)."""
    if not plan:
        return "(none)"
    lines = []
    for t in plan:
        deps = f" after {', '.join(t['depends_on'])}" if t["depends_on"] else ""
        step = f" [direct: {describe_call(t['tool'], t['args'] or {})}]" if t["tool"] else ""
        optional = "" if t["critical"] else " (optional)"
        line = f"- {t['id']} [{t['status']}] ({t['expert']}{deps}){optional}: {t['task']}{step}"
        if detailed:
            if t["result"]:
                line += f"\n   result: {t['result']}"
            if t["error"]:
                line += f"\n   error: {t['error']}"
            if t["declined"]:
                line += f"\n   declined by the user: {'; '.join(t['declined'])}"
        lines.append(line)
    return "\n".join(lines)


def describe_call(name: str, args: dict[str, Any]) -> str:
    """A compact `tool(args)` rendering for messages and summaries."""
    return f"{name}({json.dumps(args, ensure_ascii=False, sort_keys=True)})"
