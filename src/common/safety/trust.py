"""Remembered approvals ("don't ask again"): which tools a user chose not to be asked about.

A reviewer may approve a held call and remember it for that tool. The choice is kept in the
LangGraph store (so it lives wherever the graph's store does: SQLite, PostgreSQL, Aegra), under
`("mcp_planner", "trust", <user>)`, one entry per server identity and tool name. An entry keeps
a digest of the tool's definition as it was when the reviewer chose: if the server later changes
the tool's name, description, input schema or annotations (a "rug pull": the tool that was
trusted is not the tool offered now), the entry no longer applies and the call is asked about
again, saying why.

Only a hold that comes from the tool itself (its verdict) may be remembered. A hold decided by
the call's arguments (a destructive argument) or by data leaving (another expert's results in an
open-world call) is about this one call, so no remembered approval clears it (`may_remember`).
A remembered approval only stands in for a question: it never changes what `auto` and
`plan_only` do (`consulted`).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, get_args
from urllib.parse import urlsplit

from common.guardrails.secrets import mask_secrets
from common.mcp.config import ServerConfig
from common.safety.approval import RememberOffer
from common.safety.classify import VerdictSource
from common.safety.definitions import canonical as _canonical
from common.safety.definitions import seen_of, tool_digest, tool_parts, what_changed
from common.safety.definitions import sha256 as _sha256
from common.safety.gate import GateDecision
from common.safety.policy import action_for
from common.served.identity import ROOT as IDENTITY_ROOT
from common.served.identity import user_namespace

if TYPE_CHECKING:
    from langgraph.store.base import BaseStore
    from mcp.types import Tool

REMEMBERABLE: frozenset[str] = frozenset(get_args(VerdictSource))
"""Gate sources a remembered approval may clear: the tool's own verdict, never a per-call rule."""

PARTS = ("description", "schema", "annotations")
"""The parts of a tool's definition a digest is kept for, to say which one changed."""

SUMMARY_CHARS = 120
"""How much of a tool's description an entry keeps, to show what was trusted."""

ROOT = (IDENTITY_ROOT, "trust")
"""The namespace prefix of every user's remembered approvals."""


class TrustEntry(RememberOffer):
    """One remembered approval as the store keeps it."""

    user: str
    """Whose choice it is."""
    expert: str
    """The expert (server) name it was given under; revoke and list use it."""
    tool: str
    """Tool name."""
    since: str
    """When it was given (ISO 8601, UTC)."""


@dataclass(frozen=True)
class Changed:
    """An entry for this server and tool whose definition has changed since it was kept."""

    entry: TrustEntry
    """The entry as stored."""
    parts: tuple[str, ...]
    """Which parts of the definition differ (`description`, `schema`, `annotations`)."""
    what: str
    """What changed, in one line with the server's values quoted (`what_changed`)."""

    def reason(self) -> str:
        """Why the call is asked about again, appended to the approval's reason."""
        changed = "/".join(self.parts) or "its digest"
        return (
            f"you chose not to be asked again for this tool on {self.entry['since'][:10]}, but its "
            f"definition changed since ({changed}): {self.what}; so it is asked again (approve "
            "with remember to trust the new definition)"
        )


def may_remember(decision: GateDecision) -> bool:
    """Whether a remembered approval may clear this hold: only one decided by the tool itself."""
    return decision.needs_approval and decision.source in REMEMBERABLE


def consulted(mode: object, decision: GateDecision) -> bool:
    """Whether remembered approvals are looked up for a call: a rememberable hold that would ask."""
    return may_remember(decision) and action_for(mode, True) == "ask"


def namespace(user: str) -> tuple[str, ...]:
    """Where a user's remembered approvals live: `("mcp_planner", "trust", <user label>)`."""
    return user_namespace("trust", user)


def server_identity(config: ServerConfig) -> dict[str, Any]:
    """What makes a server the same server: its command, args and cwd, its URL, or its name.

    Environment and headers are left out: they hold secrets and rotate without the server
    changing. `cwd` counts because the same relative command in another folder is another server.
    """
    if config.url:
        return {"url": config.url}
    if config.inprocess:
        return {"inprocess": config.inprocess}
    return {"command": config.command or "", "args": list(config.args), "cwd": config.cwd}


def shown_identity(config: ServerConfig) -> str:
    """The server's identity as `trust list` shows it: no query, password or known secret."""
    if config.url:
        parts = urlsplit(config.url)
        return f"{parts.scheme}://{parts.hostname or ''}{parts.path}"
    if config.inprocess:
        return f"inprocess:{config.inprocess}"
    return mask_secrets(shlex.join([config.command or "", *config.args]))[0]


def offer_for(config: ServerConfig, tool: Tool) -> RememberOffer:
    """What remembering an approval of `tool` on this server would keep."""
    return RememberOffer(
        server=_sha256(_canonical(server_identity(config))),
        identity=shown_identity(config),
        digest=tool_digest(tool),
        parts=tool_parts(tool),
        summary=(tool.description or "").strip()[:SUMMARY_CHARS],
        definition=seen_of(tool),
    )


def entry_key(server: str, tool: str) -> str:
    """The store key of a server's tool: a digest, safe for every store backend."""
    return _sha256(f"{server}\n{tool}")


def entry_of(user: str, expert: str, tool: str, offer: RememberOffer) -> TrustEntry:
    """The stored entry: who, which expert and tool, the digests, when, and what was trusted."""
    since = datetime.now(UTC).isoformat(timespec="seconds")
    return TrustEntry(user=user, expert=expert, tool=tool, since=since, **offer)


async def remembered(
    store: BaseStore, user: str, config: ServerConfig, tool: Tool
) -> TrustEntry | Changed | None:
    """The user's remembered approval of `tool` on this server, if it still applies.

    The entry when the definition is unchanged; Changed when an entry exists but the definition
    differs (a rug pull); None when there is none.
    """
    offer = offer_for(config, tool)
    item = await store.aget(namespace(user), entry_key(offer["server"], tool.name))
    if item is None:
        return None
    entry: TrustEntry = item.value  # type: ignore[assignment]
    if entry.get("digest") == offer["digest"]:
        return entry
    kept = entry.get("parts") or {}
    # Entries kept before definitions were: their summary is the description they trusted.
    before = entry.get("definition") or {"parts": kept, "description": entry.get("summary", "")}
    parts = tuple(p for p in PARTS if kept.get(p) != offer["parts"][p])
    return Changed(entry, parts, what_changed(before, tool))


async def remember(
    store: BaseStore, user: str, expert: str, tool: str, offer: RememberOffer
) -> None:
    """Keep the user's choice not to be asked again for `tool` as `offer` describes it.

    Idempotent (same key, same value but its time): a node re-run after a resume may repeat it.
    """
    value = dict(entry_of(user, expert, tool, offer))
    await store.aput(namespace(user), entry_key(offer["server"], tool), value, index=False)


async def entries(store: BaseStore, user: str | None = None) -> list[TrustEntry]:
    """Remembered approvals of `user` (every user's when None), oldest first."""
    prefix = namespace(user) if user is not None else ROOT
    found: list[TrustEntry] = []
    offset = 0
    while True:
        page = await store.asearch(prefix, limit=100, offset=offset)
        found += [i.value for i in page]  # type: ignore[misc]
        if len(page) < 100:
            break
        offset += 100
    return sorted(found, key=lambda e: (e["since"], e["expert"], e["tool"]))


async def revoke(
    store: BaseStore, user: str, expert: str | None = None, tool: str | None = None
) -> list[TrustEntry]:
    """Forget the user's remembered approvals of `tool` on `expert` (all when both are None).

    Returns what was forgotten; nothing matching is an empty list, for the caller to report.
    """
    gone = [
        e
        for e in await entries(store, user)
        if (expert is None or e["expert"] == expert) and (tool is None or e["tool"] == tool)
    ]
    for e in gone:
        await store.adelete(namespace(user), entry_key(e["server"], e["tool"]))
    return gone
