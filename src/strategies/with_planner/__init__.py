"""The with_planner strategy: plan over MCP experts, guard irreversible calls, run, answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from common.compat import check_dependencies

# Before any module of the strategy imports the MCP SDK: an unusable `mcp` version (a Python MCP
# server pip-installed into this environment pulls mcp 2) is one clear line, not an ImportError.
check_dependencies()

from common.models import register_provider  # noqa: E402

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel


def _offline_rules(_name: str) -> BaseChatModel:
    """`offline:rules`, its class imported by the first node that asks for it."""
    from strategies.with_planner.offline_model import OfflineRulesModel

    return OfflineRulesModel()


# The strategy brings its keyless stand-in model; `common` knows no strategy.
register_provider("offline", _offline_rules)
