"""Run K's racecheck driver, run from the repository's root (the device ran it as ab/race.py):
solve rome99 with solve_block (CK 2, 256 threads, shared bitmaps) and solve_grid (4 blocks) for
compute-sanitizer, and check the distances against scipy."""
import sys
sys.path.insert(0, ".")
sys.path.insert(0, "scripts")
import numpy as np
from autotune.graphs import load_graph
from autotune.gpu import open_solver
from autotune.gpu.device import gpu_session
from autotune.reference.cache import ReferenceCache
from ab_delta_kernel import config
with gpu_session():
    g = load_graph("tests/data/rome99.gr.gz")
    sources = [0, 100]
    expected = ReferenceCache(None).distances(g, sources)
    with open_solver(g, "delta") as s:
        for shape in ((2, 256, 1, 1024), (2, 256, 1, "inf"), (1, 256, 4, 1024), (2, 64, 1, 256)):
            r = s.solve(config(*shape, params={"warp_threshold": 8}), sources[:shape[0]])
            ok = all(np.array_equal(r.distances[k], expected[src]) for k, src in enumerate(sources[:shape[0]]))
            print(shape, "right" if ok else "WRONG", flush=True)
