"""The per-turn LLM analysis: which of the plan's tools are irreversible for this request.

The analyser may add holds to tools nothing else holds, and may clear a hold that only
ignorance placed (the "no signal" default); it never overrides a hold some signal gave.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypeAlias, TypedDict

from langchain_core.messages import AnyMessage, HumanMessage, SystemMessage
from pydantic import ValidationError

from common.mcp.config import ServerConfig
from common.messages import last_request
from common.safety.classify import ToolVerdict, read_only_hint_counts
from common.safety.prompts import IRREVERSIBILITY_SYSTEM_PROMPT
from common.safety.verdict import (
    IrreversibilityAnalysis,
    ParsedVerdict,
    ToolRef,
    from_structured,
    parse_verdict_text,
)
from common.safety.wording import mentions_change
from common.structured import ainvoke_structured

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from mcp.types import Tool

Catalog: TypeAlias = "Mapping[str, Sequence[Tool]]"
"""Server name -> its live tools."""

AnalysisStatus = Literal["skipped", "ok", "error"]
"""Whether the analyser ran, and how it went."""

CONVERSATION_MESSAGES = 6


@dataclass(frozen=True)
class AnalysisOutcome:
    """What the analyser said for this turn, or why nothing usable came back."""

    status: AnalysisStatus
    """skipped (not needed), ok (an answer was understood) or error (safe default applies)."""
    verdict: ParsedVerdict | None = None
    """The understood answer."""
    error: str | None = None
    """Why the answer could not be used."""
    notes: list[str] = field(default_factory=list)
    """Things worth reporting, such as tool names the analyser made up."""


def settled(verdict: ToolVerdict, configs: Mapping[str, ServerConfig]) -> bool:
    """Decided by a signal that outranks the analyser: config, or annotations it trusts."""
    return verdict["source"] == "config" or (
        verdict["source"] == "annotation" and configs[verdict["server"]].trust_annotations
    )


def only_ignorance_holds(verdict: ToolVerdict, tool: Tool) -> bool:
    """Whether the analyser may clear this hold: only the "no signal" default placed it.

    The default holds a tool because nothing says it only reads. A hold any signal gave (config,
    an annotation, a change or destructive word in the name or description) is not ignorance,
    so it is never the analyser's to clear; nor is a description that mentions a change anywhere
    in its first sentence, which the default's own reading may not have weighed.
    """
    return (
        verdict["irreversible"]
        and verdict["source"] == "default"
        and mentions_change(tool.description) is None
    )


def needs_analysis(
    verdicts: Sequence[ToolVerdict], configs: Mapping[str, ServerConfig], catalog: Catalog
) -> bool:
    """Whether the LLM could still change a verdict.

    It may hold an open tool (neither held nor settled by config or trusted annotations) and
    clear one only ignorance holds; when every tool is settled or held by a real signal,
    asking is pointless.
    """
    tools = _by_ref(catalog)
    return any(
        (not v["irreversible"] and not settled(v, configs))
        or only_ignorance_holds(v, tools[(v["server"], v["tool"])])
        for v in verdicts
    )


def _by_ref(catalog: Catalog) -> dict[ToolRef, Tool]:
    """The catalog's tools by (server, tool)."""
    return {(server, t.name): t for server, ts in catalog.items() for t in ts}


def render_catalog(catalog: Catalog) -> str:
    """The catalog as the analyser sees it: real names, descriptions and annotations."""
    lines = []
    for server, tools in catalog.items():
        for t in tools:
            ann = (
                t.annotations.model_dump(exclude_none=True, by_alias=True) if t.annotations else {}
            )
            hints = f" [{json.dumps(ann, sort_keys=True)}]" if ann else ""
            lines.append(f"- {server}/{t.name}: {(t.description or '').strip()}{hints}")
    return "\n".join(lines) or "(no tools)"


def _conversation(messages: Sequence[AnyMessage]) -> str:
    recent = [m for m in messages if m.type in ("human", "ai") and m.content][
        -CONVERSATION_MESSAGES:
    ]
    return "\n".join(f"{m.type}: {str(m.content)[:500]}" for m in recent) or "(empty)"


async def analyse(
    model: BaseChatModel,
    catalog: Catalog,
    plan: str,
    messages: Sequence[AnyMessage],
    timeout_s: float,
) -> AnalysisOutcome:
    """Ask the analyser (never given tools); any failure is an `error` outcome, never raised."""
    names = {server: [t.name for t in tools] for server, tools in catalog.items()}
    request = last_request(messages) or "(no request)"
    prompt = IRREVERSIBILITY_SYSTEM_PROMPT.format(
        catalog=render_catalog(catalog), plan=plan, conversation=_conversation(messages)
    )
    try:
        async with asyncio.timeout(timeout_s):
            out: Any = await ainvoke_structured(
                model,
                IrreversibilityAnalysis,
                [SystemMessage(prompt), HumanMessage(request)],
                include_raw=True,
            )
    except TimeoutError:
        return AnalysisOutcome("error", error=f"the analyser did not answer within {timeout_s:g}s")
    except Exception as exc:
        return AnalysisOutcome("error", error=f"the analyser failed: {type(exc).__name__}: {exc}")
    verdict = _understand(out, names)
    if verdict is None or verdict.irreversible is None:
        return AnalysisOutcome("error", error=f"the analyser's answer was not understood: {out!r}")
    notes = [f"the analyser named unknown tool {n!r} (ignored)" for n in verdict.unknown]
    return AnalysisOutcome("ok", verdict=verdict, notes=notes)


def _understand(out: Any, names: Mapping[str, Sequence[str]]) -> ParsedVerdict | None:
    parsed = out.get("parsed") if isinstance(out, dict) else out
    if isinstance(parsed, IrreversibilityAnalysis):
        return from_structured(parsed, names)
    if isinstance(parsed, dict):
        try:
            return from_structured(IrreversibilityAnalysis.model_validate(parsed), names)
        except ValidationError:
            # Not the exact shape (e.g. a field left out by a server without strict schemas):
            # read loosely, like a JSON answer in text; an unclear verdict still fails closed.
            return parse_verdict_text(json.dumps(parsed), names)
    raw = out.get("raw") if isinstance(out, dict) else None
    text = getattr(raw, "content", None)
    return parse_verdict_text(text, names) if isinstance(text, str) else None


def is_read_only(verdict: ToolVerdict, tool: Tool, config: ServerConfig) -> bool:
    """Read-only for the safe default: cleared by config, or by a `readOnlyHint` that counts.

    Without the analyser an untrusted hint only counts when the name's own verb agrees, so a
    mislabelled tool with a verbless name gets no pass.
    """
    if verdict["source"] == "config" and not verdict["irreversible"]:
        return True
    return read_only_hint_counts(tool, config, strict=True, server=verdict["server"])


def apply_analysis(
    verdicts: Sequence[ToolVerdict],
    outcome: AnalysisOutcome,
    catalog: Catalog,
    configs: Mapping[str, ServerConfig],
) -> list[ToolVerdict]:
    """Final verdicts: deterministic ones, plus what the analyser holds or clears.

    The analyser never flags a tool settled by config or trusted annotations, and clears only
    what ignorance holds (`only_ignorance_holds`) and it names read-only without also naming it
    blocked. The safe default (analyser failed, or said YES naming no known tool) clears
    nothing and holds every tool that is not read-only, except what config cleared.
    """
    tools = _by_ref(catalog)
    final = [ToolVerdict(**v) for v in verdicts]
    verdict = outcome.verdict
    if outcome.status == "skipped":
        return final
    if outcome.status == "error" or verdict is None or _names_no_hold(verdict):
        _safe_default(final, outcome, tools, configs)
        return final
    if verdict.irreversible:
        _hold_flagged(final, verdict, configs)
    _clear_read_only(final, verdict, tools)
    return final


def _names_no_hold(verdict: ParsedVerdict) -> bool:
    """An answer not saying NO that names no known tool to hold: it cannot be acted on."""
    return verdict.irreversible is not False and not verdict.tools


def _safe_default(
    final: list[ToolVerdict],
    outcome: AnalysisOutcome,
    tools: Mapping[ToolRef, Tool],
    configs: Mapping[str, ServerConfig],
) -> None:
    """Hold every tool that is neither held, cleared by config, nor read-only."""
    why = (
        f"safe default: {outcome.error}"
        if outcome.error
        else "safe default: the analyser said the request is irreversible but named no known tool"
    )
    # The safe default spares only what is read-only (or cleared by config), so a write a
    # trusted server calls additive is still held when the analyser cannot be consulted.
    for v in final:
        key = (v["server"], v["tool"])
        if v["irreversible"] or v["source"] == "config":
            continue
        if not is_read_only(v, tools[key], configs[v["server"]]):
            v["irreversible"], v["source"], v["reason"] = True, "default", why


def _hold_flagged(
    final: list[ToolVerdict], verdict: ParsedVerdict, configs: Mapping[str, ServerConfig]
) -> None:
    """Hold the open tools the analyser named blocked."""
    flagged = set(verdict.tools)
    for v in final:
        key = (v["server"], v["tool"])
        if key in flagged and not v["irreversible"] and not settled(v, configs):
            reason = verdict.reasons.get(f"{key[0]}/{key[1]}") or "flagged for this request"
            v["irreversible"], v["source"] = True, "llm"
            v["reason"] = f"the analyser: {reason}"


def _clear_read_only(
    final: list[ToolVerdict], verdict: ParsedVerdict, tools: Mapping[ToolRef, Tool]
) -> None:
    """Clear what only ignorance holds and the analyser names read-only, and not blocked."""
    # Naming a tool in both lists is a contradiction, and a contradiction keeps the hold.
    cleared = set(verdict.read_only) - set(verdict.tools)
    for v in final:
        key = (v["server"], v["tool"])
        if key in cleared and only_ignorance_holds(v, tools[key]):
            reason = verdict.reasons.get(f"{key[0]}/{key[1]}") or "it only reads for this request"
            v["irreversible"], v["source"] = False, "llm"
            v["reason"] = f"cleared by the analyser: {reason}"


class AnalysisRecord(TypedDict):
    """An analysis outcome as graph state keeps it (JSON), with the catalog it was asked about."""

    status: AnalysisStatus
    """skipped, ok or error (see `AnalysisOutcome.status`)."""
    irreversible: bool | None
    """The understood verdict (None without one)."""
    tools: list[list[str]]
    """Flagged [server, tool] pairs."""
    read_only: NotRequired[list[list[str]]]
    """[server, tool] pairs the analyser named read-only (absent in older records: none)."""
    unknown: list[str]
    """Names the answer mentioned that match no catalog tool."""
    reasons: dict[str, str]
    """"server/tool" -> the analyser's reason."""
    error: str | None
    """Why the answer could not be used."""
    notes: list[str]
    """Things worth reporting."""
    catalog: dict[str, list[str]]
    """Server -> a fingerprint of each tool the analyser was shown (what it can speak for)."""


def to_record(outcome: AnalysisOutcome, catalog: Catalog) -> AnalysisRecord:
    """The outcome, as state keeps it, with the tool names of the catalog it judged."""
    verdict = outcome.verdict
    return AnalysisRecord(
        status=outcome.status,
        irreversible=verdict.irreversible if verdict else None,
        tools=[list(ref) for ref in verdict.tools] if verdict else [],
        read_only=[list(ref) for ref in verdict.read_only] if verdict else [],
        unknown=list(verdict.unknown) if verdict else [],
        reasons=dict(verdict.reasons) if verdict else {},
        error=outcome.error,
        notes=list(outcome.notes),
        catalog={server: sorted(map(fingerprint, tools)) for server, tools in catalog.items()},
    )


def fingerprint(tool: Tool) -> str:
    """The tool's name and a digest of everything the analyser reads about it."""
    shown = json.dumps(
        [
            tool.description,
            tool.annotations.model_dump(by_alias=True) if tool.annotations else None,
        ],
        sort_keys=True,
        default=str,
    )
    return f"{tool.name}#{hashlib.sha256(shown.encode()).hexdigest()[:16]}"


def from_record(record: AnalysisRecord) -> AnalysisOutcome:
    """The outcome a record keeps (a record without a verdict gives none)."""
    verdict = None
    if record["status"] == "ok":
        verdict = ParsedVerdict(
            irreversible=record["irreversible"],
            tools=tuple((server, tool) for server, tool in record["tools"]),
            unknown=tuple(record["unknown"]),
            reasons=dict(record["reasons"]),
            read_only=tuple((server, tool) for server, tool in record.get("read_only", [])),
        )
    return AnalysisOutcome(
        record["status"], verdict=verdict, error=record["error"], notes=list(record["notes"])
    )


def covers(record: AnalysisRecord, catalog: Catalog) -> bool:
    """Whether the analyser was shown exactly these servers' tools, as described now.

    The planner may plan on cached tool lists while servers start; verdicts use live ones.
    """
    return all(
        server in record["catalog"] and record["catalog"][server] == sorted(map(fingerprint, tools))
        for server, tools in catalog.items()
    )
