#!/usr/bin/env python3
"""Time Delta-stepping's batch-end prediction with every power-of-two Delta of the graph's domain
within 64 times either side of the predicted one (`benchmarks.probes.delta_grid`), and the
shipped table's batch-end best, in one process on the same 32 sources (every solve checked against
scipy's Dijkstra): the `model grid` rows that rule 1's constants (`autotune.algorithms.delta.fit.fit`:
Delta's scale and its degree-skew and weight-spread exponents) are fitted on, for graphs that
`benchmarks/data/h100/delta-grid.jsonl.gz` (measured on the engine of 2026-11-23) does not hold.

Usage (on a GPU machine, from the repository's root):

    python3 scripts/probe_delta_grid.py OUT.jsonl GRAPH,GRAPH,...

Each row is one configuration of one graph: {"graph", "class": "model grid" | "table best",
"config", "status", "ms_per_sssp", "rounds"}.
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.probes import batch_shapes, delta_grid, probe_rows  # noqa: E402

SAMPLE, ROUNDS = 32, 2


def main(out_path: str, names: str) -> None:
    from autotune.algorithms.delta import delta_values
    from autotune.model.features import GraphFeatures

    with open(out_path, "w") as out:
        for name, graph, sources, expected, shaped, best in batch_shapes(names, SAMPLE):
            configs = delta_grid(shaped(), delta_values(GraphFeatures.from_graph(graph)))
            for row in probe_rows(name, graph, configs, best, sources, expected, ROUNDS, "model grid"):
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(name, row["class"], row["config"]["params"]["delta"], row["ms_per_sssp"], flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
