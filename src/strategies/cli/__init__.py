"""The `mcp-planner` command: drives a strategy from a terminal or a script."""

import gc
import sys

from common.compat import dependency_problem

EXIT_USAGE = 2
"""Exit code of a usage or configuration error (as in strategies.cli.exits)."""

_GRAPH_COMMANDS = frozenset({"run", "resume", "chat", "graph"})
"""Commands that import the graph in this process: collection resumes once it is built."""

_startup = {"collection_paused": False}


def main() -> None:
    """Entry point of the `mcp-planner` console script."""
    # Start-up creates a few hundred thousand objects that live as long as the process
    # (modules, classes, schemas): collecting while they are imported frees nothing and costs
    # about a tenth of the imports' time. Collection resumes once the command has imported
    # what it needs (`startup_done`).
    gc.disable()
    _startup["collection_paused"] = True
    try:
        # Checked before the app is imported: the app imports the MCP SDK, which may be unusable.
        problem = dependency_problem()
        if problem:
            sys.stderr.write(problem + "\n")
            raise SystemExit(EXIT_USAGE)
        from strategies.cli.app import app

        app()
    finally:
        startup_done()


def startup_done(command: str | None = None) -> None:
    """Resume garbage collection if `main` paused it.

    Given the `command` about to run, nothing happens for one that builds the graph here
    (`run`, `resume`, `chat`, `graph`): it resumes collection itself once the graph is built.
    """
    if command in _GRAPH_COMMANDS or not _startup["collection_paused"]:
        return
    _startup["collection_paused"] = False
    gc.enable()
