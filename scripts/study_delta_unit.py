#!/usr/bin/env python3
"""Which weight scale explains Delta-stepping's best batch Delta across graph classes? A study on
the committed model-grid records (`benchmarks.classout.DELTA_ROWS`; no GPU), for issue 28's
leave-one-class-out misses on the road networks and the power grids.

Rule 1 (`autotune.algorithms.delta.rules`) predicts Delta = scale x unit / d^a / (1 + cv)^skew, with
the mean arc weight as its unit (and a weight-spread factor). This script fits (scale, a, skew)
per candidate unit, as `delta_fit.fit` prices Delta (the conditional best of the records at the
measured Delta nearest the prediction, summed log slowdown over the graphs; ties: the largest
scale, then the smallest exponents), once on every graph and once per class left out, and prints
each fit's slowdowns above 1.0 on the graphs it was not fitted on (all graphs for the full fit).
The candidate units:

- `mean`: the mean arc weight (what rule 1 uses, without its spread factor here);
- `median`: the median arc weight;
- `tree`: the mean weight of the arcs of shortest-path trees from four sampled sources (seed 0),
  which weighs an arc by whether shortest paths use it: a power grid's few huge impedances and a
  dense graph's heavy arcs drop out;
- `lightest`: the mean of the vertices' lightest out-arc weights (`features.lightest_weight`, one
  pass over the arcs, what rule 1 ships), a cheap estimate of the tree's.

Usage:

    python3 scripts/study_delta_unit.py             # the degree exponent a fitted
    python3 scripts/study_delta_unit.py --a 1       # a held at 1 (Meyer and Sanders' Theta(1/d), rule 1's form)
"""
import argparse
import itertools
import math
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autotune.algorithms.delta import delta_values  # noqa: E402
from autotune.algorithms.delta import fit as delta_fit  # noqa: E402
from autotune.algorithms.delta.rules import nearest_power  # noqa: E402
from autotune.model.features import lightest_weight  # noqa: E402
from benchmarks import classout, data  # noqa: E402

SCALES = tuple(2.0 ** (k / 2) for k in range(-4, 12))
EXPONENTS = tuple(k / 8 for k in range(9))
SOURCES = 4


def units(name: str) -> dict:
    """A graph's degree figures, weight range and candidate units."""
    import scipy.sparse
    import scipy.sparse.csgraph

    from autotune.graphs import load_graph

    graph = load_graph(data.spec(name))
    weights = graph.weights.astype(np.float64)
    n = graph.n_vertices
    matrix = scipy.sparse.csr_matrix((weights + 1e-9, graph.columns, graph.row_offsets), shape=(n, n))  # keeps 0s
    sources = np.random.default_rng(0).choice(n, SOURCES, replace=False)
    dist, pred = scipy.sparse.csgraph.dijkstra(matrix, indices=sources, return_predecessors=True)
    tree = np.concatenate([dist[i][pred[i] >= 0] - dist[i][pred[i][pred[i] >= 0]] for i in range(SOURCES)])
    degrees = graph.out_degrees
    return {"d": graph.mean_degree, "cv": float(degrees.std() / degrees.mean()),
            "domain": delta_values(SimpleNamespace(min_positive_weight=int(weights[weights > 0].min()),
                                                   max_weight=int(weights.max()))),
            "mean": float(weights.mean()), "median": float(np.median(weights)), "tree": float(tree.mean()),
            "lightest": lightest_weight(graph)}


def slowdown(constants: tuple, unit: str, graph: dict, rows: list) -> float:
    scale, a, skew = constants
    target = scale * graph[unit] / graph["d"] ** a / (1.0 + graph["cv"]) ** skew
    prices = delta_fit.conditional_best(rows, "delta")
    at = delta_fit.nearest_measured(nearest_power(target, graph["domain"]), prices)
    return prices[at] / min(prices.values()) if at in prices else delta_fit.MISSING


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", type=float, default=None, help="hold the degree exponent at this value (default: fit it)")
    args = parser.parse_args(argv)
    exponents_of_d = EXPONENTS if args.a is None else (args.a,)
    rows = delta_fit.read_rows(classout.DELTA_ROWS)
    graphs = {name: units(name) for name in rows}
    classes = sorted({data.graph_class(g) for g in rows})
    print("graph: class, mean degree, degree skew, units (mean, median, tree, lightest)")
    for name, g in graphs.items():
        print(f"  {name}: {data.graph_class(name)}, {g['d']:.2f}, {g['cv']:.2f}, "
              f"{g['mean']:.1f} {g['median']:.1f} {g['tree']:.1f} {g['lightest']:.1f}")
    for unit in ("mean", "median", "tree", "lightest"):
        print(f"unit {unit}:")
        for left_out in (None, *classes):
            kept = [g for g in rows if data.graph_class(g) != left_out]
            best = min(itertools.product(SCALES, exponents_of_d, EXPONENTS), key=lambda c: (
                sum(math.log(slowdown(c, unit, graphs[g], rows[g])) for g in kept), -c[0], c[1], c[2]))
            judged = [g for g in rows if left_out is None or data.graph_class(g) == left_out]
            slow = {g: slowdown(best, unit, graphs[g], rows[g]) for g in judged}
            shown = ", ".join(f"{g} {s:.2f}" for g, s in slow.items() if s > 1.0) or "none slower"
            print(f"  {'every class' if left_out is None else left_out + ' left out'}: scale {best[0]:.3g}, "
                  f"a {best[1]:g}, skew {best[2]:g}; {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
