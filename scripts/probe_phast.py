"""One query on a contraction hierarchy, PHAST's way (`scripts/probe_phast.cu`), against the shipped
table's tuned one query (tables/h100.json on an H100; `benchmarks.probes.tuned_one_queries`), in
the same process, on the same 32 sources (docs/notes/kernels.md, run V).

The hierarchies come from the CPU: `python3 scripts/probe_ch.py GRAPHS --level-weight 4 --save
DIR` writes DIR/NAME.ch.npz (carry DIR to the GPU machine). For each graph: scipy's Dijkstra on
one core (8 sources), the table's one-query configuration timed by the sweep's timer, then the
level sweeps on one block of each size of the grid, with the distances in global memory and, where
they fit, in shared memory, and with a block barrier per level or runs of small levels swept by
one warp: each source solved once to warm up, then `PASSES` passes over the 32
sources, each solve timed with CUDA events around its launch and checked against scipy's
distances. The timings are the query's alone: building the hierarchy is the CPU's, once per graph.

    python3 scripts/probe_phast.py usa-roads.gr.gz,rome99.gr.gz DIR '{"block":[256,512,1024]}'
"""
import itertools
import json
import sys
from pathlib import Path

import numpy as np

from benchmarks import probes

PASSES = 3
SHARED_LIMIT = 227 * 1024
SOURCE = Path(__file__).with_name("probe_phast.cu")


def build(dist_shared: bool, small_by_warp: bool):
    return probes.build_probe(SOURCE, [f"-DDIST_SHARED={int(dist_shared)}", f"-DSMALL_BY_WARP={int(small_by_warp)}"],
                              "phast_block")


def uploaded(path: Path) -> dict:
    """The hierarchy's arrays on the GPU (int32), and its level starts on the host."""
    import pycuda.gpuarray as gpuarray

    h = dict(np.load(path))
    names = ("level_start", "up_offsets", "up_heads", "up_weights", "down_offsets", "down_tails", "down_weights",
             "old_of")
    return {"host_level_start": h["level_start"], "new_of": h["new_of"],
            **{k: gpuarray.to_gpu(np.ascontiguousarray(h[k], dtype=np.int32)) for k in names}}


def timed(function, n, h, sources, expected, block, dist_shared):
    import pycuda.driver as cuda
    import pycuda.gpuarray as gpuarray

    shared = 4 * n if dist_shared else 0
    if dist_shared:
        function.set_attribute(cuda.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, shared)
    dist = gpuarray.empty(n, np.int32)
    levels = len(h["host_level_start"]) - 1

    def launch(source, out, stats):
        s = int(h["new_of"][source])
        level = int(np.searchsorted(h["host_level_start"], s, side="right")) - 1
        function(np.int32(n), np.int32(levels), *(h[k].gpudata for k in (
                     "level_start", "up_offsets", "up_heads", "up_weights", "down_offsets", "down_tails",
                     "down_weights", "old_of")),
                 np.int32(s), np.int32(level), dist.gpudata, out.gpudata, stats.gpudata,
                 block=(block, 1, 1), grid=(1, 1, 1), shared=shared)

    return probes.timed_solves(launch, n, sources, expected, PASSES)


def main() -> None:
    names, directory = sys.argv[1], Path(sys.argv[2])
    grid = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    builds = {}
    for name, graph, sample, expected, cpu, tuned, base, _ in probes.tuned_one_queries(names, 32):
        h = uploaded(directory / f"{name}.ch.npz")
        n = graph.n_vertices
        print(f"    hierarchy: {len(h['host_level_start']) - 1} levels, {h['up_heads'].size + h['down_tails'].size} "
              f"arcs with shortcuts", flush=True)
        rows, failed = [], []
        for block, dist_shared, by_warp in itertools.product(grid.get("block", [256, 512, 1024]),
                                                             grid.get("dist_shared", [False, True]),
                                                             grid.get("small_by_warp", [False, True])):
            if dist_shared and 4 * n > SHARED_LIMIT:
                failed.append((block, dist_shared, by_warp, "does not fit"))
                continue
            if (dist_shared, by_warp) not in builds:
                builds[dist_shared, by_warp] = build(dist_shared, by_warp)
            result, why = timed(builds[dist_shared, by_warp], n, h, sample, expected, block, dist_shared)
            (rows if result else failed).append((*result, block, dist_shared, by_warp) if result
                                               else (block, dist_shared, by_warp, why))
        probes.print_fastest(rows, failed, cpu, base.ms_per_sssp,
                             lambda block, shared, by_warp: f"block {block}, distances in shared {shared}, "
                                                            f"small levels by one warp {by_warp}", "steps")


if __name__ == "__main__":
    main()
