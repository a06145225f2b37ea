"""Time the installs a fresh clone makes and weigh its `.venv`: the README's install figures.

    python bench/bench_install.py [--repo PATH] [--out FILE] [--keep]
        [--test-log LOG | --measure-test | --test-seconds LOW[-HIGH] --test-count N
         --test-source TEXT]

`make bench-install` runs it. It clones the repository's HEAD (`git clone`, local) into a
temporary folder, then in that clone times `make install` (the runtime and the serve extra:
what `make demo` installs) and `make install-dev` on top (the dev extra), weighing `.venv`
(`du -sk`) after each. It records them in bench/results/install.json with the date, the commit,
the machine (cores, CPU, memory), the 1-minute load before and after each step (machines of this
kind differ up to 2x, and others' work may run beside), whether pip's cache was warm or cold
(the machine's own pip configuration is used as is) and a digest of pyproject.toml's dependency
lists, which tests/unit_tests/test_install_figures.py compares with the current file.

`make test`'s duration is recorded from pytest's last line in a log (--test-log), measured in
the clone (--measure-test: `make test` after the installs, 7 to 10 minutes), or cited
(--test-seconds, --test-count, --test-source); without any, the file's previous entry is kept.
`readme_sentence` renders the README's sentence from the file, which the test also checks.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "install.json"
STEPS = {
    "install": ("make install", "runtime and serve extra, what make demo installs"),
    "install_dev": ("make install-dev", "the dev extra, on top of make install"),
}
PYTEST_LAST = re.compile(r"=*\s*(?P<counts>[\w ,]+?) in (?P<seconds>[\d.]+)s\b")
"""pytest's final line, e.g. `3485 passed, 2 xfailed in 488.20s (0:08:08)`."""


def dependency_digest(pyproject: Path) -> str:
    """The sha256 of pyproject.toml's `dependencies` and `optional-dependencies`, as parsed."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    lists = {
        "dependencies": project.get("dependencies", []),
        "optional-dependencies": project.get("optional-dependencies", {}),
    }
    # Parsed, so comments and layout do not count; sorted keys so the extras' order does not.
    return hashlib.sha256(json.dumps(lists, sort_keys=True).encode()).hexdigest()


def _mb(size_bytes: int) -> int:
    return round(size_bytes / 1e6)


def readme_sentence(result: dict[str, Any]) -> str:
    """The README's sentence of install and test figures, rendered from install.json's data."""
    base, dev, test = result["steps"]["install"], result["steps"]["install_dev"], result["test"]
    machine, loads = result["machine"], result["load_1min"]
    quiet = "quiet" if max(loads) < machine["cores"] else "under load"
    low, high = round(test["seconds_low"]), round(test["seconds_high"])
    tests = f"{low} s" if low == high else f"{low}-{high} s"
    # The packages' source decides the install's time more than the machine does: say it.
    local = result["pip_cache"].get("sources", {}).get("local_extra_sources", 0)
    mirrors = ", packages from local mirrors" if local else ""
    return (
        f"Measured by `make bench-install` on {result['date'][:10]} (a fresh clone, "
        f"{machine['cores']} cores, {quiet}: 1-minute load {min(loads):.1f}-{max(loads):.1f}, "
        f"pip's cache {result['pip_cache']['state']}{mirrors}): `make demo`'s install took "
        f"{round(base['seconds'])} s and left a {_mb(base['venv_bytes'])} MB `.venv`; "
        f"the dev extra added {round(dev['seconds'])} s, {_mb(dev['venv_bytes'])} MB in all. "
        f"`make test` ran {test['tests']:,} tests in {tests} ({test['source']})."
    )


def _loads() -> float:
    return round(os.getloadavg()[0], 2)


def _machine() -> dict[str, Any]:
    cpu = ""
    with open("/proc/cpuinfo", encoding="utf-8") as info:
        cpu = next((ln.split(":", 1)[1].strip() for ln in info if ln.startswith("model name")), "")
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return {
        "cores": os.cpu_count(),
        "cpu": cpu,
        "memory_gib": round(memory / 2**30, 1),
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
    }


def _pip_cache() -> dict[str, Any]:
    """pip's cache folder as the machine's own pip sees it, and whether anything is in it."""
    found = subprocess.run(
        ["python3", "-m", "pip", "cache", "dir"], capture_output=True, text=True, check=False
    )
    folder = Path(found.stdout.strip()) if found.returncode == 0 else None
    size = _du_bytes(folder) if folder and folder.is_dir() else 0
    # Under a megabyte is pip's bookkeeping alone: no wheel or download is kept there.
    return {"state": "warm" if size >= 1_000_000 else "cold", "bytes": size, "sources": _sources()}


def _sources() -> dict[str, Any]:
    """Where pip takes packages from: its index, and how many local and remote extra sources.

    Only the kind is kept, never an address (an index URL may carry a token).
    """
    listed = subprocess.run(
        ["python3", "-m", "pip", "config", "list"], capture_output=True, text=True, check=False
    )
    settings = {
        line.split("=", 1)[0].rsplit(".", 1)[-1]: line.split("=", 1)[1].strip("'\"").split()
        for line in listed.stdout.splitlines()
        if "=" in line
    }
    extra = settings.get("extra-index-url", []) + settings.get("find-links", [])
    local = sum(u.startswith(("file:", "/")) for u in extra)
    return {
        "index": "configured" if settings.get("index-url") else "default (PyPI)",
        "local_extra_sources": local,
        "remote_extra_sources": len(extra) - local,
    }


def _du_bytes(folder: Path) -> int:
    out = subprocess.run(["du", "-sk", str(folder)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0]) * 1024


def _clean_env() -> dict[str, str]:
    """This environment without an active venv, so the clone's `python3 -m venv` is the system's."""
    env = dict(os.environ)
    active = env.pop("VIRTUAL_ENV", None)
    if active:
        paths = env.get("PATH", "").split(os.pathsep)
        env["PATH"] = os.pathsep.join(p for p in paths if not p.startswith(active))
    return env


def _timed_make(
    clone: Path, target: str, log: Path | None = None, check: bool = True
) -> dict[str, Any]:
    log = log or clone / f"make-{target}.log"
    before = _loads()
    start = time.monotonic()
    with open(log, "w", encoding="utf-8") as out:
        done = subprocess.run(
            ["make", target], cwd=clone, env=_clean_env(), stdout=out, stderr=subprocess.STDOUT
        )
    seconds = round(time.monotonic() - start, 1)
    if check and done.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-20:])
        sys.exit(f"{tail}\nbench_install: make {target} failed (exit {done.returncode})")
    return {"seconds": seconds, "load_before": before, "load_after": _loads()}


def pytest_entry_from_log(log: Path) -> dict[str, Any]:
    """`make test`'s duration and count of tests from pytest's last summary line in a log."""
    lines = [
        m for ln in log.read_text(errors="replace").splitlines() if (m := PYTEST_LAST.search(ln))
    ]
    if not lines:
        sys.exit(f"bench_install: no pytest summary line ('... in N s') in {log}")
    last = lines[-1]
    count = sum(
        int(n)
        for n in re.findall(
            r"(\d+) (?:passed|failed|xfailed|xpassed|skipped|error)", last["counts"]
        )
    )
    seconds = float(last["seconds"])
    when = dt.datetime.fromtimestamp(log.stat().st_mtime, dt.UTC).date().isoformat()
    return {
        "seconds_low": seconds,
        "seconds_high": seconds,
        "tests": count,
        "summary": last.group(0).strip("= "),
        "source": f"`make test`, {when}",
    }


def _test_entry(args: argparse.Namespace, clone: Path, previous: dict[str, Any]) -> dict[str, Any]:
    if args.measure_test:
        log = clone / "make-test.log"
        # A failing test still gives pytest's last line: its time is recorded, the count says it.
        _timed_make(clone, "test", log, check=False)
        return pytest_entry_from_log(log)
    if args.test_log:
        return pytest_entry_from_log(args.test_log)
    if args.test_seconds:
        low, _, high = args.test_seconds.partition("-")
        return {
            "seconds_low": float(low),
            "seconds_high": float(high or low),
            "tests": args.test_count,
            "source": args.test_source,
        }
    if "test" not in previous:
        sys.exit(
            "bench_install: no make test figure yet: "
            "give --test-log, --measure-test or --test-seconds"
        )
    return dict(previous["test"])


def measure(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    """Clone, time each install step in the clone, weigh its .venv: install.json's content."""
    clone = workdir / "clone"
    subprocess.run(["git", "clone", "--quiet", str(args.repo), str(clone)], check=True)
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True, check=True
    ).stdout.strip()
    result: dict[str, Any] = {
        "command": "make bench-install",
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": commit,
        "machine": _machine(),
        "pip_cache": _pip_cache(),
        "pyproject_dependencies_sha256": dependency_digest(clone / "pyproject.toml"),
        "steps": {},
    }
    for key, (command, what) in STEPS.items():
        step = _timed_make(clone, command.split()[1])
        step |= {"command": command, "what": what, "venv_bytes": _du_bytes(clone / ".venv")}
        result["steps"][key] = step
        print(
            f"{command}: {step['seconds']} s, .venv {_mb(step['venv_bytes'])} MB, "
            f"load {step['load_before']} -> {step['load_after']}",
            flush=True,
        )
    previous = json.loads(args.out.read_text()) if args.out.exists() else {}
    result["test"] = _test_entry(args, clone, previous)
    result["load_1min"] = [
        v for s in result["steps"].values() for v in (s["load_before"], s["load_after"])
    ]
    return result


def main() -> None:
    """Measure, write install.json and print the README's sentence to paste."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repo", type=Path, default=ROOT, help="the repository to clone (HEAD)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--keep", action="store_true", help="keep the clone (its path is printed)")
    parser.add_argument("--test-log", type=Path, help="a log of `make test` to read the time from")
    parser.add_argument("--measure-test", action="store_true", help="run `make test` in the clone")
    parser.add_argument("--test-seconds", help="a cited duration, LOW or LOW-HIGH seconds")
    parser.add_argument("--test-count", type=int, help="the cited run's number of tests")
    parser.add_argument("--test-source", help="the cited run: what ran, where, when")
    args = parser.parse_args()
    if args.test_seconds and not (args.test_count and args.test_source):
        parser.error("--test-seconds needs --test-count and --test-source")
    workdir = Path(tempfile.mkdtemp(prefix="bench-install-"))
    try:
        result = measure(args, workdir)
    finally:
        if args.keep:
            print(f"clone kept in {workdir / 'clone'}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}; the README's sentence (README.md, 'Two commands'):\n")
    print(readme_sentence(result))


if __name__ == "__main__":
    main()
