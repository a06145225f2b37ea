"""Every shell block the docs mark runnable runs as written and ends as the docs say.

A block is marked by an HTML comment on the line before its fence: `<!-- runnable -->` (the
block must succeed, each command of it) or `<!-- runnable exit=3 -->` (its last command ends with
that code, e.g. a run that waits for approval without a terminal). Each block runs with bash in a
new folder holding the project's `mcp.json` and a link to its `.venv`, with no API key and no
model set: what a new user has after `make demo`. A doc whose command drifts fails here.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARK = re.compile(r"<!-- runnable(?: exit=(\d+))? -->\n```(?:bash|sh)\n(.*?)\n```", re.S)
"""A marked block: the exit code it ends with (0 when not given), and its text."""
SETTINGS_OF_THE_MACHINE = ("MODEL", "OPENAI_BASE_URL", "CHECKPOINT_PATH", "STORE_PATH")
"""Settings a developer's shell may hold that a new user's has not."""


def _blocks() -> list[object]:
    found: list[object] = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for match in MARK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            code = int(match.group(1) or 0)
            found.append(pytest.param(code, match.group(2), id=f"{doc.name}:{line}"))
    return found


BLOCKS = _blocks()


def test_the_readme_tour_is_runnable() -> None:
    readme = [b for b in BLOCKS if getattr(b, "id", "").startswith("README.md:")]
    assert len(readme) >= 3, readme


@pytest.mark.parametrize(("exit_code", "script"), BLOCKS)
def test_a_runnable_block_runs_as_the_docs_say(tmp_path: Path, exit_code: int, script: str) -> None:
    (tmp_path / "mcp.json").write_text((ROOT / "mcp.json").read_text())
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and k not in SETTINGS_OF_THE_MACHINE
    }
    env["PATH"] = f"{ROOT / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    strict = "set -e\n" if exit_code == 0 else ""

    done = subprocess.run(
        ["bash", "-c", strict + script],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    output = done.stdout + done.stderr
    assert done.returncode == exit_code, output[-3000:]
    assert "Traceback" not in output, output[-3000:]


LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
"""A Markdown link's target, without its anchor."""


def test_the_readme_fits_on_a_screen_and_links_every_doc() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count("\n") < 250
    linked = {target for target in LINK.findall(readme)}
    for doc in sorted((ROOT / "docs").glob("*.md")):
        assert f"docs/{doc.name}" in linked, doc.name


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.name)
def test_every_relative_link_of_the_docs_leads_somewhere(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    for target in LINK.findall(text):
        if "://" in target or target.startswith("mailto:"):
            continue
        assert (doc.parent / target).exists(), (doc.name, target)
