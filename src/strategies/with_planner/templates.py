"""`${...}` templates in direct-step arguments: results of earlier tasks, and date ranges.

`${t1.result}` is a task's whole text result (never the trimmed view the model saw);
`${t1.data...}` its structured result, navigated with `.key`, `[N]` and `.*` (maps the rest of
the path over a list); `${step[0]...}` names a task by
its position in the plan. `${dates.last_week.from}` is a date from `dates`. A template
that is the whole value keeps the referenced value's JSON type; inside a longer string it is
rendered as text (JSON for lists and objects).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from strategies.with_planner.dates import resolve_period
from strategies.with_planner.results import FullResult

_TEMPLATE = re.compile(r"\$\{([^}]+)\}")
_REF = re.compile(r"^(?:step\[(\d+)\]|([A-Za-z_][\w-]*))(.*)$")
_SEGMENT = re.compile(r"\.\*|\.([A-Za-z_][\w-]*)|\[(\d+)\]")
_TRIMMED = re.compile(r" … \[\d+ more chars\]$")


class TemplateError(ValueError):
    """A template that cannot be resolved; the message names the task, template and path."""


def _walk(value: Any, segments: list[str], template: str, task_id: str, done: str) -> Any:
    for i, seg in enumerate(segments):
        if seg == ".*":
            if not isinstance(value, list):
                raise TemplateError(
                    f"task {task_id!r}: {template} maps '.*' over {done or 'the value'}, "
                    f"which is not a list"
                )
            rest = segments[i + 1 :]
            return [
                _walk(item, rest, template, task_id, f"{done}[{n}]") for n, item in enumerate(value)
            ]
        if seg.startswith("["):
            index = int(seg[1:-1])
            if not isinstance(value, list) or index >= len(value):
                raise TemplateError(
                    f"task {task_id!r}: {template} has no {done}{seg} "
                    f"(path {done or 'value'} is not a list of more than {index} items)"
                )
            value = value[index]
        else:
            key = seg[1:]
            if not isinstance(value, Mapping) or key not in value:
                keys = ", ".join(map(str, value)) if isinstance(value, Mapping) else "none"
                raise TemplateError(
                    f"task {task_id!r}: {template} has no {done}{seg} (keys there: {keys})"
                )
            value = value[key]
        done += seg
    return value


def _split(expr: str) -> tuple[str | int, list[str]]:
    match = _REF.match(expr.strip())
    if not match:
        raise TemplateError(f"malformed template ${{{expr}}}")
    ref: str | int = int(match.group(1)) if match.group(1) is not None else match.group(2)
    rest = match.group(3)
    segments = [m.group(0) for m in _SEGMENT.finditer(rest)]
    if "".join(segments) != rest:
        raise TemplateError(f"malformed path in template ${{{expr}}}")
    return ref, segments


def date_problems(value: Any) -> list[str]:
    """Date templates of a value that name no known period (checked before anything runs)."""
    problems = []
    for text in _strings(value):
        for expr in _TEMPLATE.findall(text):
            ref, segments = _split(expr)
            if ref != "dates":
                continue
            try:
                resolve_period(segments[0][1:] if segments else "", date.today())
            except ValueError as exc:
                problems.append(f"${{{expr}}}: {exc}")
    return problems


def referenced_tasks(value: Any, order: Sequence[str]) -> set[str]:
    """Ids of the tasks a value's templates refer to (`step[N]` mapped through `order`)."""
    refs: set[str] = set()
    for text in _strings(value):
        for expr in _TEMPLATE.findall(text):
            ref, _ = _split(expr)
            if ref == "dates":
                continue
            if isinstance(ref, int):
                refs.add(order[ref] if ref < len(order) else f"step[{ref}]")
            else:
                refs.add(ref)
    return refs


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _lookup(
    expr: str,
    outputs: Mapping[str, Mapping[str, Any]],
    order: Sequence[str],
    task_id: str,
    today: date,
) -> Any:
    template = f"${{{expr}}}"
    ref, segments = _split(expr)
    if ref == "dates":
        if len(segments) != 2:
            raise TemplateError(f"task {task_id!r}: {template} must be ${{dates.<period>.from|to}}")
        try:
            period = resolve_period(segments[0][1:], today).as_dict()
        except ValueError as exc:
            raise TemplateError(f"task {task_id!r}: {template}: {exc}") from exc
        return _walk(period, segments[1:], template, task_id, "")
    if isinstance(ref, int):
        if ref >= len(order):
            raise TemplateError(f"task {task_id!r}: {template} names step {ref}, beyond the plan")
        ref = order[ref]
    if ref not in outputs:
        raise TemplateError(f"task {task_id!r}: {template} refers to {ref!r}, which has no result")
    return _walk(_whole(outputs[ref], ref, template, task_id), segments, template, task_id, "")


def _whole(out: Mapping[str, Any], ref: str, template: str, task_id: str) -> dict[str, Any]:
    """A dependency's `{result, data}` with its whole text: a template never gets a trimmed one."""
    full: FullResult | None = out.get("full")
    text = out.get("result")
    if full is not None:
        if full["text"] is None:
            raise TemplateError(
                f"task {task_id!r}: {template}: the full result of {ref!r} "
                f"({full['chars']} chars) is kept in the store and could not be read back"
            )
        text = full["text"]
    elif isinstance(text, str) and _TRIMMED.search(text):
        raise TemplateError(
            f"task {task_id!r}: {template}: the result of {ref!r} was trimmed and its whole "
            "text was not kept; use a direct step (or its ${...data} fields) to pass it on"
        )
    return {"result": text, "data": out.get("data")}


def resolve(
    value: Any,
    outputs: Mapping[str, Mapping[str, Any]],
    order: Sequence[str],
    task_id: str,
    today: date,
) -> Any:
    """`value` with every template replaced; `outputs` maps task id to {result, data, full}.

    `full` (see `results`) holds the whole text when `result` is only a trimmed view.
    """
    if isinstance(value, Mapping):
        return {k: resolve(v, outputs, order, task_id, today) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, outputs, order, task_id, today) for v in value]
    if not isinstance(value, str):
        return value
    whole = _TEMPLATE.fullmatch(value.strip())
    if whole:
        return _lookup(whole.group(1), outputs, order, task_id, today)

    def render(match: re.Match[str]) -> str:
        """One template inside a longer string, as text (JSON for structured values)."""
        found = _lookup(match.group(1), outputs, order, task_id, today)
        return found if isinstance(found, str) else json.dumps(found, ensure_ascii=False)

    return _TEMPLATE.sub(render, value)
