"""A deferred module (issue 45's cold start) imports as usual and loads at its first use."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from common.lazy_modules import defer


def _package(root: Path, name: str, body: str) -> None:
    """A module `name` in `root` whose code is `body`."""
    (root / f"{name}.py").write_text(body)


def test_a_deferred_module_runs_its_code_once_at_the_first_attribute_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _package(tmp_path, "deferred_a", "import sys\nsys.deferred_a_runs += 1\nVALUE = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "deferred_a_runs", 0, raising=False)
    try:
        assert defer("deferred_a") is True
        import deferred_a  # the importer's own statement: binds it, runs nothing

        assert sys.deferred_a_runs == 0  # type: ignore[attr-defined]
        readers = [threading.Thread(target=lambda: deferred_a.VALUE) for _ in range(4)]
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.join()
        assert deferred_a.VALUE == 42
        assert sys.deferred_a_runs == 1  # type: ignore[attr-defined]
        with pytest.raises(AttributeError):
            _ = deferred_a.MISSING
        assert defer("deferred_a") is False  # already imported: left as it is
    finally:
        sys.modules.pop("deferred_a", None)


def test_a_deferred_module_that_fails_raises_and_is_not_left_half_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _package(tmp_path, "deferred_b", "FIRST = 1\nimport no_such_module_anywhere\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert defer("deferred_b") is True
        import deferred_b

        with pytest.raises(ModuleNotFoundError):
            _ = deferred_b.FIRST
        assert "deferred_b" not in sys.modules
    finally:
        sys.modules.pop("deferred_b", None)


def test_a_module_that_cannot_be_found_is_not_deferred() -> None:
    assert defer("no_such_module_anywhere") is False
    assert "no_such_module_anywhere" not in sys.modules


def test_a_name_the_module_defines_loads_it_even_a_dunder_and_a_reload_ends_the_deferral(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    _package(
        tmp_path,
        "deferred_c",
        "import sys\nsys.deferred_c_runs += 1\n__version__ = '1.0'\nVALUE = 7\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "deferred_c_runs", 0, raising=False)
    try:
        assert defer("deferred_c") is True
        import deferred_c

        assert not hasattr(deferred_c, "__path__")  # an import probe: no load
        assert sys.deferred_c_runs == 0  # type: ignore[attr-defined]
        assert deferred_c.__version__ == "1.0"
        assert sys.deferred_c_runs == 1  # type: ignore[attr-defined]
        sys.modules.pop("deferred_c")
        assert defer("deferred_c") is True
        import deferred_c as again

        importlib.reload(again)
        assert sys.deferred_c_runs == 2  # type: ignore[attr-defined]
        assert again.VALUE == 7
        with pytest.raises(AttributeError):
            _ = again.MISSING
        assert sys.deferred_c_runs == 2  # type: ignore[attr-defined]
    finally:
        sys.modules.pop("deferred_c", None)
