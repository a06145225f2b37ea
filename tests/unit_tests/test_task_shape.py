"""One task shape: the planner's fields are listed once, in Task; TaskState extends them."""

from __future__ import annotations

from typing import get_type_hints

from strategies.with_planner.plans import (
    PLANNED_FIELDS,
    PlannerResult,
    Task,
    TaskState,
    new_task_state,
    planned,
)


def test_every_planner_field_keeps_its_description_in_the_schema() -> None:
    schema = PlannerResult.model_json_schema()
    task = schema["$defs"]["Task"]
    assert set(task["properties"]) == set(PLANNED_FIELDS)
    assert all(prop.get("description") for prop in task["properties"].values())
    assert set(task["required"]) == {"id", "expert", "task"}
    assert task["properties"]["critical"]["default"] is True
    assert all(prop.get("description") for prop in schema["properties"].values())


def test_the_runtime_record_extends_the_planners_fields() -> None:
    assert set(PLANNED_FIELDS) < set(get_type_hints(TaskState))
    assert PLANNED_FIELDS == ("id", "expert", "task", "depends_on", "critical", "tool", "args")


def test_defaults_are_filled_once_for_answers_and_hand_made_tasks() -> None:
    answer = PlannerResult.model_validate({"plan": [{"id": "t1", "expert": "e", "task": "x"}]})
    (validated,) = answer.plan
    made = new_task_state(Task(id="t1", expert="e", task="x"))
    assert validated == planned(made)
    assert made["depends_on"] == []
    assert made["critical"] is True
    assert made["tool"] is None
    assert made["args"] is None
    assert made["status"] == "pending"


def test_a_direct_step_gets_empty_args_and_its_planned_fields_round_trip() -> None:
    made = new_task_state(Task(id="t2", expert="e", task="x", tool="echo", depends_on=["t1"]))
    assert made["args"] == {}
    assert planned(made) == {
        "id": "t2",
        "expert": "e",
        "task": "x",
        "depends_on": ["t1"],
        "critical": True,
        "tool": "echo",
        "args": {},
    }
