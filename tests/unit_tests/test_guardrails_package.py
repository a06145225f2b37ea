"""The guardrails package: each public name has one home, and the config loads alone."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import common.guardrails as guardrails


@pytest.mark.parametrize("name", guardrails.__all__)
def test_each_public_name_is_the_object_its_submodule_defines(name: str) -> None:
    home = importlib.import_module(f"common.guardrails.{guardrails.HOMES[name]}")
    assert getattr(guardrails, name) is getattr(home, name)


def test_every_re_exported_name_has_a_home() -> None:
    assert sorted(guardrails.HOMES) == sorted(guardrails.__all__)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_rule"):
        _ = guardrails.no_such_rule


def test_importing_the_config_does_not_load_the_rules() -> None:
    # A fresh interpreter: this one has long since loaded every rule module.
    code = (
        "import sys; import common.guardrails.config; "
        "print(sorted(m for m in sys.modules if m.startswith('common.guardrails')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    assert out.strip() == "['common.guardrails', 'common.guardrails.config']"
