"""`offline:rules`: a deterministic chat model for the keyless demo and CI. Not a language model.

It reads what the graph's prompts already give it. As planner it splits the request into clauses
("and", "then", commas), picks for each the expert and tool whose names and descriptions share
the most words with it (an expert marked unavailable competes by its name and description, and
keeps its clause as a task of its own, which fails saying so), and fills arguments from quoted
strings, SKU-like codes, numbers and `key=value` pairs; an argument it cannot fill from a later
clause takes the previous task's result (`${tN.result}`). It assesses a task by its tool result
and answers by listing results. A clause that begins "ask me" becomes a task whose orchestrator
asks the user that question (`ask_user`) and reports the answer, so the keyless demo shows
questions too.
Limits: one tool per clause, no reasoning, English keywords only.
The chat model that applies these rules is `offline_model.OfflineRulesModel`.
"""

from __future__ import annotations

import re
from typing import Any, cast

from strategies.with_planner.plans import Task, step_answer

OFFLINE_MODEL = "offline:rules"
"""The model spec of this stand-in."""

ANNOUNCEMENT = (
    "Using offline:rules, a deterministic stand-in for a language model (no API key needed): "
    "it handles simple requests by keyword matching; set MODEL for real planning."
)
_SPLIT = re.compile(r"\s*(?:,|;|\.\s|\?\s|\bthen\b|\band\b)\s*", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+")
_TOOL = re.compile(r"([\w.-]+)\(([^)]*)\)(?::\s*([^;]*))?")
_STOP = frozenset(
    (
        *("a", "an", "the", "is", "are", "it", "its", "of", "to", "in", "on", "for", "as"),
        *("with", "how", "many", "much", "what", "me", "my", "please", "save", "that", "answer"),
    )
)
_FREE_TEXT = ("body", "text", "content", "message", "note")
ASK_ME = re.compile(r"^\s*ask me\s+(.+?)\s*\??$", re.IGNORECASE)
"""A clause asking the user a question (`ask me ...`); group 1 is the question."""
_DOWN = re.compile(r"- ([\w.-]+): (.*) \[currently unavailable: ")


def _words(text: str) -> set[str]:
    out = set()
    for w in _WORD.findall(text.lower()):
        if w not in _STOP:
            out.add(w)
            out.add(w.rstrip("s"))
    return out


def parse_experts(prompt: str) -> dict[str, list[tuple[str, list[str], str]]]:
    """Experts and their tools `(name, args, description)` from the planner prompt."""
    experts: dict[str, list[tuple[str, list[str], str]]] = {}
    current = None
    for line in prompt.splitlines():
        head = re.match(r"- ([\w.-]+): ", line)
        if head:
            current = head.group(1)
            experts[current] = []
        elif current and line.strip().startswith("tools:"):
            for m in _TOOL.finditer(line.split("tools:", 1)[1]):
                args = [a.strip() for a in m.group(2).split(",") if a.strip()]
                experts[current].append((m.group(1), args, m.group(3) or ""))
    return experts


def unavailable_experts(prompt: str) -> dict[str, str]:
    """Experts the planner prompt marks unavailable, with their descriptions."""
    return {m.group(1): m.group(2) for m in map(_DOWN.match, prompt.splitlines()) if m}


def _fill(args: list[str], clause: str) -> dict[str, Any]:
    values: dict[str, Any] = {}
    pairs = dict(re.findall(r"(\w+)=(\"[^\"]*\"|\S+)", clause))
    quoted = re.findall(r"[\"“']([^\"”']+)[\"”']", clause)
    codes = re.findall(r"\b[A-Z]{2,}-[A-Z0-9]+\b", clause)
    numbers = re.findall(r"\b\d+(?:\.\d+)?\b", clause)
    for arg in args:
        if arg in pairs:
            values[arg] = pairs[arg].strip('"')
        elif codes and arg in ("sku", "id", "code", "key"):
            values[arg] = codes.pop(0)
        elif quoted and arg not in _FREE_TEXT:
            values[arg] = quoted.pop(0)
        elif numbers and arg in ("count", "limit", "n", "number", "amount", "quantity"):
            values[arg] = float(numbers.pop(0)) if "." in numbers[0] else int(numbers.pop(0))
    return values


def plan_request(request: str, prompt: str) -> dict[str, Any]:
    """A PlannerResult (as a dict) for `request` from the experts listed in `prompt`."""
    experts = parse_experts(prompt)
    down = unavailable_experts(prompt)
    tasks: list[dict[str, Any]] = []
    uncovered: list[str] = []
    for clause in [c for c in _SPLIT.split(request) if c and _words(c)]:
        if ASK_ME.match(clause) and experts:
            tasks.append(
                {"id": f"t{len(tasks) + 1}", "expert": next(iter(experts)), "task": clause}
            )
            continue
        want = _words(clause)
        scored = []
        for expert, tools in experts.items():
            for tool, args, desc in tools:
                overlap = len(want & _words(f"{expert} {tool} {desc}"))
                filled = len(_fill(args, clause))
                # A first task cannot take an earlier result: unfillable arguments count against it.
                unfillable = 0 if tasks else len(args) - filled
                scored.append((overlap + 0.5 * filled - unfillable, overlap, expert, tool, args))
        for expert, description in down.items():
            overlap = len(want & _words(f"{expert} {description}"))
            scored.append((overlap, overlap, expert, "", []))
        best = max(scored, default=None)
        if best is None or best[1] == 0:
            uncovered.append(clause.strip())
            continue
        _, _, expert, tool, args = best
        if not tool:
            # Its expert is down: the task stays with it and fails saying so, never re-routed.
            tasks.append({"id": f"t{len(tasks) + 1}", "expert": expert, "task": clause})
            continue
        values = _fill(args, clause)
        missing = [a for a in args if a not in values]
        task: dict[str, Any] = {"id": f"t{len(tasks) + 1}", "expert": expert, "task": clause}
        if tasks and missing:
            for arg in missing:
                values[arg] = f"${{{tasks[-1]['id']}.result}}"
            task["depends_on"] = [tasks[-1]["id"]]
        task.update(tool=tool, args=values)
        tasks.append(task)
    return {
        "decision": "replace",
        "plan": [step_answer(cast(Task, t)) for t in tasks],
        "next_task": 0,
        "clarification": None,
        "not_covered": uncovered,
    }
