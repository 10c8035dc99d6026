"""Profile helper: solve one case a few times (for ncu), with -lineinfo."""
import sys, time
from pathlib import Path
sys.path.insert(0, str(Path.cwd())); sys.path.insert(0, str(Path.cwd() / "scripts"))
from autotune import algorithms
from autotune.graphs import load_graph
from autotune.measure import choose_sources
from bench_delta import spec_of
from ab_delta_kernel import config

graph_name, ck, threads, blocks, delta = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
delta = delta if delta == "inf" else int(delta)
times = int(sys.argv[6]) if len(sys.argv) > 6 else 3
params = dict(a.split("=", 1) for a in sys.argv[7:])
entry = algorithms.get("delta")
cls = type(entry)
orig = cls.compile_options
cls.compile_options = lambda self, no_l1: list(orig(self, no_l1)) + ["-lineinfo"]
from autotune.gpu import open_solver
from autotune.gpu.device import gpu_session
with gpu_session():
    graph = load_graph(spec_of(graph_name))
    sample = choose_sources(graph, 32, seed=0)
    with open_solver(graph, "delta") as solver:
        cfg = config(ck, threads, blocks, delta, params or None)
        for i in range(times):
            t = time.perf_counter()
            r = solver.solve(cfg, [int(s) for s in sample[:ck]] if ck > 1 else [int(sample[0])])
            print(i, (time.perf_counter() - t) * 1e3, "ms wall", getattr(r, "iterations", None), flush=True)
