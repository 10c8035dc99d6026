"""Check the host-loop race of Δ-stepping found in run F and fixed in run G (reports/h100/delta/README.md):
measure the configuration that gave wrong distances on usa-roads, and variants (blocks per
instance, block size, loop mode, L1 state), at each CK several times, every solve checked against
scipy's Dijkstra; print each configuration's statuses and the first wrong solve's reason.

    python3 scripts/delta_host_repro.py [--graph tests/data/usa-roads.gr.gz] [--times 5] [--ck 128 [CK ...]]

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
VARIANTS = {"as recorded": {}, "advance 1024": {"advance": 1024}, "blocks 2": {"blocks": 2}, "blocks 8": {"blocks": 8},
            "persistent": {"loop": "persistent"}, "advance no_l1": {"advance cache": "no_l1"},
            "split no_l1": {"split cache": "no_l1"}, "both no_l1": {"advance cache": "no_l1", "split cache": "no_l1"}}


def variant(ck: int, change: dict) -> dict:
    config = {**RECORDED, "concurrent_kernels": ck, "kernels": {k: dict(v) for k, v in RECORDED["kernels"].items()},
              "params": dict(RECORDED["params"])}
    if "advance" in change:
        config["kernels"]["advance"]["block_size"] = change["advance"]
    for kernel in ("advance", "split"):
        if f"{kernel} cache" in change:
            config["kernels"][kernel]["cache"] = change[f"{kernel} cache"]
    for param in ("blocks", "loop"):
        if param in change:
            config["params"][param] = change[param]
    return config


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graph", default="tests/data/usa-roads.gr.gz")
    parser.add_argument("--times", type=int, default=5)
    parser.add_argument("--ck", type=int, nargs="+", default=[128])
    parser.add_argument("--sample", type=int, default=32, help="sources in the sample (default 32)")
    parser.add_argument("--poll-depth", type=int, default=None, help="iterations the host loop may run ahead")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    args = parser.parse_args()
    from autotune.gpu import CudaEventTimer, delta_engine, gpu_session, open_solver

    if args.poll_depth is not None:
        delta_engine.POLL_DEPTH = args.poll_depth

    graph = load_graph(args.graph)
    sample = choose_sources(graph, args.sample, seed=0)
    expected = ReferenceCache(None).distances(graph, sample)
    with gpu_session(), open_solver(graph, "delta") as solver:
        timer = CudaEventTimer(solver, sample, Protocol(sample=args.sample, min_repetitions=1, max_repetitions=1),
                               expected=expected)
        for ck in args.ck:
            for name in args.variants:
                change = VARIANTS[name]
                config = config_from_json(variant(ck, change), name)
                measured = [timer.measure(config) for _ in range(args.times)]
                statuses = collections.Counter(str(m.status) for m in measured)
                reasons = sorted({m.reason for m in measured if m.reason})
                print(f"CK {ck} {name}: {dict(statuses)}  ({config}){'  ' + reasons[0] if reasons else ''}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
