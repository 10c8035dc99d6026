#!/usr/bin/env python3
"""One query on several builds of the kernels, alternately: each graph's tuned one query (the shipped
table's), or a configuration given for it, timed by the sweep's timer (every solve checked against
scipy's Dijkstra) on each build of `--builds` in turn, `--rounds` times, in one process.

Usage (on a GPU machine, from the repository's root):

    python3 scripts/probe_builds.py Email-Enron.txt.gz,anybeat.csr.npz '["", "-DBUFFER_FROM=16384"]' \\
        [--rounds=3] [--config=GRAPH=CONFIG.json ...]

A graph of `--config` is solved from its vertex 0 with that configuration (a path graph's floor:
one queued vertex an iteration); the others from the suite's 16 sources with their table's one
query. One line a graph, build and round: the ms per query and its iterations.
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.probes import given_configs, tuned_one_queries  # noqa: E402
from scripts.probe_iteration_trace import use_build  # noqa: E402

SAMPLE = 16


def main(names: str, builds_text: str, *flags: str) -> None:
    from autotune.gpu import CudaEventTimer, open_solver
    from autotune.measure import Protocol

    builds = json.loads(builds_text)
    rounds = next((int(f.split("=", 1)[1]) for f in flags if f.startswith("--rounds=")), 3)
    for name, graph, sources, expected, _, config, _, _ in tuned_one_queries(names, SAMPLE, given_configs(flags)):
        for round_ in range(rounds):
            for defines in builds:
                use_build(False, defines)
                with open_solver(graph, config.algorithm) as solver:
                    timing = CudaEventTimer(solver, sources, Protocol(sample=len(sources), min_repetitions=5,
                                                                      max_repetitions=5),
                                            expected=expected).measure(config)
                print(f"{name} [{defines or 'shipped'}] round {round_}: {timing.status} "
                      f"{timing.ms_per_sssp:.4f} ms, iterations {timing.iterations}", flush=True)
    use_build(False)


if __name__ == "__main__":
    main(*sys.argv[1:])
