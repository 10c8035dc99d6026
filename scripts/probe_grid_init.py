#!/usr/bin/env python3
"""What solve_grid's own initialization saves (kernels/delta.cu, docs/notes/kernels.md run AC):
each graph's tuned one query (the shipped table's), timed by the sweep's timer as shipped (one
launch a solve) and with delta.cu's `init` kernel launched before it as it was until then (two
launches; solve_grid initializes again, which costs the same with or without it), alternately in
one process on the same sources, every solve checked against scipy's Dijkstra.

Usage (on a GPU machine, from the repository's root):

    python3 scripts/probe_grid_init.py rmat17,Email-Enron.txt.gz [ROUNDS]
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.probes import tuned_one_queries  # noqa: E402

SAMPLE = 32


def main(names: str, rounds: str = "3") -> None:
    from autotune.gpu import CudaEventTimer, open_solver
    from autotune.gpu.delta_engine import DeltaSolver
    from autotune.measure import Protocol

    shipped = DeltaSolver._launches

    def with_init(self, config, workspace, loop, blocks, delta, warp, hub_threshold, targeted):
        return {**shipped(self, config, workspace, loop, blocks, delta, warp, hub_threshold, targeted),
                "init": self.init_launch(config.concurrent_kernels, workspace, delta)}

    for name, graph, sources, expected, cpu, tuned, _, _ in tuned_one_queries(names, SAMPLE):
        times = {"one launch": [], "init first": []}
        with open_solver(graph, tuned.algorithm) as solver:
            timer = CudaEventTimer(solver, sources, Protocol(sample=SAMPLE, min_repetitions=5, max_repetitions=5),
                                   expected=expected)
            for _ in range(int(rounds)):
                for label, launches in (("one launch", shipped), ("init first", with_init)):
                    DeltaSolver._launches = launches
                    timing = timer.measure(tuned)
                    times[label].append(timing.ms_per_sssp if timing.ok else float("nan"))
            DeltaSolver._launches = shipped
        print(f"{name} {tuned.params}: " + "; ".join(
            f"{label} {min(values):.4f} ms (rounds {', '.join(f'{v:.4f}' for v in values)})"
            for label, values in times.items()), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
