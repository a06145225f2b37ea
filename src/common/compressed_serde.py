"""Checkpoint values compressed with zlib: LangGraph's serializer, then zlib.

A checkpoint's values are mostly text that repeats itself: a task's result, its structured
data and the call that produced it are the same tool answer three times, and a step's write is
the channel's new value again. LangGraph's serializer (msgpack) stores them as they are; this
serializer compresses every serialised value of at least `MIN_BYTES` with zlib and marks it by
adding `+zlib` to its type (`msgpack+zlib`), as LangGraph's `EncryptedSerializer` adds its
cipher's name. A value that does not shrink by a tenth is stored as it was.

Reading is by type: a value without the suffix (written before, or too small) is handed to the
wrapped serializer unchanged, so old checkpoints load and a thread continues across the change.
Nothing is dropped: every value reads back exactly as it was written (history, time travel,
resume). A database written with it needs this serializer to be read (an older release of this
project would refuse `msgpack+zlib` values).
"""

from __future__ import annotations

import zlib
from typing import Any

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

SUFFIX = "zlib"
"""Added to a compressed value's type, after a `+`."""

MIN_BYTES = 256
"""Serialised values shorter than this are stored as they are (zlib's header costs more)."""

LEVEL = 6
"""zlib's compression level (its default): ~30 µs per 10 KB more than level 1, ~9% smaller here."""

KEEP_RATIO = 0.9
"""A value is stored compressed only when that takes at most this share of its bytes."""

LOOKAHEAD = 262
"""How far short of its window deflate can reach back (zlib's MIN_LOOKAHEAD)."""


def window_bits(size: int) -> int:
    """The smallest zlib window (9-15 bits) from which deflate reaches back over `size` bytes.

    Why not zlib's default 15: most values are 0.3-3 KB, and zlib clears its window and hash
    tables on every call, which for such a value costs more than compressing it (about half of
    the call, issue 45). A window that spans the whole value finds every match the default one
    would, so the bytes inside are the same; only the header names the smaller window, and
    `zlib.decompress` reads any window up to 15 bits.
    """
    bits = 9
    while bits < 15 and (1 << bits) - LOOKAHEAD < size:
        bits += 1
    return bits


class CompressedSerializer(JsonPlusSerializer):
    """LangGraph's serializer, with values of `MIN_BYTES` or more stored zlib-compressed.

    A subclass rather than a wrapper, so LangGraph's strict-msgpack allowlist (which it applies
    to its own serializer's class only, `with_msgpack_allowlist`) keeps working: takes the same
    arguments as `JsonPlusSerializer`.
    """

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        """LangGraph's (type, bytes), compressed (type `<type>+zlib`) when that pays."""
        type_, data = super().dumps_typed(obj)
        if len(data) < MIN_BYTES or "+" in type_:
            return type_, data
        packed = zlib.compress(data, LEVEL, window_bits(len(data)))
        if len(packed) > KEEP_RATIO * len(data):
            return type_, data
        return f"{type_}+{SUFFIX}", packed

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        """The value of a (type, bytes) pair, compressed or not."""
        type_, raw = data
        base, plus, codec = type_.rpartition("+")
        if plus and codec == SUFFIX:
            return super().loads_typed((base, zlib.decompress(raw)))
        return super().loads_typed(data)
