"""Rule 10: NaN and infinities in tool output, and answer numbers no tool returned."""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_left
from collections.abc import Sequence
from typing import Any

from common.guardrails.text import MAX_DEPTH, folded_text

_NAN_WORD = re.compile(r"(?<![\w.])[-+]?NaN(?!\w)|(?<![\w.])[-+]Infinity(?!\w)")
"""`NaN` as languages print it, and a signed `Infinity`: numeric wherever they appear."""
_NONFINITE_VALUE = re.compile(
    r"(?:[:=\[(,]|\b(?:is|was|equals|result|returns?|gives?)\b)[ \t]*[\"']?"
    r"(?P<token>[-+]?(?:nan|inf(?:inity)?))[\"']?[ \t]*(?=$|[\s,;)\]}]|\.(?!\w))"
    r"|^[ \t]*[\"']?(?P<alone>[-+]?(?:nan|inf(?:inity)?))[\"']?[ \t]*$",
    re.I | re.M,
)
"""`nan`, `inf` or `infinity` in any case where a value stands (`result: inf`, `[1, nan]`) or
alone on a line."""

_MONTHS = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November"
    r"|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)
_NOT_AMOUNTS = re.compile(
    "|".join(
        (
            r"(?<![\w+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,31}://\S+",
            r"\b\d{4}-\d{1,2}-\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
            r"(?:Z|[+-]\d{2}:?\d{2})?)?",
            r"\b\d{4}/\d{1,2}/\d{1,2}\b",
            r"\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b",
            r"\b\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s?[AaPp]\.?[Mm]\b\.?)?",
            r"\b\d{1,2}\s?[AaPp]\.?[Mm]\b\.?",
            rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?)?{_MONTHS}"
            r"(?:\s+\d{1,2}(?:st|nd|rd|th)?\b)?(?:,?\s+\d{4}\b)?",
            r"^[ \t]*\d+[.)][ \t]",
            r"\[\d+\]",
        )
    ),
    re.M,
)
"""What holds digits without stating an amount: URLs, dates and times (ISO, `15/01/2024`,
`10:30`, `3 pm`, `March 15, 2024`, `15 March 2024`), list markers and footnote marks."""

_ANSWER_NUMBER = re.compile(
    r"(?<![\w.,])(?<![A-Za-z][-_])"
    r"(?P<int>\d{1,3}(?:,\d{3})+|\d{1,2}(?:,\d{2})+,\d{3}|\d+)(?P<frac>\.\d+)?"
    r"(?:[eE](?P<exp>[-+]?\d{1,3}))?(?![,.]?\d)"
    r"(?P<tail>[^\S\n]?%|[^\S\n]?(?:thousand|million|billion|trillion|lakhs?|crores?)\b"
    r"|(?:k|K|M|bn|mn|B)\b|(?:st|nd|rd|th)\b)?"
)
"""A number stated in an answer, with thousands (`1,234`, Indian `42,94,00,000`), decimals,
an exponent, and a percent sign, scale word or ordinal suffix after it. A number glued to
letters before it (`MP3`, `COVID-19`, `v1.2`) is a name, not a number."""

_TOOL_NUMBER = re.compile(
    r"\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?(?P<tail>[^\S\n]?%|[^\S\n]?(?:thousand|million|billion"
    r"|trillion|lakhs?|crores?)\b|(?:k|K|M|bn|mn|B)\b)?"
)
"""A number in a tool output, read generously (versions, grouped and glued digits)."""

_SCALES = {
    "thousand": 1e3,
    "k": 1e3,
    "million": 1e6,
    "m": 1e6,
    "mn": 1e6,
    "billion": 1e9,
    "bn": 1e9,
    "b": 1e9,
    "trillion": 1e12,
    "lakh": 1e5,
    "lakhs": 1e5,
    "crore": 1e7,
    "crores": 1e7,
}
"""What a scale word or suffix multiplies by."""


def _nonfinite_tokens(text: str) -> list[str]:
    """The NaN and infinity spellings a text holds as values."""
    tokens = [m.group() for m in _NAN_WORD.finditer(text)]
    tokens += [m.group("token") or m.group("alone") for m in _NONFINITE_VALUE.finditer(text)]
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            parsed = json.loads(stripped)
        except (ValueError, RecursionError):
            parsed = None
        tokens += _json_nonfinite(parsed, 0)
    return tokens


def _json_nonfinite(value: Any, depth: int) -> list[str]:
    """NaN and infinite floats (or strings spelling them) inside parsed JSON."""
    if depth > MAX_DEPTH:
        return []
    if isinstance(value, float) and not math.isfinite(value):
        return [str(value)]
    if isinstance(value, str) and value.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
        return [value.strip()]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _json_nonfinite(v, depth + 1)]
    if isinstance(value, list):
        return [t for v in value for t in _json_nonfinite(v, depth + 1)]
    return []


def _nonfinite_label(tokens: list[str]) -> str:
    """`NaN (not a number)`, `an infinite value`, or both."""
    kinds = {"nan" if "nan" in t.lower() else "inf" for t in tokens}
    labels = [
        label
        for kind, label in (("nan", "NaN (not a number)"), ("inf", "an infinite value"))
        if kind in kinds
    ]
    return " and ".join(labels)


def _tool_numbers(texts: Sequence[str]) -> list[float]:
    """Every number in the tool outputs (absolute values, sorted), read every plausible way."""
    values: set[float] = set()
    for text in texts:
        for m in _TOOL_NUMBER.finditer(folded_text(text)):
            tail = (m.group("tail") or "").strip()
            raw = m.group()[: len(m.group()) - len(m.group("tail") or "")]
            readings = [raw.replace(",", ""), *raw.split(","), *re.split(r"[.,]", raw)]
            for reading in readings:
                try:
                    v = abs(float(reading))
                except ValueError:
                    continue
                if not math.isfinite(v):
                    continue
                values.add(v)
                if tail == "%":
                    values.add(v / 100)
                elif tail.lower() in _SCALES:
                    values.add(v * _SCALES[tail.lower()])
    return sorted(values)


def _supported(candidates: list[tuple[float, float]], pool: list[float]) -> bool:
    """Whether a tool number rounds or truncates to one of the (value, unit) readings."""
    for value, unit in candidates:
        eps = 1e-9 * max(1.0, value)
        i = bisect_left(pool, value - unit / 2 - eps)
        if i < len(pool) and pool[i] < value + unit + eps:
            return True
    return False


def _answer_readings(m: re.Match[str]) -> list[tuple[float, float]] | None:
    """(value, unit of the last digit) readings of an answer number, or None.

    None when the number is not an amount to check: an ordinal, a small count.
    """
    tail = (m.group("tail") or "").strip()
    if tail.lower() in ("st", "nd", "rd", "th"):
        return None
    digits = m.group("int").replace(",", "")
    frac = m.group("frac") or ""
    exp = int(m.group("exp") or 0)
    try:
        value = abs(float(digits + frac)) * 10.0**exp
    except (ValueError, OverflowError):
        return None
    if not math.isfinite(value):
        return None
    if not frac and not m.group("exp") and not tail and value <= 10:
        return None
    if frac:
        unit = 10.0 ** (exp - (len(frac) - 1))
    else:
        zeros = len(digits) - len(digits.rstrip("0")) if digits.strip("0") else 0
        unit = 10.0 ** (exp + zeros)
    readings = [(value, unit)]
    if tail == "%":
        readings.append((value / 100, unit / 100))
    elif tail.lower() in _SCALES:
        scale = _SCALES[tail.lower()]
        readings.append((value * scale, unit * scale))
    return readings


def _nonfinite_outputs(tool_outputs: list[str]) -> list[str]:
    """One sentence per tool output that holds NaN or an infinity as a value."""
    problems: list[str] = []
    for i, output in enumerate(tool_outputs, 1):
        tokens = _nonfinite_tokens(folded_text(output))
        if tokens:
            problems.append(
                f"Tool output {i} contains {_nonfinite_label(tokens)}, so its numeric result "
                "is not a valid number."
            )
    return problems


def numeric_problems(
    answer: str, tool_outputs: list[str], computed: bool, *, given: Sequence[str] = ()
) -> list[str]:
    """Problems with the numbers of an answer (rule 10), each a sentence; empty when none.

    Always: a tool output holding NaN or an infinity as a value (a JSON NaN/Infinity, `NaN`,
    a signed `Infinity`, or `nan` / `inf` / `infinity` in any case where a value stands, such as
    `result: inf`) is flagged, since its numeric result cannot be trusted.

    When `computed` (the task asked for a computed value), also:
    - an answer stating NaN or an infinity as its value, or stating no number at all;
    - each number the answer states that no tool output (nor a text in `given`, such as the
      request or the tool arguments) contains. A tool number supports an answer number when
      it rounds or truncates to it (`8.63` for `8.63286`, `430 million` for `429,400,000`),
      ignoring sign, with `%` and scale words (`k`, `million`, `crore`...) read both ways.
    Not checked, by decision: numbers in dates and times (`2024-01-15`, `10:30`, `March 15,
    2024`), in URLs, list markers and footnote marks, ordinals (`3rd`), numbers glued to
    letters before them (`MP3`, `COVID-19`), and whole numbers from 0 to 10 (counts such as
    "3 steps"). A bare year outside a date (`in 2023`) is checked like any number.
    """
    problems = _nonfinite_outputs(tool_outputs)
    if not computed:
        return problems
    folded = folded_text(answer)
    tokens = _nonfinite_tokens(folded)
    if tokens:
        problems.append(
            f"The answer gives {_nonfinite_label(tokens)} as a result, which is not a valid number."
        )
    text = _NOT_AMOUNTS.sub(lambda m: " " * len(m.group()), folded)
    stated = list(_ANSWER_NUMBER.finditer(text))
    if not stated and not tokens and not _ANSWER_NUMBER.search(folded):
        problems.append("The task asked for a computed value, but the answer states no number.")
        return problems
    pool = _tool_numbers([*tool_outputs, *given])
    reported: set[str] = set()
    for m in stated:
        readings = _answer_readings(m)
        written = m.group().strip()
        if readings is None or written in reported or _supported(readings, pool):
            continue
        reported.add(written)
        problems.append(f"The answer states {written}, but no tool output contains that number.")
    return problems
