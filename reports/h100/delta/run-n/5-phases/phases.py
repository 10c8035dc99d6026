"""Per-phase clock cycles of solve_block (build/prof/phases.cu) on one query: thread 0's stamps."""
import sys, time
from pathlib import Path
import numpy as np
sys.path.insert(0, str(Path.cwd())); sys.path.insert(0, str(Path.cwd() / "scripts"))
from autotune.graphs import load_graph
from autotune.measure import choose_sources
from bench_delta import spec_of
from ab_delta_kernel import config, use_source

NAMES = {6: "loop top to own loads used", 1: "prefix sum (2 barriers)", 2: "tile arrays + barrier",
         8: "binary search", 9: "edge loads used", 10: "atomicMin returned", 11: "push (when improved)",
         3: "rest (relax bookkeeping, unmark)", 4: "wait at the end barrier", 5: "counts, splits, next"}
graph_name, threads, delta = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
src = Path(sys.argv[4] if len(sys.argv) > 4 else "build/prof/phases.cu").resolve()
use_source(src)
from autotune.gpu import open_solver
from autotune.gpu.device import gpu_session
from autotune.gpu.compile import compiled_module
with gpu_session():
    import pycuda.driver as cuda
    graph = load_graph(spec_of(graph_name))
    sample = choose_sources(graph, 32, seed=0)
    with open_solver(graph, "delta") as solver:
        cfg = config(1, threads, 1, delta)
        totals = np.zeros(16); iters = 0; ms = []
        for s in sample[:8]:
            r = solver.solve(cfg, [int(s)])
            ptr, size = compiled_module("delta", False).get_global("phase_out")
            out = np.empty(16, dtype=np.int64); cuda.memcpy_dtoh(out, ptr)
            totals += out; iters += int(r.iterations[0]); ms.append(r.elapsed_ms)
        all_cycles = totals[:12].sum()
        print(f"{graph_name} {threads} threads delta {delta}: {iters/8:.0f} iterations per solve, {np.median(ms):.3f} ms per solve (median of 8 sources)")
        print(f"cycles per solve {all_cycles/8:.0f}; per iteration {all_cycles/iters:.0f}; ns per cycle implied {np.median(ms)*1e6/(all_cycles/8):.3f}")
        for k in (6, 1, 2, 8, 9, 10, 11, 3, 4, 5):
            print(f"  {NAMES[k]:32s} {totals[k]/iters:8.0f} cycles per iteration ({100*totals[k]/all_cycles:4.1f}%)")
        print(f"  pushes by thread 0: {totals[14]/iters:.2f} per iteration; cycles per push {totals[11]/max(1,totals[14]):.0f}")
