"""Record the tool lists of real, widely used MCP servers into tests/data/tool_catalog.json.

The catalog (with its hand-written labels in tests/data/tool_labels.json, which this script never
touches) measures the deterministic safety guard against tools it did not see when it was written.

Run it from the repository root with the project's interpreter (its ``mcp`` client lists tools):

    .venv/bin/python tests/data/record_tool_catalog.py [--workdir build/tool-catalog] [--only NAME]

or ``make tool-catalog``. It installs the pinned PyPI servers into their own virtual environment
under the workdir (they need mcp 2.x, never the project's .venv) and the pinned npm servers with
``npm install --prefix WORKDIR/npm`` (no browser downloads), starts each server over stdio with
placeholder credentials, temporary directories, and the local PostgreSQL / Redis where a server
connects at start, lists its tools (following pagination cursors) and stops it. ``--only`` (may be
repeated) records just those servers and keeps the other entries of the existing catalog.

The output is deterministic: servers and tools sorted by name, JSON keys sorted, annotations
without unset fields. Nothing is called but ``initialize`` and ``tools/list``.

Sources of other styles. The first 25 servers are mostly vendor and reference servers whose tools
have verb-led snake_case names and descriptions written for an MCP client. Entries recorded later
carry a ``style`` field saying how their tools are written, so figures can be reported per style:

- ``python-functions``: the function docs of the Python classes behind the multi-turn categories of
  the Berkeley Function Calling Leaderboard (PyPI ``bfcl-eval``, the JSON-lines files in
  ``bfcl_eval/data/multi_turn_func_doc/``): a file system with shell-like names (``cat``, ``cd``,
  ``echo``), a math API, messaging, posting, tickets, a trading bot, travel booking, vehicle
  control (camelCase names), web search and three memory backends. Each file is one class and is
  recorded as one server, ``bfcl-<file stem>``. They are not MCP servers, so nothing is started:
  the wheel is fetched with ``pip download --no-deps`` into the workdir (never installed) and the
  files are read from it. Each function doc becomes a tool record: ``name`` and ``description``
  as written (with BFCL's "This tool belongs to ..." preamble where it has one), ``inputSchema``
  from ``parameters`` with BFCL's types mapped to JSON Schema (``dict`` -> ``object``, ``float``
  -> ``number``, ``integer``, ``string``, ``boolean`` and ``array`` as they are, ``tuple`` ->
  ``array``, ``any`` -> no ``type``), recursively through ``properties`` and ``items``, keeping
  ``description``, ``enum``, ``default`` and ``required``; no annotations (BFCL has none), and the
  ``response`` doc is dropped (the guard reads only what a client sees before a call).
- ``llamaindex``: LlamaIndex tool specs (PyPI ``llama-index-tools-*``), classes whose
  ``spec_functions`` are plain Python methods with docstrings; not MCP servers and not BFCL. Each
  spec class is recorded as one source, ``llamaindex-<spec>``: Gmail, Google Calendar, Jira
  issues, Pidgeon (an e-mail inbox of the agent's own), Playwright browser, Slack, Salesforce,
  Shopify and an SQL database. Nothing is installed or imported: the wheel is fetched with ``pip
  download --no-deps`` into the workdir and the spec's module is parsed with ``ast``. Each listed
  method becomes a tool record the way ``BaseToolSpec.to_tool_list`` builds its tools (through
  ``FunctionTool.from_defaults``): ``name`` is the method's name, ``description`` is the name,
  its signature without ``self`` (printed as ``inspect.signature`` prints it, annotations and
  defaults as written in the source) and, on the
  next line, the docstring (dedented, as ``inspect.cleandoc`` gives it), as ``FunctionTool``
  (llama-index-core 0.14) writes it; ``inputSchema`` is an object with one property a parameter,
  typed from its annotation (``str`` -> ``string``, ``int`` -> ``integer``, ``float`` ->
  ``number``, ``bool`` -> ``boolean``, ``List``/``list`` -> ``array``, ``Dict``/``dict`` ->
  ``object``, ``Optional[X]`` as ``X``, anything else or none untyped), a literal default kept
  as ``default``, the parameter's description where the docstring gives one in a form that
  ``FunctionTool`` reads (``:param x:``, ``x (type):``, ``@param x``), and ``required`` listing
  those without a default; no annotations.
- ``calculator``, ``shell``, ``trading``, ``finance``, ``budgeting`` and ``travel``: real MCP
  servers of those kinds from PyPI and npm, started like the others with placeholder settings (an
  allow-list of harmless commands for the shell servers, placeholder keys for the others; the
  trading server builds its tools from the OpenAPI documents it ships).
- ``calendar``, ``email`` and ``crm``: real MCP servers from npm in those domains, started like the
  others: a Google Calendar server and a Gmail server, each given a placeholder OAuth client file
  (and, for Gmail, a placeholder token file) written into the temporary directory, so they start
  without signing in; and HubSpot's own server with a placeholder private-app token.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

REPO = Path(__file__).resolve().parents[2]
CATALOG = REPO / "tests" / "data" / "tool_catalog.json"
POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
REDIS_URL = "redis://127.0.0.1:6379"
LIST_TIMEOUT_S = 90.0
PIP_FLAGS = ("--disable-pip-version-check",)
NPM_FLAGS = ("--loglevel=error", "--no-audit", "--no-fund")

# Variables that keep npm packages from fetching browsers or telemetry at install or start.
NO_DOWNLOAD_ENV = {
    "PUPPETEER_SKIP_DOWNLOAD": "1",
    "PUPPETEER_SKIP_CHROMIUM_DOWNLOAD": "1",
    "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1",
    "PLAYWRIGHT_BROWSERS_PATH": "0",
    "npm_config_audit": "false",
    "npm_config_fund": "false",
    "npm_config_update_notifier": "false",
    "DO_NOT_TRACK": "1",
    "HF_HUB_OFFLINE": "1",
}


@dataclass
class Ctx:
    """Where a server may keep state while it is listed (all of it thrown away afterwards)."""

    workdir: Path
    tmp: Path


@dataclass
class Server:
    """One server to record: its package, pinned version and how to start it."""

    name: str
    registry: str  # "pypi" or "npm"
    package: str
    version: str
    # PyPI: console script in the server's venv; npm: the package's bin name (None: its only bin).
    entry: str | None = None
    args: Callable[[Ctx], list[str]] = field(default=lambda _ctx: [])
    env: Callable[[Ctx], dict[str, str]] = field(default=lambda _ctx: {})
    # PyPI: further requirements installed beside it (a server written for an older mcp).
    extra: tuple[str, ...] = ()
    # How its tools are written (see the module docstring); None for the first, MCP-native ones.
    style: str | None = None


@dataclass
class FuncDocs:
    """One Python class whose function docs a pinned PyPI wheel ships as a JSON-lines file."""

    name: str
    package: str
    version: str
    member: str  # the file's path inside the wheel
    style: str = "python-functions"
    registry: str = "pypi"


BFCL_PACKAGE, BFCL_VERSION = "bfcl-eval", "2026.3.23"
BFCL_DIR = "bfcl_eval/data/multi_turn_func_doc"
BFCL_CLASSES = (
    "gorilla_file_system",
    "math_api",
    "memory_kv",
    "memory_rec_sum",
    "memory_vector",
    "message_api",
    "posting_api",
    "ticket_api",
    "trading_bot",
    "travel_booking",
    "vehicle_control",
    "web_search",
)
FUNC_DOCS: list[FuncDocs] = [
    FuncDocs(f"bfcl-{stem}", BFCL_PACKAGE, BFCL_VERSION, f"{BFCL_DIR}/{stem}.json")
    for stem in BFCL_CLASSES
]


@dataclass
class ToolSpec:
    """One LlamaIndex tool spec class, read from the source of a pinned PyPI wheel."""

    name: str
    package: str
    version: str
    member: str  # the module's path inside the wheel
    cls: str  # the spec class's name in that module
    style: str = "llamaindex"
    registry: str = "pypi"


LLAMAINDEX_SPECS: list[ToolSpec] = [
    ToolSpec(
        "llamaindex-gmail",
        "llama-index-tools-google",
        "0.8.0",
        "llama_index/tools/google/gmail/base.py",
        "GmailToolSpec",
    ),
    ToolSpec(
        "llamaindex-google-calendar",
        "llama-index-tools-google",
        "0.8.0",
        "llama_index/tools/google/calendar/base.py",
        "GoogleCalendarToolSpec",
    ),
    ToolSpec(
        "llamaindex-jira-issue",
        "llama-index-tools-jira-issue",
        "0.4.0",
        "llama_index/tools/jira_issue/base.py",
        "JiraIssueToolSpec",
    ),
    ToolSpec(
        "llamaindex-pidgeon",
        "llama-index-tools-pidgeon",
        "0.1.3",
        "llama_index/tools/pidgeon/base.py",
        "PidgeonToolSpec",
    ),
    ToolSpec(
        "llamaindex-playwright",
        "llama-index-tools-playwright",
        "0.5.0",
        "llama_index/tools/playwright/base.py",
        "PlaywrightToolSpec",
    ),
    ToolSpec(
        "llamaindex-slack",
        "llama-index-tools-slack",
        "0.6.0",
        "llama_index/tools/slack/base.py",
        "SlackToolSpec",
    ),
    ToolSpec(
        "llamaindex-salesforce",
        "llama-index-tools-salesforce",
        "0.6.0",
        "llama_index/tools/salesforce/base.py",
        "SalesforceToolSpec",
    ),
    ToolSpec(
        "llamaindex-shopify",
        "llama-index-tools-shopify",
        "0.6.0",
        "llama_index/tools/shopify/base.py",
        "ShopifyToolSpec",
    ),
    ToolSpec(
        "llamaindex-database",
        "llama-index-tools-database",
        "0.6.0",
        "llama_index/tools/database/base.py",
        "DatabaseToolSpec",
    ),
]


def _git_repo(ctx: Ctx) -> list[str]:
    repo = ctx.tmp / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return ["--repository", str(repo)]


def _fs_root(ctx: Ctx) -> list[str]:
    root = ctx.tmp / "root"
    root.mkdir()
    return [str(root)]


def _cli_dir(_ctx: Ctx) -> dict[str, str]:
    # cli-mcp-server writes its directory into its tool's description: a fixed, empty one.
    root = Path(tempfile.gettempdir()) / "tool-catalog-cli"
    root.mkdir(exist_ok=True)
    return {"ALLOWED_DIR": str(root)}


def _google_oauth(ctx: Ctx) -> Path:
    """A placeholder OAuth client file (Google servers refuse to start without one)."""
    path = ctx.tmp / "gcp-oauth.keys.json"
    client = {
        "client_id": "unused",
        "client_secret": "unused",
        "redirect_uris": ["http://localhost"],
    }
    path.write_text(json.dumps({"installed": client}))
    return path


def _gmail(ctx: Ctx) -> dict[str, str]:
    token = ctx.tmp / "credentials.json"
    token.write_text(json.dumps({"access_token": "unused", "token_type": "Bearer"}))
    return {"GMAIL_OAUTH_PATH": str(_google_oauth(ctx)), "GMAIL_CREDENTIALS_PATH": str(token)}


def _kubeconfig(ctx: Ctx) -> dict[str, str]:
    path = ctx.tmp / "kubeconfig"
    path.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: fake\n"
        "clusters:\n- name: fake\n  cluster:\n    server: https://127.0.0.1:6443\n"
        "contexts:\n- name: fake\n  context:\n    cluster: fake\n    user: fake\n"
        "users:\n- name: fake\n  user:\n    token: unused\n"
    )
    return {"KUBECONFIG": str(path)}


# Tried and left out, because they cannot list their tools offline: mcp-server-qdrant (loads its
# embedding model from a hub at start), @stripe/mcp >= 0.3 (forwards tools/list to Stripe's remote
# server, hence 0.2.5, the last release that serves the toolkit's tools itself), and the docs
# feature of @supabase/mcp-server-supabase (fetches the docs schema while listing).
SERVERS: list[Server] = [
    # PyPI (reference servers and popular third-party ones).
    Server("git", "pypi", "mcp-server-git", "2026.10.19", "mcp-server-git", _git_repo),
    Server(
        "sqlite",
        "pypi",
        "mcp-server-sqlite",
        "2025.4.25",
        "mcp-server-sqlite",
        lambda c: ["--db-path", str(c.tmp / "test.db")],
        extra=("mcp<2",),  # its last release uses the low-level server API that mcp 2 dropped
    ),
    Server("fetch", "pypi", "mcp-server-fetch", "2026.10.24", "mcp-server-fetch"),
    Server(
        "time",
        "pypi",
        "mcp-server-time",
        "2026.10.19",
        "mcp-server-time",
        lambda _c: ["--local-timezone", "UTC"],
    ),
    Server(
        "atlassian",
        "pypi",
        "mcp-atlassian",
        "0.23.1",
        "mcp-atlassian",
        env=lambda _c: {
            "JIRA_URL": "https://example.atlassian.net",
            "JIRA_USERNAME": "unused@example.com",
            "JIRA_API_TOKEN": "unused",
            "CONFLUENCE_URL": "https://example.atlassian.net/wiki",
            "CONFLUENCE_USERNAME": "unused@example.com",
            "CONFLUENCE_API_TOKEN": "unused",
            "TOOLSETS": "all",
        },
    ),
    # npm: the reference servers.
    Server(
        "filesystem", "npm", "@modelcontextprotocol/server-filesystem", "2026.8.31", args=_fs_root
    ),
    Server(
        "memory",
        "npm",
        "@modelcontextprotocol/server-memory",
        "2026.8.31",
        env=lambda c: {"MEMORY_FILE_PATH": str(c.tmp / "memory.json")},
    ),
    Server(
        "everything",
        "npm",
        "@modelcontextprotocol/server-everything",
        "2026.8.31",
        args=lambda _c: ["stdio"],
    ),
    Server(
        "github",
        "npm",
        "@modelcontextprotocol/server-github",
        "2025.4.8",
        env=lambda _c: {"GITHUB_PERSONAL_ACCESS_TOKEN": "unused"},
    ),
    Server(
        "gitlab",
        "npm",
        "@modelcontextprotocol/server-gitlab",
        "2025.4.25",
        env=lambda _c: {
            "GITLAB_PERSONAL_ACCESS_TOKEN": "unused",
            "GITLAB_API_URL": "https://gitlab.example.com/api/v4",
        },
    ),
    Server("puppeteer", "npm", "@modelcontextprotocol/server-puppeteer", "2025.5.12"),
    Server(
        "slack",
        "npm",
        "@modelcontextprotocol/server-slack",
        "2025.4.25",
        env=lambda _c: {"SLACK_BOT_TOKEN": "xoxb-unused", "SLACK_TEAM_ID": "T00000000"},
    ),
    Server(
        "postgres",
        "npm",
        "@modelcontextprotocol/server-postgres",
        "0.6.2",
        args=lambda _c: [POSTGRES_URL],
    ),
    Server(
        "redis",
        "npm",
        "@modelcontextprotocol/server-redis",
        "2025.4.25",
        args=lambda _c: [REDIS_URL],
    ),
    Server(
        "brave-search",
        "npm",
        "@modelcontextprotocol/server-brave-search",
        "0.6.2",
        env=lambda _c: {"BRAVE_API_KEY": "unused"},
    ),
    Server(
        "sequential-thinking",
        "npm",
        "@modelcontextprotocol/server-sequential-thinking",
        "2026.8.31",
    ),
    Server(
        "google-maps",
        "npm",
        "@modelcontextprotocol/server-google-maps",
        "0.6.2",
        env=lambda _c: {"GOOGLE_MAPS_API_KEY": "unused"},
    ),
    # npm: popular vendor servers.
    Server("playwright", "npm", "@playwright/mcp", "0.0.83", args=lambda _c: ["--headless"]),
    Server(
        "notion",
        "npm",
        "@notionhq/notion-mcp-server",
        "2.5.2",
        env=lambda _c: {"NOTION_TOKEN": "ntn_unused"},
    ),
    Server("context7", "npm", "@upstash/context7-mcp", "4.1.1"),
    Server("kubernetes", "npm", "mcp-server-kubernetes", "4.1.7", env=_kubeconfig),
    Server(
        "stripe",
        "npm",
        "@stripe/mcp",
        "0.2.5",
        args=lambda _c: ["--tools=all", "--api-key=sk_test_unused"],
    ),
    Server("tavily", "npm", "tavily-mcp", "0.2.22", env=lambda _c: {"TAVILY_API_KEY": "unused"}),
    Server(
        "firecrawl",
        "npm",
        "firecrawl-mcp",
        "3.22.2",
        env=lambda _c: {"FIRECRAWL_API_KEY": "fc-unused"},
    ),
    Server(
        "supabase",
        "npm",
        "@supabase/mcp-server-supabase",
        "0.13.0",
        args=lambda _c: [
            "--access-token=unused",
            "--features=account,database,debugging,development,functions,branching,storage",
        ],
    ),
    # PyPI: servers of other styles (recorded with a style, see the module docstring).
    Server(
        "calculator",
        "pypi",
        "mcp-server-calculator",
        "0.2.1",
        "mcp-server-calculator",
        style="calculator",
    ),
    Server(
        "shell-server",
        "pypi",
        "mcp-shell-server",
        "1.1.14",
        "mcp-shell-server",
        env=lambda _c: {"ALLOW_COMMANDS": "ls,cat,pwd,grep,wc,touch,find"},  # its README's example
        style="shell",
    ),
    Server(
        "shell",
        "pypi",
        "mcp-server-shell",
        "0.1.0",
        "python",  # its console script calls the async serve() without running it
        lambda _c: ["-m", "mcp_server_shell"],
        extra=("mcp<2",),  # imports McpError, which mcp 2 moved
        style="shell",
    ),
    Server(
        "cli",
        "pypi",
        "cli-mcp-server",
        "0.2.5",
        "cli-mcp-server",
        env=_cli_dir,  # its default allow-list: ls, cat, pwd
        extra=("mcp<2",),  # the low-level server API that mcp 2 dropped
        style="shell",
    ),
    Server(
        "alpaca",
        "pypi",
        "alpaca-mcp-server",
        "2.4.0",
        "alpaca-mcp-server",
        env=lambda _c: {"ALPACA_API_KEY": "unused", "ALPACA_SECRET_KEY": "unused"},
        style="trading",
    ),
    Server(
        "yahoo-finance",
        "pypi",
        "mcp-yahoo-finance",
        "0.2.0",
        "mcp-yahoo-finance",
        style="finance",
    ),
    Server(
        "ynab",
        "pypi",
        "ynab-mcp-server",
        "0.2.1",
        "ynab-mcp-server",
        env=lambda c: {"YNAB_PAT": "unused", "XDG_DATA_HOME": str(c.tmp / "data")},
        # the low-level server API that mcp 2 dropped; the SDK's budgets_api, gone from ynab 2
        extra=("mcp<2", "ynab<2"),
        style="budgeting",
    ),
    # npm: a server of another style.
    Server(
        "travel-planner",
        "npm",
        "@gongrzhe/server-travelplanner-mcp",
        "0.1.2",
        env=lambda _c: {"GOOGLE_MAPS_API_KEY": "unused"},
        style="travel",
    ),
    # npm: servers of other domains (calendar, e-mail, CRM).
    Server(
        "google-calendar",
        "npm",
        "@cocal/google-calendar-mcp",
        "2.6.3",
        env=lambda c: {"GOOGLE_OAUTH_CREDENTIALS": str(_google_oauth(c))},
        style="calendar",
    ),
    Server(
        "gmail", "npm", "@gongrzhe/server-gmail-autoauth-mcp", "1.1.11", env=_gmail, style="email"
    ),
    Server(
        "hubspot",
        "npm",
        "@hubspot/mcp-server",
        "0.4.0",
        env=lambda _c: {"PRIVATE_APP_ACCESS_TOKEN": "unused"},
        style="crm",
    ),
]


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _venv(workdir: Path, server: Server) -> Path:
    return workdir / "pypi" / server.name


def install(workdir: Path, servers: list[Server]) -> None:
    """Install the servers' pinned packages (a no-op for those already at their pin).

    Each PyPI server gets a virtual environment of its own: their mcp and fastmcp requirements
    conflict with each other (and with the project's).
    """
    env = {**os.environ, **NO_DOWNLOAD_ENV}
    for server in servers:
        if server.registry != "pypi" or installed_version(workdir, server) == server.version:
            continue
        venv = _venv(workdir, server)
        if not (venv / "bin" / "python").exists():
            base = shutil.which("python3") or sys.executable
            subprocess.run([base, "-m", "venv", str(venv)], check=True)
        pins = [f"{server.package}=={server.version}", *server.extra]
        _log(f"pip install {' '.join(pins)} (into {venv})")
        subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", *PIP_FLAGS, *pins],
            check=True,
            env=env,
        )
    npm = [s for s in servers if s.registry == "npm" and installed_version(workdir, s) != s.version]
    if npm:
        (workdir / "npm").mkdir(parents=True, exist_ok=True)
        pins = [f"{s.package}@{s.version}" for s in npm]
        _log(f"npm install {' '.join(pins)}")
        subprocess.run(
            ["npm", "install", "--prefix", str(workdir / "npm"), *NPM_FLAGS, *pins],
            check=True,
            env=env,
        )


def installed_version(workdir: Path, server: Server) -> str | None:
    """The version of the server's package installed in the workdir, or None."""
    if server.registry == "npm":
        manifest = workdir / "npm" / "node_modules" / server.package / "package.json"
        if not manifest.exists():
            return None
        return str(json.loads(manifest.read_text())["version"])
    python = _venv(workdir, server) / "bin" / "python"
    if not python.exists():
        return None
    code = "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))"
    done = subprocess.run(
        [str(python), "-c", code, server.package], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() if done.returncode == 0 else None


def command(workdir: Path, server: Server, ctx: Ctx) -> tuple[str, list[str]]:
    """The executable and arguments that start the server over stdio."""
    if server.registry == "pypi":
        assert server.entry is not None
        return str(_venv(workdir, server) / "bin" / server.entry), server.args(ctx)
    pkg_dir = workdir / "npm" / "node_modules" / server.package
    bins: str | dict[str, str] = json.loads((pkg_dir / "package.json").read_text())["bin"]
    if isinstance(bins, dict):
        script = bins[server.entry] if server.entry else next(iter(bins.values()))
    else:
        script = bins
    return shutil.which("node") or "node", [str(pkg_dir / script), *server.args(ctx)]


def tool_record(tool: Any) -> dict[str, Any]:
    """The catalog's view of one tool: name, description, inputSchema, set annotations."""
    annotations = tool.annotations.model_dump(exclude_none=True) if tool.annotations else {}
    return {
        "name": tool.name,
        "description": tool.description,
        "inputSchema": tool.inputSchema,
        "annotations": annotations,
    }


async def list_tools(workdir: Path, server: Server) -> list[dict[str, Any]]:
    """Start the server, list all its tools (every page) and stop it."""
    with tempfile.TemporaryDirectory(prefix=f"catalog-{server.name}-") as tmp:
        ctx = Ctx(workdir=workdir, tmp=Path(tmp))
        home = ctx.tmp / "home"
        home.mkdir()
        exe, args = command(workdir, server, ctx)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "LANG": "C.UTF-8",
            # mcp-atlassian builds a default from a set: fixed hashing keeps its order stable.
            "PYTHONHASHSEED": "0",
            **NO_DOWNLOAD_ENV,
            **server.env(ctx),
        }
        params = StdioServerParameters(command=exe, args=args, env=env, cwd=str(ctx.tmp))
        log_path = workdir / "logs" / f"{server.name}.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with log_path.open("w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                tools: list[Any] = []
                cursor: str | None = None
                while True:
                    page = await session.list_tools(cursor=cursor)
                    tools.extend(page.tools)
                    cursor = page.nextCursor
                    if not cursor:
                        break
    return sorted((tool_record(t) for t in tools), key=lambda t: str(t["name"]))


BFCL_TYPES = {
    "dict": "object",
    "float": "number",
    "integer": "integer",
    "string": "string",
    "boolean": "boolean",
    "array": "array",
    "tuple": "array",
}


def json_schema(doc: dict[str, Any]) -> dict[str, Any]:
    """A BFCL parameter doc as JSON Schema (its types mapped, ``any`` left untyped)."""
    schema: dict[str, Any] = {}
    for key, value in doc.items():
        if key == "type":
            if value != "any":
                schema["type"] = BFCL_TYPES[value]
        elif key == "properties":
            schema["properties"] = {name: json_schema(sub) for name, sub in value.items()}
        elif key == "items":
            schema["items"] = json_schema(value)
        elif key in ("description", "enum", "default", "required"):
            schema[key] = value
        else:
            raise ValueError(f"unexpected key {key!r} in a BFCL parameter doc")
    if schema.get("type") == "object":
        schema.setdefault("properties", {})
    return schema


def wheel(workdir: Path, package: str, version: str) -> Path:
    """The pinned wheel of a package, downloaded (not installed) into WORKDIR/wheels once."""
    dest = workdir / "wheels"
    stem = f"{package.replace('-', '_')}-{version}-"
    found = sorted(dest.glob(f"{stem}*.whl")) if dest.exists() else []
    if not found:
        _log(f"pip download --no-deps {package}=={version}")
        pin = f"{package}=={version}"
        flags = ["--quiet", *PIP_FLAGS, "--no-deps", "--only-binary=:all:", "--dest", str(dest)]
        subprocess.run(
            [sys.executable, "-m", "pip", "download", *flags, pin],
            check=True,
            env={**os.environ, **NO_DOWNLOAD_ENV},
        )
        found = sorted(dest.glob(f"{stem}*.whl"))
    return found[0]


def func_doc_tools(workdir: Path, source: FuncDocs) -> list[dict[str, Any]]:
    """The tool records of one class's function docs (one JSON object a line in the wheel)."""
    with zipfile.ZipFile(wheel(workdir, source.package, source.version)) as whl:
        text = whl.read(source.member).decode("utf-8")
    tools = []
    for line in text.splitlines():
        if not line.strip():
            continue
        doc = json.loads(line)
        tools.append(
            {
                "name": doc["name"],
                "description": doc["description"],
                "inputSchema": json_schema(doc["parameters"]),
                "annotations": {},
            }
        )
    return sorted(tools, key=lambda t: str(t["name"]))


PY_TYPES = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "list": "array",
    "List": "array",
    "Sequence": "array",
    "dict": "object",
    "Dict": "object",
}


def annotation_type(node: ast.expr | None) -> str | None:
    """The JSON Schema type of a parameter's annotation, or None (``Optional[X]`` is X's)."""
    if node is None:
        return None
    if isinstance(node, ast.Subscript):
        base = ast.unparse(node.value).rsplit(".", 1)[-1]
        if base == "Optional":
            return annotation_type(node.slice)
        return PY_TYPES.get(base)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # X | None
        sides = [n for n in (node.left, node.right) if ast.unparse(n) != "None"]
        return annotation_type(sides[0]) if len(sides) == 1 else None
    return PY_TYPES.get(ast.unparse(node).rsplit(".", 1)[-1])


def _param_docs(doc: str, names: set[str]) -> dict[str, str]:
    """Parameter descriptions in a docstring, found as LlamaIndex's ``FunctionTool`` finds them."""
    found: dict[str, str] = {}
    patterns = (
        (r":param (\w+): (.+)", 0),  # Sphinx
        (r"^\s*(\w+)\s*\(.*?\):\s*(.+)$", re.MULTILINE),  # Google
        (r"@param (\w+)\s+(.+)", 0),  # Javadoc
    )
    for pattern, flags in patterns:
        for match in re.finditer(pattern, doc, flags):
            name, text = match.group(1), match.group(2).strip()
            if name in names:
                found.setdefault(name, text)  # the first one wins over a conflicting one
    return found


def _shown(arg: ast.arg, default: ast.expr | None) -> str:
    """One parameter as ``inspect.signature`` prints it."""
    text = arg.arg + (f": {ast.unparse(arg.annotation)}" if arg.annotation else "")
    if default is not None:
        text += f" = {ast.unparse(default)}" if arg.annotation else f"={ast.unparse(default)}"
    return text


def spec_method_tool(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, Any]:
    """One spec method as a tool record (see the module docstring)."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    params = list(zip(positional, [*defaults, *args.defaults], strict=True))
    params += list(zip(args.kwonlyargs, args.kw_defaults, strict=True))
    params = [(a, d) for a, d in params if a.arg not in ("self", "cls")]
    returns = f" -> {ast.unparse(fn.returns)}" if fn.returns else ""
    doc = ast.get_docstring(fn, clean=True) or ""
    param_docs = _param_docs(doc, {a.arg for a, _ in params})
    properties: dict[str, Any] = {}
    required = []
    for arg, default in params:
        prop: dict[str, Any] = {}
        kind = annotation_type(arg.annotation)
        if kind:
            prop["type"] = kind
        if arg.arg in param_docs:
            prop["description"] = param_docs[arg.arg]
        if default is None:
            required.append(arg.arg)
        else:
            with contextlib.suppress(ValueError):  # a default that is not a literal
                prop["default"] = ast.literal_eval(default)
        properties[arg.arg] = prop
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    signature = ", ".join(_shown(a, d) for a, d in params)
    return {
        "name": fn.name,
        "description": f"{fn.name}({signature}){returns}\n{doc}".strip(),
        "inputSchema": schema,
        "annotations": {},
    }


def spec_tools(workdir: Path, source: ToolSpec) -> list[dict[str, Any]]:
    """The tool records of one LlamaIndex tool spec, parsed from its wheel's source."""
    with zipfile.ZipFile(wheel(workdir, source.package, source.version)) as whl:
        tree = ast.parse(whl.read(source.member).decode("utf-8"))
    spec = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == source.cls)
    methods = {
        n.name: n for n in spec.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    listed = next(
        ast.literal_eval(n.value)
        for n in spec.body
        if isinstance(n, ast.Assign)
        and any(getattr(t, "id", None) == "spec_functions" for t in n.targets)
    )
    names = [f if isinstance(f, str) else f[0] for f in listed]  # (sync, async) pairs
    tools = [spec_method_tool(methods[name]) for name in names]
    return sorted(tools, key=lambda t: str(t["name"]))


def main(argv: list[str] | None = None) -> int:
    """Install, list and write the catalog; exit 1 if any selected server failed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--workdir", type=Path, default=REPO / "build" / "tool-catalog")
    parser.add_argument("--only", action="append", metavar="SERVER", help="record this server")
    parser.add_argument("--output", type=Path, default=CATALOG)
    opts = parser.parse_args(argv)
    sources: list[Server | FuncDocs | ToolSpec] = [*SERVERS, *FUNC_DOCS, *LLAMAINDEX_SPECS]
    known = {s.name: s for s in sources}
    unknown = sorted(set(opts.only or []) - set(known))
    if unknown:
        parser.error(f"unknown server(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    chosen = [known[n] for n in sorted(set(opts.only))] if opts.only else list(known.values())
    selected = [s for s in chosen if isinstance(s, Server)]
    func_docs = [s for s in chosen if isinstance(s, FuncDocs)]
    tool_specs = [s for s in chosen if isinstance(s, ToolSpec)]
    workdir: Path = opts.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)

    started = time.monotonic()
    install(workdir, selected)
    catalog: dict[str, Any] = {}
    if opts.only and opts.output.exists():
        catalog = json.loads(opts.output.read_text())
    servers: dict[str, Any] = catalog.get("servers", {})
    failed: list[str] = []
    for server in selected:
        version = installed_version(workdir, server)
        t0 = time.monotonic()
        try:
            tools = asyncio.run(asyncio.wait_for(list_tools(workdir, server), LIST_TIMEOUT_S))
        except Exception as exc:  # one server's failure must not lose the others
            _log(f"{server.name}: FAILED ({type(exc).__name__}: {exc}); see logs/{server.name}.log")
            failed.append(server.name)
            continue
        _log(f"{server.name}: {len(tools)} tools in {time.monotonic() - t0:.1f}s")
        servers[server.name] = {
            "registry": server.registry,
            "package": server.package,
            "version": version,
            "tools": tools,
            **({"style": server.style} if server.style else {}),
        }
    for source in func_docs:
        tools = func_doc_tools(workdir, source)
        _log(f"{source.name}: {len(tools)} tools from {source.package} {source.member}")
        servers[source.name] = {
            "registry": source.registry,
            "package": source.package,
            "version": source.version,
            "file": source.member,
            "style": source.style,
            "tools": tools,
        }
    for spec in tool_specs:
        tools = spec_tools(workdir, spec)
        _log(f"{spec.name}: {len(tools)} tools from {spec.package} {spec.member}")
        servers[spec.name] = {
            "registry": spec.registry,
            "package": spec.package,
            "version": spec.version,
            "file": spec.member,
            "class": spec.cls,
            "style": spec.style,
            "tools": tools,
        }
    catalog = {
        "_about": (
            "Tool lists of real MCP servers as their tools/list returned them, recorded by "
            "tests/data/record_tool_catalog.py; labels are in tests/data/tool_labels.json."
        ),
        "servers": dict(sorted(servers.items())),
    }
    opts.output.write_text(json.dumps(catalog, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    _log(
        f"wrote {opts.output} ({len(servers)} servers) in {time.monotonic() - started:.0f}s"
        + (f"; failed: {', '.join(failed)}" if failed else "")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
