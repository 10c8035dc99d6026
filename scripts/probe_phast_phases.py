"""Where one PHAST query's time goes (docs/notes/kernels.md, run Y): `kernels/phast.cu` built with
clock64 stamps by the first instance's thread 0 (a copy of the source patched here, not shipped) at
the sweep's start, after its initialization, after the upward phase, after the downward phase and
at its end, and the solve timed by the engine's CUDA events as the sweeps time it; per phase the
median over 32 sources (3 passes after a warm-up), in microseconds at the device's clock rate
(thread 0's view: the other threads' shares of a phase end at the barriers that follow). The
table's one query of each graph (`Table.lookup`), with `--param NAME=VALUE,...` changes.

    python3 scripts/probe_phast_phases.py rome99.gr.gz,usa-roads.gr.gz [--param shared_arcs=down]
"""
import argparse
import statistics
from pathlib import Path

import numpy as np

from autotune import algorithms
from autotune.gpu import compile as compiled, device_description, gpu_session, open_solver
from benchmarks import data

STAMP = ('__device__ long long phase_clock[5];\n#define STAMP(i) if (threadIdx.x == 0 && blockIdx.y == 0) '
         'phase_clock[i] = clock64();\n')
PATCHES = (  # (anchor, the stamp put after it)
    ("  const int source = new_of[sources[instance]];\n  const bool staged = levels <= SHARED_LEVELS;", "STAMP(0)"),
    ("  for (int i = tid; i < n; i += T) dist[i] = i == source ? 0 : INF;\n  __syncthreads();", "STAMP(1)"),
    ("    for (int i = tid; i < reached[0]; i += T) due[list[i]] = 0;", "STAMP(2)"),
)
END_PATCHES = (("  if (down_levels == levels) {\n    int *row", "STAMP(3)"),
               ("  if (tid == 0) steps[instance] = swept;", "STAMP(4)"))


def patched(text: str) -> str:
    text = text.replace('#include "frontier.cuh"  // INF, RESTRICT\n', '#include "frontier.cuh"  // INF, RESTRICT\n' + STAMP)
    for anchor, stamp in PATCHES:
        assert text.count(anchor) == 1, anchor
        text = text.replace(anchor, f"{anchor}\n  {stamp};")
    for anchor, stamp in END_PATCHES:
        assert text.count(anchor) == 1, anchor
        text = text.replace(anchor, f"  {stamp};\n{anchor}")
    return text


parser = argparse.ArgumentParser()
parser.add_argument("graphs")
parser.add_argument("--param", action="append", default=[], help="NAME=VALUE changed in the table's configuration")
args = parser.parse_args()
plain_build = compiled._build
compiled._build = lambda source, options: plain_build(source, options) if source.name != "phast.cu" else \
    _patched_build(source, options)


def _patched_build(source: Path, options):
    copy = Path("/tmp/phast_phases.cu")
    copy.write_text(patched(source.read_text()))
    return plain_build(copy, options)


with gpu_session(0) as device:
    import pycuda.driver as cuda

    gpu = device_description(device)
    mhz = device.get_attribute(cuda.device_attribute.CLOCK_RATE) / 1e3
    print("device:", gpu["name"], f"clock {mhz:.0f} MHz", flush=True)
    _, table = data.load_shipped_table(gpu)
    for name, graph, sample, expected in data.suite_graphs(args.graphs, 32):
        config = table.lookup(graph, queries=1, device=gpu).config
        config = algorithms.get("phast").validate(config.replace(**dict(p.split("=") for p in args.param)))
        print(name, config.to_json(), flush=True)
        rows = []
        with open_solver(graph, "phast") as solver:
            stamps_at, _ = compiled.compiled_module("phast", False, False).get_global("phase_clock")
            for rep in range(4):
                for source in sample:
                    result = solver.solve(config, [source])
                    assert np.array_equal(result.distances[0], expected[source]), (name, source)
                    stamps = np.empty(5, np.int64)
                    cuda.memcpy_dtoh(stamps, stamps_at)
                    if rep:
                        rows.append([*(np.diff(stamps) / mhz), result.elapsed_ms * 1e3,
                                     result.elapsed_ms * 1e3 - (stamps[4] - stamps[0]) / mhz, int(result.iterations[0])])
        medians = [statistics.median(r[i] for r in rows) for i in range(7)]
        print(f"{name}: init {medians[0]:.1f} us, upward {medians[1]:.1f}, downward {medians[2]:.1f}, "
              f"output {medians[3]:.1f}; solve (events) {medians[4]:.1f} us, of which outside the sweep "
              f"{medians[5]:.1f}; steps {medians[6]:.0f}", flush=True)
