"""`python3 -m benchmarks shapes [--table T] [-o FILE]`: the shape (`autotune graph info`'s: degree
skew, depth, level width, ...) of every graph a tuned table holds, written as one JSON object
keyed by the table's graph names: what `autotune model fit-choice --shapes` fits Δ-stepping's
one-query rules on (`benchmarks/data/shapes.json`, committed, is this command's output for
`tables/h100.json`). No GPU; generated graphs are made (and cached) as the suites make them."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from autotune.arguments import OneLineParser
from typing import Any

from benchmarks import data
from benchmarks.results import ROOT

SHAPES_FILE = data.DATA_DIR / "shapes.json"


def shapes(table: Path) -> dict[str, Any]:
    """Each graph's `GraphShape.to_json()`, by the table's name for it.

    Raises:
        ValueError: a graph loaded here is not the table's (its sha256 differs).
    """
    from autotune.table import Table
    from benchmarks.data import load_spec
    from autotune.model.shape import graph_shape

    found = {}
    for entry in Table.load(table).entries:
        name = entry.name
        graph = load_spec(data.spec(name), 0, None)
        if graph.sha256 != entry.graph.get("sha256", graph.sha256):
            raise ValueError(f"{name}: the graph loaded here is not the table's (sha256 differs)")
        found[name] = graph_shape(graph).to_json()
        print(f"shapes: {name}: level width {found[name]['level_width']:.0f}", file=sys.stderr, flush=True)
    return found


def main(argv: list[str]) -> int:
    parser = OneLineParser(prog="python3 -m benchmarks shapes", description=__doc__.split(":", 1)[1])
    parser.add_argument("--table", type=Path, default=ROOT / "tables" / "h100.json")
    parser.add_argument("-o", "--output", type=Path, default=SHAPES_FILE)
    args = parser.parse_args(argv)
    try:
        found = shapes(args.table)
    except ValueError as error:
        print(f"benchmarks shapes: {error}", file=sys.stderr)
        return 2
    args.output.write_text(json.dumps({"table": data.shown(args.table), "shapes": found}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {args.output}")
    return 0
