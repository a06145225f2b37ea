"""The `mcp-planner` command: drives a strategy from a terminal or a script."""


def main() -> None:
    """Entry point of the `mcp-planner` console script."""
    # Imported here so a dependency check can run before anything imports the MCP SDK.
    from strategies.cli.app import app

    app()
