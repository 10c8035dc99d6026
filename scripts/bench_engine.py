"""Engine benchmark (issue: GPU SSSP engine): default configuration vs the best of a small grid.

For each graph: the thesis's default configuration (256 threads, default cache, CK 1, L 1), then a
grid over block size x CK x lanes (default cache), every point verified against scipy Dijkstra;
reports ms per SSSP (median and min-max over repetitions), GTEPS, iterations, and the share of the
solve's wall time the host spent inside launch calls. Last, at CK 64, batched launches (one grid
serves all instances) against one launch per instance on its own stream.

Usage (on a GPU machine):
    python3 scripts/bench_engine.py --graphs rmat17 rmat20 random98k-d20 -o reports/h100/engine.md
"""
from __future__ import annotations

import argparse
import datetime
import itertools
import json
import platform
import sys
import time

from autotune.graphs import load_graph
from autotune.gpu import CudaEventTimer, device_description, gpu_session
from autotune.gpu.thesis_engine import ThesisSolver as Solver
from autotune.measure import Protocol, choose_sources
from autotune.algorithms.thesis import CRAUSER


def _row(graph_name: str, label: str, m) -> str:
    if not m.ok:
        return f"| {graph_name} | {label} | {m.config} | {m.status}: {m.reason} | | | | |"
    low, high = m.spread_ms
    kernels = ", ".join(f"{k} {v:.3f}" for k, v in sorted(m.kernel_ms.items()))
    return (f"| {graph_name} | {label} | `{m.config}` | {m.ms_per_sssp:.3f} ({low:.3f}-{high:.3f}) | "
            f"{m.gteps:.2f} | {m.iterations:.0f} | {100 * m.launch_share:.0f}% | {kernels} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="+", default=["rmat17", "rmat20", "random98k-d20"])
    parser.add_argument("--block-sizes", default="128,256,512")
    parser.add_argument("--ck", default="1,8,32,64")
    parser.add_argument("--lanes", default="1,4,8,32")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--sources", type=int, default=128, help="the sample of sources every point solves")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--records", help="JSON Lines of every measurement")
    args = parser.parse_args(argv)
    block_sizes = [int(b) for b in args.block_sizes.split(",")]
    cks = [int(c) for c in args.ck.split(",")]
    lanes = [int(x) for x in args.lanes.split(",")]

    lines = []
    records = open(args.records, "w") if args.records else None
    with gpu_session() as device:
        info = device_description(device)
        lines += [
            "# Engine benchmark",
            "",
            f"- command: `python3 {' '.join(sys.argv)}`",
            f"- GPU: {info['name']} (compute capability {info['compute_capability']}, {info['sm_count']} SMs), "
            f"CUDA driver {info['cuda_driver_version']}",
            f"- date: {datetime.date.today().isoformat()}, host Python {platform.python_version()}",
            f"- grid: block sizes {block_sizes} x CK {cks} x lanes {lanes}, default cache; "
            f"{args.repetitions} timed repetitions per point after a warm-up, each over the sample of {args.sources} sources",
            "- ms per SSSP = CUDA-event time of a solve of CK sources / CK (median, min-max over repetitions); "
            "GTEPS = edges / (ms per SSSP) / 1e6; launch share = host time in launch calls / solve wall time; "
            "kernel times in ms per SSSP from a separate profiled solve",
            "",
            "| graph | what | configuration | ms per SSSP | GTEPS | iterations | launch share | kernel ms |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for spec in args.graphs:
            t0 = time.perf_counter()
            graph = load_graph(spec)
            print(f"{spec}: {graph.n_vertices} vertices, {graph.n_edges} edges "
                  f"(loaded in {time.perf_counter() - t0:.1f} s)", flush=True)
            sources = choose_sources(graph, args.sources, seed=0)
            with Solver(graph) as solver:
                t0 = time.perf_counter()
                protocol = Protocol(sample=args.sources, min_repetitions=args.repetitions)
                timer = CudaEventTimer(solver, sources, protocol)
                print(f"  reference for {len(sources)} sources: {time.perf_counter() - t0:.1f} s", flush=True)

                def run(config):
                    m = timer.measure(config)
                    if records:
                        records.write(json.dumps({"graph": spec, **m.to_json()}) + "\n")
                    return m

                default = run(CRAUSER.default_config())
                lines.append(_row(spec, "default", default))
                print("  default:", default.ms_per_sssp, default.status, default.reason, flush=True)
                t0 = time.perf_counter()
                grid = [run(CRAUSER.uniform(b, concurrent_kernels=c, lanes=l))
                        for b, c, l in itertools.product(block_sizes, cks, lanes)]
                ok = [m for m in grid if m.ok]
                failed = [m for m in grid if not m.ok]
                best = min(ok, key=lambda m: m.ms_per_sssp)
                print(f"  grid of {len(grid)} in {time.perf_counter() - t0:.1f} s; best {best.ms_per_sssp:.3f} ms "
                      f"{best.config}; {len(failed)} not ok", flush=True)
                lines.append(_row(spec, "best of grid", best))
                for m in failed:
                    lines.append(_row(spec, "not ok", m))
                best_ck1 = min((m for m in ok if m.config.concurrent_kernels == 1), key=lambda m: m.ms_per_sssp)
                lines.append(_row(spec, "best at CK 1", best_ck1))
                at64 = [m for m in ok if m.config.concurrent_kernels == max(cks)]
                if at64:
                    batched = min(at64, key=lambda m: m.ms_per_sssp)
                    lines.append(_row(spec, f"best batched, CK {max(cks)}", batched))
                    with Solver(graph, launch_mode="streams") as streams_solver:
                        streams_timer = CudaEventTimer(streams_solver, sources, protocol, expected=timer.expected)
                        streams = streams_timer.measure(batched.config)
                    lines.append(_row(spec, "same, one stream per instance", streams))
    if records:
        records.close()
    text = "\n".join(lines) + "\n"
    with open(args.output, "w") as handle:
        handle.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
