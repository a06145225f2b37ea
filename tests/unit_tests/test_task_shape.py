"""One task shape: the planner's fields are listed once, in Task; TaskState extends them."""

from __future__ import annotations

from typing import get_type_hints

from common.strict_schema import strict_json_schema
from strategies.with_planner.plans import (
    PLANNED_FIELDS,
    PlannerResult,
    Task,
    TaskState,
    new_task_state,
    planned,
    planned_tasks,
    step_answer,
)


def test_every_planner_field_is_on_the_wire_required_and_described() -> None:
    schema = strict_json_schema(PlannerResult)
    step = schema["$defs"]["PlannedStep"]
    wire = [("args_json" if f == "args" else f) for f in PLANNED_FIELDS]
    assert list(step["properties"]) == wire
    assert step["required"] == wire
    assert all(prop.get("description") for prop in step["properties"].values())
    assert all(prop.get("description") for prop in schema["properties"].values())
    assert "default" not in str(schema)


def test_a_task_round_trips_through_its_wire_form() -> None:
    task = Task(id="t2", expert="e", task="x", tool="echo", args={"q": ["${t1.result}", 2]})
    answer = PlannerResult.model_validate(
        {
            "decision": "replace",
            "plan": [step_answer(task)],
            "next_task": 0,
            "clarification": None,
            "not_covered": [],
        }
    )
    assert answer.plan[0].args_json == '{"q": ["${t1.result}", 2]}'
    assert planned_tasks(answer) == ([planned(task)], [])


def test_args_json_that_is_not_a_json_object_is_a_problem_the_planner_can_fix() -> None:
    step = {**step_answer(Task(id="t1", expert="e", task="x", tool="echo")), "args_json": "[1]"}
    broken = {**step, "id": "t2", "args_json": "{oops"}
    answer = PlannerResult(
        decision="replace", plan=[step, broken], next_task=0, clarification=None, not_covered=[]
    )
    _, problems = planned_tasks(answer)
    assert problems[0].startswith("Task 't1': args_json is a JSON list;")
    assert problems[1].startswith("Task 't2': args_json is not valid JSON (")


def test_the_runtime_record_extends_the_planners_fields() -> None:
    assert set(PLANNED_FIELDS) < set(get_type_hints(TaskState))
    assert PLANNED_FIELDS == ("id", "expert", "task", "depends_on", "critical", "tool", "args")


def test_defaults_are_filled_once_for_hand_made_tasks() -> None:
    made = new_task_state(Task(id="t1", expert="e", task="x"))
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
