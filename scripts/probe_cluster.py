"""One query on a thread-block cluster (`scripts/probe_cluster.cu`) against the shipped table's
tuned one query (tables/h100.json on an H100; `benchmarks.probes.tuned_one_queries`), in the same
process, on the same 32 sources (docs/notes/kernels.md, run R).

For each graph: scipy's Dijkstra on one core (8 sources), the table's one-query configuration
timed by the sweep's timer, then the cluster kernel for every (cluster size, block size, Delta:
the tuned one's times a scale, or inf) of the grid: each source solved once to warm up, then
`probes.PASSES` passes over the 32 sources, each solve timed with CUDA events around its launch
and checked against scipy's distances. Prints the six fastest and any that failed.

    python3 scripts/probe_cluster.py usa-roads.gr.gz,rome99.gr.gz '{"cluster":[2,4,8],"block":[256,1024],"scale":[1,4,"inf"]}'
"""
import itertools
import json
import sys
from pathlib import Path

import numpy as np

from benchmarks import probes

SOURCE = Path(__file__).with_name("probe_cluster.cu")


def build(cluster: int):
    return probes.build_probe(SOURCE, [f"-DCLUSTER={cluster}"], "solve_cluster")


def shared_bytes(n: int, cluster: int, qcap: int) -> int:
    chunk = -(-n // cluster)
    return 4 * (chunk + 4 * (-(-chunk // 32)) + 2 * qcap)


def timed(function, graph, arrays, sources, expected, cluster, block, delta, qcap):
    import pycuda.driver as cuda
    import pycuda.gpuarray as gpuarray

    n = graph.n_vertices
    chunk = -(-n // cluster)
    shared = shared_bytes(n, cluster, qcap)
    function.set_attribute(cuda.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, shared)
    far = gpuarray.empty(cluster * 2 * chunk, np.int32)
    spill = gpuarray.empty(cluster * 2 * chunk, np.int32)

    def launch(source, out, stats):
        function(np.int32(n), *arrays, np.int32(source), np.int32(delta), np.int32(qcap), far.gpudata, spill.gpudata,
                 out.gpudata, stats.gpudata, np.int32(100 * n + 100), block=(block, 1, 1), grid=(cluster, 1, 1),
                 shared=shared)

    return probes.timed_solves(launch, n, sources, expected)


def main() -> None:
    names = sys.argv[1]
    grid = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
    builds = {}
    for name, graph, sample, expected, cpu, tuned, base, arrays in probes.tuned_one_queries(names, 32):
        rows, failed = [], []
        for cluster, block, scale in itertools.product(grid.get("cluster", [8]), grid.get("block", [256, 1024]),
                                                       grid.get("scale", [1])):
            unit = tuned.param("delta")
            delta = 2**31 - 1 if scale == "inf" or unit == "inf" else int(unit) * scale
            qcap = 4096
            while qcap > 256 and shared_bytes(graph.n_vertices, cluster, qcap) > probes.SHARED_LIMIT:
                qcap //= 2
            if shared_bytes(graph.n_vertices, cluster, qcap) > probes.SHARED_LIMIT:
                failed.append((cluster, block, delta, "does not fit"))
                continue
            if cluster not in builds:
                builds[cluster] = build(cluster)
            result, why = timed(builds[cluster], graph, arrays, sample, expected, cluster, block, delta, qcap)
            (rows if result else failed).append((*(result or ()), cluster, block, delta, qcap) if result
                                               else (cluster, block, delta, why))
        probes.print_fastest(rows, failed, cpu, base.ms_per_sssp,
                             lambda cluster, block, delta, qcap: f"cluster {cluster}, block {block}, delta {delta}, "
                                                                 f"qcap {qcap}")


if __name__ == "__main__":
    main()
