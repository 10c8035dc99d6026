"""Loop mode shared against the tuned one query, in the same process: for each graph, the
configuration tables/h100.json gives one query and 30 shared ones (Delta x block size x warp bin),
each timed by the sweep's timer on 32 sources (every solve checked); the six fastest are printed
(docs/notes/kernels.md, run Q).

    python3 scripts/probe_shared_loop.py rome99.gr.gz
"""
import itertools
import statistics
import sys

from benchmarks import data
from benchmarks.kernels import scipy_ms
from autotune.gpu import CudaEventTimer, device_description, gpu_session, open_solver
from autotune.launch import KernelLaunch
from autotune.lookup import Table
from autotune.measure import Protocol

with gpu_session(0) as device:
    gpu = device_description(device)
    table = Table.load("tables/h100.json")
    for name, graph, sample, expected in data.suite_graphs(sys.argv[1:], 32):
        cpu = statistics.median(scipy_ms(graph, list(sample[:8])))
        tuned = table.lookup(graph, queries=1, device=gpu).config
        if tuned.algorithm != "delta":
            print(name, "skipped: its one query is", tuned.algorithm, flush=True)
            continue
        protocol = Protocol(sample=32, min_repetitions=5, max_repetitions=5)
        with open_solver(graph, "delta") as solver:
            timer = CudaEventTimer(solver, sample, protocol, expected=expected)
            base = timer.measure(tuned)
            print(name, "scipy", round(cpu, 4), "tuned", tuned.params, base.status, base.ms_per_sssp, flush=True)
            results = []
            for d, block, warp in itertools.product(("inf", 4096, 8192, 16384, 32768), (256, 512, 1024), (32, "off")):
                c = tuned.replace(loop="shared", blocks=1, delta=d, warp_threshold=warp)
                c = c.replace(advance=KernelLaunch(block, c.kernel("advance").cache), split=KernelLaunch(block, c.kernel("advance").cache))
                m = timer.measure(c)
                results.append((m.ms_per_sssp or 1e9, str(m.status), d, block, warp, m.reason, m.iterations))
            results.sort(key=lambda r: r[0])
            for r in results[:6]:
                print("   ", r, flush=True)
            bad = [r for r in results if r[1] != "ok"]
            print("   not ok:", len(bad), bad[:2], flush=True)
            print("   best shared vs scipy", round(cpu / results[0][0], 2), "x; tuned vs scipy", round(cpu / base.ms_per_sssp, 2), flush=True)
