#!/usr/bin/env python3
"""Time Delta-stepping's one-query prediction (`autotune predict --algorithm delta --queries 1`:
the shipped one-query rules, `autotune.algorithms.delta.latency`) with every power-of-two Delta of the
graph's domain within 64 times either side of the predicted one (`benchmarks.probes.delta_grid`),
and the shipped table's one-query best, in one process on the same 32 sources (every solve checked
against scipy's Dijkstra): `latency grid` rows, on which the one-query Delta can be fitted by the
time it costs, as rule 1's batch Delta is on its `model grid` rows, rather than as the median ratio
of the table's winners. Suite `classout` at 826dd46 found the one-query Delta the main miss on the
H100 (delaunay_n16 256 against its best 64, +24%; power-pegase2869 16,384 against 2,097,152, +17%).

Usage (on a GPU machine, from the repository's root):

    python3 scripts/probe_latency_grid.py OUT.jsonl [GRAPH,GRAPH,...]

Default graphs: the shipped table's real ones. Each row is one configuration of one graph:
{"graph", "class": "latency grid" | "table best", "config", "status", "ms_per_sssp", "rounds"}.
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.probes import delta_grid, one_query_shapes, probe_rows  # noqa: E402

SAMPLE, ROUNDS = 32, 2


def main(out_path: str, names: str = "") -> None:
    from autotune.algorithms.delta import delta_values
    from autotune.model.features import GraphFeatures

    with open(out_path, "w") as out:
        for name, graph, sources, expected, predicted, best in one_query_shapes(names, SAMPLE):
            configs = delta_grid(predicted, delta_values(GraphFeatures.from_graph(graph)))
            for row in probe_rows(name, graph, configs, best, sources, expected, ROUNDS, "latency grid"):
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(name, row["class"], row["config"]["params"].get("delta"), row["ms_per_sssp"], flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
