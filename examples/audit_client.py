"""Read the audit trail of a LangGraph API server (`langgraph dev` or Aegra) with the SDK.

Run: python examples/audit_client.py [URL] [--user ID] [--thread ID] [--token TOKEN]

Every question the graph asked and every answer it was given is an item of the server's store
under the namespace ("mcp_planner", "audit", <user>), keyed by time (on Aegra too: aegra.json
keeps that namespace out of its per-user Store API scoping); this prints them oldest first, one
line each. An entry holds a digest of the call's arguments, never the arguments. With auth, the
server decides what the token may read (its owner's entries, or all for an auditor); the token
comes from --token or MCP_PLANNER_TOKEN (never printed). Exit codes: 0 listed, 2 the server
cannot be reached or refused the token.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

import httpx
from langgraph_sdk import get_client
from langgraph_sdk.errors import APIStatusError

PAGE = 100
"""Items asked for per request."""


async def trail(
    url: str, user: str | None, thread: str | None, token: str | None
) -> list[dict[str, Any]]:
    """The audit entries the token may read, oldest first."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    # The graph keeps the trail among its own records: ("mcp_planner", "audit", <user>).
    prefix = ["mcp_planner", "audit", *([user] if user else [])]
    where = {"thread_id": thread} if thread else None
    found: list[dict[str, Any]] = []
    # The SDK retries a refused connection for seconds; a server that is down is told at once.
    async with httpx.AsyncClient(timeout=10) as probe:
        await probe.get(f"{url.rstrip('/')}/ok")
    # api_key=None: the SDK would otherwise send a LANGSMITH_API_KEY of the environment as a key.
    async with get_client(url=url, headers=headers, api_key=None) as client:
        offset = 0
        while True:
            page = await client.store.search_items(prefix, filter=where, limit=PAGE, offset=offset)
            found += [dict(item["value"]) for item in page["items"]]
            if len(page["items"]) < PAGE:
                break
            offset += PAGE
    # An approver's answer is in the owner's trail and the approver's: one event, listed once.
    once = {e["id"]: e for e in found}.values()
    return sorted(once, key=lambda e: (e["at"], e["id"]))


def line_of(entry: dict[str, Any]) -> str:
    """One entry on one line: when, who, thread, what, on which tool, decided how."""
    decided = entry.get("decision") or ""
    why = f" ({entry['why']})" if entry.get("why") else ""
    return (
        f"{entry['at'][:19]} {entry['user']} {entry['thread_id']} {entry['event']} "
        f"{entry['expert']}/{entry['tool']} args={entry['args_digest'][:12]} {decided}{why}"
    ).rstrip()


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", nargs="?", default="http://127.0.0.1:2024", help="server URL")
    parser.add_argument("--user", help="only this user's entries (the store label)")
    parser.add_argument("--thread", help="only this thread's entries")
    parser.add_argument("--token", help="bearer token (default MCP_PLANNER_TOKEN)")
    return parser.parse_args()


if __name__ == "__main__":
    args = _arguments()
    sent = args.token or os.environ.get("MCP_PLANNER_TOKEN") or None
    try:
        entries = asyncio.run(trail(args.url, args.user, args.thread, sent))
    except httpx.TransportError as exc:
        print(f"Cannot reach the server at {args.url}: {exc}; is it running?", file=sys.stderr)
        sys.exit(2)
    except APIStatusError as exc:
        status = exc.response.status_code
        print(
            f"The server at {args.url} refused the request ({status}): "
            "give a token allowed to read the trail with --token or MCP_PLANNER_TOKEN.",
            file=sys.stderr,
        )
        sys.exit(2)
    for entry in entries:
        print(line_of(entry))
    if not entries:
        print("No audit entries: nothing was asked or answered yet.")
