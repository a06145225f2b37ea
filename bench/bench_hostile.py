"""Hostile inputs: does each guard's time grow with the input's size, or faster?

    python bench/bench_hostile.py [--repeats 3] [--only TEXT] [--json] [--no-check] [--out FILE]

The unit tests hold these functions to their usual answers on hostile inputs (long runs of one
character, spread digits, nested brackets, endless comments, a token of 100,000 roles) and to
no time bound: no test may depend on machine speed. Here each function is timed on each input at
n characters and at 8n, side by side in one run: both warmed up, then the two sizes alternately
(--repeats rounds; a sample repeats the call until it lasts 5 ms), the minimum of each kept.

Linear work shows a ratio near 8 (less where a fixed cost dominates at n); the goal is at most
24, no worse than about n log n with room for noise; quadratic work would show 64. The
milliseconds per 100,000 characters (of the 8n input) are for information. The sizes: 8n is
100,000 characters for the guardrails, the verdict parser and a run_query argument (the tests
use 50,000 to 100,000), the tests' own inputs for the leaving check (100,000 to 200,000), and
for the SQL and shell readers both sides of their parsers' caps: sqlglot reads up to 20,000
characters and bashlex up to 10,000 (8n at the cap), longer texts are left to patterns (n past
the cap: 8n 200,000 for SQL, 100,000 for shell). The token of 100,000 roles is 1.3 MB.

Prints a table, writes bench/results/hostile.json (every row, the machine, the commit, the
1-minute load before and after) and exits 1 when a ratio is over the goal, unless --no-check.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jwt

from common.guardrails.banned import mask_banned
from common.guardrails.config import GuardrailConfig
from common.guardrails.harmful import harmful_reason
from common.guardrails.numbers import numeric_problems
from common.guardrails.output import summarise_blobs, trim_tool_output
from common.guardrails.request import check_request
from common.guardrails.secrets import mask_secrets
from common.guardrails.urls import denied_urls
from common.safety.arguments import destructive_intent
from common.safety.leaving import Sources, carried
from common.safety.verdict import parse_verdict_text
from common.served.tokens import Unauthenticated, principal_of_token
from common.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "hostile.json"
MAX_RATIO = 24.0
"""Goal: time(8n) / time(n) at most this (linear is 8, quadratic 64)."""
MIN_TIMED_S = 0.005
"""Each timed sample repeats its call until it takes at least this long."""

Call = Callable[[], object]
Make = Callable[[int], tuple[Call, int]]
"""Characters wanted -> a call on an input of about that size, and its actual characters."""


@dataclass(frozen=True)
class Case:
    """One function on one hostile input, timed at `chars // 8` and `chars` characters."""

    group: str
    function: str
    input: str
    chars: int
    make: Make


def repeated(unit: str, prefix: str = "", suffix: str = "") -> Callable[[int], str]:
    """A text of about `chars` characters: `unit` over and over between prefix and suffix."""
    return lambda chars: prefix + unit * max(1, (chars - len(prefix) - len(suffix)) // len(unit))


def full_width(text: str) -> str:
    """`text` in full-width characters (U+FF01 to U+FF5E), its spaces ideographic (U+3000)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else "\u3000" for c in text)


def on_text(run: Callable[[str], object], text_of: Callable[[int], str]) -> Make:
    """`run` on the text `text_of` builds."""

    def make(chars: int) -> tuple[Call, int]:
        text = text_of(chars)
        return (lambda: run(text)), len(text)

    return make


def on_text_of(run: Callable[[str], object]) -> Callable[[Callable[[int], str]], Make]:
    """`on_text` with `run` given first."""
    return lambda text_of: on_text(run, text_of)


# --- the guardrails (tests/unit_tests/test_guardrails.py: the hostile inputs) ----------------

CFG = GuardrailConfig()
BANNED = GuardrailConfig(banned_words=["damn", "bad word", "Heck"])
WIDE_REQUEST = GuardrailConfig(max_request_chars=10**6, max_request_tokens=10**6)
GUARDRAIL_INPUTS: dict[str, Callable[[int], str]] = {
    "letters": repeated("a"),
    "underscored": repeated("a_"),
    "digits": repeated("1"),
    "spaced digits": repeated("1 "),
    "dotted": repeated("1."),
    "colons": repeated("a:"),
    "sk": repeated("sk-"),
    "brackets": repeated("["),
    "braces": repeated("{"),
    "tags": repeated("<a>"),
    "schemes": repeated("http://"),
    "keys": repeated("password="),
    "headers": repeated("-----BEGIN PRIVATE KEY-----\n"),
    "base64": repeated("QUJD"),
    "wide": repeated("\uff41"),
    "fork": repeated("a(){ a|"),
    "mixed": repeated("x sk-abc 1234 ::1 http://a.b/ password: y rm -rf\n"),
}
GUARDRAILS: dict[str, Callable[[str], object]] = {
    "check_request": lambda t: check_request(t, WIDE_REQUEST),
    "denied_urls": lambda t: denied_urls({"url": t, "x": [t]}, CFG),
    "harmful_reason": harmful_reason,
    "mask_secrets": mask_secrets,
    "summarise_blobs": lambda t: summarise_blobs(t, CFG),
    "mask_banned": lambda t: mask_banned(t, BANNED),
    "numeric_problems": lambda t: numeric_problems(t, [t], True),
    "trim_tool_output": lambda t: trim_tool_output(t, CFG),
}

# --- the analyser's verdict (tests/unit_tests/test_verdict_parsing.py) ------------------------

CATALOG = {f"s{i}": [f"tool_{j}" for j in range(50)] for i in range(40)}
VERDICT_INPUTS: dict[str, Callable[[int], str]] = {
    "stars": repeated("*"),
    "dashes": repeated("-"),
    "spaces": repeated(" ", suffix="x"),
    "spaced verdict": repeated(" ", "IRREVERSIBLE: ", "x"),
    "starred list": repeated("*`", "BLOCKED_TOOLS: "),
    "underscored list": repeated("a_", "BLOCKED_TOOLS: "),
    "letters, then a dash": repeated("a", suffix=" - x"),
    "open fence": repeated(" ", "``` ", "x"),
    "braces": repeated("{"),
    "nested keys": repeated('{"a": '),
    "unknown tools": lambda chars: (
        "BLOCKED_TOOLS:\n" + "\n".join(f"- nope_{i}" for i in range(chars // 12))
    ),
    "known tools": lambda chars: (
        "IRREVERSIBLE: YES\nBLOCKED_TOOLS: "
        + ", ".join(f"tool_{j % 50}" for j in range(chars // 8))
    ),
}

# --- data leaving (tests/unit_tests/test_leaving.py, test_leaving_disguises.py) ---------------


def leaving(texts: Callable[[int], dict[str, list[str]]], text: Callable[[int], str]) -> Make:
    """`carried` of the argument `text(n)` against fresh `Sources(texts(n))` (indexes built)."""

    def make(chars: int) -> tuple[Call, int]:
        sources, argument = texts(chars), text(chars)
        return (lambda: carried({"text": argument}, Sources(sources), "web")), len(argument)

    return make


def _repeated_mail(n: int) -> dict[str, list[str]]:
    return {"mail": ["a" * (2 * n), ("ab" * 15 + "c") * (n // 20)]}


def _spread_mail(n: int) -> dict[str, list[str]]:
    return {"mail": ["1 " * (n // 2), full_width("1" * (n // 4)), "code: 1 2 3 4 5 6"]}


def _asked(chars: int) -> tuple[Call, int]:
    """A long text of the user's own, asked to be posted: recognised, not held."""
    document = " ".join(f"line {i} of the quarterly report" for i in range(chars // 34))
    asked = f"Post this: {document}"
    files = {"files": [document]}
    return (lambda: carried({"text": document}, Sources(files, asked=asked), "chat")), len(document)


LEAVING: dict[str, tuple[int, Make]] = {
    "one letter, then another": (100_000, leaving(_repeated_mail, lambda n: "a" * 19 + "b" * n)),
    "near-repeats": (190_000, leaving(_repeated_mail, repeated("ab" * 9 + "x"))),
    "@ then digits": (
        200_000,
        leaving(_repeated_mail, lambda n: "@" * (n // 2) + "1" * (n // 2)),
    ),
    "spread digits": (200_000, leaving(_spread_mail, repeated("1 "))),
    "full-width spread digits": (
        100_000,
        leaving(_spread_mail, lambda n: full_width("2 ") * (n // 2)),
    ),
    "thin-spaced digits": (200_000, leaving(_spread_mail, repeated("1\u2009"))),
    "two digits spread": (200_000, leaving(_spread_mail, repeated("1 2 "))),
    "a long text the user asked for": (170_000, _asked),
}

# --- destructive arguments (tests/unit_tests/test_arguments.py, test_code_arguments.py) -------

POSTGRES = {"type": "object", "properties": {"sql": {"type": "string"}}}
ARGUMENT_INPUTS: dict[str, Callable[[int], str]] = {
    "curl": repeated("curl "),
    "git push": repeated("git push "),
    "select": repeated("select a from b "),
    "systemctl": repeated("systemctl a "),
    "open(": repeated("open("),
    "open comments": repeated("/* "),
    "empty comments": repeated("/**/", suffix="1"),
    "x;": repeated("x; "),
    "letters": repeated("a"),
}
CODE_INPUTS: dict[str, Callable[[int], str]] = {
    "empty comments": repeated("/**/", suffix="1"),
    "comments": repeated("/* a */ ", suffix="1"),
    "parentheses": repeated("(", suffix="1"),
    "substitutions": repeated("$("),
    "x;": repeated("x; "),
    "echo": repeated("echo 'a' "),
    "unions": repeated("SELECT 1 UNION ", suffix="SELECT 1"),
}


def _run_query(text: str) -> object:
    return destructive_intent("run_query", None, {"query": text})


def _postgres(text: str) -> object:
    return destructive_intent(
        "query", POSTGRES, {"sql": text}, description="Run a read-only SQL query"
    )


def _shell(text: str) -> object:
    return destructive_intent("execute_command", None, {"command": text})


# --- a bearer token of many roles (tests/integration_tests/test_served_attacks.py) ------------

SECRET = "s" * 32


def _token_of_roles(chars: int) -> tuple[Call, int]:
    roles = [f"r{n:06}" for n in range(chars // 10)]
    token = jwt.encode({"sub": "alice", "roles": roles, "exp": int(time.time()) + 600}, SECRET)
    settings = Settings(_env_file=None, auth_jwt_secret=SECRET)  # type: ignore[call-arg]
    loop = asyncio.new_event_loop()

    def refuse() -> None:
        try:
            loop.run_until_complete(principal_of_token(token, settings))
        except Unauthenticated:
            return
        raise AssertionError("a token of many roles was taken")

    return refuse, len(token)


ARGUMENTS: list[tuple[str, Callable[[str], object], dict[str, Callable[[int], str]], int]] = [
    ("destructive_intent (run_query: patterns)", _run_query, ARGUMENT_INPUTS, 100_000),
    ("destructive_intent (sql: sqlglot)", _postgres, CODE_INPUTS, 20_000),
    ("destructive_intent (sql: patterns)", _postgres, CODE_INPUTS, 200_000),
    ("destructive_intent (shell: bashlex)", _shell, CODE_INPUTS, 10_000),
    ("destructive_intent (shell: patterns)", _shell, CODE_INPUTS, 100_000),
]
"""Each way an argument is read: by the parsers up to their caps, by the patterns past them."""


def cases() -> list[Case]:
    """Every function on every hostile input, with the size of its larger input."""
    found = [
        Case("guardrails", fn, name, 100_000, on_text(run, text))
        for fn, run in GUARDRAILS.items()
        for name, text in GUARDRAIL_INPUTS.items()
    ]
    verdict = on_text_of(lambda t: parse_verdict_text(t, CATALOG))
    found += [
        Case("verdict", "parse_verdict_text", name, 100_000, verdict(text))
        for name, text in VERDICT_INPUTS.items()
    ]
    found += [
        Case("leaving", "carried", name, size, make) for name, (size, make) in LEAVING.items()
    ]
    found += [
        Case("arguments", label, name, size, on_text(run, text))
        for label, run, inputs, size in ARGUMENTS
        for name, text in inputs.items()
    ]
    found.append(Case("token", "principal_of_token", "100,000 roles", 1_000_000, _token_of_roles))
    return found


# --- timing -----------------------------------------------------------------------------------


def _per_call(call: Call, number: int) -> float:
    """Seconds per call of `call`, over `number` calls, the cyclic collector off."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(number):
            call()
        return (time.perf_counter() - start) / number
    finally:
        gc.enable()


def _calls_per_sample(call: Call) -> int:
    """How many calls of `call` take at least `MIN_TIMED_S` (1, 2, 5, 10, 20...); warms it up."""
    number = 1
    while True:
        for step in (1, 2, 5):
            if _per_call(call, number * step) * number * step >= MIN_TIMED_S:
                return number * step
        number *= 10


def measure(case: Case, repeats: int) -> dict[str, Any]:
    """The case at n and 8n characters, alternately: the minimum seconds per call of each."""
    small, small_chars = case.make(case.chars // 8)
    large, large_chars = case.make(case.chars)
    numbers = [_calls_per_sample(c) for c in (small, large)]
    best = [float("inf"), float("inf")]
    for _ in range(repeats):
        for i, call in enumerate((small, large)):
            best[i] = min(best[i], _per_call(call, numbers[i]))
    ratio = best[1] / best[0]
    return {
        "group": case.group,
        "function": case.function,
        "input": case.input,
        "n_chars": small_chars,
        "8n_chars": large_chars,
        "n_ms": round(best[0] * 1000, 4),
        "8n_ms": round(best[1] * 1000, 4),
        "ratio": round(ratio, 2),
        "ms_per_100k_chars": round(best[1] * 1000 * 100_000 / large_chars, 4),
        "met": ratio <= MAX_RATIO,
    }


def _machine() -> dict[str, Any]:
    cpuinfo = Path("/proc/cpuinfo")
    names = (
        re.findall(r"^model name\s*:\s*(.+)$", cpuinfo.read_text(), re.M)
        if cpuinfo.exists()
        else []
    )
    return {
        "cores": os.cpu_count(),
        "cpu": names[0] if names else platform.machine(),
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
    }


def _commit() -> str:
    found = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return found.stdout.strip()


def table(rows: list[dict[str, Any]]) -> str:
    """Every row, then each function's worst ratio."""
    head = (
        f"{'function':44} {'input':28} {'8n chars':>9} {'n ms':>9} {'8n ms':>9} {'ratio':>6} "
        f"{'ms/100k':>8}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        mark = "" if r["met"] else f"  over {MAX_RATIO:g}"
        lines.append(
            f"{r['function']:44} {r['input']:28} {r['8n_chars']:>9,} {r['n_ms']:>9.3f} "
            f"{r['8n_ms']:>9.3f} {r['ratio']:>6.2f} {r['ms_per_100k_chars']:>8.3f}{mark}"
        )
    lines += [
        "",
        f"Worst ratio of each function (goal: at most {MAX_RATIO:g}; linear 8, quadratic 64):",
    ]
    for function in dict.fromkeys(r["function"] for r in rows):
        own = [r for r in rows if r["function"] == function]
        worst = max(own, key=lambda r: r["ratio"])
        slowest = max(own, key=lambda r: r["ms_per_100k_chars"])
        lines.append(
            f"  {function:44} {worst['ratio']:6.2f} ({worst['input']}); "
            f"slowest {slowest['ms_per_100k_chars']:.3g} ms/100k chars ({slowest['input']})"
        )
    return "\n".join(lines)


def main() -> int:
    """Measure every case, print the table, write the results; 1 when a goal is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeats", type=int, default=3, help="rounds of n and 8n per case")
    parser.add_argument("--only", default="", help="only cases whose function or input has TEXT")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--no-check", action="store_true", help="exit 0 even if a goal is missed")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the results")
    args = parser.parse_args()
    chosen = [c for c in cases() if args.only in f"{c.function} {c.input}"]
    load_before = round(os.getloadavg()[0], 2)
    started = time.perf_counter()
    rows = [measure(case, args.repeats) for case in chosen]
    result = {
        "command": "python bench/bench_hostile.py " + " ".join(sys.argv[1:]),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": _commit(),
        "machine": _machine(),
        "load_1min": [load_before, round(os.getloadavg()[0], 2)],
        "seconds": round(time.perf_counter() - started, 1),
        "goal_max_ratio": MAX_RATIO,
        "repeats": args.repeats,
        "rows": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2) if args.json else table(rows))
    print(f"\nwrote {args.out} ({result['seconds']} s, 1-minute load {result['load_1min']})")
    missed = [f"{r['function']} on {r['input']}: {r['ratio']}" for r in rows if not r["met"]]
    if missed and not args.no_check:
        print(f"Over the goal of {MAX_RATIO:g}: " + "; ".join(missed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
