"""Small text-pattern helpers shared by the safety checks (no project imports: no cycles)."""

from __future__ import annotations

import re
from collections.abc import Callable

Check = Callable[[str], bool]
"""A test on one string: does it contain the pattern?"""

SEGMENTS = re.compile(r"&&|[\n;|]")
"""What ends one shell command, pipes included."""


def then_in_segment(first: str, then: str, segments: re.Pattern[str] = SEGMENTS) -> Check:
    """`first`, then `then` later in the same segment (`git push ... --force`), in linear time."""
    head, tail = re.compile(first, re.IGNORECASE), re.compile(then, re.IGNORECASE)

    def check(text: str) -> bool:
        for segment in segments.split(text):
            m = head.search(segment)
            if m is not None and tail.search(segment, m.end()) is not None:
                return True
        return False

    return check
