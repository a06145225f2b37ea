"""Is the installed MCP SDK one we can run with? Checked before anything imports `mcp`.

We use the `mcp` 2.x client (it speaks both the 2025 handshake and the 2026-07-28 revision);
installing an old Python MCP server into our environment can downgrade the SDK to 1.x, and every
command would then die on an ImportError deep inside an import chain. The check is hand-written on
`importlib.metadata` because it must run before anything imports `mcp` (importing it is what
fails) and must not pull in a version-parsing dependency that could itself be missing.
"""

from __future__ import annotations

import re
from importlib import metadata

MCP_DISTRIBUTION = "mcp"
"""The MCP SDK's distribution name."""

MCP_REQUIREMENT = "mcp>=2.3,<3"
"""The MCP SDK releases we run with: the pin of pyproject.toml, as pip takes it."""


class DependencyError(RuntimeError):
    """An installed dependency we cannot run with; the message is one line saying how to fix it."""


def dependency_problem() -> str | None:
    """One line describing why the installed MCP SDK cannot be used, or None when it can."""
    try:
        installed = metadata.version(MCP_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return _problem("The MCP SDK (the mcp package) is not installed")
    low, high = _bounds(MCP_REQUIREMENT)
    if not low <= _release(installed) < high:
        return _problem(f"The installed MCP SDK is mcp {installed}")
    return None


def check_dependencies() -> None:
    """Raise DependencyError with the one-line problem, if there is one."""
    problem = dependency_problem()
    if problem is not None:
        raise DependencyError(problem)


def _release(version: str) -> tuple[int, ...]:
    """The leading release numbers of `version` ("1.30.0rc1" -> (1, 30, 0)); () when none."""
    match = re.match(r"\d+(?:\.\d+)*", version.strip())
    return tuple(int(part) for part in match.group().split(".")) if match else ()


def _bounds(requirement: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The `>=low,<high` release bounds of a requirement such as "mcp>=1.9,<2"."""
    low = re.search(r">=\s*([\d.]+)", requirement)
    high = re.search(r"(?<![<>=!])<\s*([\d.]+)", requirement)
    if not (low and high):
        raise ValueError(f"{requirement!r} is not of the form 'name>=low,<high'")
    return _release(low.group(1)), _release(high.group(1))


def _problem(state: str) -> str:
    return (
        f"{state}, but mcp-planner needs {MCP_REQUIREMENT}. "
        f"Fix: pip install '{MCP_REQUIREMENT}', and run a Python MCP server that needs another "
        "SDK from its own environment (uvx mcp-server-time, or a separate venv); "
        'see docs/configuration.md "Add your own server".'
    )
