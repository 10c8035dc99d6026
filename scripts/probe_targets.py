"""Target queries at smaller Deltas: for each graph, random (source, target) pairs of 32 sources,
the tuned one query's full solve against the stop at the target with the tuned Delta and with
Delta / 2, 4, 8, 16 (every distance checked; docs/notes/kernels.md, run P).

    python3 scripts/probe_targets.py rome99.gr.gz usa-roads.gr.gz rmat17
"""
import statistics
import sys

from benchmarks import data
from autotune.gpu import device_description, gpu_session, open_solver
from autotune.gpu.queries import random_pairs, target_costs
from autotune.lookup import Table

with gpu_session(0) as device:
    gpu = device_description(device)
    table = Table.load("tables/h100.json")
    for name, graph, _sources, expected in data.suite_graphs(sys.argv[1:], 32):
        config = table.lookup(graph, queries=1, device=gpu).config
        pairs = random_pairs(expected, seed=0)
        d0 = config.params["delta"]
        with open_solver(graph, "delta") as solver:
            base = target_costs(solver, config, pairs, expected, 3)
            full = statistics.fmean(c.full_ms for c in base)
            print(name, "tuned delta", d0, "full", round(full, 4), "target", round(statistics.fmean(c.target_ms for c in base), 4), flush=True)
            for div in (2, 4, 8, 16) if isinstance(d0, int) else ():
                c2 = config.replace(delta=max(1, d0 // div))
                costs = target_costs(solver, c2, pairs, expected, 3)
                t = statistics.fmean(c.target_ms for c in costs)
                f2 = statistics.fmean(c.full_ms for c in costs)
                print(f"  delta {d0 // div}: full {f2:.4f} target {t:.4f} vs tuned full {full / t:.2f}x", flush=True)
