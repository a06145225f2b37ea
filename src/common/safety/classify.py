"""Deterministic tool classification: server config, then MCP annotations, then the name."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from typing import Literal, TypedDict

from mcp.types import Tool

from common.mcp.config import ServerConfig

VerdictSource = Literal["config", "annotation", "heuristic", "llm", "default"]
"""Which signal decided a tool's classification."""

IRREVERSIBLE_VERBS = frozenset(
    " ".join(
        (
            "send post publish delete del remove rm drop truncate write create update insert move",
            "mv rename execute exec run commit push merge transfer pay book cancel purge destroy",
            "kill overwrite replace set put patch upload deploy email tweet reply approve archive",
            "revoke charge refund order submit erase wipe reset modify edit append save store",
        )
    ).split()
)
READ_VERBS = frozenset(
    " ".join(
        (
            "get list read search fetch view describe show find lookup look query count check",
            "inspect stat stats info status preview peek browse explore summarize summarise",
            "current now forecast convert calculate compute validate",
        )
    ).split()
)


class ToolVerdict(TypedDict):
    """The guard's decision on one tool, with where it came from."""

    server: str
    """Expert (MCP server) name."""
    tool: str
    """Tool name as the server lists it."""
    irreversible: bool
    """Whether a call needs a human's approval."""
    source: VerdictSource
    """The signal that decided."""
    reason: str
    """Why, in words a user can check."""


def name_tokens(name: str) -> list[str]:
    """Split a tool name into lower-case words (snake, kebab, dotted and camel case)."""
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", name)
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", spaced)
    return [t for t in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if t]


def with_stems(words: list[str] | set[str]) -> set[str]:
    """The words plus their stems without -s/-es/-d/-ed, so "Deletes" meets "delete"."""
    stems = {w.removesuffix(s) for w in words for s in ("s", "es", "d", "ed") if w.endswith(s)}
    return set(words) | stems


def _words(text: str) -> set[str]:
    return with_stems(set(re.findall(r"[a-z]+", text.lower())))


def name_verdict(tool: Tool) -> tuple[bool, str] | None:
    """What the tool's name and description say: (irreversible, why), or None when silent."""
    tokens = sorted(with_stems(name_tokens(tool.name)))
    risky = [t for t in tokens if t in IRREVERSIBLE_VERBS]
    if risky:
        return True, f"its name contains {risky[0]!r}"
    if any(t in READ_VERBS for t in tokens):
        return False, "its name reads as a read-only operation"
    first_sentence = (tool.description or "").split(".")[0]
    words = _words(first_sentence)
    if words & IRREVERSIBLE_VERBS:
        return True, f"its description mentions {sorted(words & IRREVERSIBLE_VERBS)[0]!r}"
    if words & READ_VERBS:
        return False, "its description reads as a read-only operation"
    return None


def _config_verdict(tool: str, cfg: ServerConfig) -> tuple[bool, str] | None:
    for pattern in cfg.irreversible_tools:
        if fnmatchcase(tool, pattern):
            return True, f"matches irreversible_tools pattern {pattern!r}"
    for pattern in cfg.reversible_tools:
        if fnmatchcase(tool, pattern):
            return False, f"matches reversible_tools pattern {pattern!r}"
    if cfg.sandboxed:
        return False, "the server is sandboxed: its effects stay in an isolated workspace"
    return None


def _annotation_verdict(tool: Tool, trusted: bool) -> tuple[bool, str] | None:
    ann = tool.annotations
    if ann is None or (ann.readOnlyHint is None and ann.destructiveHint is None):
        return None
    if ann.readOnlyHint:
        return False, "annotated readOnlyHint=true"
    # Per the MCP spec destructiveHint defaults to true for a tool that is not read-only.
    if ann.destructiveHint:
        return True, "annotated destructiveHint=true"
    if ann.destructiveHint is None:
        return True, "annotated readOnlyHint=false; destructiveHint defaults to true"
    if trusted:
        return False, "annotated destructiveHint=false on a trusted server (additive only)"
    return True, "annotated as a write (readOnlyHint=false) on a server whose hints are not trusted"


def classify_tool(server: str, tool: Tool, cfg: ServerConfig) -> ToolVerdict:
    """Classify one tool by the deterministic signals, in order of precedence."""

    def verdict(irreversible: bool, source: VerdictSource, reason: str) -> ToolVerdict:
        return ToolVerdict(
            server=server, tool=tool.name, irreversible=irreversible, source=source, reason=reason
        )

    by_config = _config_verdict(tool.name, cfg)
    if by_config is not None:
        return verdict(by_config[0], "config", by_config[1])
    by_annotation = _annotation_verdict(tool, cfg.trust_annotations)
    by_name = name_verdict(tool)
    if by_annotation is not None:
        cleared = not by_annotation[0]
        # Untrusted hints may make a tool stricter but never clear one the name flags.
        if cleared and not cfg.trust_annotations and by_name is not None and by_name[0]:
            return verdict(True, "heuristic", by_name[1] + " (readOnlyHint not trusted)")
        return verdict(by_annotation[0], "annotation", by_annotation[1])
    if by_name is not None:
        return verdict(by_name[0], "heuristic", by_name[1])
    return verdict(
        True, "default", "no signal says it is read-only, so it is treated as irreversible"
    )


def classify_tools(server: str, tools: list[Tool], cfg: ServerConfig) -> list[ToolVerdict]:
    """Classify every tool of one server."""
    return [classify_tool(server, t, cfg) for t in tools]
