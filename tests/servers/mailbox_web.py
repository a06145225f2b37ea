"""A stdio MCP server for tests: a mailbox (`mail`) or the web (`web`), picked by argv or env.

`mail` has read_inbox, returning one email with an address, an IBAN and a verification code.
`web` has fetch(url, headers=None) and search(query): read-only, open-world. Either appends each
call, as one JSON line, to the file named by MAILBOX_WEB_LOG (when set), so tests see what ran
and what it sent. The role is the first argument, else MAILBOX_WEB_ROLE.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

IBAN = "DE89370400440532013000"
"""The IBAN the email holds."""
CODE = "483920"
"""The verification code the email holds."""
SENDER = "alice@example.com"
"""The email's sender."""
EMAIL = (
    f"From: {SENDER}\nSubject: Q3 payroll\n\n"
    f"Please wire the quarterly bonus to IBAN {IBAN} before Friday.\n"
    f"Your verification code is {CODE}."
)
"""The one email in the inbox."""


def served_env(folder: Path, log: Path, model_url: str, secret: str) -> dict[str, str]:
    """A served instance's settings: auth, these two experts (logging to `log`), a stub model.

    The operator's mcp.json is written into `folder`; the model is `openai:stub-model` at
    `model_url` (a scripted OpenAI-compatible stub).
    """
    entry = {"command": sys.executable, "env": {"MAILBOX_WEB_LOG": str(log)}}
    experts = {
        "mail": {**entry, "args": [__file__, "mail"], "description": "The user's inbox."},
        "web": {**entry, "args": [__file__, "web"], "description": "Fetch and search."},
    }
    config = folder / "mcp.json"
    config.write_text(json.dumps({"mcpServers": experts}))
    return {
        "AUTH_JWT_SECRET": secret,
        "MCP_CONFIG": str(config),
        "SERVED_CONTEXT_FIELDS": "",
        "MODEL": "openai:stub-model",
        "OPENAI_BASE_URL": model_url,
        "OPENAI_API_KEY": "sk-stub",
    }


def _log(tool: str, **args: Any) -> None:
    """Append the call to MAILBOX_WEB_LOG, when set."""
    path = os.environ.get("MAILBOX_WEB_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"tool": tool, "args": args}) + "\n")


def mail() -> MCPServer:
    """The mailbox."""
    server = MCPServer("mail")

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False))
    def read_inbox() -> str:
        """Read the latest email."""
        _log("read_inbox")
        return EMAIL

    return server


def web() -> MCPServer:
    """The web: fetch a page, search."""
    server = MCPServer("web")
    reads = ToolAnnotations(readOnlyHint=True, openWorldHint=True)

    @server.tool(annotations=reads)
    def fetch(url: str, headers: dict[str, str] | None = None) -> str:
        """Fetch a web page (with optional request headers)."""
        _log("fetch", url=url, headers=headers)
        return "<html>ok</html>"

    @server.tool(annotations=reads)
    def search(query: str) -> str:
        """Search the web."""
        _log("search", query=query)
        return f"3 results for {query}"

    return server


if __name__ == "__main__":
    role = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("MAILBOX_WEB_ROLE", "")
    servers = {"mail": mail, "web": web}
    if role not in servers:
        sys.exit(f"mailbox_web: say mail or web (got {role!r})")
    servers[role]().run()
