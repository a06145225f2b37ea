"""The `mcp-planner` command: drives a strategy from a terminal or a script."""
