"""`python3 -m benchmarks shapes [--table T]... [--missing] [-o FILE]`: the shape (`autotune graph info`'s:
degree skew, depth, level width, ...) of every graph the tuned tables hold, written as one JSON object
keyed by the tables' graph names: what `autotune model fit-choice --shapes` fits Δ-stepping's
one-query rules on (`benchmarks/data/shapes.json`, committed, is this command's output for
`tables/h100.json` and `tables/h200.json`). `--missing` keeps the shapes FILE holds and measures
only the graphs it lacks (a shape is the graph's alone: the same whichever table names it). No GPU;
generated graphs are made (and cached) as the suites make them."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Collection, Sequence

from autotune.arguments import OneLineParser
from autotune.files import read_json

from benchmarks import data
from benchmarks.results import ROOT

SHAPES_FILE = data.DATA_DIR / "shapes.json"


def shapes(tables: Sequence[Path], known: Collection[str] = ()) -> dict[str, Any]:
    """Each graph's `GraphShape.to_json()`, by the tables' name for it, but for the graphs `known` names.

    Raises:
        ValueError: a graph loaded here is not the table's (its sha256 differs).
    """
    from autotune.table import Table
    from benchmarks.data import load_spec
    from autotune.model.shape import graph_shape

    found: dict[str, Any] = {}
    for entry in [e for table in tables for e in Table.load(table).entries]:
        name = entry.name
        if name in known or name in found:
            continue
        graph = load_spec(data.spec(name), 0, None)
        if graph.sha256 != entry.graph.get("sha256", graph.sha256):
            raise ValueError(f"{name}: the graph loaded here is not the table's (sha256 differs)")
        found[name] = graph_shape(graph).to_json()
        print(f"shapes: {name}: level width {found[name]['level_width']:.0f}", file=sys.stderr, flush=True)
    return found


def main(argv: list[str]) -> int:
    parser = OneLineParser(prog="python3 -m benchmarks shapes", description=__doc__.split(":", 1)[1])
    parser.add_argument("--table", type=Path, action="append", default=None,
                        help="a tuned table (repeatable; default tables/h100.json and tables/h200.json)")
    parser.add_argument("--missing", action="store_true", help="keep FILE's shapes; measure only the graphs it lacks")
    parser.add_argument("-o", "--output", type=Path, default=SHAPES_FILE)
    args = parser.parse_args(argv)
    tables = args.table or [ROOT / "tables" / "h100.json", ROOT / "tables" / "h200.json"]
    kept = read_json(args.output)["shapes"] if args.missing and args.output.exists() else {}
    try:
        found = kept | shapes(tables, kept)
    except ValueError as error:
        print(f"benchmarks shapes: {error}", file=sys.stderr)
        return 2
    args.output.write_text(json.dumps({"tables": [data.shown(t) for t in tables], "shapes": found},
                                      indent=1, sort_keys=True) + "\n")
    print(f"wrote {args.output}")
    return 0
