#!/usr/bin/env python3
"""Where one query's time goes on a low-diameter graph (issue 29's R-MAT targets): Delta-stepping's
tuned one query (the shipped table's) and variants of it, each timed by the sweep's timer (every
solve checked against scipy's Dijkstra), with its iterations and the edges it scanned per source
(`F_RELAXED`, `kernels/delta.cu`) over the graph's arcs: how much of the time is redundant work
(an edge scanned more than once) and how much the iterations' count.

Usage (on a GPU machine, from the repository's root):

    python3 scripts/probe_one_query_work.py rmat17,rmat20 '{"delta": [64, 512, "inf"], "blocks": [128, 132]}'

Each variant replaces the tuned configuration's parameters by one combination of the grid's. One
line a configuration: its parameters, ms per query (median), iterations and scanned edges / arcs
(the mean over the sources).
"""
import itertools
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.probes import tuned_one_queries  # noqa: E402

SAMPLE = 16


def scanned_edges(solver, config, sources) -> list[int]:
    """The edges each source's solve scanned (one solve a source, read from the instance's state)."""
    import numpy as np

    found = []
    for source in sources:
        solver.solve(config, [int(source)])
        state = np.empty((solver.fields["N_FIELDS"], 1), dtype=np.int32)
        solver.cuda.memcpy_dtoh(state, solver._workspace.state)  # the engine keeps the last solve's workspace
        found.append(int(state[solver.fields["F_RELAXED"], 0]))
    return found


def main(names: str, grid_text: str) -> None:
    from autotune.gpu import CudaEventTimer, open_solver
    from autotune.measure import Protocol

    grid = json.loads(grid_text)
    keys = list(grid)
    for name, graph, sources, expected, cpu, tuned, base, _ in tuned_one_queries(names, SAMPLE):
        variants = [tuned] + [tuned.replace(**dict(zip(keys, values))) for values in itertools.product(*grid.values())]
        with open_solver(graph, tuned.algorithm) as solver:
            for config in dict.fromkeys(variants):
                timing = CudaEventTimer(solver, sources, Protocol(sample=SAMPLE, min_repetitions=5, max_repetitions=5),
                                        expected=expected).measure(config)
                if timing.ms_per_sssp is None or timing.status != "ok":
                    print(f"{name} {config.params} {config.kernel('advance').block_size}: {timing.status}", flush=True)
                    continue
                scanned = scanned_edges(solver, config, sources[:4])
                print(f"{name} {config.params} block {config.kernel('advance').block_size}: "
                      f"{timing.ms_per_sssp:.4f} ms, iterations {timing.iterations}, scanned / arcs "
                      f"{sum(scanned) / len(scanned) / graph.n_edges:.2f} (scipy {cpu:.2f} ms)", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
