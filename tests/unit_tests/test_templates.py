"""`${...}` templates in direct-step arguments: types kept, text rendered, lists mapped, errors."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from strategies.with_planner.templates import TemplateError, referenced_tasks, resolve

TODAY = date(2025, 10, 12)  # a Sunday
ORDER = ["t1", "t2", "t3"]
OUTPUTS: dict[str, dict[str, Any]] = {
    "t1": {
        "result": "Found 3 shipments.",
        "data": {
            "count": 3,
            "ratio": 0.5,
            "open": True,
            "none": None,
            "items": [
                {"id": "s-1", "tags": ["a", "b"]},
                {"id": "s-2", "tags": []},
                {"id": "s-3", "tags": ["c"]},
            ],
            "site": {"name": "Turin", "code": "TO"},
        },
    },
    "t2": {
        "result": "two facilities",
        "data": [{"id": "f-1", "name": "North"}, {"id": "f-2", "name": "South"}],
    },
}


def fill(value: Any, task_id: str = "t3") -> Any:
    return resolve(value, OUTPUTS, ORDER, task_id, TODAY)


# --- whole values keep their JSON type -------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("${t1.data.count}", 3),
        ("${t1.data.ratio}", 0.5),
        ("${t1.data.open}", True),
        ("${t1.data.none}", None),
        ("${t1.data.site}", {"name": "Turin", "code": "TO"}),
        ("${t1.data.items[0].tags}", ["a", "b"]),
        ("${t1.result}", "Found 3 shipments."),
        (" ${t1.data.count} ", 3),
    ],
)
def test_a_whole_value_template_keeps_the_json_type(template: str, expected: Any) -> None:
    got = fill({"value": template})["value"]
    assert got == expected
    assert type(got) is type(expected)


def test_a_whole_data_reference_is_the_structured_result() -> None:
    assert fill("${t2.data}") == OUTPUTS["t2"]["data"]


def test_templates_in_nested_args_are_resolved_and_other_values_untouched() -> None:
    args = {
        "filters": {
            "site": "${t1.data.site.code}",
            "limit": 10,
            "flags": [True, "${t1.data.open}"],
        },
        "ids": ["${t1.data.items[0].id}", "fixed"],
        "note": None,
    }
    assert fill(args) == {
        "filters": {"site": "TO", "limit": 10, "flags": [True, True]},
        "ids": ["s-1", "fixed"],
        "note": None,
    }


# --- embedded templates render as text -------------------------------------------------------


def test_an_embedded_template_renders_as_text() -> None:
    assert fill("${t1.data.count} shipments at ${t1.data.site.name}") == "3 shipments at Turin"


def test_embedded_lists_and_objects_render_as_json() -> None:
    got = fill("tags=${t1.data.items[0].tags}; site=${t1.data.site}")
    assert got == 'tags=["a", "b"]; site={"name": "Turin", "code": "TO"}'


def test_embedded_non_ascii_text_is_kept() -> None:
    outputs = {"t1": {"result": "ok", "data": {"city": ["Zürich", "Malmö"]}}}
    assert resolve("in ${t1.data.city}", outputs, ["t1"], "t2", TODAY) == 'in ["Zürich", "Malmö"]'


def test_text_without_templates_is_unchanged() -> None:
    assert fill("cost: $5 {not a template}") == "cost: $5 {not a template}"


# --- array mapping and step references -------------------------------------------------------


def test_star_maps_the_rest_of_the_path_over_a_list() -> None:
    assert fill("${t1.data.items.*.id}") == ["s-1", "s-2", "s-3"]


def test_star_can_be_nested() -> None:
    assert fill("${t1.data.items.*.tags.*}") == [["a", "b"], [], ["c"]]


def test_star_over_a_list_result() -> None:
    assert fill("${t2.data.*.name}") == ["North", "South"]


def test_the_seed_step_form_names_a_task_by_its_position() -> None:
    assert fill("${step[1].data.*.id}") == ["f-1", "f-2"]
    assert fill("${step[0].data.items[2].id}") == "s-3"
    assert fill("${step[0].result}") == "Found 3 shipments."


def test_a_mapped_list_embedded_in_text_renders_as_json() -> None:
    assert fill("ids: ${t1.data.items.*.id}") == 'ids: ["s-1", "s-2", "s-3"]'


# --- errors name the task, the template and the path -----------------------------------------


def test_a_missing_key_names_task_template_path_and_the_keys_there() -> None:
    with pytest.raises(TemplateError) as caught:
        fill({"site": "${t1.data.site.city}"}, task_id="t3")
    message = str(caught.value)
    assert "task 't3'" in message
    assert "${t1.data.site.city}" in message
    assert "has no .data.site.city" in message
    assert "keys there: name, code" in message


def test_an_index_past_the_end_is_an_error() -> None:
    with pytest.raises(TemplateError) as caught:
        fill("${t1.data.items[5].id}")
    message = str(caught.value)
    assert "task 't3'" in message
    assert "${t1.data.items[5].id}" in message
    assert "has no .data.items[5]" in message


def test_a_missing_key_inside_a_mapped_list_names_the_item() -> None:
    outputs = {"t1": {"result": "", "data": {"items": [{"id": 1}, {"name": "no id"}]}}}
    with pytest.raises(TemplateError) as caught:
        resolve("${t1.data.items.*.id}", outputs, ["t1"], "t2", TODAY)
    message = str(caught.value)
    assert "task 't2'" in message
    assert "${t1.data.items.*.id}" in message
    assert "has no .data.items[1].id" in message


def test_star_over_something_that_is_not_a_list_is_an_error() -> None:
    with pytest.raises(TemplateError, match=r"maps '\.\*' over \.data\.site, which is not a list"):
        fill("${t1.data.site.*.name}")


def test_a_task_without_a_result_is_an_error() -> None:
    with pytest.raises(TemplateError, match=r"task 't3': \$\{t9\.data\} refers to 't9'"):
        fill("${t9.data}")


def test_a_step_beyond_the_plan_is_an_error() -> None:
    with pytest.raises(TemplateError, match=r"\$\{step\[7\]\.data\} names step 7, beyond the plan"):
        fill("${step[7].data}")


def test_data_of_a_task_that_returned_none_is_an_error_not_a_crash() -> None:
    outputs = {"t1": {"result": "text only", "data": None}}
    with pytest.raises(TemplateError, match=r"has no \.data\.id"):
        resolve("${t1.data.id}", outputs, ["t1"], "t2", TODAY)


@pytest.mark.parametrize("bad", ["${t1.data..id}", "${t1.data.items[x]}", "${1abc}"])
def test_malformed_templates_are_errors(bad: str) -> None:
    with pytest.raises(TemplateError, match="malformed"):
        fill(bad)


# --- dates -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("${dates.today.from}", "2025-10-12"),
        ("${dates.yesterday.to}", "2025-10-11"),
        ("${dates.last_week.from}", "2025-10-05"),
        ("${dates.last_week.to}", "2025-10-12"),
        ("${dates.this_week.from}", "2025-10-06"),
        ("${dates.this_month.from}", "2025-10-01"),
        ("${dates.last_30_days.from}", "2025-09-12"),
    ],
)
def test_date_templates_resolve_against_the_given_day(template: str, expected: str) -> None:
    assert fill(template) == expected


def test_date_templates_embed_in_text() -> None:
    text = "from ${dates.last_week.from} to ${dates.last_week.to}"
    assert fill(text) == "from 2025-10-05 to 2025-10-12"


def test_a_date_template_needs_from_or_to() -> None:
    with pytest.raises(TemplateError, match=r"must be \$\{dates\.<period>\.from\|to\}"):
        fill("${dates.last_week}")
    with pytest.raises(TemplateError, match=r"has no \.until"):
        fill("${dates.last_week.until}")


def test_an_unknown_date_period_is_a_template_error() -> None:
    with pytest.raises(TemplateError) as caught:
        fill("${dates.next_week.from}", task_id="t3")
    assert str(caught.value).startswith(
        "task 't3': ${dates.next_week.from}: unknown date reference 'next_week'"
    )


# --- which tasks a value refers to -----------------------------------------------------------


def test_referenced_tasks_finds_ids_and_maps_step_positions() -> None:
    args = {
        "a": "${t1.data.items.*.id}",
        "b": ["x ${step[1].result}", {"c": "${dates.last_week.from}"}],
        "d": 5,
    }
    assert referenced_tasks(args, ORDER) == {"t1", "t2"}


def test_referenced_tasks_keeps_a_step_beyond_the_plan_visible() -> None:
    assert referenced_tasks("${step[9].data}", ORDER) == {"step[9]"}


def test_referenced_tasks_rejects_malformed_templates() -> None:
    with pytest.raises(TemplateError):
        referenced_tasks({"a": "${t1..x}"}, ORDER)
