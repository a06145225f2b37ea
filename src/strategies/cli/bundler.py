"""The plan card's bundler that a stopped server worker leaves behind, found and stopped.

`langgraph dev`'s worker starts `npx @langchain/langgraph-ui watch -o <folder>/.langgraph_api/ui`
(langgraph.json's `ui`) and, when it stops, terminates npx only: the `langgraphjs-ui watch` node
process under npx (and its esbuild) lives on, one more after each reload. `mcp-planner serve`
stops them: a bundler of this folder that is no longer under the serving process is left over.

Read from /proc (Linux). psutil is not a dependency of this project, and these few lines need
nothing more; on a system without /proc nothing is found and nothing is stopped.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

PROC = Path("/proc")
"""Where Linux shows its processes."""

BUNDLER_NAMES = ("langgraph-ui", "langgraphjs-ui")
"""Words of a bundler's command line: npx's package name, and the node script it runs."""


def ui_output(folder: Path) -> str:
    """Where the server's bundler writes for `folder` (langgraph_api.js.ui's UI_ROOT_DIR)."""
    return str(folder / ".langgraph_api" / "ui")


def _processes() -> Iterator[tuple[int, int, list[str]]]:
    """Every live process: its pid, its parent's pid, its command line."""
    for proc in PROC.iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text(errors="replace")
            raw = (proc / "cmdline").read_bytes()
        except OSError:  # ended meanwhile
            continue
        fields = stat.rpartition(")")[2].split()
        if len(fields) < 2 or fields[0] == "Z":
            continue
        yield int(proc.name), int(fields[1]), [p.decode(errors="replace") for p in raw.split(b"\0")]


def is_bundler(command: list[str], output: str) -> bool:
    """Whether `command` is a UI bundler watching into `output`."""
    # npm rewrites its title into one string ("npm exec @langchain/langgraph-ui@latest watch
    # -o ..."): the words are read from the joined line, not from the argument list.
    words = " ".join(command).split()
    named = any(name in word for word in words for name in BUNDLER_NAMES)
    return named and "watch" in words and output in words


def _under(pid: int, ancestor: int, parents: dict[int, int]) -> bool:
    """Whether `ancestor` is `pid` or one of its ancestors."""
    seen: set[int] = set()
    while pid not in seen and pid > 1:
        if pid == ancestor:
            return True
        seen.add(pid)
        pid = parents.get(pid, 0)
    return False


def leftovers(folder: Path, serving: int) -> list[int]:
    """Pids of `folder`'s bundlers that are not under `serving`, and every process under them."""
    table = list(_processes())
    parents = {pid: ppid for pid, ppid, _ in table}
    output = ui_output(folder)
    roots = [
        pid
        for pid, _, command in table
        if is_bundler(command, output) and not _under(pid, serving, parents)
    ]
    return [pid for pid in parents if any(_under(pid, root, parents) for root in roots)]


def stop_leftovers(folder: Path, serving: int) -> list[int]:
    """Terminate `folder`'s left-over bundlers (see `leftovers`); the pids signalled."""
    stopped = []
    for pid in leftovers(folder, serving):
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:  # ended meanwhile, or not ours to stop
            continue
        stopped.append(pid)
    return stopped


def sweep_after_each_worker(folder: Path) -> None:
    """Stop left-over bundlers each time a child of this process (a server worker) ends.

    The reloading supervisor's worker is its child: when it ends (a reload, a stop), its
    bundler's npx is gone and the node process under it is no longer under this process.
    Left-overs are looked for then, not on a timer.
    """
    me = os.getpid()

    def on_child_exit(_signum: int, _frame: FrameType | None) -> None:
        stop_leftovers(folder, me)

    signal.signal(signal.SIGCHLD, on_child_exit)
