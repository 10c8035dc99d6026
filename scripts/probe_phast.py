"""One query on a contraction hierarchy, PHAST's way (`scripts/probe_phast.cu`), against the shipped
table's tuned one query (tables/h100.json on an H100; `benchmarks.probes.tuned_one_queries`), in
the same process, on the same 32 sources (docs/notes/kernels.md, run V).

The hierarchies come from the CPU: `python3 scripts/probe_ch.py GRAPHS --level-weight 4 --save
DIR` writes DIR/NAME.ch.npz (carry DIR to the GPU machine). For each graph: scipy's Dijkstra on
one core (8 sources), the table's one-query configuration timed by the sweep's timer, then the
level sweeps on one block of each size of the grid: the distances in global memory or, where
they fit, in shared memory; a block barrier per level, or runs of small levels swept by one warp;
the upward phase through every level above the source's, or only through those its frontier
holds; every level downward on the block, or the levels from the first of more than `big`
vertices on the whole GPU, a launch each: each source solved once to warm up, then
`probes.PASSES` passes over the 32 sources, each solve timed with CUDA events around its launch
and checked against scipy's distances. The timings are the query's alone: building the hierarchy
is the CPU's, once per graph.

    python3 scripts/probe_phast.py usa-roads.gr.gz,rome99.gr.gz DIR '{"block":[256,512,1024]}'
"""
import itertools
import json
import sys
from pathlib import Path

import numpy as np

from autotune.gpu.phast_engine import block_levels
from benchmarks import probes

FRONTIER_BYTES = 4 * 4096  # probe_phast.cu's FRONTIER, static shared memory with -DUP_FRONTIER=1
SOURCE = Path(__file__).with_name("probe_phast.cu")


def build(dist_shared: bool, small_by_warp: bool, up_frontier: bool) -> tuple:
    """The block's kernel, and pull_level and scatter_out of the same build."""
    options = [f"-DDIST_SHARED={int(dist_shared)}", f"-DSMALL_BY_WARP={int(small_by_warp)}",
               f"-DUP_FRONTIER={int(up_frontier)}"]
    return tuple(probes.build_probe(SOURCE, options, name) for name in ("phast_block", "pull_level", "scatter_out"))


def uploaded(path: Path) -> dict:
    """The hierarchy's arrays on the GPU (int32), and its level starts on the host."""
    import pycuda.gpuarray as gpuarray

    h = dict(np.load(path))
    h["level_of"] = np.repeat(np.arange(len(h["level_start"]) - 1), np.diff(h["level_start"]))
    names = ("level_start", "level_of", "up_offsets", "up_heads", "up_weights", "down_offsets", "down_tails",
             "down_weights", "old_of")
    return {"host_level_start": h["level_start"], "new_of": h["new_of"],
            **{k: gpuarray.to_gpu(np.ascontiguousarray(h[k], dtype=np.int32)) for k in names}}


def timed(functions, n, h, sources, expected, block, dist_shared, big):
    import pycuda.driver as cuda
    import pycuda.gpuarray as gpuarray

    function, pull_level, scatter_out = functions
    shared = 4 * n if dist_shared else 0
    if dist_shared:
        function.set_attribute(cuda.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, shared)
    dist = gpuarray.empty(n, np.int32)
    starts = h["host_level_start"]
    levels = len(starts) - 1
    down = block_levels(starts, big or "off")  # big 0: every level on the block
    down_arcs = tuple(h[k].gpudata for k in ("down_offsets", "down_tails", "down_weights"))

    def launch(source, out, stats):
        s = int(h["new_of"][source])
        level = int(np.searchsorted(starts, s, side="right")) - 1
        function(np.int32(n), np.int32(levels), *(h[k].gpudata for k in (
                     "level_start", "level_of", "up_offsets", "up_heads", "up_weights", "down_offsets", "down_tails",
                     "down_weights", "old_of")),
                 np.int32(s), np.int32(level), np.int32(down), dist.gpudata, out.gpudata, stats.gpudata,
                 block=(block, 1, 1), grid=(1, 1, 1), shared=shared)
        for below in range(down, levels):
            lo, hi = int(starts[below]), int(starts[below + 1])
            pull_level(np.int32(lo), np.int32(hi), *down_arcs, dist.gpudata, stats.gpudata,
                       block=(256, 1, 1), grid=(max(1, min(-(-(hi - lo) // 256), 1056)), 1, 1))
        if down < levels:
            scatter_out(np.int32(n), h["old_of"].gpudata, dist.gpudata, out.gpudata,
                        block=(256, 1, 1), grid=(min(-(-n // 256), 1056), 1, 1))

    return probes.timed_solves(launch, n, sources, expected)


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
        for block, dist_shared, by_warp, frontier, big in itertools.product(
                grid.get("block", [256, 512, 1024]), grid.get("dist_shared", [False, True]),
                grid.get("small_by_warp", [False, True]), grid.get("up_frontier", [False, True]),
                grid.get("big", [0, 16384])):
            shape = (block, dist_shared, by_warp, frontier, big)
            fits = 4 * n + (FRONTIER_BYTES if frontier else 0) <= probes.SHARED_LIMIT
            if dist_shared and (not fits or big):
                why = "does not fit" if not fits else "GPU-wide levels need global distances"
                failed.append((*shape, why))
                continue
            if (dist_shared, by_warp, frontier) not in builds:
                builds[dist_shared, by_warp, frontier] = build(dist_shared, by_warp, frontier)
            result, why = timed(builds[dist_shared, by_warp, frontier], n, h, sample, expected, block, dist_shared, big)
            (rows if result else failed).append((*result, *shape) if result else (*shape, why))
        probes.print_fastest(rows, failed, cpu, base.ms_per_sssp,
                             lambda block, shared, by_warp, frontier, big: (
                                 f"block {block}, distances in shared {shared}, small levels by one warp {by_warp}, "
                                 f"upward frontier {frontier}, GPU-wide levels over {big}"), "steps")


if __name__ == "__main__":
    main()
