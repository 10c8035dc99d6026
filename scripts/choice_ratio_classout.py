#!/usr/bin/env python3
"""Could a cost model pick the batch end's algorithm where the choice tree cannot? (issue 28, suite
`choice`: with its class left out, R-MAT's delta_lanes and the random d200 graphs' crauser win in no
graph of the fit, so the tree never names them there.)

A model of costs learns from every graph that measured an algorithm, winner or not: per algorithm,
a ridge regression of log(its best / delta's best) at the batch end (the table's `by_algorithm`) on
the tree's features (log2 vertices, log mean degree, degree skew, depth ratio), fitted leaving each
class out as suite `choice` does; the pick is the algorithm of the lowest predicted ratio (delta's:
1). Graphs whose hierarchy was kept (PHAST's) are left out, as the tree leaves them to PHAST. Prints
each miss (the pick more than 15% behind the winner, or an algorithm the graph's sweep abandoned)
and the count, for each ridge weight.

    python3 scripts/choice_ratio_classout.py [TABLE] [--ridge 0.1,1,10]
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WITHIN = 0.15


def rows_of(table: dict) -> list[tuple[str, str, list[float], dict[str, float]]]:
    """(graph, class, features, algorithm: ms per SSSP at the batch end) of the table's entries."""
    from autotune.model.choice import entry_features, shape_depths
    from benchmarks import data
    from benchmarks.shapes import SHAPES_FILE

    depths = shape_depths(SHAPES_FILE)
    rows = []
    for entry in table["entries"]:
        measured = {name: part["ms_per_sssp"] for name, part in (entry.get("by_algorithm") or {}).items()
                    if part.get("ms_per_sssp") is not None}
        if "phast" in measured or "delta" not in measured or not entry.get("curve"):
            continue
        f = entry_features(entry, depths)
        features = [f["log2_vertices"], math.log(f["mean_degree"]), f["degree_cv"], f["depth_ratio"]]
        rows.append((entry["graph"]["name"], data.graph_class(entry["graph"]["name"]), features, measured))
    return rows


def ridge(x: np.ndarray, y: np.ndarray, weight: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The coefficients (intercept first) on standardized features, and the features' means and spreads."""
    mean, spread = x.mean(0), x.std(0) + 1e-9
    design = np.hstack([np.ones((len(x), 1)), (x - mean) / spread])
    penalty = weight * np.diag([0.0] + [1.0] * x.shape[1])
    return np.linalg.solve(design.T @ design + penalty, design.T @ y), mean, spread


def misses(rows: list, weight: float) -> list[str]:
    found = []
    for left_out in sorted({row[1] for row in rows}):
        fit_rows = [row for row in rows if row[1] != left_out]
        models = {}
        for name in sorted({n for row in fit_rows for n in row[3]} - {"delta"}):
            pairs = [(row[2], math.log(row[3][name] / row[3]["delta"])) for row in fit_rows if name in row[3]]
            if len(pairs) >= 3:
                models[name] = ridge(np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs]), weight)
        for graph, _, features, measured in (row for row in rows if row[1] == left_out):
            predicted = {"delta": 0.0}
            for name, (coefficients, mean, spread) in models.items():
                predicted[name] = float(coefficients @ np.concatenate([[1.0], (np.array(features) - mean) / spread]))
            pick = min(predicted, key=predicted.get)
            best = min(measured, key=measured.get)
            behind = measured[pick] / measured[best] - 1 if pick in measured else math.inf
            if behind > WITHIN:
                found.append(f"{graph} ({left_out}): picks {pick}, {'abandoned' if behind == math.inf else f'+{behind:.0%}'}"
                             f" behind {best}")
    return found


def main() -> None:
    from autotune.files import read_json

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table", nargs="?", default="tables/h100.json")
    parser.add_argument("--ridge", default="0.1,1,10", help="the ridge weights (default 0.1,1,10)")
    args = parser.parse_args()
    rows = rows_of(read_json(ROOT / args.table))
    print(f"{args.table}: {len(rows)} graphs measured delta at the batch end (PHAST's left out)")
    for weight in (float(w) for w in args.ridge.split(",")):
        found = misses(rows, weight)
        print(f"ridge {weight:g}: {len(found)} of {len(rows)} graphs more than {WITHIN:.0%} behind")
        for line in found:
            print(f"  {line}")


if __name__ == "__main__":
    main()
