"""Reproduce the open host-loop bug of Δ-stepping (reports/h100/delta/README.md, run F): measure
the configuration that once gave wrong distances on usa-roads, and variants, several times each,
every solve checked against scipy's Dijkstra; print each measurement's status.

    python3 scripts/delta_host_repro.py [--graph tests/data/usa-roads.gr.gz] [--times 5] [--ck 128]

Under compute-sanitizer (racecheck for shared memory, synccheck for barriers), on a smaller graph:

    compute-sanitizer --tool racecheck python3 scripts/delta_host_repro.py --graph tests/data/rome99.gr.gz --times 1 --ck 8
"""
from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from autotune.algorithms import config_from_json  # noqa: E402
from autotune.graphs import load_graph  # noqa: E402
from autotune.measure import Protocol, choose_sources  # noqa: E402
from autotune.reference.cache import ReferenceCache  # noqa: E402

RECORDED = {"algorithm": "delta", "concurrent_kernels": 128,
            "kernels": {"advance": {"block_size": 384, "cache": "default"}, "split": {"block_size": 1024, "cache": "default"}},
            "params": {"block_threshold": "off", "blocks": 1, "delta": 2048, "loop": "host", "warp_threshold": 64}}
VARIANTS = {"as recorded": {}, "advance 1024": {"advance": 1024}, "blocks 2": {"blocks": 2}, "blocks 8": {"blocks": 8}}


def variant(ck: int, change: dict) -> dict:
    config = {**RECORDED, "concurrent_kernels": ck, "kernels": {k: dict(v) for k, v in RECORDED["kernels"].items()},
              "params": dict(RECORDED["params"])}
    if "advance" in change:
        config["kernels"]["advance"]["block_size"] = change["advance"]
    if "blocks" in change:
        config["params"]["blocks"] = change["blocks"]
    return config


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graph", default="tests/data/usa-roads.gr.gz")
    parser.add_argument("--times", type=int, default=5)
    parser.add_argument("--ck", type=int, default=128)
    args = parser.parse_args()
    from autotune.gpu import CudaEventTimer, gpu_session, open_solver

    graph = load_graph(args.graph)
    sample = choose_sources(graph, 32, seed=0)
    expected = ReferenceCache(None).distances(graph, sample)
    with gpu_session(), open_solver(graph, "delta") as solver:
        timer = CudaEventTimer(solver, sample, Protocol(sample=32, min_repetitions=1, max_repetitions=1),
                               expected=expected)
        for name, change in VARIANTS.items():
            config = config_from_json(variant(args.ck, change), name)
            statuses = collections.Counter(str(timer.measure(config).status) for _ in range(args.times))
            print(f"{name}: {dict(statuses)}  ({config})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
