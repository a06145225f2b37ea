"""What a person reads when the planner's model sends no usable plan: its words, in short.

A small model (SmolLM2-135M on llama.cpp) may answer the planner's request with text that is no
plan ("Answer: Please answer in a more formal and professional tone."), name what it read in
its instructions as the parts no expert can do (`functions.PlannerResult`, from the server's
chat format; the schema's field names), recite its instructions as its question back (the check
`common.model_text.repeats_instructions`, which the answer writer's text goes through too), or
send a plan whose tasks do not fit the experts. The
model is asked again with the problems in the terms it was given (it needs the field names);
after the last attempt the person is told in words what the model sent, quoted as it sent it
(unescaped once, `common.model_text`) and cut to `QUOTE_CHARS`, and that a larger model may
be needed. Internal names (the schema's, its fields', the graph's nodes') never reach the
person: a quote shows `…` where the model repeated one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from common.model_text import repeats_instructions, unescaped
from common.safety.quoting import one_line
from common.structured import JSON_MODE_INSTRUCTION
from strategies.with_planner.plans import PlannedStep, PlannerResult
from strategies.with_planner.prompts import PLANNER_INSTRUCTIONS

NODE_NAMES = (
    "generate_response",
    "call_tool",
    "assess_task",
    "irreversibility_check",
    "request_approval",
    "await_approval",
)
"""The graph's node names that are no English word (the others are: planner, advance...)."""

_SCHEMAS = (PlannerResult, PlannedStep)

INTERNAL_NAMES = frozenset(
    {
        *(schema.__name__ for schema in _SCHEMAS),
        *(name for schema in _SCHEMAS for name in schema.model_fields if "_" in name),
        "planned_tasks",
        "validate_plan",
        *NODE_NAMES,
    }
)
"""Names from the code and the planner's instructions that mean nothing to a person."""

_NAMED = re.compile(r"\bfunctions\.\w+|\b(?:" + "|".join(sorted(INTERNAL_NAMES)) + r")\b")

IN_WORDS = {
    "args_json": "arguments",
    "depends_on": "the tasks it depends on",
    "next_task": "the first task to run",
    "not_covered": "the parts no expert can do",
    "clarification": "question",
}
"""How a problem fed back to the model reads to a person, name by name (else "plan")."""

QUOTE_CHARS = 120
"""Characters of the model's answer quoted to the person."""

RECITABLE = (*PLANNER_INSTRUCTIONS, JSON_MODE_INSTRUCTION)
"""Everything the planner's model is told, as constants: what its answer must not recite."""

LARGER_MODEL = "a larger model may be needed ({setting})"
"""The advice after the last attempt; `setting` is the model the planner used, as configured."""


def internal_names(text: str, request: str = "") -> list[str]:
    """The internal names `text` holds that the person's request does not."""
    return list(dict.fromkeys(n for n in _NAMED.findall(text) if n not in request))


def in_words(text: str) -> str:
    """`text` (a problem fed back to the model) with each internal name in words."""
    return _NAMED.sub(lambda m: IN_WORDS.get(m.group(0), "plan"), text)


def recites(text: str, request: str = "") -> bool:
    """Whether the planner model's `text` is mostly its instructions recited (not `request`)."""
    return repeats_instructions(text, RECITABLE, request)


def echoes(result: PlannerResult, request: str) -> tuple[list[str], str]:
    """Problems of an answer that repeats its instructions, and its words.

    A question back or a part "no expert can do" that names the schema or its fields (and the
    request does not), or that mostly recites the instructions, echoes them: it is no plan, and
    the person never reads it.
    """
    parts = [("clarification", result.clarification or "")]
    parts += [("not_covered", part) for part in result.not_covered]
    problems = [
        f"{field} {text!r} {echo}; write parts of the user's request there, in the user's "
        "words, or leave it empty."
        for field, text in parts
        if (echo := _echo(text, request))
    ]
    words = "; ".join(text for _, text in parts if text.strip())
    return problems, (words if problems else "")


def _echo(text: str, request: str) -> str | None:
    """How `text` repeats the instructions (their names, or their words), or None."""
    names = internal_names(text, request)
    if names:
        return f"repeats {', '.join(names)} from your instructions"
    return "repeats your instructions" if recites(text, request) else None


def quote(words: str, kept: frozenset[str] = frozenset()) -> str:
    """The model's words in quotes, on one line, unescaped once, cut to `QUOTE_CHARS`."""
    text = one_line(" ".join(unescaped(words, kept).split()))
    text = _NAMED.sub("…", text)
    return f'"{text[:QUOTE_CHARS]}…"' if len(text) > QUOTE_CHARS else f'"{text}"'


def what_was_sent(said: str | None, kept: frozenset[str] = frozenset(), request: str = "") -> str:
    """What the model's last answer was, in words: no plan (quoted), or a plan with problems."""
    if said is None:
        return "the model's last plan could not be used"
    shown = quote(said, kept)
    if not said.strip():
        return "the model did not send a plan (its answer was empty or unreadable)"
    if not re.search(r"\w", shown.replace("…", "")):
        return "the model did not send a plan; it repeated names from its instructions"
    if recites(unescaped(said, kept), request):
        return "the model did not send a plan; it repeated its instructions"
    return f"the model did not send a plan; it answered {shown}"


def failure(
    attempts: int,
    problems: Sequence[str],
    said: str | None,
    setting: str,
    kept: frozenset[str] = frozenset(),
    request: str = "",
) -> tuple[str, str]:
    """The person's answer and the turn report's one sentence after the last attempt.

    `said` is what the model sent in its own words when it sent no plan (None when it sent a
    plan with `problems`); `setting` names the planner's model, e.g. `MODEL=openai:smollm2`;
    `request` is the person's, which the model may quote.
    """
    what = what_was_sent(said, kept, request)
    larger = LARGER_MODEL.format(setting=setting)
    head = f"I could not make a usable plan after {attempts} attempts: {what}"
    if said is not None:
        return (
            f"{head}. {larger[0].upper()}{larger[1:]}.",
            f"No usable plan after {attempts} attempts: {what}; {larger}.",
        )
    lines = [in_words(p) for p in problems]
    answer = (
        f"{head}:\n"
        + "\n".join(f"- {line}" for line in lines)
        + f"\nPlease rephrase the request, or check the configured experts; {larger}."
    )
    report = f"No usable plan after {attempts} attempts: {what} ({'; '.join(lines)}); {larger}."
    return answer, report
