"""A/B of Delta-stepping kernel sources on one GPU, in one process: each named source of
`kernels/delta.cu` (the committed one and variants) measured on the same configurations, in
interleaved rounds (source A, B, ..., then again), by the sweep's `CudaEventTimer` (warm-up, timed
repetitions over a sample of 32 sources, CUDA events, every solve compared with scipy's Dijkstra).

    git show 9fe6275:kernels/delta.cu > ab/before.cu     # a source to compare with (any path)
    python3 scripts/ab_delta_kernel.py -o OUT_DIR --variant before=ab/before.cu --variant after=kernels/delta.cu \
        [--cases usa-one,rmat20-one,rmat20-batched] [--rounds 2]
    python3 scripts/ab_delta_kernel.py --algorithm delta_lanes -o OUT_DIR --variant u4=ab/lanes-u4.cu \
        --variant u8=kernels/lanes.cu [--cases rmat20-lanes,rmat17-lanes]

Only the kernel source differs between variants: the engine (autotune/gpu/delta_engine.py, or
lanes_engine.py with `--algorithm delta_lanes`) is the checkout's for all of them. Run on 2026-11-24:
reports/h100/delta/run-k, run-l, run-m, run-n.

Writes OUT_DIR/ab.jsonl (every measurement) and prints, per case, each variant's median over the
rounds with the spread of its repetitions.
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
from autotune.launch import LaunchConfig  # noqa: E402
from autotune.measure import Protocol, Status, choose_sources  # noqa: E402
from autotune.reference.cache import ReferenceCache  # noqa: E402
from bench_batched import config as batched_config  # noqa: E402
from bench_delta import config as bench_config, spec_of  # noqa: E402

# name: (graph, CK, threads, blocks per instance, Delta[, other parameters]): the best
# configurations of reports/h100/delta (runs H and I) for the targets of issue 12, and variants
CASES = {
    "usa-one": ("usa-roads.gr.gz", 1, 1024, 1, 2048),
    "usa-one-no-block-bin": ("usa-roads.gr.gz", 1, 1024, 1, 2048, {"block_threshold": "off"}),
    "usa-one-512": ("usa-roads.gr.gz", 1, 512, 1, 2048),
    "usa-one-4096": ("usa-roads.gr.gz", 1, 1024, 1, 4096),
    "usa-batched": ("usa-roads.gr.gz", 1024, 128, 1, 512),
    "rmat20-one": ("rmat20", 1, 1024, 128, 256),
    "rmat20-one-132": ("rmat20", 1, 1024, 132, 256),
    "rmat20-one-512": ("rmat20", 1, 1024, 128, 512),
    "rmat20-one-512-132": ("rmat20", 1, 1024, 132, 512),
    "rmat20-one-64": ("rmat20", 1, 1024, 128, 64),
    "rmat20-one-512-warp-off": ("rmat20", 1, 1024, 128, 512, {"warp_threshold": "off"}),
    "rmat20-one-512-hub256": ("rmat20", 1, 1024, 128, 512, {"block_threshold": 256}),
    "rmat20-one-512-132-hub256": ("rmat20", 1, 1024, 132, 512, {"block_threshold": 256}),
    "rmat20-batched": ("rmat20", 1024, 256, 1, 4),
    "rmat20-batched-512": ("rmat20", 512, 256, 1, 4),
    "rmat20-batched-1024-128": ("rmat20", 1024, 128, 1, 4),
    "rmat20-batched-512-512": ("rmat20", 512, 512, 1, 4),
    "rmat17-one": ("rmat17", 1, 1024, 128, 256),
    "rmat17-batched": ("rmat17", 1024, 256, 1, 4),
    "rmat17-batched-128": ("rmat17", 128, 480, 1, 4),
}
# Cases of lane-interleaved Delta-stepping (`--algorithm delta_lanes`, kernels/lanes.cu):
# name: (graph, CK, threads, blocks per SM, Delta)
LANES_CASES = {
    "rmat20-lanes": ("rmat20", 1024, 512, 2, "inf"),
    "rmat17-lanes": ("rmat17", 1024, 512, 2, "inf"),
    "usa-lanes": ("usa-roads.gr.gz", 1024, 256, 2, 4096),
}


def config(ck: int, threads: int, blocks: int, delta: int, params: dict | None = None) -> LaunchConfig:
    """A case's persistent configuration (`bench_delta.config`: both kernels of `threads`)."""
    return bench_config(ck, threads, delta=delta, loop="persistent", blocks=blocks, **(params or {}))


def lanes_config(ck: int, threads: int, blocks_per_sm: int, delta) -> LaunchConfig:
    """A lane-interleaved case's configuration (`bench_batched.config`: both kernels of `threads`)."""
    return batched_config("delta_lanes", ck, threads, {"delta": delta, "blocks_per_sm": blocks_per_sm})


def use_source(path: Path, algorithm: str = "delta") -> None:
    """Make `path` the source the engine compiles `algorithm` from from now on."""
    from autotune.gpu import compile as compile_module

    entry = algorithms.get(algorithm)
    type(entry).source_path = property(lambda self, path=path: path)  # the class's: one algorithm per run
    compile_module.compiled_module.cache_clear()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument("--variant", action="append", required=True, metavar="NAME=PATH")
    parser.add_argument("--algorithm", choices=("delta", "delta_lanes"), default="delta")
    parser.add_argument("--cases", default=None, help="default: every case of the algorithm")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    from autotune.gpu import CudaEventTimer, open_solver
    from autotune.gpu.device import gpu_session

    variants = [(v.split("=", 1)[0], Path(v.split("=", 1)[1]).resolve()) for v in args.variant]
    table, make = (LANES_CASES, lanes_config) if args.algorithm == "delta_lanes" else (CASES, config)
    cases = [c for c in (args.cases or ",".join(table)).split(",") if c]
    args.output.mkdir(parents=True, exist_ok=True)
    log = (args.output / "ab.jsonl").open("a")
    log.write(json.dumps({"command": " ".join(sys.argv), "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                          "variants": {n: str(p) for n, p in variants}}) + "\n")
    results: dict[tuple[str, str], list[float]] = {}
    protocol = Protocol(sample=32, min_repetitions=3, max_repetitions=3)
    with gpu_session() as session:
        log.write(json.dumps({"device": session.name()}) + "\n")
        by_graph: dict[str, list[str]] = {}
        for case in cases:
            by_graph.setdefault(table[case][0], []).append(case)
        for graph_name, graph_cases in by_graph.items():
            graph = load_graph(spec_of(graph_name))
            sample = choose_sources(graph, 32, seed=0)
            expected = ReferenceCache(None).distances(graph, sample)
            for round_ in range(args.rounds):
                for name, path in variants:
                    use_source(path, args.algorithm)
                    with open_solver(graph, args.algorithm) as solver:
                        timer = CudaEventTimer(solver, sample, protocol, expected=expected)
                        for case in graph_cases:
                            _, *shape = table[case]
                            t0 = time.perf_counter()
                            m = timer.measure(make(*shape))
                            row = {"case": case, "variant": name, "round": round_, "status": str(m.status),
                                   "reason": m.reason, "ms_per_sssp": m.ms_per_sssp, "times_ms": list(m.times_ms),
                                   "iterations": m.iterations, "wall_s": round(time.perf_counter() - t0, 2)}
                            log.write(json.dumps(row) + "\n")
                            log.flush()
                            print(json.dumps(row), flush=True)
                            if m.status is Status.OK:
                                results.setdefault((case, name), []).extend(m.times_ms)
    print()
    for case in cases:
        line = [f"{case:20s}"]
        for name, _ in variants:
            times = results.get((case, name))
            line.append(f"{name}: " + (f"{statistics.median(times):.4g} ms ({min(times):.4g}-{max(times):.4g})"
                                       if times else "no verified measurement"))
        print("  ".join(line))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
