"""The gate: the one place that decides whether a tool call may run without a human."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from common.mcp.config import ServerConfig
from common.mcp.errors import ExpertUnavailable
from common.safety.arguments import destructive_intent
from common.safety.classify import ToolVerdict, VerdictSource, classify_tool
from common.safety.leaving import (
    Carried,
    Sources,
    carried_all,
    destination,
    open_world,
    outgoing,
)

if TYPE_CHECKING:
    from mcp.types import Tool

    from common.mcp.registry import ExpertRegistry

GateSource = VerdictSource | Literal["arguments", "data", "unavailable"]
"""Which signal decided a gate check: the tool's verdict, or a per-call rule.

`arguments`: the per-call argument check. `data`: data leaving: text from another expert's
results in an open-world call. `unavailable`: the expert's tools could not be listed and the
guard did not decide this tool, so nothing says what the call does: it is not sent at all.
"""


@dataclass(frozen=True)
class GateDecision:
    """Whether one call needs approval, and why."""

    needs_approval: bool
    """True when the call must not run without an approve or edit decision."""
    reason: str
    """Why, in words a reviewer can check."""
    source: GateSource
    """The signal that decided."""
    carried: frozenset[str] = frozenset()
    """On a data hold, each text of other experts' results the call carries (`expert: text`)."""


PER_CALL_HOLDS: frozenset[str] = frozenset({"arguments", "data"})
"""Gate sources that hold a call for its arguments: an edit may bring one the tool did not."""

LISTED_FINDINGS = 6
"""Texts of other experts' data a data hold names besides the first; the others are counted."""

ASKED_AGAIN = "your edit is held for a reason of its own, so it is asked about again: {hold}"
"""The reason of an edited call asked about again."""


def hold_of(verdict: GateDecision) -> str:
    """A gate decision as a pending call's reason says it (and as an approved edit keeps it)."""
    return f"{verdict.reason} (source: {verdict.source})"


class Gate:
    """Checks calls against this turn's tool verdicts plus their arguments.

    Only verdicts and arguments count: nothing in the conversation or in tool results can
    clear a call, so text injected into a tool result cannot unlock anything. Tool results
    can only hold one more: `sources` (the thread's results by expert) hold an open-world call
    whose arguments carry another expert's data (`common.safety.leaving`).
    """

    def __init__(self, verdicts: Iterable[ToolVerdict], sources: Sources | None = None) -> None:
        self._verdicts = {(v["server"], v["tool"]): v for v in verdicts}
        self._sources = sources

    def knows(self, server: str, name: str) -> bool:
        """Whether this turn's guard decided `name` of `server` (it listed that tool)."""
        return (server, name) in self._verdicts

    def check(
        self,
        server: str,
        name: str,
        args: Mapping[str, Any],
        tools: Mapping[str, Tool],
        config: ServerConfig,
    ) -> GateDecision:
        """Decide for one call of `name` on `server`, whose live tools are `tools`."""
        verdict = self._verdicts.get((server, name))
        tool = tools.get(name)
        if verdict is None and tool is not None:
            # A tool that appeared after the guard ran is classified now, never let through.
            verdict = classify_tool(server, tool, config)
        if verdict is None:
            return GateDecision(False, f"{name!r} is not a tool of {server!r}", "default")
        decided = _by_tool_and_arguments(verdict, name, args, tool)
        leaving = self._leaving(server, name, args, tool, config)
        if leaving is None:
            if not decided.needs_approval:
                self._note_sent(server, name, args, tool)
            return decided
        # A data hold wins the source even over a held tool: an approval remembered for the
        # tool must never let another expert's data out unasked.
        also = (
            f"; the tool itself needs approval too: {decided.reason}"
            if decided.needs_approval
            else ""
        )
        return GateDecision(True, leaving[0] + also, "data", leaving[1])

    def _leaving(
        self,
        server: str,
        name: str,
        args: Mapping[str, Any],
        tool: Tool | None,
        config: ServerConfig,
    ) -> tuple[str, frozenset[str]] | None:
        """Why the call would let another expert's data out, and what it carries; or None."""
        if self._sources is None or config.data_may_leave:
            return None
        why = open_world(name, tool, args)
        if why is None:
            return None
        found = carried_all(args, self._sources, server, destination(server, name, tool, args))
        if not found:
            return None
        clear = f"set data_may_leave: true on server {server!r} to allow it"
        if isinstance(found, str):
            return f"{found} and {why}: {clear}", frozenset()
        first = found[0]
        # When the argument that carries the text is also what reaches outside, name it once.
        why = why.replace(f"its argument {first.argument!r} ", "it ", 1)
        what = f", {first.what}," if first.what else ""
        reason = (
            f"its argument {first.argument!r} carries text from expert {first.expert!r} "
            f"results ({first.excerpt!r}){what}{_also(found[1:])} and {why}: data would leave "
            f"through an open-world call; {clear}"
        )
        return reason, frozenset(f"{c.expert}: {c.text}" for c in found)

    def _note_sent(
        self, server: str, name: str, args: Mapping[str, Any], tool: Tool | None
    ) -> None:
        """Count a call the gate lets through as sent, for this round's later calls.

        Calls of one round are checked before any runs; the thread's record (`Sources.sent`)
        holds the earlier rounds' sends.
        """
        to = destination(server, name, tool, args) if self._sources is not None else None
        if self._sources is not None and to is not None:
            self._sources.note_sent(to, outgoing(args))


def _also(more: list[Carried]) -> str:
    """The other texts a call carries, as its reason names them after the first."""
    if not more:
        return ""
    named = [
        f"{c.excerpt!r} of expert {c.expert!r} in {c.argument!r}"
        + (f" ({c.what})" if c.what else "")
        for c in more[:LISTED_FINDINGS]
    ]
    left = len(more) - len(named)
    counted = f"; and {left} more" if left else ""
    return "; the arguments also carry " + "; ".join(named) + counted + ";"


def _by_tool_and_arguments(
    verdict: ToolVerdict, name: str, args: Mapping[str, Any], tool: Tool | None
) -> GateDecision:
    """The decision of the tool's verdict, then of its arguments' destructive intent."""
    if verdict["irreversible"]:
        return GateDecision(True, verdict["reason"], verdict["source"])
    schema = tool.input_schema if tool is not None else None
    description = tool.description if tool is not None else None
    intent = destructive_intent(name, schema, args, description=description)
    if intent is not None:
        return GateDecision(True, intent, "arguments")
    return GateDecision(False, verdict["reason"], verdict["source"])


async def check_call(
    gate: Gate, registry: ExpertRegistry, expert: str, name: str, args: Mapping[str, Any]
) -> GateDecision:
    """The gate's decision for one call of `expert`, against its live tool list.

    An unreachable expert lists no tools: a call the guard decided this turn is judged on that
    verdict; any other is refused (`unavailable`), since nothing says what it does and the
    server may answer again by the time the call would be sent.
    """
    try:
        tools = {t.name: t for t in await registry.tools(expert)}
    except ExpertUnavailable as unavailable:
        if not gate.knows(expert, name):
            return GateDecision(True, unlisted(expert, name, str(unavailable)), "unavailable")
        tools = {}
    return gate.check(expert, name, args, tools, registry.server(expert))


def unlisted(expert: str, name: str, why: str) -> str:
    """Why a call of `name` is not sent when `expert`'s tools could not be listed (`why`)."""
    return (
        f"the tools of {expert!r} could not be listed, so what {name!r} does is unknown "
        f"({why.rstrip('.')})"
    )


async def sent_to(
    registry: ExpertRegistry, expert: str, name: str, args: Mapping[str, Any]
) -> str | None:
    """Where a call of `expert` that ran sent its arguments (`leaving.destination`), or None."""
    try:
        tools = {t.name: t for t in await registry.tools(expert)}
    except ExpertUnavailable:
        tools = {}
    return destination(expert, name, tools.get(name), args)
