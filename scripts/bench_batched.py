"""Batched SSSP on one GPU, in one process: lane-interleaved Delta-stepping (`delta_lanes`) beside
the best batched Delta-stepping configurations recorded in reports/h100/delta, on the graphs of
issue 12's batched targets. Every configuration is measured by the sweep's `CudaEventTimer`
(warm-up, 3 timed repetitions over a sample of 32 sources, CUDA events, launches included) and
**every solve is compared with scipy's Dijkstra**; a wrong configuration is recorded as such.

    python3 scripts/bench_batched.py -o OUT_DIR [--graphs rmat20,rmat17,usa-roads.gr.gz] [--rounds 2]

Writes OUT_DIR/bench.jsonl (its first line: the command, the date and the GPU) and prints, per
case, the median time per SSSP over the rounds with the spread of the repetitions.
"""
from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from autotune import algorithms  # noqa: E402
from autotune.graphs import load_graph  # noqa: E402
from autotune.launch import CacheState, KernelLaunch, LaunchConfig  # noqa: E402
from autotune.measure import Protocol, Status, choose_sources  # noqa: E402
from autotune.reference.cache import ReferenceCache  # noqa: E402
from bench_delta import spec_of  # noqa: E402

ONE_BLOCK = {"loop": "persistent", "blocks": 1}
# graph: [(algorithm, CK, threads, parameters)]: Delta-stepping's best batched configuration of
# reports/h100/delta (run K) first, then lane-interleaved ones
CASES = {
    "rmat20": [("delta", 512, 512, {"delta": 4, **ONE_BLOCK}),
               ("delta_lanes", 1024, 512, {"delta": "inf", "blocks_per_sm": 2}),
               ("delta_lanes", 512, 512, {"delta": "inf", "blocks_per_sm": 2}),
               ("delta_lanes", 1024, 1024, {"delta": "inf", "blocks_per_sm": 1})],
    "rmat17": [("delta", 128, 480, {"delta": 4, **ONE_BLOCK}),
               ("delta_lanes", 1024, 512, {"delta": "inf", "blocks_per_sm": 2}),
               ("delta_lanes", 512, 512, {"delta": "inf", "blocks_per_sm": 2})],
    "usa-roads.gr.gz": [("delta", 1024, 128, {"delta": 1024, **ONE_BLOCK}),
                        ("delta_lanes", 1024, 256, {"delta": 4096, "blocks_per_sm": 2})],
}


def config(algorithm: str, ck: int, threads: int, params: dict) -> LaunchConfig:
    entry = algorithms.get(algorithm)
    launch = KernelLaunch(threads, CacheState.DEFAULT)
    return entry.validate(LaunchConfig(ck, {k: launch for k in entry.kernels}, algorithm,
                                       {**entry.default_params(), **params}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument("--graphs", default=",".join(CASES))
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    from autotune.gpu import CudaEventTimer, open_solver
    from autotune.gpu.device import gpu_session

    args.output.mkdir(parents=True, exist_ok=True)
    log = (args.output / "bench.jsonl").open("a")
    results: dict[str, list[float]] = {}
    protocol = Protocol(sample=32, min_repetitions=3, max_repetitions=3)
    with gpu_session() as session:
        log.write(json.dumps({"command": " ".join(sys.argv), "gpu": session.name(),
                              "date": datetime.datetime.now(datetime.timezone.utc).isoformat()}) + "\n")
        for graph_name in [g for g in args.graphs.split(",") if g]:
            graph = load_graph(spec_of(graph_name))
            sample = choose_sources(graph, 32, seed=0)
            expected = ReferenceCache(None).distances(graph, sample)
            for round_ in range(args.rounds):
                for algorithm in dict.fromkeys(case[0] for case in CASES[graph_name]):
                    with open_solver(graph, algorithm) as solver:
                        timer = CudaEventTimer(solver, sample, protocol, expected=expected)
                        for case in (c for c in CASES[graph_name] if c[0] == algorithm):
                            t0 = time.perf_counter()
                            m = timer.measure(config(*case))
                            name = f"{graph_name} {m.config}"
                            row = {"graph": graph_name, "config": m.config.to_json(), "round": round_,
                                   "status": str(m.status), "reason": m.reason, "ms_per_sssp": m.ms_per_sssp,
                                   "times_ms": list(m.times_ms), "iterations": m.iterations,
                                   "wall_s": round(time.perf_counter() - t0, 2)}
                            log.write(json.dumps(row) + "\n")
                            log.flush()
                            print(json.dumps(row), flush=True)
                            if m.status is Status.OK:
                                results.setdefault(name, []).extend(m.times_ms)
                            else:
                                results.setdefault(name, [])
    print()
    for name, times in results.items():
        print(f"{name}: " + (f"{statistics.median(times):.4g} ms per SSSP ({min(times):.4g}-{max(times):.4g})"
                             if times else "no verified measurement"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
