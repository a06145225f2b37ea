"""The with_planner strategy: plan over MCP experts, guard irreversible calls, run, answer."""

from common.compat import check_dependencies

# Before any module of the strategy imports the MCP SDK: an unusable `mcp` version (a Python MCP
# server pip-installed into this environment pulls mcp 2) is one clear line, not an ImportError.
check_dependencies()

from strategies.with_planner.offline import register_offline_model  # noqa: E402

# The strategy brings its keyless stand-in model; `common` knows no strategy.
register_offline_model()
