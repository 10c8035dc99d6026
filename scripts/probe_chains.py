"""Several levels of the wave per barrier (kernels/delta.cu, CHAIN_HOPS; docs/notes/kernels.md)
against the plain build, in the same process, on the same 32 sources: for each graph, the one-query
configuration tables/h100.json gives, and the same with Delta times 2 and 4, timed by the sweep's
timer (every solve checked against scipy) with the plain build and then with builds of
`-DCHAIN_HOPS=H` for each H given. Prints ms per SSSP and iterations per solve.

    python3 scripts/probe_chains.py usa-roads.gr.gz,rome99.gr.gz,road-NY 2,4,8
"""
import statistics
import sys

from benchmarks import data
from benchmarks.kernels import scipy_ms
from autotune.gpu import CudaEventTimer, device_description, gpu_session, open_solver
from autotune.gpu.compile import experimental_build
from autotune.lookup import Table
from autotune.measure import Protocol


def main() -> None:
    names, hops = sys.argv[1], [int(h) for h in sys.argv[2].split(",")] if len(sys.argv) > 2 else [2, 4, 8]
    with gpu_session(0) as device:
        gpu = device_description(device)
        table = Table.load("tables/h100.json")
        for name, graph, sample, expected in data.suite_graphs(names, 32):
            cpu = statistics.median(scipy_ms(graph, list(sample[:8])))
            tuned = table.lookup(graph, queries=1, device=gpu).config
            if tuned.algorithm != "delta":
                print(name, "skipped: its one query is", tuned.algorithm, flush=True)
                continue
            unit = tuned.param("delta")
            configs = [tuned] + ([tuned.replace(delta=unit * f) for f in (2, 4)] if unit != "inf" else [])
            print(f"{name}: scipy {cpu:.4f} ms; tuned {tuned.params}, block {tuned.kernel('advance').block_size}",
                  flush=True)
            for h in [0, *hops]:
                with experimental_build(*([f"CHAIN_HOPS={h}"] if h else [])), open_solver(graph, "delta") as solver:
                    timer = CudaEventTimer(solver, sample, Protocol(sample=32, min_repetitions=5, max_repetitions=5),
                                           expected=expected)
                    for config in configs:
                        m = timer.measure(config)
                        shown = f"{m.ms_per_sssp:.4f} ms ({cpu / m.ms_per_sssp:.1f}x scipy)" if m.ok else m.reason
                        print(f"    hops {h}, delta {config.param('delta')}: {m.status} {shown}, "
                              f"iterations {m.iterations}", flush=True)


if __name__ == "__main__":
    main()
