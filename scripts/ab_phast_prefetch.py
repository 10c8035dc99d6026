"""A/B of docs/notes/kernels.md run X: `kernels/phast.cu` built with PREFETCH_ARCS = 0 (every
vertex's arcs loaded in its own level step, the kernel before run X) and with 2, 4 and 8 arcs of a
thread's next vertex loaded before the barrier, on the table's one query and batch end of each
graph (`Table.lookup`), measured by the sweep's `CudaEventTimer` (a warm-up, then timed passes over
32 sources, every solve checked against scipy's Dijkstra), the builds alternated twice. The
hierarchies are read from the store (`AUTOTUNE_CACHE_DIR=.../gcache`: `.../hierarchies`).

    python3 scripts/ab_phast_prefetch.py usa-roads.gr.gz,rome99.gr.gz [--arcs 0,2,4,8] [--repetitions 3]
"""
import argparse
import statistics

from autotune import algorithms
from autotune.gpu import CudaEventTimer, compile as compiled, device_description, gpu_session, open_solver
from autotune.measure import Protocol
from benchmarks import data

parser = argparse.ArgumentParser()
parser.add_argument("graphs")
parser.add_argument("--arcs", default="0,2,4,8")
parser.add_argument("--repetitions", type=int, default=3)
args = parser.parse_args()
phast = type(algorithms.get("phast"))
plain_options = phast.compile_options


def build(arcs: int) -> None:
    """Make every later phast build one of `arcs` prefetched arcs."""
    phast.compile_options = lambda self, no_l1: plain_options(self, no_l1) + [f"-DPREFETCH_ARCS={arcs}"]
    compiled.compiled_module.cache_clear()


with gpu_session(0) as device:
    gpu = device_description(device)
    print("device:", gpu["name"], flush=True)
    _, table = data.load_shipped_table(gpu)
    protocol = Protocol(sample=32, min_repetitions=args.repetitions, max_repetitions=args.repetitions)
    for name, graph, sample, expected in data.suite_graphs(args.graphs, 32):
        times: dict[tuple[str, int], list[float]] = {}
        for label, queries in (("one query", 1), ("batch", None)):
            config = table.lookup(graph, queries=queries, device=gpu).config
            print(name, label, config.to_json(), flush=True)
            for _ in range(2):
                for arcs in (int(a) for a in args.arcs.split(",")):
                    build(arcs)
                    with open_solver(graph, "phast") as solver:
                        measured = CudaEventTimer(solver, sample, protocol, expected=expected).measure(config)
                    assert measured.ok, (name, label, arcs, measured.status, measured.reason)
                    times.setdefault((label, arcs), []).append(measured.ms_per_sssp)
        for (label, arcs), ms in times.items():
            print(f"{name} {label} PREFETCH_ARCS={arcs}: {' '.join(f'{t:.4f}' for t in ms)} ms per SSSP "
                  f"(median {statistics.median(ms):.4f})", flush=True)
