"""A stdio MCP server that misbehaves on purpose, for the fault suite.

The fault is chosen by `FAULT_MODE` (or the first argument); the other variables tune it:

- `none`: behaves.
- `kill_mid_call`: a tool call starts (and is logged), then the process dies (`os._exit`)
  after `FAULT_DELAY_S`; an irreversible `append_record` appends its record first, so the
  write happened but its answer never comes.
- `hang`: a tool call starts, then never answers.
- `exit_after_call`: every call answers, then the process exits.
- `crash_at_start`: writes a reason to stderr and exits before speaking MCP.
- `hang_at_init`: starts, writes to stderr, and never reads its input (no `initialize` answer).
- `garbage_stdout`: a tool call writes lines that are not JSON-RPC to stdout, then answers.
- `huge_result`: `lookup` answers `FAULT_HUGE_CHARS` characters (default 5,000,000).
- `slow_write`: `append_record` takes `FAULT_DELAY_S` before appending (a write that outlives
  the caller's timeout unless it is cancelled).

`FAULT_ONCE` names a marker file: when set, the fault strikes only while the marker does not
exist (the first faulty call creates it), so a restarted server behaves. `FAULT_LOG` gets one
line per start (`start PID`), call (`call TOOL ARG`) and answer (`done TOOL ARG`);
`FAULT_RECORDS` gets one line per record `append_record` wrote, which tests count.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

MODES = (
    "none",
    "kill_mid_call",
    "hang",
    "exit_after_call",
    "crash_at_start",
    "hang_at_init",
    "garbage_stdout",
    "huge_result",
    "slow_write",
)
"""Every fault this server can inject."""


def mode() -> str:
    """The fault to inject: the first argument, else `FAULT_MODE`, else none."""
    chosen = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("FAULT_MODE", "none")
    if chosen not in MODES:
        raise SystemExit(f"faulty: unknown mode {chosen!r}; modes: {', '.join(MODES)}")
    return chosen


def delay_s() -> float:
    """How long a delayed fault waits (`FAULT_DELAY_S`, default 0.5 s)."""
    return float(os.environ.get("FAULT_DELAY_S", "0.5"))


def _append(variable: str, line: str) -> None:
    path = os.environ.get(variable)
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())


def log(line: str) -> None:
    """One line in `FAULT_LOG`, written through so a killed process leaves it behind."""
    _append("FAULT_LOG", line)


def strikes() -> bool:
    """Whether the fault strikes now: always, or once per `FAULT_ONCE` marker."""
    marker = os.environ.get("FAULT_ONCE")
    if not marker:
        return True
    try:
        Path(marker).touch(exist_ok=False)
    except FileExistsError:
        return False
    return True


def start_faults() -> None:
    """Start-time faults, before the SDK's import (about a second): a short start-up timeout
    still sees what they write to stderr."""
    current = mode()
    log(f"start {os.getpid()} {current}")
    if current == "crash_at_start":
        sys.stderr.write("faulty: cannot start: missing FAULTY_LICENSE\n")
        sys.stderr.flush()
        sys.exit(2)
    if current == "hang_at_init" and strikes():
        sys.stderr.write("faulty: waiting for a lock that never frees\n")
        sys.stderr.flush()
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    start_faults()

from mcp.server.mcpserver import MCPServer  # noqa: E402
from mcp.types import ToolAnnotations  # noqa: E402

READ_ONLY = ToolAnnotations(read_only_hint=True)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)

mcp = MCPServer("faulty")

wire: int | None = None
"""The client's pipe (a duplicate of stdout taken before serving): while the SDK serves stdio it
points fd 1 at stderr, so stray output cannot reach the client unless it is written here."""


def die() -> None:
    """End the process at once, as SIGKILL would: no answer, no clean shutdown."""
    log(f"died {os.getpid()}")
    os._exit(9)


async def fault_during(tool: str, arg: str) -> None:
    """Inject the call-time fault of this mode (if any) into one call."""
    current = mode()
    if current == "kill_mid_call" and strikes():
        await asyncio.sleep(delay_s())
        die()
    if current == "hang" and strikes():
        await asyncio.sleep(3600)
    if current == "garbage_stdout" and strikes():
        os.write(
            1 if wire is None else wire,
            b'this is not JSON-RPC\n{"jsonrpc": "2.0", "garbage\n\x00\xff\n',
        )


def answered(tool: str, arg: str, answer: str) -> str:
    """Log the answer and, in `exit_after_call`, exit once it has been sent."""
    log(f"done {tool} {arg}")
    if mode() == "exit_after_call" and strikes():
        # Leave time for the answer to be written before the process goes.
        asyncio.get_running_loop().call_later(0.2, die)
    return answer


@mcp.tool(annotations=READ_ONLY)
async def lookup(key: str) -> str:
    """Look up the value stored under a key (read-only)."""
    log(f"call lookup {key}")
    await fault_during("lookup", key)
    if mode() == "huge_result":
        size = int(os.environ.get("FAULT_HUGE_CHARS", "5000000"))
        head = f"BEGIN {key} "
        return answered("lookup", key, head + "x" * max(size - len(head) - 4, 0) + " END")
    return answered("lookup", key, f"value of {key}")


@mcp.tool(annotations=READ_ONLY)
async def wait(key: str, seconds: float) -> str:
    """Wait a number of seconds, then answer with the key (read-only)."""
    log(f"call wait {key}")
    await fault_during("wait", key)
    await asyncio.sleep(seconds)
    return answered("wait", key, f"waited for {key}")


@mcp.tool(annotations=WRITE)
async def append_record(text: str) -> str:
    """Append a record to the ledger file (irreversible: every call adds a line)."""
    log(f"call append_record {text}")
    current = mode()
    if current == "slow_write":
        await asyncio.sleep(delay_s())
    if current == "kill_mid_call" and strikes():
        # The write lands, then the answer is lost: the caller cannot know it happened.
        _append("FAULT_RECORDS", text)
        await asyncio.sleep(delay_s())
        die()
    await fault_during("append_record", text)
    _append("FAULT_RECORDS", text)
    return answered("append_record", text, f"appended {text}")


def main() -> None:
    """Serve stdio (the start-time faults have run before the imports)."""
    global wire
    wire = os.dup(1)
    mcp.run()


if __name__ == "__main__":
    main()
