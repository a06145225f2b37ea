"""The MCP SDK version check: one line saying what is installed, what is needed and the fix."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from common import compat
from common.compat import MCP_REQUIREMENT, DependencyError, check_dependencies, dependency_problem

ROOT = Path(__file__).resolve().parents[2]


def installed(monkeypatch: pytest.MonkeyPatch, version: str | None) -> None:
    """Pretend `mcp` `version` is installed (None: not installed at all)."""
    real = metadata.version

    def fake(name: str) -> str:
        if name != "mcp":
            return real(name)
        if version is None:
            raise metadata.PackageNotFoundError(name)
        return version

    monkeypatch.setattr(metadata, "version", fake)


@pytest.mark.parametrize("version", ["2.3", "2.3.0", "2.30.0", "2.99.1rc1", "2.4.0.post1"])
def test_supported_versions_pass(monkeypatch: pytest.MonkeyPatch, version: str) -> None:
    installed(monkeypatch, version)
    assert dependency_problem() is None
    check_dependencies()


def test_mcp_1_is_one_line_saying_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    installed(monkeypatch, "1.30.0")
    assert dependency_problem() == (
        "The installed MCP SDK is mcp 1.30.0, but mcp-planner needs mcp>=2.3,<3. "
        "Fix: pip install 'mcp>=2.3,<3', and run a Python MCP server that needs another SDK "
        "from its own environment (uvx mcp-server-time, or a separate venv); "
        'see docs/configuration.md "Add your own server".'
    )
    with pytest.raises(DependencyError) as info:
        check_dependencies()
    assert str(info.value) == dependency_problem()


@pytest.mark.parametrize("version", ["2.2.9", "2.0.0rc1", "3.0", "1.30.0", "0.9", "1.0"])
def test_unsupported_versions_are_named(monkeypatch: pytest.MonkeyPatch, version: str) -> None:
    installed(monkeypatch, version)
    problem = dependency_problem()
    assert problem is not None
    assert problem.startswith(f"The installed MCP SDK is mcp {version}, but mcp-planner needs")
    assert "\n" not in problem


def test_a_missing_sdk_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    installed(monkeypatch, None)
    problem = dependency_problem()
    assert problem is not None
    assert problem.startswith("The MCP SDK (the mcp package) is not installed, but mcp-planner")
    with pytest.raises(DependencyError, match=re.escape("pip install 'mcp>=2.3,<3'")):
        check_dependencies()


def test_an_unreadable_version_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    installed(monkeypatch, "unknown")
    assert dependency_problem() is not None


def test_the_installed_sdk_passes() -> None:
    assert dependency_problem() is None


def test_the_pin_is_the_one_in_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert MCP_REQUIREMENT in project["project"]["dependencies"]


def test_the_check_imports_no_mcp() -> None:
    # The check exists because importing mcp is what fails: it must not import it itself.
    code = "import sys, common.compat as c; c.check_dependencies(); print('mcp' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "False"


def test_bounds_reject_a_malformed_requirement() -> None:
    with pytest.raises(ValueError, match="not of the form"):
        compat._bounds("mcp~=1.9")
