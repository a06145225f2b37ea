"""The `mcp-planner` command: drives a strategy from a terminal or a script."""

import sys

from common.compat import dependency_problem

EXIT_USAGE = 2
"""Exit code of a usage or configuration error (as in strategies.cli.exits)."""


def main() -> None:
    """Entry point of the `mcp-planner` console script."""
    # Checked before the app is imported: the app imports the MCP SDK, which may be unusable.
    problem = dependency_problem()
    if problem:
        sys.stderr.write(problem + "\n")
        raise SystemExit(EXIT_USAGE)
    from strategies.cli.app import app

    app()
