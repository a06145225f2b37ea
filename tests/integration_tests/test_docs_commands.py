"""Every shell block the docs mark runnable runs as written and ends as the docs say.

A block is marked by an HTML comment on the line before its fence: `<!-- runnable -->` (the
block must succeed, each command of it) or `<!-- runnable exit=3 -->` (its last command ends with
that code, e.g. a run that waits for approval without a terminal). Each block runs with bash in a
new folder holding the project's `mcp.json` and a link to its `.venv`, with no API key and no
model set: what a new user has after `make demo`. A doc whose command drifts fails here.

The served tour is a pair: `<!-- runnable server -->` starts a server and stays in the
foreground, `<!-- runnable client exit=N -->` talks to it from a second terminal. The server
block runs in the background on a free port (`--port` and `--no-reload` added after
`mcp-planner serve`), the client block against it (the server's URL given to the example client);
the approve command the client prints is then pasted back as it is printed.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.integration_tests.helpers import SERVED_FILES, free_port, stop_group

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARK = re.compile(r"<!-- runnable(?: exit=(\d+))? -->\n```(?:bash|sh)\n(.*?)\n```", re.S)
"""A marked block: the exit code it ends with (0 when not given), and its text."""
SETTINGS_OF_THE_MACHINE = ("MODEL", "OPENAI_BASE_URL", "CHECKPOINT_PATH", "STORE_PATH")
"""Settings a developer's shell may hold that a new user's has not."""
SERVED = re.compile(r"<!-- runnable (server|client)(?: exit=(\d+))? -->\n```bash\n(.*?)\n```", re.S)
"""A block of the served tour: its role, the exit code it ends with, and its text."""
START_S = 180
"""How long the server may take to answer (its first start bundles the plan card with npx)."""


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


def new_users_folder(tmp_path: Path) -> dict[str, str]:
    """A folder as a new user's after `make demo` (mcp.json, .venv); the environment to use."""
    (tmp_path / "mcp.json").write_text((ROOT / "mcp.json").read_text())
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and k not in SETTINGS_OF_THE_MACHINE
    }
    env["PATH"] = f"{ROOT / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.mark.parametrize(("exit_code", "script"), BLOCKS)
def test_a_runnable_block_runs_as_the_docs_say(tmp_path: Path, exit_code: int, script: str) -> None:
    env = new_users_folder(tmp_path)
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


def _served_blocks() -> tuple[str, str, int]:
    """The README's server block, its client block and the client's exit code."""
    found = {m.group(1): m for m in SERVED.finditer((ROOT / "README.md").read_text())}
    assert set(found) == {"server", "client"}, "the README's tour serves the graph"
    client = found["client"]
    return found["server"].group(3), client.group(3), int(client.group(2) or 0)


def _wait_until_up(url: str, server: subprocess.Popen[str], log: Path) -> None:
    """Return once the server answers; fail the test if it exits or takes too long."""
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        assert server.poll() is None, log.read_text()[-3000:]
        try:
            with urllib.request.urlopen(f"{url}/ok", timeout=2):
                return
        except (urllib.error.URLError, OSError):
            time.sleep(0.5)
    pytest.fail(f"the tour's server did not answer in {START_S} s:\n{log.read_text()[-3000:]}")


def _bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", script],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_served_tour_runs_as_written(tmp_path: Path) -> None:
    server_block, client_block, client_exit = _served_blocks()
    env = new_users_folder(tmp_path)
    for name in SERVED_FILES:
        (tmp_path / name).symlink_to(ROOT / name)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    # No reload: the tour's `src` is a link to the project's, which others may be editing.
    started = server_block.replace(
        "mcp-planner serve", f"mcp-planner serve --port {port} --no-reload", 1
    )
    assert started != server_block, "the tour starts the server with mcp-planner serve"
    log = tmp_path / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            ["bash", "-c", started],
            cwd=tmp_path,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
    try:
        _wait_until_up(url, server, log)
        client = _bash(
            client_block.replace("sdk_client.py ", f"sdk_client.py {url} ", 1), tmp_path, env
        )
        shown = client.stdout + client.stderr
        assert client.returncode == client_exit, shown[-3000:]
        assert "Traceback" not in shown, shown[-3000:]

        (approve,) = re.findall(r"^Approve: (.*)$", client.stdout, re.M)
        pasted = subprocess.run(
            shlex.split(approve),
            cwd=tmp_path,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert pasted.returncode == 0, (pasted.stdout + pasted.stderr)[-3000:]
        assert "\nAnswer:\n" in pasted.stdout
    finally:
        stop_group(server)


PROVIDED_BY = {"langgraph": "langgraph-cli", "mcp-planner": "langgraph-mcp-planner"}
"""The distribution that provides each `.venv/bin` command the README's tour runs."""


def test_the_readme_set_up_installs_every_command_the_tour_runs() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    install = re.search(r"^\$\(STAMP\):.*\n\t(.*)$", (ROOT / "Makefile").read_text(), re.M)
    assert install, "make demo's install step"
    extras = re.findall(r"\.\[([\w,]+)\]", install.group(1))
    installed = list(project["dependencies"])
    for extra in ",".join(extras).split(","):
        installed += project["optional-dependencies"].get(extra, []) if extra else []
    names = {re.split(r"[\[<>=~ ]", d, maxsplit=1)[0] for d in installed}
    names.add(project["name"])
    tour = (ROOT / "README.md").read_text().split("## A five-minute tour", 1)[1]
    commands = set(re.findall(r"\.venv/bin/([\w-]+)", tour)) - {"python"}
    assert commands, "the tour runs commands from .venv/bin"
    for command in sorted(commands):
        assert PROVIDED_BY[command] in names, f"make demo does not install {command}"
