"""A/B of docs/notes/kernels.md runs X and Y: variants of `phast` on the table's one query and batch
end of each graph (`Table.lookup`), measured by the sweep's `CudaEventTimer` (a warm-up, then timed
passes over 32 sources, every solve checked against scipy's Dijkstra), the variants alternated twice.
The hierarchies are read from the store (`AUTOTUNE_CACHE_DIR=.../gcache`: `.../hierarchies`).

    python3 scripts/ab_phast.py usa-roads.gr.gz,rome99.gr.gz --arcs 0,2,4,8     # run X
    python3 scripts/ab_phast.py usa-roads.gr.gz,rome99.gr.gz --param upward=levels,search  # run Y
    python3 scripts/ab_phast.py rome99.gr.gz --param shared_arcs=none,down  # run Y
    python3 scripts/ab_phast.py rome99.gr.gz,usa-roads.gr.gz --param warp_levels=off,on  # run Y
    python3 scripts/ab_phast.py rome99.gr.gz,usa-roads.gr.gz --define SEARCH_QUEUE=0,1  # run Y

--arcs: `kernels/phast.cu` built with PREFETCH_ARCS_SHARED and _GLOBAL both each value (0: every
vertex's arcs loaded in its own level step, the kernel before run X). --define MACRO=V1,V2: builds
with each value of a macro. --param NAME=V1,V2: the table's configuration with each value of a
parameter, the shipped build.

Run Y's first A/Bs ran earlier forms: at 583cec4 `--upward levels,search` for `--param
upward=levels,search`, and at 500fa1b `warp_levels` was a macro (`--define WARP_LEVELS=0,1`).
"""
import argparse
import statistics

from autotune import algorithms
from autotune.gpu import CudaEventTimer, compile as compiled, device_description, gpu_session, open_solver
from autotune.measure import Protocol
from benchmarks import data

parser = argparse.ArgumentParser()
parser.add_argument("graphs")
parser.add_argument("--arcs", default=None, help="comma-separated builds' prefetched arcs")
parser.add_argument("--param", default=None, help="NAME=V1,V2,...: values of a parameter")
parser.add_argument("--define", default=None, help="MACRO=V1,V2,...: builds of kernels/phast.cu with each value")
parser.add_argument("--repetitions", type=int, default=3)
args = parser.parse_args()
phast = type(algorithms.get("phast"))
plain_options = phast.compile_options


def build(defines: list[str]) -> None:
    """Make every later phast build one with `defines` (-D options; none: the shipped build)."""
    phast.compile_options = lambda self, no_l1: plain_options(self, no_l1) + defines
    compiled.compiled_module.cache_clear()


variants = [(f"PREFETCH_ARCS_*={a}", [f"-DPREFETCH_ARCS_SHARED={a}", f"-DPREFETCH_ARCS_GLOBAL={a}"], {})
            for a in (args.arcs.split(",") if args.arcs else [])]
if args.define:
    macro, values = args.define.split("=")
    variants += [(f"{macro}={v}", [f"-D{macro}={v}"], {}) for v in values.split(",")]
if args.param:
    param, values = args.param.split("=")
    variants += [(f"{param}={v}", [], {param: v}) for v in values.split(",")]
with gpu_session(0) as device:
    gpu = device_description(device)
    print("device:", gpu["name"], flush=True)
    _, table = data.load_shipped_table(gpu)
    protocol = Protocol(sample=32, min_repetitions=args.repetitions, max_repetitions=args.repetitions)
    for name, graph, sample, expected in data.suite_graphs(args.graphs, 32):
        times: dict[tuple[str, str], list[float]] = {}
        for label, queries in (("one query", 1), ("batch", None)):
            config = table.lookup(graph, queries=queries, device=gpu).config
            print(name, label, config.to_json(), flush=True)
            for _ in range(2):
                for variant, defines, params in variants:
                    build(defines)
                    with open_solver(graph, "phast") as solver:
                        timer = CudaEventTimer(solver, sample, protocol, expected=expected)
                        measured = timer.measure(algorithms.get("phast").validate(config.replace(**params)))
                    if not measured.ok:  # a refused variant (no room in shared memory) or a wrong one
                        print(name, label, variant, measured.status, measured.reason, flush=True)
                        continue
                    times.setdefault((label, variant), []).append(measured.ms_per_sssp)
        for (label, variant), ms in times.items():
            print(f"{name} {label} {variant}: {' '.join(f'{t:.4f}' for t in ms)} ms per SSSP "
                  f"(median {statistics.median(ms):.4f})", flush=True)
