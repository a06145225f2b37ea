"""Perception: what the planner is shown of the experts' tools, within a token budget.

A catalog whose full description fits the budget is shown whole, exactly as it always was. A
larger one is shown as an index: every expert with its description and how many tools it has,
and in full (parameters and first description line) only the tools that BM25 ranks highest for
the request, best first, while the budget lasts. Experts a rejected plan named are shown whole on
the retry, so no tool is out of the planner's reach; a task without a direct step is carried out
with all of its expert's tools anyway. Ranking is `bm25s`, imported only when a catalog is too
large to show whole (it brings numpy, which small catalogs and the CLI's start-up do without).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, TypeAlias

from common.guardrails.request import estimate_tokens
from strategies.with_planner.prompts import PARTIAL_CATALOG_NOTE

if TYPE_CHECKING:
    from mcp.types import Tool

Catalog: TypeAlias = "Mapping[str, Sequence[Tool] | None]"
"""Every configured expert's tools, None when it is unreachable."""


Shown = set[tuple[str, str]]
"""The (expert, tool) pairs shown in full."""

EXPERT_OVERHEAD = 12
"""Tokens an expert's line gains when its first tool is shown in full (the `tools:` lines)."""


def tool_line(tool: Tool) -> str:
    """`name(arg, ...): first line of the description`."""
    args = ", ".join((tool.input_schema or {}).get("properties", {}))
    first = f": {tool.description.splitlines()[0]}" if tool.description else ""
    return f"{tool.name}({args}){first}"


def describe_catalog(
    descriptions: Mapping[str, str],
    catalog: Catalog,
    errors: Mapping[str, str],
    *,
    request: str,
    budget: int,
    whole: Collection[str] = (),
) -> str:
    """The experts paragraph of the planner prompt: whole when it fits `budget` tokens."""
    full = _render(descriptions, catalog, errors, None, ())
    if estimate_tokens(full) <= budget:
        return full
    base = _render(descriptions, catalog, errors, set(), whole)
    shown = select_tools(request, descriptions, catalog, budget - estimate_tokens(base), whole)
    return _render(descriptions, catalog, errors, shown, whole) + PARTIAL_CATALOG_NOTE


def select_tools(
    request: str,
    descriptions: Mapping[str, str],
    catalog: Catalog,
    budget: int,
    whole: Collection[str] = (),
) -> Shown:
    """The best-ranked tools for `request` whose lines fit in `budget` tokens, in turns.

    Each expert's best tool comes first (experts by their best score), then each one's second:
    a request with several parts gets tools for each part, not the closest part's every tool.
    """
    shown: Shown = set()
    opened: set[str] = set()
    for expert, tool in _in_turns(rank_tools(request, descriptions, catalog)):
        if expert in whole:
            continue
        overhead = 0 if expert in opened else EXPERT_OVERHEAD
        cost = estimate_tokens(tool_line(tool) + "; ") + overhead
        if cost <= budget:
            shown.add((expert, tool.name))
            opened.add(expert)
            budget -= cost
    return shown


def _in_turns(ranked: list[tuple[str, Tool]]) -> list[tuple[str, Tool]]:
    """Ranked tools reordered: every expert's first, then every expert's second, and so on."""
    place: dict[str, int] = {}
    keyed = []
    for position, (expert, tool) in enumerate(ranked):
        place[expert] = place.get(expert, -1) + 1
        keyed.append(((place[expert], position), (expert, tool)))
    return [pair for _, pair in sorted(keyed, key=lambda item: item[0])]


def rank_tools(
    request: str, descriptions: Mapping[str, str], catalog: Catalog
) -> list[tuple[str, Tool]]:
    """The reachable tools that share a term with `request`, best BM25 score first."""
    import bm25s

    # bm25s sets its own logger to DEBUG on import, which would print through the app's handlers.
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    pairs = list(_reachable(catalog))
    if not pairs or not request.strip():
        return []
    texts = [_document(expert, descriptions.get(expert, ""), tool) for expert, tool in pairs]
    options = {"stopwords": "en", "return_ids": False, "show_progress": False}
    corpus = bm25s.tokenize(texts, **options)
    query = bm25s.tokenize(request, **options)[0]
    index = bm25s.BM25()
    index.index(corpus, show_progress=False)
    scores = index.get_scores(query) if query else [0.0] * len(pairs)
    order = sorted(range(len(pairs)), key=lambda i: -float(scores[i]))
    return [pairs[i] for i in order if scores[i] > 0]


def _reachable(catalog: Catalog) -> Iterator[tuple[str, Tool]]:
    for expert, tools in catalog.items():
        for tool in tools or ():
            yield expert, tool


def _document(expert: str, description: str, tool: Tool) -> str:
    """What a tool is ranked on: its expert's name and description, its name and description."""
    text = f"{expert} {description} {tool.name} {tool.description or ''}"
    return text.replace("_", " ").replace("-", " ").replace(".", " ")


def _render(
    descriptions: Mapping[str, str],
    catalog: Catalog,
    errors: Mapping[str, str],
    shown: Shown | None,
    whole: Collection[str],
) -> str:
    """One paragraph per expert; `shown` None lists every tool in full."""
    lines = []
    for name, tools in catalog.items():
        desc = descriptions.get(name) or "(no description)"
        if tools is None:
            lines.append(f"- {name}: {desc} [currently unavailable: {errors[name]}]")
        elif shown is None or name in whole:
            lines.append(_paragraph(name, desc, tools))
        else:
            listed = [t for t in tools if (name, t.name) in shown]
            lines.append(_indexed(name, descriptions.get(name, ""), len(tools), listed))
    return "\n".join(lines) or "(no experts configured)"


def _paragraph(name: str, desc: str, tools: Sequence[Tool]) -> str:
    """An expert with every tool in full."""
    return f"- {name}: {desc}\n  tools: " + "; ".join(tool_line(t) for t in tools)


def _indexed(name: str, desc: str, count: int, listed: Sequence[Tool]) -> str:
    """An expert with the tools `listed` in full and a count of the others."""
    hidden = count - len(listed)
    head = f"- {name}: {desc + ' ' if desc else ''}({count} tool{'' if count == 1 else 's'}"
    if not listed:
        return head + ")"
    more = f", {hidden} not listed" if hidden else ""
    return f"{head}{more})\n  tools: " + "; ".join(tool_line(t) for t in listed)
