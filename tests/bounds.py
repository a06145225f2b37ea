"""The suite's wall-clock bounds, and the one rule they follow.

A test bounds time only to tell two outcomes apart (a call cut by its timeout, or one that
waited for a stall), and then at half the slower outcome's own length, far from the faster
one's: a bound that a slow or busy machine can reach tests the machine, not the product. A run
that could otherwise hang forever is bounded by HANG_GUARD_S. How fast something is belongs in
bench/ (ratios measured side by side), never in a test.
"""

from __future__ import annotations

HANG_GUARD_S = 120.0
"""Longer than this and a run is hung, on any machine this suite runs on."""


def sooner_than(alternative_s: float) -> float:
    """The bound telling an outcome apart from one that takes `alternative_s`: half of it."""
    return alternative_s / 2
