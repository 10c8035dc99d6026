"""One query of a small graph on one small block with its whole state in shared memory
(`scripts/probe_lean.cu`) against the shipped table's tuned one query
(tables/h100.json on an H100; `benchmarks.probes.tuned_one_queries`), in the same process,
on the same 32 sources (docs/notes/kernels.md, run U).

For each graph: scipy's Dijkstra on one core (8 sources, as suite kernels times it), the table's
one-query configuration timed by the sweep's timer, then the lean kernel for every (block size,
graph in shared memory or not, Delta: the tuned one's times a scale, or inf) of the grid where its
shared memory fits: each source solved once to warm up, then `probes.PASSES` passes over the 32
sources, each solve timed with CUDA events around its launch and checked against scipy's
distances. Prints the six fastest and any that failed.

    python3 scripts/probe_lean.py rome99.gr.gz,power-pegase2869 '{"block":[32,64,128,256],"scale":[0.25,1,4,"inf"]}'
"""
import itertools
import json
import sys
from pathlib import Path

import numpy as np

from benchmarks import probes

SOURCE = Path(__file__).with_name("probe_lean.cu")


def build(graph_shared: bool):
    return probes.build_probe(SOURCE, [f"-DGRAPH_SHARED={int(graph_shared)}"], "solve_lean")


def shared_bytes(n: int, m: int, graph_shared: bool) -> int:
    return 4 * (5 * n + 3 * (-(-n // 32)) + ((n + 1 + 2 * m) if graph_shared else 0))


def timed(function, graph, arrays, sources, expected, block, graph_shared, delta):
    import pycuda.driver as cuda

    n, m = graph.n_vertices, graph.n_edges
    shared = shared_bytes(n, m, graph_shared)
    function.set_attribute(cuda.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, shared)

    def launch(source, out, stats):
        function(np.int32(n), np.int32(m), *arrays, np.int32(source), np.int32(delta), out.gpudata, stats.gpudata,
                 np.int32(100 * n + 100), block=(block, 1, 1), grid=(1, 1, 1), shared=shared)

    return probes.timed_solves(launch, n, sources, expected)


def main() -> None:
    names = sys.argv[1]
    grid = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
    builds = {}
    for name, graph, sample, expected, cpu, tuned, base, arrays in probes.tuned_one_queries(names, 32):
        rows, failed = [], []
        for block, graph_shared, scale in itertools.product(grid.get("block", [32, 64, 128, 256]),
                                                            grid.get("graph_shared", [False, True]),
                                                            grid.get("scale", [1])):
            unit = tuned.param("delta")
            delta = 2**31 - 1 if scale == "inf" or unit == "inf" else max(1, int(int(unit) * scale))
            if shared_bytes(graph.n_vertices, graph.n_edges, graph_shared) > probes.SHARED_LIMIT:
                failed.append((block, graph_shared, delta, "does not fit"))
                continue
            if graph_shared not in builds:
                builds[graph_shared] = build(graph_shared)
            result, why = timed(builds[graph_shared], graph, arrays, sample, expected, block, graph_shared, delta)
            (rows if result else failed).append((*result, block, graph_shared, delta) if result
                                               else (block, graph_shared, delta, why))
        probes.print_fastest(rows, failed, cpu, base.ms_per_sssp,
                             lambda block, shared, delta: f"block {block}, graph in shared {shared}, delta {delta}")


if __name__ == "__main__":
    main()
