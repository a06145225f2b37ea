"""Aegra's private functions the approvals routes call: pinned, so an upgrade fails loudly.

`common.served.aegra` calls three private functions of aegra-api (there is no public API that
runs an answer as another user's thread's run). `check_internals` compares each one's
parameters with those the routes were written for; these tests run it in `.venv-aegra` against
the installed release, and against a changed expectation, which must be refused naming it.
"""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import service_unavailable
from tests.integration_tests.aegra import AEGRA_PYTHON, ROOT

pytestmark = pytest.mark.integration

CHECK = """
import sys
from common.served import aegra
if len(sys.argv) > 1:
    name = sys.argv[1]
    aegra.INTERNALS[name] = aegra.INTERNALS[name][:-1]
aegra.check_internals()
print("ok")
"""
"""Runs the check in Aegra's interpreter; an argument drops that function's last parameter."""


def _check(*args: str) -> subprocess.CompletedProcess[str]:
    """The check's run in `.venv-aegra` (skipped, or failed under CI, without it)."""
    if not AEGRA_PYTHON.exists():
        service_unavailable("Aegra is not installed: run `make aegra` (needs Python >= 3.12)")
    return subprocess.run(
        [str(AEGRA_PYTHON), "-c", CHECK, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
        check=False,
    )


def test_the_installed_aegra_has_the_functions_the_routes_were_written_for() -> None:
    done = _check()
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("ok")


def test_a_changed_private_function_stops_the_routes_naming_it() -> None:
    done = _check("aegra_api.services.run_preparation._prepare_run")
    assert done.returncode != 0
    assert "Aegra's aegra_api.services.run_preparation._prepare_run is not what" in done.stderr
    assert "check the approvals routes against the new release" in done.stderr
