"""`mcp-planner serve`: `langgraph dev`'s server for this project, on the port asked or not at all.

Three differences from `langgraph dev`, each a way it surprised:

- A taken port is refused, naming who holds it. `langgraph dev` moves to a free port with one log
  line (even for an explicit --port), and every command after it (the example client, `audit
  --server http://127.0.0.1:2024`) then talks to whatever holds 2024.
- Only the folders that hold the served code reload it (`src/` here, from langgraph.json): an
  install into the project folder (`.venv*`, `node_modules`, `ui/`, `build/`) while it runs no
  longer restarts the server. `langgraph dev` watches the whole folder and has no option to
  narrow it (langgraph-cli 0.4.40, langgraph-api 0.16.7); its server function takes uvicorn's.
- The plan card's bundler left by a stopped worker is stopped (`strategies.cli.bundler`).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from strategies.cli.bundler import stop_leftovers, sweep_after_each_worker
from strategies.cli.exits import EXIT_OK, EXIT_USAGE, CliProblem, one_line
from strategies.cli.ports import holder, port_free
from strategies.cli.render import problem

DEFAULT_PORT = 2024
"""The port the README's commands use (`langgraph dev`'s default too)."""

NOT_INSTALLED = (
    "mcp-planner serve needs langgraph dev's server (the serve extra, langgraph-cli[inmem]): "
    "run make install, or pip install -e '.[serve]'."
)
"""The line when the server's packages are missing."""

RELOAD_EXCLUDES = (".venv*", "node_modules", "ui", "build", ".langgraph_api")
"""What never reloads the server when the whole project folder is watched (a top-level graph
file): installs, the UI build, the server's own files."""


def taken(host: str, port: int) -> str:
    """The sentence for a port another program holds: who, and how to serve on another."""
    other = port + 1
    return (
        f"Port {port} on {host} is taken by {holder(port)}: stop it, or serve on another port "
        f"(mcp-planner serve --port {other}, or make serve PORT={other}) and give the other "
        f"commands --server http://{host}:{other}."
    )


def _config(path: Path) -> dict[str, Any]:
    """langgraph.json, checked as `langgraph dev` checks it; one line when it cannot be used."""
    import click
    from langgraph_cli.config import validate_config_file

    try:
        config = dict(validate_config_file(path))
    except OSError as exc:
        raise CliProblem(f"Cannot read {str(path)!r}: {exc.strerror}; check --config.") from exc
    except (ValueError, click.UsageError) as exc:
        raise CliProblem(f"{str(path)!r} is not a usable langgraph.json: {one_line(exc)}") from exc
    if config.get("node_version"):
        raise CliProblem(f"{str(path)!r} serves JavaScript graphs, which this server does not.")
    return config


def watched(config: dict[str, Any], folder: Path) -> tuple[list[str], list[str]]:
    """The folders whose Python files reload the server, and what to leave out of them.

    The top folder of each graph and of the auth handler (`./src/...` gives `src`); a graph
    file at the top of the project watches the project but for RELOAD_EXCLUDES, as absolute
    paths (uvicorn compares the changed files' absolute paths with them).
    """
    named = [spec.split(":")[0] for spec in config.get("graphs", {}).values()]
    named += [config["auth"]["path"].split(":")[0]] if config.get("auth", {}).get("path") else []
    paths = [Path(name) for name in named]
    if paths and all(len(path.parts) > 1 for path in paths):
        return sorted({str((folder / path.parts[0]).resolve()) for path in paths}), []
    excludes = [str(found) for pattern in RELOAD_EXCLUDES for found in folder.glob(pattern)]
    return [str(folder)], excludes


def _stop_on_sigterm() -> None:
    """End with the `finally` of `serve_cmd` on SIGTERM rather than be killed before it."""

    def stop(_signum: int, _frame: object) -> NoReturn:
        raise SystemExit(EXIT_OK)

    signal.signal(signal.SIGTERM, stop)


def _run(host: str, port: int, config: dict[str, Any], folder: Path, reload: bool) -> None:
    """Serve as `langgraph dev` does (langgraph_cli.cli.dev), on exactly `port`."""
    from langgraph_api.cli import run_server  # type: ignore[import-untyped]

    # What `langgraph dev` adds to the import path: the folder and its local dependencies.
    sys.path.append(str(folder))
    for dependency in config.get("dependencies", []):
        if (folder / dependency).is_dir():
            sys.path.append(str(folder / dependency))
    dirs, excludes = watched(config, folder)
    run_server(
        host,
        port,
        reload,
        config.get("graphs", {}),
        open_browser=False,
        env=config.get("env"),
        store=config.get("store"),
        auth=config.get("auth"),
        http=config.get("http"),
        ui=config.get("ui"),
        ui_config=config.get("ui_config"),
        webhooks=config.get("webhooks"),
        checkpointer=config.get("checkpointer"),
        disable_persistence=config.get("disable_persistence", False),
        reload_dirs=dirs,
        reload_excludes=excludes or None,
    )


def serve_cmd(
    port: Annotated[
        int, typer.Option("--port", help="The port to serve on; a taken one is refused.")
    ] = DEFAULT_PORT,
    host: Annotated[str, typer.Option("--host", help="The address to listen on.")] = "127.0.0.1",
    config: Annotated[Path, typer.Option("--config", help="The server's configuration.")] = Path(
        "langgraph.json"
    ),
    reload: Annotated[
        bool, typer.Option("--reload/--no-reload", help="Restart when the served code changes.")
    ] = True,
) -> None:
    """Serve the graph as `langgraph dev` does, on exactly --port; Ctrl-C stops it.

    A taken port is refused (exit 2), naming who holds it. Only the folders holding the served
    code reload it (installs into the project do not), and no plan-card bundler outlives it.
    """
    try:
        served = _config(config)
        if not port_free(host, port):
            raise CliProblem(taken(host, port))
    except ImportError:
        problem(NOT_INSTALLED)
        raise typer.Exit(EXIT_USAGE) from None
    except CliProblem as exc:
        problem(str(exc))
        raise typer.Exit(exc.code) from None
    # Relative paths of langgraph.json, and the server's own files, are the working folder's
    # (as for `langgraph dev`), wherever --config is.
    folder = Path.cwd()
    typer.echo(
        f"Serving {', '.join(served.get('graphs', {}))} on http://{host}:{port}: give the other "
        f"commands --server http://{host}:{port}. Ctrl-C stops it.",
    )
    sys.stdout.flush()
    if reload:
        sweep_after_each_worker(folder)
    _stop_on_sigterm()
    try:
        _run(host, port, served, folder, reload)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    finally:
        stop_leftovers(folder, os.getpid())
