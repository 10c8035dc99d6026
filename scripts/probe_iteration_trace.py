#!/usr/bin/env python3
"""Where the iterations of one query's grid solve spend their time (issue 29's R-MAT targets):
Delta-stepping's tuned one query (the shipped table's) and variants of it, first timed by the sweep's
timer on the shipped build (every solve checked against scipy's Dijkstra), then solved once per
source on a build with -DTRACE_ITERATIONS=1 (`kernels/delta.cu`), whose solve_grid stamps each
iteration: when its leader started it, when its first and its last block ended the advance, and the
advance's work (queue entries, hub chunks, edges scanned, vertices deferred).

Usage (on a GPU machine, from the repository's root):

    python3 scripts/probe_iteration_trace.py rmat17,rmat20 '[{}, {"defer_work": "off"}]' [--iterations]

Per configuration: the plain build's ms per query; then over the traced solves (the mean over the
sources), the traced solve's span from the first iteration's start to the last block's end, how
much of it the advances took (start to the last block's end), the part of that after the first
block had ended (blocks waiting on the slowest), the rest (barriers, splits, bookkeeping), and the
work. With --iterations, one line an iteration of the first source. PROBE_DEFINES (an environment
variable, e.g. "-DHUBS_AT_ONCE=2") adds compile options to both builds; --builds='["", "-DHUBS_AT_ONCE=0"]'
runs each graph's variants on each of those builds in turn (one line each, the build in brackets).
A variant's "block" sets its kernels' block size, e.g. '[{}, {"blocks": 256, "block": 384}]'.
`--config=GRAPH=CONFIG.json` solves GRAPH from its vertex 0 with that configuration instead of its
table's (`benchmarks.probes.tuned_one_queries`): a path graph with Email-Enron's one query shows
where an empty iteration's 6.8 us go (docs/notes/kernels.md, run AE).
"""
import json
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.probes import given_configs, tuned_one_queries  # noqa: E402

SAMPLE = 16
TRACED_SOURCES = 4
TIMES = ("trace_start", "trace_first", "trace_last")
WORK = ("trace_queue", "trace_chunks", "trace_splits", "trace_scanned", "trace_deferred")


def use_build(traced: bool, defines: str = "") -> None:
    """Make later compiles of the kernels the traced build or the plain one, with `defines` (compile
    options) added (the other builds dropped from the process's cache; PyCUDA's disk cache keeps them)."""
    from autotune.gpu import compile as compile_module

    plain = getattr(compile_module, "_plain_build", compile_module._build)
    compile_module._plain_build = plain
    compile_module.compiled_module.cache_clear()
    extra = [*defines.split(), *(["-DTRACE_ITERATIONS=1"] if traced else [])]
    compile_module._build = lambda source, options: plain(source, [*options, *extra])


def trace_of(solver, config, source: int) -> dict[str, np.ndarray]:
    """Solve from `source` on the traced build and read its iterations' stamps and work."""
    from autotune.gpu.compile import compiled_module
    from autotune.launch import CacheState

    cuda = solver.cuda
    # the positional arguments of kernel_function's call: functools.cache keys on their spelling
    module = compiled_module(config.algorithm, config.kernel("advance").cache is CacheState.NO_L1, False)
    arrays = {}
    for name in TIMES + WORK:
        pointer, size = module.get_global(name)
        arrays[name] = (pointer, size)
        cuda.memset_d8(pointer, 0xFF if name == "trace_first" else 0, size)
    result = solver.solve(config, [int(source)])
    iterations = int(result.iterations[0])
    out = {}
    for name, (pointer, size) in arrays.items():
        host = np.empty(size // (8 if name in TIMES else 4), dtype=np.uint64 if name in TIMES else np.int32)
        cuda.memcpy_dtoh(host, pointer)
        out[name] = host[:iterations]
    return out


def summary(trace: dict[str, np.ndarray]) -> dict[str, float]:
    """The traced solve's span and its parts, in microseconds, and its work."""
    start, first, last = (trace[name].astype(np.int64) for name in TIMES)
    return {
        "iterations": len(start),
        "span_us": (last[-1] - start[0]) / 1e3,
        "advance_us": float((last - start).sum()) / 1e3,
        "waiting_on_slowest_us": float((last - first).sum()) / 1e3,
        "between_us": float((start[1:] - last[:-1]).sum()) / 1e3,
        "queued": int(trace["trace_queue"].sum()),
        "chunks": int(trace["trace_chunks"].sum()),
        "scanned": int(trace["trace_scanned"].sum()),
        "deferred": int(trace["trace_deferred"].sum()),
        "splits": int(trace["trace_splits"][-1]),
    }


def with_change(tuned, change: dict):
    """`tuned` with the parameters of `change`, and its kernels' block size where it names one ("block")."""
    from autotune.launch import KernelLaunch

    change = dict(change)
    size = change.pop("block", None)
    config = tuned.replace(**change)
    if size is None:
        return config
    return config.replace(**{k: KernelLaunch(int(size), launch.cache) for k, launch in config.kernels.items()})


def main(names: str, variants_text: str, *flags: str) -> None:
    from autotune.gpu import CudaEventTimer, open_solver
    from autotune.measure import Protocol

    changes = json.loads(variants_text)
    builds = next((json.loads(f.split("=", 1)[1]) for f in flags if f.startswith("--builds=")),
                  [os.environ.get("PROBE_DEFINES", "")])
    for name, graph, sources, expected, cpu, tuned, base, _ in tuned_one_queries(names, SAMPLE, given_configs(flags)):
        variants = list(dict.fromkeys(with_change(tuned, change) for change in changes))
        for defines in builds:
            use_build(False, defines)
            with open_solver(graph, tuned.algorithm) as solver:
                timings = [CudaEventTimer(solver, sources, Protocol(sample=SAMPLE, min_repetitions=5, max_repetitions=5),
                                          expected=expected).measure(config) for config in variants]
            use_build(True, defines)
            for config, timing in zip(variants, timings):
                report(f"{name} [{defines or 'shipped'}]" if len(builds) > 1 else name, graph, sources, config,
                       timing, "--iterations" in flags)
        use_build(False)


def report(name: str, graph, sources, config, timing, iterations: bool) -> None:
    """Trace `config`'s solves from the first sources and print their summary (and iterations)."""
    from autotune.gpu import open_solver

    block = config.kernel("advance").block_size
    if timing.status != "ok":
        print(f"{name} {config.params} block {block}: {timing.status}", flush=True)
        return
    with open_solver(graph, config.algorithm) as solver:
        traces = [trace_of(solver, config, source) for source in sources[:TRACED_SOURCES]]
    parts = [summary(trace) for trace in traces]
    mean = {key: sum(part[key] for part in parts) / len(parts) for key in parts[0]}
    print(f"{name} {config.params} block {block}: plain {timing.ms_per_sssp:.4f} ms; traced "
          f"span {mean['span_us']:.0f} us over {mean['iterations']:.1f} iterations ({mean['splits']:.1f} splits): "
          f"advances {mean['advance_us']:.0f} (waiting on the slowest block {mean['waiting_on_slowest_us']:.0f}), "
          f"between {mean['between_us']:.0f}; queued {mean['queued'] / graph.n_vertices:.2f} n, "
          f"deferred {mean['deferred'] / graph.n_vertices:.2f} n, scanned {mean['scanned'] / graph.n_edges:.2f} m, "
          f"chunks {mean['chunks']:.0f}", flush=True)
    if iterations:
        trace = traces[0]
        start = trace["trace_start"].astype(np.int64)
        for i in range(len(start)):
            after = (start[i + 1] if i + 1 < len(start) else trace["trace_last"][i].astype(np.int64)) - start[i]
            print(f"  {i:3d} queue {trace['trace_queue'][i]:8d} chunks {trace['trace_chunks'][i]:6d} "
                  f"scanned {trace['trace_scanned'][i]:9d} deferred {trace['trace_deferred'][i]:7d} "
                  f"splits {trace['trace_splits'][i]:3d} | advance "
                  f"{(trace['trace_first'][i].astype(np.int64) - start[i]) / 1e3:7.1f}.."
                  f"{(trace['trace_last'][i].astype(np.int64) - start[i]) / 1e3:7.1f} us, "
                  f"iteration {after / 1e3:7.1f} us", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
