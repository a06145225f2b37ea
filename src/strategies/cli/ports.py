"""Whether a TCP port is free, and who holds it when it is not (for `mcp-planner serve`).

The holder is read from /proc (Linux): the listening socket's inode in /proc/net/tcp{,6}, then
the process whose file descriptors include it. psutil would do the same on other systems, but
it is not a dependency of this project for one sentence; elsewhere, and for another user's
process, whose descriptors are not readable, the sentence says "another program".
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

PROC = Path("/proc")
"""Where Linux shows its processes and sockets."""

LISTEN = "0A"
"""The state column of a listening socket in /proc/net/tcp."""

SHOWN_CHARS = 80
"""How much of the holder's command line the sentence shows."""


def port_free(host: str, port: int) -> bool:
    """Whether `port` can be bound on `host`: the test `langgraph dev` makes before it moves."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
        except OSError:
            return False
    return True


def _listening_inodes(port: int) -> set[str]:
    """Inodes of the sockets listening on `port` (any address, IPv4 or IPv6)."""
    found: set[str] = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = (PROC / "net" / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[3] == LISTEN and fields[1].endswith(f":{port:04X}"):
                found.add(fields[9])
    return found


def _owner(inodes: set[str]) -> int | None:
    """The pid of a process holding one of the socket `inodes`, if this user may see it."""
    wanted = {f"socket:[{inode}]" for inode in inodes}
    for proc in PROC.iterdir():
        if not proc.name.isdigit():
            continue
        try:
            fds = list((proc / "fd").iterdir())
        except OSError:  # another user's process, or one that just ended
            continue
        for fd in fds:
            try:
                if os.readlink(fd) in wanted:
                    return int(proc.name)
            except OSError:
                continue
    return None


def command_of(pid: int) -> str:
    """The command line of `pid`, shortened for a sentence; "" when it cannot be read."""
    try:
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return ""
    parts = [part.decode(errors="replace") for part in raw.split(b"\0") if part]
    if not parts:
        return ""
    shown = " ".join(" ".join([Path(parts[0]).name, *parts[1:]]).split())
    return shown if len(shown) <= SHOWN_CHARS else shown[: SHOWN_CHARS - 3] + "..."


def holder(port: int) -> str:
    """Who listens on `port`, for a sentence: `cmd args` (pid N), or "another program"."""
    inodes = _listening_inodes(port)
    pid = _owner(inodes) if inodes else None
    if pid is None:
        return "another program"
    command = command_of(pid)
    return f"`{command}` (pid {pid})" if command else f"pid {pid}"
