"""The standard `{"mcpServers": {...}}` document, validated with errors naming server and key.

Relative paths in a config read from a file mean the same from any working directory: they
are anchored to the directory that holds the file (symlinks followed), before validation
(`anchor_to_file`). For each stdio server (one with a `command`):
- a relative `cwd` resolves against the file's directory;
- a server without `cwd` runs in the file's directory, so relative paths in its `args` and
  `env` are relative to the file too;
- a relative `command` with a path separator (`./bin/server`, `servers/x.py`) resolves against
  the file's directory (not against `cwd`); a bare name (`python3`, `npx`) is looked up on PATH
  as before.
Absolute paths and HTTP servers are untouched. A config given as a dict (a run's `mcp_config`)
has no file: its relative paths keep meaning the process's working directory. The resolved
values are what a server's `fingerprint` (the session pool key) hashes, so the same file read
from two places never shares a session by mistake.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    model_validator,
)
from pydantic.types import Strict

Transport = Literal["stdio", "streamable_http", "http", "sse", "inprocess"]
"""MCP transports we connect with (`http` is an alias of `streamable_http`)."""
Protocol = Literal["auto", "legacy", "2026-07-28"]
"""`auto`: the 2026-07-28 revision when the server offers it, else the 2025 handshake;
`legacy`: the handshake only (no `server/discover` probe, which some old servers log at length);
`2026-07-28`: that revision only, without a probe."""

NamePatterns = Annotated[list[StrictStr], Strict()]
"""A JSON list of strings, nothing else: a bare string would otherwise read as its letters."""

_TYPE_RULES = {
    "bool_type": "must be true or false",
    "list_type": "must be a list of strings",
    "string_type": "must be a string",
    "dict_type": "must be an object",
    "int_type": "must be a whole number of seconds",
    "greater_than_equal": "must be 0 or more seconds",
}
"""Plain words for the type errors a config entry can have, by pydantic error type."""


Roles = Annotated[list[StrictStr], Strict()]
"""A JSON list of role names (as tokens and API keys grant them)."""

SECOND_PERSON_NEEDS_APPROVERS = (
    "'second_person' needs 'approvers': name the roles of the other users who may approve"
)
"""Why a second-person rule without approver roles is refused (nobody else could answer)."""


class ApprovalRule(BaseModel):
    """Who may answer questions about the tools a pattern of `approval_rules` matches."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    approvers: Roles | None = None
    """Roles allowed to answer; unset keeps the server's."""
    second_person: StrictBool | None = None
    """The person whose request made the call may not approve it; unset keeps the server's."""
    approval_ttl: StrictInt | None = Field(default=None, ge=0)
    """Seconds a question stays open (0: never expires); unset keeps the server's."""


class McpConfigError(ValueError):
    """An MCP configuration that cannot be used, with a message naming the server and key."""


class ServerConfig(BaseModel):
    """One MCP server (an expert): how to reach it and how far to trust it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    command: str | None = None
    """Executable for a stdio server."""
    args: list[str] = Field(default_factory=list)
    """Arguments of `command`."""
    env: dict[str, str] = Field(default_factory=dict)
    """Environment of a stdio server; added to the MCP SDK's safe defaults, nothing else leaks."""
    cwd: str | None = None
    """Working directory of a stdio server (read from a file: absolute, see the module doc)."""
    url: str | None = None
    """Endpoint of an HTTP server."""
    inprocess: str | None = None
    """Name of a server registered with `common.mcp.inprocess.register_inprocess_server`."""
    transport: Transport | None = None
    """Transport; inferred from `command` (stdio) or `url` (streamable_http) when omitted."""
    protocol: Protocol = "auto"
    """MCP era: `auto` asks `server/discover` and falls back to `initialize`; or one pinned."""
    headers: dict[str, str] = Field(default_factory=dict)
    """HTTP headers sent to an HTTP server."""
    description: str = ""
    """What the expert is for, shown to the planner."""
    # The safety flags are strict: a near miss ("yes", 0, "send_*") is an error, not a guess.
    sandboxed: StrictBool = False
    """The server's effects stay in an isolated workspace, so its tools are reversible."""
    trust_annotations: StrictBool = False
    """Let the server's own MCP annotations clear a tool that other signals flag."""
    irreversible_tools: NamePatterns = Field(default_factory=list)
    """Name patterns (fnmatch) of tools that are always irreversible."""
    reversible_tools: NamePatterns = Field(default_factory=list)
    """Name patterns (fnmatch) of tools that are always reversible."""
    data_may_leave: StrictBool = False
    """Calls to this server may carry other experts' data outside without approval."""
    approvers: Roles = Field(default_factory=list)
    """Roles allowed to answer this server's approval questions (none: the requester only)."""
    second_person: StrictBool = False
    """The person whose request made a call may not approve it; another approver must."""
    approval_ttl: StrictInt | None = Field(default=None, ge=0)
    """Seconds this server's questions stay open (0: never; unset: APPROVAL_TTL_S)."""
    approval_rules: dict[str, ApprovalRule] = Field(default_factory=dict)
    """Per-tool overrides of the three keys above, by tool name pattern (fnmatch, first match)."""

    @model_validator(mode="after")
    def _check_approvers(self) -> ServerConfig:
        if self.second_person and not self.approvers:
            raise ValueError(SECOND_PERSON_NEEDS_APPROVERS)
        for pattern, rule in self.approval_rules.items():
            second = self.second_person if rule.second_person is None else rule.second_person
            roles = self.approvers if rule.approvers is None else rule.approvers
            if second and not roles:
                raise ValueError(f"approval_rules {pattern!r}: {SECOND_PERSON_NEEDS_APPROVERS}")
        return self

    @model_validator(mode="after")
    def _check_endpoint(self) -> ServerConfig:
        if sum(map(bool, (self.command, self.url, self.inprocess))) != 1:
            raise ValueError("give exactly one of 'command' (stdio), 'url' (HTTP) or 'inprocess'")
        if self.command and self.transport not in (None, "stdio"):
            raise ValueError(f"'transport' is {self.transport!r} but 'command' implies stdio")
        if self.url and self.transport == "stdio":
            raise ValueError("'transport' is 'stdio' but 'url' implies an HTTP transport")
        return self

    @property
    def resolved_transport(self) -> Transport:
        """The transport actually used."""
        if self.command:
            return "stdio"
        if self.inprocess:
            return "inprocess"
        return "streamable_http" if self.transport in (None, "http") else self.transport

    def fingerprint(self) -> str:
        """Hash of what identifies the connection, so identical servers share one session."""
        keys = ("command", "args", "env", "cwd", "url", "headers", "inprocess", "protocol")
        raw = json.dumps({k: getattr(self, k) for k in keys}, sort_keys=True)
        return hashlib.sha256(f"{self.resolved_transport}|{raw}".encode()).hexdigest()[:16]


class McpConfig(BaseModel):
    """All configured experts, by server name."""

    model_config = ConfigDict(frozen=True)

    servers: dict[str, ServerConfig]
    """Server name to its configuration."""


def _describe(error: dict[str, Any]) -> str:
    loc = [str(p) for p in error["loc"]]
    if len(loc) >= 2 and loc[0] == "mcpServers":
        where = f"server {loc[1]!r}" + (f", key {'.'.join(loc[2:])!r}" if loc[2:] else "")
    else:
        where = "key " + repr(".".join(loc)) if loc else "document"
    if error["type"] == "extra_forbidden":
        return f"{where}: unknown key{_did_you_mean(loc)}"
    if error["type"] in _TYPE_RULES:
        return f"{where}: {_TYPE_RULES[error['type']]}, got {_shown(error['input'])}"
    return f"{where}: {error['msg']}"


CLOSE_KEY_CUTOFF = 0.75
"""How alike a mistyped key must be to a known one to be suggested (difflib's ratio)."""


def _did_you_mean(loc: list[str]) -> str:
    """A hint naming the known key of the same object closest to the unknown `loc[-1]`, or ""."""
    model: type[BaseModel] = ApprovalRule if "approval_rules" in loc[2:-1] else ServerConfig
    return _closest(loc[-1], list(model.model_fields))


def _closest(key: str, known: list[str]) -> str:
    """A "did you mean" hint when `key` is close to one of `known`, else ""."""
    found = difflib.get_close_matches(key, known, n=1, cutoff=CLOSE_KEY_CUTOFF)
    return f" (did you mean {found[0]!r}?)" if found else ""


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def parse_mcp_config(raw: Any, source: str = "mcp_config") -> McpConfig:
    """Validate a `{"mcpServers": {...}}` object; every problem is named in the error."""
    if not isinstance(raw, dict) or not isinstance(raw.get("mcpServers"), dict):
        typo = _top_level_typo(raw)
        raise McpConfigError(f'{source}: expected an object {{"mcpServers": {{...}}}}{typo}')
    try:
        servers = {
            name: ServerConfig.model_validate(entry) for name, entry in raw["mcpServers"].items()
        }
    except ValidationError as exc:
        raise McpConfigError(_config_errors(raw["mcpServers"], source)) from exc
    return McpConfig(servers=servers)


def _top_level_typo(raw: Any) -> str:
    """A hint for a document whose `mcpServers` key is mistyped, else ""."""
    if not isinstance(raw, dict) or "mcpServers" in raw:
        return ""
    for key in raw:
        if isinstance(key, str) and _closest(key.strip(), ["mcpServers"]):
            return f" (found {key!r}: did you mean 'mcpServers'?)"
    return ""


def _config_errors(servers: dict[str, Any], source: str) -> str:
    lines: list[str] = []
    for name, entry in servers.items():
        try:
            ServerConfig.model_validate(entry)
        except ValidationError as exc:
            errs = exc.errors(include_url=False)
            lines += [_describe({**e, "loc": ("mcpServers", name, *e["loc"])}) for e in errs]
    return f"{source} is invalid: " + "; ".join(lines)


def anchor_to_file(raw: Any, config_file: Path) -> Any:
    """A copy of the document `raw` read from `config_file`, its stdio paths made absolute.

    See the module docstring for the rule. Anything that is not a well-formed stdio entry is
    returned as it is, so validation still reports it in the user's own words.
    """
    if not isinstance(raw, dict) or not isinstance(raw.get("mcpServers"), dict):
        return raw
    base = config_file.resolve().parent
    servers = {name: _anchored(entry, base) for name, entry in raw["mcpServers"].items()}
    return {**raw, "mcpServers": servers}


def _anchored(entry: Any, base: Path) -> Any:
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return entry
    entry = dict(entry)
    command: str = entry["command"]
    if os.sep in command and not os.path.isabs(command):
        entry["command"] = os.path.normpath(base / command)
    cwd = entry.get("cwd")
    if cwd is None:
        entry["cwd"] = str(base)
    elif isinstance(cwd, str) and not os.path.isabs(cwd):
        entry["cwd"] = os.path.normpath(base / cwd)
    return entry


def load_mcp_config(raw: dict[str, Any] | None, path: Path) -> McpConfig:
    """Use `raw` when given, else read the JSON file at `path` (call off the event loop).

    Relative paths in the file are anchored to its directory (`anchor_to_file`); those in
    `raw` are left to the process's working directory.
    """
    if raw is not None:
        return parse_mcp_config(raw)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise McpConfigError(
            f"MCP config file {str(path.absolute())!r} not found: run from the project folder, "
            "or set MCP_CONFIG (or --config) to the file's path."
        ) from exc
    except json.JSONDecodeError as exc:
        raise McpConfigError(f"MCP config file {str(path)!r} is not valid JSON: {exc}.") from exc
    return parse_mcp_config(anchor_to_file(data, path), source=str(path))
