"""Plans: what the planner returns, how it is validated, and how tasks are tracked in state."""

from __future__ import annotations

from typing import Literal, TypedDict

from pydantic import BaseModel, Field

TaskStatus = Literal["pending", "running", "completed", "failed"]
"""Where a task is in its life."""


class Task(BaseModel):
    """One step of a plan, carried out by one expert."""

    id: str = Field(description="Short unique id, e.g. 't1'.")
    """Short unique id, e.g. `t1`."""
    expert: str = Field(description="Name of the expert (MCP server) that does this task.")
    """Name of the expert (MCP server) that does this task."""
    task: str = Field(description="What to do, in plain language, with every needed detail.")
    """What to do, in plain language."""


class PlannerResult(BaseModel):
    """The planner's structured answer."""

    decision: Literal["continue", "replace"] = Field(
        default="replace",
        description="'continue' the previous plan from next_task, or 'replace' it with plan.",
    )
    """Continue the previous plan, or replace it."""
    plan: list[Task] = Field(
        default_factory=list,
        description="Ordered tasks. Empty when the request needs no expert.",
    )
    """Ordered tasks; empty when no expert is needed."""
    next_task: int = Field(default=0, ge=0, description="Index of the first task to run.")
    """Index of the first task to run."""
    clarification: str | None = Field(
        default=None,
        description="A question for the user when the request is too unclear to plan.",
    )
    """A question for the user when the request cannot be planned yet."""


class TaskState(TypedDict):
    """A task as tracked in graph state."""

    id: str
    """Task id."""
    expert: str
    """Expert that does it."""
    task: str
    """What to do."""
    status: TaskStatus
    """Lifecycle status."""
    attempts: int
    """Orchestrate rounds used."""
    result: str | None
    """What the task produced, for the answer."""
    error: str | None
    """Why it failed, in words a user can act on."""
    declined: list[str]
    """Tool calls the user declined during this task."""


def new_task_state(task: Task) -> TaskState:
    """A fresh, pending task."""
    return TaskState(
        id=task.id,
        expert=task.expert,
        task=task.task,
        status="pending",
        attempts=0,
        result=None,
        error=None,
        declined=[],
    )


def validate_plan(result: PlannerResult, experts: list[str]) -> list[str]:
    """Problems that stop a plan from running, each a sentence the planner can fix."""
    problems: list[str] = []
    known = ", ".join(experts) or "(none configured)"
    for t in result.plan:
        if t.expert not in experts:
            problems.append(f"Task {t.id!r} names unknown expert {t.expert!r}; known: {known}.")
    ids = [t.id for t in result.plan]
    for dup in sorted({i for i in ids if ids.count(i) > 1}):
        problems.append(f"Task id {dup!r} is used more than once; ids must be unique.")
    if result.plan and result.next_task >= len(result.plan):
        problems.append(
            f"next_task is {result.next_task} but the plan has {len(result.plan)} task(s)."
        )
    return problems
