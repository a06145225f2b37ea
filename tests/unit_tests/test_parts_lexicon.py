"""The guard's lexicon reads lemminflect's table itself (issue 45's cold start): the same answers.

`common.safety.parts` reads the table lemminflect ships instead of calling `getAllLemmas`, whose
package import loads numpy. Every word of the table, every override, and the words in other
capitals and outside the table must get lemminflect's own answer.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from lemminflect import getAllLemmas

from common.safety import parts


def test_every_word_of_the_table_gets_lemminflects_answer() -> None:
    words = parts._table()[0]
    assert len(words) > 50_000
    differ = [w for w in dict.fromkeys(words) if parts._lemmas(w) != dict(getAllLemmas(w))]
    assert differ == []


@pytest.mark.parametrize(
    "word",
    ["all", "everyone", "Orders", "ORDERS", "Lock", "DELETE", "sitemap", "webhooks", "", "a"],
)
def test_overrides_capitals_and_unknown_words_get_lemminflects_answer(word: str) -> None:
    assert parts._lemmas(word) == dict(getAllLemmas(word))


def test_the_first_lookup_does_not_import_numpy() -> None:
    code = (
        "import sys; from common.safety.parts import can_be_noun; "
        "assert can_be_noun('instances'); "
        "print('numpy' in sys.modules, 'lemminflect' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split() == ["False", "False"]
