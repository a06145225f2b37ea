"""Every model-facing schema fits OpenAI's and Azure's strict subsets and Gemini's subset."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal, NotRequired

import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from common.safety.verdict import IrreversibilityAnalysis
from common.strict_schema import (
    DIALECTS,
    Dialect,
    StrictSchemaError,
    response_format,
    strict_json_schema,
    strict_problems,
)
from strategies.with_planner.nodes.assess import Assessment
from strategies.with_planner.plans import PlannerResult

SRC = Path(__file__).resolve().parents[2] / "src"

MODEL_FACING: dict[str, type[BaseModel]] = {
    "PlannerResult": PlannerResult,
    "IrreversibilityAnalysis": IrreversibilityAnalysis,
    "Assessment": Assessment,
}
"""Every class a model is asked to answer in."""


def test_every_structured_call_in_the_code_asks_for_a_checked_class() -> None:
    asked = set()
    for path in SRC.rglob("*.py"):
        text = path.read_text()
        asked |= set(
            re.findall(
                r"(?:structured_call|ainvoke_structured)\(\s*[^,()]+(?:\([^)]*\))?,\s*(\w+)", text
            )
        )
    asked -= {"schema"}  # the helpers' own parameter
    assert asked == set(MODEL_FACING)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("name", MODEL_FACING)
def test_the_schema_sent_fits_the_dialect(name: str, dialect: Dialect) -> None:
    sent = response_format(MODEL_FACING[name])
    assert sent["name"] == name
    assert sent["strict"] is True
    assert strict_problems(sent["schema"], dialect) == []
    assert '"default"' not in repr(sent["schema"]).replace("'", '"')


def test_the_schema_is_built_once_and_handed_out_as_a_copy() -> None:
    first = strict_json_schema(PlannerResult)
    first["properties"].clear()
    assert strict_json_schema(PlannerResult)["properties"]


# --- yesterday's schemas, as the providers refused them ------------------------------------------


class OldTask(TypedDict):
    """The planner task as it was: optional keys with defaults, `args` an open object."""

    id: str
    critical: NotRequired[Annotated[bool, Field(default=True)]]
    args: NotRequired[Annotated[dict[str, Any] | None, Field(default=None)]]


class OldPlannerResult(BaseModel):
    """The planner's answer as it was."""

    plan: list[OldTask] = Field(default_factory=list)
    next_task: int = Field(default=0, ge=0)


class OldAnalysis(BaseModel):
    """The analyser's answer as it was: `reasons` an open map."""

    irreversible: bool
    reasons: dict[str, str] = Field(default_factory=dict)


def test_the_old_planner_schema_is_refused_where_openai_refused_it() -> None:
    schema = OldPlannerResult.model_json_schema()
    problems = strict_problems(schema, "openai")
    assert (
        "$defs/OldTask/properties/args/anyOf/0: additionalProperties must be supplied and be false"
        in problems
    )
    assert "$defs/OldTask/properties/critical: keyword 'default' is not supported" in problems
    assert "$defs/OldTask: every property must be required; not: ['args', 'critical']" in problems
    assert "(root): additionalProperties must be supplied and be false" in problems
    # `ge=0` is `minimum`: OpenAI takes it, Azure does not.
    assert not any("'minimum'" in p for p in problems)
    assert "properties/next_task: keyword 'minimum' is not supported" in strict_problems(
        schema, "azure"
    )
    with pytest.raises(StrictSchemaError, match="OldPlannerResult's schema is not in the strict"):
        strict_json_schema(OldPlannerResult)


def test_an_open_map_is_refused() -> None:
    problems = strict_problems(OldAnalysis.model_json_schema(), "azure")
    assert "properties/reasons: additionalProperties must be supplied and be false" in problems


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ({"anyOf": [{"type": "object"}]}, "the root must be an object, not anyOf"),
        (
            {
                "type": "object",
                "properties": {"x": {"$ref": "#/$defs/X", "description": "d"}},
                "required": ["x"],
                "additionalProperties": False,
                "$defs": {"X": {"type": "string"}},
            },
            "properties/x: $ref with sibling keywords ['description']",
        ),
        (
            {
                "type": "object",
                "properties": {"x": {"type": "string", "format": "uri"}},
                "required": ["x"],
                "additionalProperties": False,
            },
            "properties/x: format 'uri' is not supported",
        ),
        (
            {
                "type": "object",
                "properties": {"x": {"allOf": [{"type": "string"}]}},
                "required": ["x"],
                "additionalProperties": False,
            },
            "properties/x: keyword 'allOf' is not supported",
        ),
    ],
)
def test_outside_the_subset_is_named(schema: dict[str, Any], problem: str) -> None:
    assert problem in strict_problems(schema, "openai")


def _nested(levels: int) -> dict[str, Any]:
    """An object nested `levels` deep."""
    node: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        node = {
            "type": "object",
            "properties": {"x": node},
            "required": ["x"],
            "additionalProperties": False,
        }
    return node


def test_nesting_is_limited_to_ten_levels() -> None:
    assert strict_problems(_nested(10), "openai") == []
    assert any("nested deeper than 10 levels" in p for p in strict_problems(_nested(11)))


class Branch(BaseModel):
    """A step nesting its follow-ups: a constant, and a cycle through a required property."""

    kind: Literal["step"]
    then: list[Branch]


class Tree(BaseModel):
    """An answer made of branches: in OpenAI's and Azure's strict subsets, not in Gemini's."""

    root: Branch


def test_a_class_only_gemini_would_refuse_is_refused_where_schemas_are_built() -> None:
    assert strict_problems(Tree.model_json_schema(), "gemini") == [
        "$defs/Branch/properties/kind: keyword 'const' is not supported",
        "#/$defs/Branch: $ref '#/$defs/Branch' closes a cycle through required properties only",
    ]
    with pytest.raises(StrictSchemaError) as refused:
        strict_json_schema(Tree)
    assert "gemini: $defs/Branch/properties/kind: keyword 'const'" in str(refused.value)
    assert "openai:" not in str(refused.value)
    assert "azure:" not in str(refused.value)
