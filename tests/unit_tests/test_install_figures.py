"""The README's install and test figures are bench/results/install.json's, measured on today's deps.

`make bench-install` (bench/bench_install.py) writes the file and prints the README's sentence;
these tests fail when the README and the file disagree, or when pyproject.toml's dependency
lists changed since the figures were measured. No speed is asserted: the figures are recorded.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.unit_tests.helpers import bench_script

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results" / "install.json"
STALE = (
    "pyproject.toml's dependencies changed since the install figures were measured: run make "
    "bench-install and commit bench/results/install.json and the README."
)


@pytest.fixture(scope="module")
def bench() -> Any:
    return bench_script("bench_install")


@pytest.fixture(scope="module")
def recorded() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(RESULTS.read_text(encoding="utf-8"))
    return data


def readme_text() -> str:
    """README.md with its line breaks as spaces, as a reader sees a wrapped paragraph."""
    return re.sub(r"\s+", " ", (ROOT / "README.md").read_text(encoding="utf-8"))


def test_the_file_holds_real_figures(recorded: dict[str, Any]) -> None:
    for key in ("install", "install_dev"):
        step = recorded["steps"][key]
        assert step["seconds"] > 0, key
        assert step["venv_bytes"] > 10_000_000, key
    assert (
        recorded["steps"]["install_dev"]["venv_bytes"] > recorded["steps"]["install"]["venv_bytes"]
    )
    assert recorded["test"]["tests"] > 0
    assert 0 < recorded["test"]["seconds_low"] <= recorded["test"]["seconds_high"]
    assert recorded["command"] == "make bench-install"
    assert recorded["pip_cache"]["state"] in {"warm", "cold"}
    assert len(recorded["load_1min"]) == 4
    assert re.fullmatch(r"[0-9a-f]{64}", recorded["pyproject_dependencies_sha256"])


def test_the_readme_gives_the_recorded_figures(bench: Any, recorded: dict[str, Any]) -> None:
    sentence = bench.readme_sentence(recorded)
    for figure in (
        f"{round(recorded['steps']['install']['seconds'])} s",
        f"{round(recorded['steps']['install']['venv_bytes'] / 1e6)} MB",
        f"{round(recorded['steps']['install_dev']['seconds'])} s",
        f"{recorded['test']['tests']:,} tests",
        "`make bench-install`",
        recorded["date"][:10],
    ):
        assert figure in sentence, figure
    assert sentence in readme_text(), (
        "README.md's install figures are not bench/results/install.json's: put this sentence "
        f"in its 'Two commands' section:\n{sentence}"
    )


@pytest.mark.parametrize(
    ("path", "change"),
    [
        (("steps", "install", "seconds"), 10),
        (("steps", "install", "venv_bytes"), 10_000_000),
        (("steps", "install_dev", "seconds"), 10),
        (("steps", "install_dev", "venv_bytes"), 10_000_000),
        (("test", "seconds_high"), 10),
        (("test", "tests"), 1),
    ],
)
def test_a_figure_that_differs_from_the_file_is_caught(
    bench: Any, recorded: dict[str, Any], path: tuple[str, ...], change: int
) -> None:
    other = copy.deepcopy(recorded)
    *parents, leaf = path
    holder = other
    for key in parents:
        holder = holder[key]
    holder[leaf] += change
    assert bench.readme_sentence(other) not in readme_text()


def test_the_figures_were_measured_on_todays_dependencies(
    bench: Any, recorded: dict[str, Any]
) -> None:
    current = bench.dependency_digest(ROOT / "pyproject.toml")
    assert recorded["pyproject_dependencies_sha256"] == current, STALE


PYPROJECT = """\
[project]
name = "x"
dependencies = [
    "a>=1",  # why a
]

[project.optional-dependencies]
serve = ["b>=2"]
dev = ["c>=3"]

[tool.ruff]
line-length = 100
"""


@pytest.mark.parametrize(
    ("old", "new", "same"),
    [
        ('"a>=1"', '"a>=2"', False),
        ('"a>=1",', '"a>=1", "d",', False),
        ('["b>=2"]', '["b>=2", "e"]', False),
        ('dev = ["c>=3"]', 'dev = ["c>=3"]\nmore = ["f"]', False),
        ("# why a", "# another reason", True),
        ("line-length = 100", "line-length = 90", True),
    ],
)
def test_the_digest_follows_the_dependency_lists_only(
    bench: Any, tmp_path: Path, old: str, new: str, same: bool
) -> None:
    before, after = tmp_path / "before.toml", tmp_path / "after.toml"
    before.write_text(PYPROJECT)
    assert old in PYPROJECT
    after.write_text(PYPROJECT.replace(old, new))
    assert (bench.dependency_digest(before) == bench.dependency_digest(after)) is same


def test_make_tests_time_is_read_from_pytests_last_line(bench: Any, tmp_path: Path) -> None:
    log = tmp_path / "make-test.log"
    log.write_text(
        "tests/unit_tests/test_x.py ....\n"
        "1 passed in 0.50s\n"
        "==== 3485 passed, 2 xfailed, 4 warnings in 488.20s (0:08:08) ====\n"
    )
    entry = bench.pytest_entry_from_log(log)
    assert entry["seconds_low"] == entry["seconds_high"] == 488.2
    assert entry["tests"] == 3487
