"""The with_planner strategy: plan over MCP experts, guard irreversible calls, run, answer."""
