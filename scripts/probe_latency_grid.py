#!/usr/bin/env python3
"""Time Delta-stepping's one-query prediction (`autotune predict --algorithm delta --queries 1`:
the shipped one-query rules, `autotune.algorithms.delta.latency`) with every power-of-two Delta of the
graph's domain within 64 times either side of the predicted one (`benchmarks.probes.delta_grid`),
and the shipped table's one-query best, in one process on the same 32 sources (every solve checked
against scipy's Dijkstra): `latency grid` rows, on which the one-query Delta can be fitted by the
time it costs, as rule 1's batch Delta is on its `model grid` rows, rather than as the median ratio
of the table's winners. Suite `classout` at 826dd46 found the one-query Delta the main miss on the
H100 (delaunay_n16 256 against its best 64, +24%; power-pegase2869 16,384 against 2,097,152, +17%).

With K (at most Delta-stepping's `one_query_shape_queries`, 16), the prediction for K sources at
once (one query's grid shared out over them, `autotune predict --algorithm delta --queries K`) is
timed instead, with each Delta of the same grid at its own block size and at 1,024 (the block size
of 23 of the 31 Delta-stepping bests at CK 16 in tables/h200.json at fd74627): `spread grid` rows,
the evidence for the middle of the curve, where suite `classout` at fd74627 found web-Stanford +117%.

Usage (on a GPU machine, from the repository's root):

    python3 scripts/probe_latency_grid.py OUT.jsonl [GRAPH,GRAPH,...] [K]

Default graphs: the shipped table's real ones. Each row is one configuration of one graph:
{"graph", "class": "latency grid" | "spread grid" | "table best", "queries", "config", "status",
"ms_per_sssp", "rounds"}.
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.probes import delta_grid, one_query_shapes, probe_rows  # noqa: E402

SAMPLE, ROUNDS = 32, 2


def main(out_path: str, names: str = "", queries: str = "1") -> None:
    from autotune.algorithms.delta import delta_values
    from autotune.launch import KernelLaunch
    from autotune.model.features import GraphFeatures

    k = int(queries)
    with open(out_path, "w") as out:
        for name, graph, sources, expected, predicted, best in one_query_shapes(names, SAMPLE, k):
            configs = delta_grid(predicted, delta_values(GraphFeatures.from_graph(graph)))
            if k > 1:
                configs += [c.replace(**{kernel: KernelLaunch(1024, launch.cache) for kernel, launch in c.kernels.items()})
                            for c in configs]
            for row in probe_rows(name, graph, list(dict.fromkeys(configs)), best, sources, expected, ROUNDS,
                                  "latency grid" if k == 1 else "spread grid"):
                out.write(json.dumps({**row, "queries": k}) + "\n")
                out.flush()
                print(name, row["class"], row["config"].get("params", {}).get("delta"), row["ms_per_sssp"], flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
