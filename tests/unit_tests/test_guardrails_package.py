"""The guardrails package: the config loads alone, and each rule has one home."""

from __future__ import annotations

import subprocess
import sys
from types import ModuleType

import common.guardrails as guardrails


def test_the_package_re_exports_nothing_so_each_rule_has_one_home() -> None:
    # Its submodules become attributes once imported; nothing else may be defined here.
    public = [
        n
        for n, value in vars(guardrails).items()
        if not n.startswith("_") and not isinstance(value, ModuleType)
    ]
    assert public == [], public


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
