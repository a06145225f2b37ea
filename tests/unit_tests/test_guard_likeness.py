"""The `semantic` extra may clear a "no signal" hold by likeness to labelled tools, nothing more.

The real model is an optional extra; here a bag-of-words stand-in (`HashEmbeddings`, unit
length) embeds, so a sentence equal to a labelled one is at cosine 1.0 and the rule is what is
tested: close to a read and far from every write clears a "no signal" hold; a hold any signal
gave is never cleared; without the extra the default holds.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from mcp.types import Tool

import common.embeddings
import common.settings
from common.embeddings import MINILM, HashEmbeddings
from common.mcp.config import ServerConfig
from common.safety import likeness
from common.safety.classify import classify_tool
from common.safety.wording import first_sentence
from tests.data.record_likeness_examples import examples_from_catalog

PLAIN = ServerConfig(command="srv")
DATA = Path(__file__).resolve().parents[1] / "data"
PWD_SENTENCE = "Return the current working directory path."
"""A labelled read-only tool's sentence (bfcl's `pwd`) in the shipped examples."""


def _verdict(name: str, description: str) -> Any:
    return classify_tool("srv", Tool(name=name, description=description, inputSchema={}), PLAIN)


def _bag_of_words(texts: Sequence[str]) -> Any:
    vectors = np.asarray(HashEmbeddings(512).embed_documents(list(texts)), dtype=np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The extra's model replaced by the stand-in, examples embedded afresh."""
    monkeypatch.setattr(likeness, "_MODEL", [_bag_of_words])
    likeness.examples.cache_clear()
    yield
    likeness.examples.cache_clear()


@pytest.mark.parametrize("installed", [True, False])
@pytest.mark.parametrize("configured", [True, False])
def test_without_the_extra_or_its_setting_the_no_signal_default_still_holds(
    monkeypatch: pytest.MonkeyPatch, installed: bool, configured: bool
) -> None:
    """Off unless EMBEDDING_MODEL names the model and the extra is installed (the model itself
    is not loaded here: with both, only the switch is checked)."""
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: (
            real(name, *a) if name != likeness.MODEL_PACKAGE else (object() if installed else None)
        ),
    )
    settings = SimpleNamespace(embedding_model=MINILM if configured else None)
    monkeypatch.setattr(common.settings, "get_settings", lambda: settings)
    monkeypatch.setattr(common.embeddings, "load_embeddings", lambda name: (_Stub(), 512))
    monkeypatch.setattr(likeness, "_MODEL", [])
    likeness.examples.cache_clear()

    v = _verdict("cwd", PWD_SENTENCE)

    likeness.examples.cache_clear()
    on = installed and configured
    assert (v["irreversible"], v["source"]) == ((False, "heuristic") if on else (True, "default"))


class _Stub:
    """Stands in for the memory's MiniLM embeddings: a bag of words."""

    def embed_documents(self, texts: list[str]) -> Any:
        return _bag_of_words(texts)


@pytest.mark.usefixtures("model")
def test_a_no_signal_tool_that_says_what_a_labelled_read_says_is_cleared_and_says_why() -> None:
    v = _verdict("cwd", PWD_SENTENCE)

    assert v["irreversible"] is False
    assert "labelled read-only tool's" in v["reason"]
    assert "never a signal" in v["reason"]


@pytest.mark.usefixtures("model")
@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("cwd_update", PWD_SENTENCE),  # a change word in the name is a signal
        ("cwd", PWD_SENTENCE.rstrip(".") + " and deletes it."),  # a destructive word
        ("mention", "Mention specified users in a tweet."),  # a labelled write's sentence
    ],
)
def test_likeness_never_clears_a_signal_nor_a_sentence_close_to_a_write(
    name: str, description: str
) -> None:
    v = _verdict(name, description)

    assert v["irreversible"] is True
    assert "labelled read-only" not in v["reason"]


def test_a_sentence_close_to_a_read_but_also_to_a_write_stays_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ "Far from every write" is a condition of its own: a near read does not outweigh it."""
    read, write = ["Return the path."], ["Return the path now."]
    found = likeness.Examples(read, write, _bag_of_words(read + write))
    monkeypatch.setattr(likeness, "_MODEL", [_bag_of_words])
    monkeypatch.setattr(likeness, "examples", lambda: found)

    near = likeness.likeness("Return the path.")

    assert near is not None
    assert near.read >= likeness.NEAR
    assert near.write >= likeness.FAR
    assert likeness.likeness_reason("Return the path.") is None


def test_the_shipped_examples_are_the_labelled_catalogs_and_leave_the_blind_set_out() -> None:
    """Regenerate with tests/data/record_likeness_examples.py after changing the catalog."""
    shipped = json.loads(
        resources.files("common.safety").joinpath("likeness_examples.json").read_text("utf-8")
    )
    blind = json.loads((DATA / "guard_blind_set.json").read_text())
    blind_sentences = {
        first_sentence(t["description"]).strip()
        for entry in blind["servers"].values()
        for t in entry["tools"]
    }

    assert shipped == examples_from_catalog()
    assert not blind_sentences & {*shipped["read"], *shipped["write"]}
