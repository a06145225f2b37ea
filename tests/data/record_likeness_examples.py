"""Write the labelled sentences the guard's likeness reading compares with (optional layer).

Each tool of tests/data/tool_catalog.json gives its own first sentence (as the guard reads it:
preamble and lead-in dropped), under "read" when its label says reversible and no argument can
make a call irreversible (no ``held_when``), else under "write". The blind set
(guard_blind_set.json) is left out, so it stays blind. Run from the repository root:

    PYTHONPATH=src:. .venv/bin/python tests/data/record_likeness_examples.py

It writes src/common/safety/likeness_examples.json; `common.safety.likeness` reads it.
"""

from __future__ import annotations

import json
from pathlib import Path

from common.safety.wording import first_sentence

DATA = Path(__file__).resolve().parent
OUT = DATA.parents[1] / "src" / "common" / "safety" / "likeness_examples.json"


def examples_from_catalog() -> dict[str, list[str]]:
    """The read and write sentences of the labelled catalog, sorted and without duplicates."""
    catalog = json.loads((DATA / "tool_catalog.json").read_text())["servers"]
    labels = json.loads((DATA / "tool_labels.json").read_text())
    read: set[str] = set()
    write: set[str] = set()
    for server, entry in catalog.items():
        for tool in entry["tools"]:
            sentence = first_sentence(tool.get("description")).strip()
            if not sentence:
                continue
            label = labels[server][tool["name"]]
            reads = not label["irreversible"] and "held_when" not in label
            (read if reads else write).add(sentence)
    read -= write  # a sentence some write says too vouches for nothing
    return {"read": sorted(read), "write": sorted(write)}


def main() -> None:
    """Write the examples where `common.safety.likeness` reads them."""
    out = examples_from_catalog()
    OUT.write_text(json.dumps(out, indent=0, ensure_ascii=False) + "\n")
    print(f"{len(out['read'])} read, {len(out['write'])} write sentences -> {OUT}")


if __name__ == "__main__":
    main()
