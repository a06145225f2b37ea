"""Print the guard's figures on the labelled tool catalog, one line per source (server).

For each source of tests/data/tool_catalog.json: its style (``mcp`` for the original, MCP-native
servers), its tools, how many its labels in tests/data/tool_labels.json call irreversible and
reversible, and what the deterministic classifier (no model, a plain server config: hints not
trusted, nothing sandboxed) gets wrong: misses (irreversible tools cleared) and over-blocked
(reversible tools held). Then a total per style. With ``--details`` it lists every mistake with
the label's reason and the classifier's. Run from the repository root:

    PYTHONPATH=src:. .venv/bin/python tests/data/catalog_report.py [--details] [--only SERVER]

With ``--blind`` it reports tests/data/guard_blind_set.json instead: tool lists of styles the
catalog does not have, labelled by hand before the guard was run on them, reported apart.
``--blind prefixed`` reports tests/data/guard_blind_set_prefixed.json (issue 44: made-up servers
whose tool names start with the server's or product's name), and ``--set PATH`` any file of the
blind sets' format (``servers`` and ``labels``).

It only reports: the bounds are asserted by tests/unit_tests/test_guard_catalog.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp.types import Tool

from common.mcp.config import ServerConfig
from common.safety.classify import classify_tools

DATA = Path(__file__).resolve().parent
PLAIN = ServerConfig(command="srv")
ORIGINAL_STYLE = "mcp"


@dataclass
class Figures:
    """One source's (or style's) counts and mistakes."""

    style: str
    tools: int = 0
    irreversible: int = 0
    reversible: int = 0
    misses: list[str] = field(default_factory=list)
    over_blocked: list[str] = field(default_factory=list)

    def add(self, other: Figures) -> None:
        self.tools += other.tools
        self.irreversible += other.irreversible
        self.reversible += other.reversible
        self.misses += other.misses
        self.over_blocked += other.over_blocked


BLIND_SETS = {
    "unseen-styles": DATA / "guard_blind_set.json",
    "prefixed": DATA / "guard_blind_set_prefixed.json",
}
"""The blind sets by the name `--blind` takes: never tuned on, reported apart from the catalog."""


def load(blind: str | Path | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The catalog's servers and labels, or a blind set's (a name of BLIND_SETS or a path)."""
    if blind is not None:
        path = BLIND_SETS[blind] if isinstance(blind, str) else blind
        data = json.loads(path.read_text())
        return data["servers"], data["labels"]
    catalog = json.loads((DATA / "tool_catalog.json").read_text())["servers"]
    return catalog, json.loads((DATA / "tool_labels.json").read_text())


def figures(blind: str | Path | None = None) -> dict[str, Figures]:
    """Each source's figures under the current classifier, by server name."""
    catalog, labels = load(blind)
    out: dict[str, Figures] = {}
    for server, entry in sorted(catalog.items()):
        tools = [Tool.model_validate(t) for t in entry["tools"]]
        fig = Figures(style=entry.get("style", ORIGINAL_STYLE), tools=len(tools))
        for verdict in classify_tools(server, tools, PLAIN):
            label = labels[server][verdict["tool"]]
            fig.irreversible += label["irreversible"]
            fig.reversible += not label["irreversible"]
            if label["irreversible"] and not verdict["irreversible"]:
                fig.misses.append(
                    f"{verdict['tool']}: cleared ({verdict['reason']}) but {label['reason']}"
                )
            if not label["irreversible"] and verdict["irreversible"]:
                fig.over_blocked.append(
                    f"{verdict['tool']}: held ({verdict['reason']}) but {label['reason']}"
                )
        out[server] = fig
    return out


def _row(name: str, fig: Figures) -> str:
    share = f"{len(fig.over_blocked) / fig.reversible:.1%}" if fig.reversible else "-"
    return (
        f"{name:<28} {fig.style:<17} {fig.tools:>5} {fig.irreversible:>5} {fig.reversible:>5}"
        f" {len(fig.misses):>6} {len(fig.over_blocked):>5} {share:>6}"
    )


def main(argv: list[str] | None = None) -> int:
    """Print the table (and with --details every mistake)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--details", action="store_true", help="list every mistake")
    parser.add_argument("--only", action="append", metavar="SERVER", help="report this source")
    parser.add_argument(
        "--blind",
        nargs="?",
        const="unseen-styles",
        choices=sorted(BLIND_SETS),
        help="report a blind set instead (unseen-styles when no name is given)",
    )
    parser.add_argument("--set", type=Path, metavar="PATH", help="report a blind-set file instead")
    opts = parser.parse_args(argv)
    figs = figures(opts.set if opts.set is not None else opts.blind)
    if opts.only:
        figs = {name: fig for name, fig in figs.items() if name in set(opts.only)}
    header = f"{'source':<28} {'style':<17} {'tools':>5} {'irrev':>5} {'rev':>5}"
    print(f"{header} {'misses':>6} {'over':>5} {'over%':>6}")
    for name, fig in figs.items():
        print(_row(name, fig))
    by_style: dict[str, Figures] = defaultdict(lambda: Figures(style=""))
    for fig in figs.values():
        by_style[fig.style].style = fig.style
        by_style[fig.style].add(fig)
    print()
    for style, fig in sorted(by_style.items()):
        print(_row(f"all {style}", fig))
    if opts.details:
        for name, fig in figs.items():
            for kind, items in (("miss", fig.misses), ("over-blocked", fig.over_blocked)):
                for item in items:
                    print(f"{name} {kind}: {item}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
