"""The tools an orchestrator round is given: at most `MAX_TOOLS`, under provider-safe names.

An expert with more tools than one request may carry (OpenAI takes 128) is given the ones its
task needs most: first those the task's text names and those the task already called (its
history must keep making sense), then the rest as BM25 ranks them for the task
(`perception.rank_tools`, the planner's ranking), then the rest in the expert's order. The
control tools (`ask_user`, `cannot_complete`) are always given and count toward the limit.
Names are bound by `common.mcp.tool_names`, over the whole expert's list, so a tool keeps its
bound name whichever others are given beside it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from common.mcp.tool_names import MAX_TOOLS, ToolNames, bound_spec
from common.tool_schemas import object_schema
from strategies.with_planner.perception import rank_tools

if TYPE_CHECKING:
    from mcp.types import Tool

logger = logging.getLogger(__name__)


class Bound(NamedTuple):
    """What a round binds, and how to read the model's calls back."""

    specs: list[dict[str, Any]]
    """Function specs under bound names, control tools included, at most `MAX_TOOLS`."""
    names: ToolNames
    """The expert's (and the control tools') bound names, both ways."""
    left_out: int
    """How many of the expert's tools were not given (0 unless it has too many)."""


def tool_spec(tool: Tool) -> dict[str, Any]:
    """An MCP tool as an OpenAI-style function spec under its real name."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description or "",
            "parameters": object_schema(tool.input_schema),
        },
    }


def bind_tools_for(
    tools: Sequence[Tool],
    control: Sequence[dict[str, Any]],
    task: str,
    called: Collection[str] = (),
    limit: int = MAX_TOOLS,
) -> Bound:
    """The specs for one round: the best of `tools` for `task`, then the control tools."""
    taken = {t.name for t in tools}
    extra = [c for c in control if c["function"]["name"] not in taken]
    chosen = choose(tools, task, called, max(limit - len(extra), 0))
    names = ToolNames.of([*taken, *(c["function"]["name"] for c in extra)])
    specs = [bound_spec(tool_spec(t), names) for t in chosen]
    specs += [bound_spec(c, names) for c in extra]
    left_out = len(tools) - len(chosen)
    if left_out:
        logger.info("%d of the expert's %d tools left out of the request", left_out, len(tools))
    return Bound(specs, names, left_out)


def choose(tools: Sequence[Tool], task: str, called: Collection[str], room: int) -> list[Tool]:
    """At most `room` of `tools`, in the expert's order: named or called first, then ranked."""
    if len(tools) <= room:
        return list(tools)
    first = [t for t in tools if t.name in called or _named(t.name, task)]
    ranked = [t for _, t in rank_tools(task, {}, {"expert": list(tools)})]
    picked: dict[str, Tool] = {}
    for tool in [*first, *ranked, *tools]:
        if len(picked) >= room:
            break
        picked.setdefault(tool.name, tool)
    return [t for t in tools if t.name in picked]


def _named(name: str, text: str) -> bool:
    """Whether `text` names the tool `name` as a whole word (not inside a longer name)."""
    return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])", text) is not None
