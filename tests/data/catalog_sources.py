"""What `record_tool_catalog.py` records: each source, its pinned package and how it starts.

MCP servers (`SERVERS`), BFCL function-doc classes (`FUNC_DOCS`) and LlamaIndex tool specs
(`LLAMAINDEX_SPECS`); the recorder's docstring says what each style is.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

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


def log(msg: str) -> None:
    """One progress line on stderr."""
    print(msg, file=sys.stderr, flush=True)


POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
REDIS_URL = "redis://127.0.0.1:6379"


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
        extra=("mcp<2",),  # imports MCPError, which mcp 2 moved
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
