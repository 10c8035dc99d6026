#!/usr/bin/env python3
"""Time Delta-stepping's batch-end prediction with every power-of-two Delta of the graph's domain
within 64 times either side of the predicted one (`benchmarks.probes.delta_grid`), and the
shipped table's batch-end best, in one process on the same 32 sources (every solve checked against
scipy's Dijkstra): the `model grid` rows that rule 1's constants (`autotune.algorithms.delta.fit.fit`:
Delta's scale and its degree-skew and weight-spread exponents) are fitted on, for graphs that
`benchmarks/data/h100/delta-grid.jsonl.gz` (measured on the engine of 2026-11-23) does not hold.

With `--lanes`, the lane-interleaved algorithm's grid instead (`benchmarks.probes.lanes_grid`: its
prediction, and every block size, blocks per SM and Delta of the grid at the predicted CK): the `lanes
grid` rows that its model's constants are fitted on (`autotune.algorithms.delta_lanes.fit`).

Usage (on a GPU machine, from the repository's root):

    python3 scripts/probe_delta_grid.py [--lanes] OUT.jsonl GRAPH,GRAPH,...

Each row is one configuration of one graph: {"graph", "class": "model grid" | "lanes grid" |
"table best", "config", "status", "ms_per_sssp", "rounds"}.
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.probes import batch_shapes, delta_grid, lanes_grid, probe_rows  # noqa: E402

SAMPLE, ROUNDS = 32, 2


def main(out_path: str, names: str, lanes: bool = False) -> None:
    from autotune import algorithms
    from autotune.algorithms.delta import delta_values
    from autotune.model.features import GraphFeatures

    with open(out_path, "w") as out:
        for name, graph, sources, expected, shaped, best in batch_shapes(names, SAMPLE):
            features = GraphFeatures.from_graph(graph)
            if lanes:
                configs = lanes_grid(algorithms.get("delta_lanes").predict(features, shaped.profile).config, features)
            else:
                configs = delta_grid(shaped(), delta_values(features))
            for row in probe_rows(name, graph, configs, best, sources, expected, ROUNDS,
                                  "lanes grid" if lanes else "model grid"):
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(name, row["class"], row["config"]["params"], row["ms_per_sssp"], flush=True)


if __name__ == "__main__":
    flags = [a for a in sys.argv[1:] if a.startswith("--")]
    if set(flags) - {"--lanes"}:
        sys.exit(f"unknown option {flags[0]}: only --lanes")
    main(*[a for a in sys.argv[1:] if not a.startswith("--")], lanes="--lanes" in flags)
