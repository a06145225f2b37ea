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
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from catalog_docs import func_doc_tools, spec_tools
from catalog_sources import (
    FUNC_DOCS,
    LLAMAINDEX_SPECS,
    NO_DOWNLOAD_ENV,
    NPM_FLAGS,
    PIP_FLAGS,
    SERVERS,
    Ctx,
    FuncDocs,
    Server,
    ToolSpec,
)
from catalog_sources import log as _log
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

REPO = Path(__file__).resolve().parents[2]
CATALOG = REPO / "tests" / "data" / "tool_catalog.json"
LIST_TIMEOUT_S = 90.0


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
        "inputSchema": tool.input_schema,
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
                    cursor = page.next_cursor
                    if not cursor:
                        break
    return sorted((tool_record(t) for t in tools), key=lambda t: str(t["name"]))


def _record_servers(workdir: Path, selected: list[Server], servers: dict[str, Any]) -> list[str]:
    """Install and list each MCP server into `servers`; the names of those that failed."""
    install(workdir, selected)
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
    return failed


def _record_docs(
    workdir: Path, func_docs: list[FuncDocs], tool_specs: list[ToolSpec], servers: dict[str, Any]
) -> None:
    """Read each BFCL class and LlamaIndex tool spec from its wheel into `servers`."""
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
    catalog: dict[str, Any] = {}
    if opts.only and opts.output.exists():
        catalog = json.loads(opts.output.read_text())
    servers: dict[str, Any] = catalog.get("servers", {})
    failed = _record_servers(workdir, selected, servers)
    _record_docs(workdir, func_docs, tool_specs, servers)
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
