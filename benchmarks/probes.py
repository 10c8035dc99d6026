"""What the probe scripts (`scripts/probe_*.py`) share: their graphs with a prediction and the
shipped table's best, in one GPU session, and their records, a grid of configurations timed
beside that best (`answers.timed_together`: every solve checked against scipy's Dijkstra).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from autotune.algorithms.delta import SHARED_PER_BLOCK
from autotune.files import read_json
from benchmarks import answers, data

SPAN = 64  # the Deltas of a Delta grid: the domain's within this factor of the predicted one
PASSES = 3  # a one-query kernel probe's timed passes over its sources, after one to warm up
SHARED_LIMIT = SHARED_PER_BLOCK  # the kernel probes' bound


def probe_rows(name: str, graph: Any, grid: Sequence[Any], reference: Any, sources: Sequence[int], expected: dict,
               rounds: int, grid_class: str) -> Iterator[dict[str, Any]]:
    """A probe's records: the configurations of `grid` and the table's best (`reference`) timed
    together (`answers.timed_together`), each as {"graph", "class": `grid_class` or "table best",
    "config", "status", "ms_per_sssp", "rounds"}."""
    measured = answers.timed_together(graph, [*grid, reference], sources, expected, rounds)
    for config in dict.fromkeys([*grid, reference]):
        timing = measured[config]
        yield {"graph": name, "class": grid_class if config in grid else "table best", "config": config.to_json(),
               "status": "ok" if timing["ms_per_sssp"] is not None else "failed", **timing}


def deltas_around(predicted: object, domain: tuple) -> list:
    """The finite Deltas of `domain` within SPAN of `predicted` (every finite one if it is INF)."""
    finite = [d for d in domain if isinstance(d, int)]
    if not isinstance(predicted, int):
        return finite
    return [d for d in finite if abs(math.log2(d / predicted)) <= math.log2(SPAN)]


def delta_grid(predicted: Any, domain: tuple) -> list[Any]:
    """`predicted` with each Delta of `deltas_around` it, itself first (an INF Delta included)."""
    return list(dict.fromkeys([predicted, *(predicted.replace(delta=d)
                                            for d in deltas_around(predicted.params["delta"], domain))]))


def batch_shapes(names: str, sample: int) -> Iterator[tuple[str, Any, Any, Any, Any, Any]]:
    """The batch probes' graphs (`scripts/probe_batch_ck.py`, `probe_batch_bitmaps.py`,
    `probe_delta_grid.py`), in one GPU session: each graph of `names` with its sources and their
    distances (`data.suite_graphs`), Delta-stepping's batch-end prediction with the graph's level
    width measured, a function that gives it another CK and block size (`shaped()`: the prediction
    itself), and the shipped table's batch best."""
    from autotune import algorithms
    from autotune.gpu import device_description, gpu_session
    from autotune.launch import KernelLaunch
    from autotune.model.device import load_device
    from autotune.model.features import GraphFeatures
    from autotune.model.shape import level_width

    with gpu_session(0) as device:
        gpu = device_description(device)
        _, table = data.load_shipped_table(gpu)
        profile = load_device(f"hopper-{data.gpu_file(str(gpu['name']))}")
        for name, graph, sources, expected in data.suite_graphs(names, sample):
            delta = algorithms.get("delta")
            predicted = delta.predict(delta.with_level_width(GraphFeatures.from_graph(graph), lambda: level_width(graph)),
                                      profile).config

            def shaped(ck: int | None = None, size: int | None = None, predicted=predicted) -> Any:
                if size is None:
                    return predicted.replace(concurrent_kernels=ck or predicted.concurrent_kernels)
                return predicted.replace(concurrent_kernels=ck or predicted.concurrent_kernels,
                                         **{k: KernelLaunch(size, launch.cache) for k, launch in predicted.kernels.items()})

            yield name, graph, sources, expected, shaped, table.lookup(graph, device=gpu, allow_other_device=False).config


def one_query_shapes(names: str, sample: int) -> Iterator[tuple[str, Any, Any, Any, Any, Any]]:
    """The one-query probe's graphs (`scripts/probe_latency_grid.py`), in one GPU session: each
    graph of `names` (default: the shipped table's real graphs) with its sources and their
    distances, Delta-stepping's one-query prediction as `autotune predict --algorithm delta
    --queries 1` gives it (the shipped choice model's one-query rules, the level width measured),
    and the shipped table's one-query best."""
    from autotune.cli.predict_auto import predicted
    from autotune.files import read_json
    from autotune.gpu import device_description, gpu_session
    from autotune.model.choice import shipped_choice
    from autotune.model.device import load_device
    from autotune.model.features import GraphFeatures
    from autotune.model.shape import level_width

    with gpu_session(0) as device:
        gpu = device_description(device)
        path, table = data.load_shipped_table(gpu)
        names = names or ",".join(e["graph"]["name"] for e in read_json(path)["entries"] if data.is_real(e["graph"]["name"]))
        profile = load_device(f"hopper-{data.gpu_file(str(gpu['name']))}")
        chooser = shipped_choice(profile)
        for name, graph, sources, expected in data.suite_graphs(names, sample):
            config, _ = predicted("delta", GraphFeatures.from_graph(graph), profile, "auto", 1,
                                  chooser.latency if chooser else None, lambda g=graph: level_width(g))
            yield name, graph, sources, expected, config, table.lookup(graph, device=gpu, allow_other_device=False,
                                                                       queries=1).config


def given_configs(flags: Sequence[str]) -> dict[str, Any]:
    """A probe's `--config=GRAPH=CONFIG.json` flags: each GRAPH's `LaunchConfig` (`tuned_one_queries`' `given`)."""
    from autotune.launch import LaunchConfig

    return {graph: LaunchConfig.from_json(read_json(Path(file), "configuration"))
            for graph, file in (f.split("=", 2)[1:] for f in flags if f.startswith("--config="))}


def tuned_one_queries(names: str, sample: int, given: Mapping[str, Any] | None = None
                      ) -> Iterator[tuple[str, Any, Any, dict, float, Any, Any, list]]:
    """The one-query kernel probes' graphs (`scripts/probe_cluster.py`, `probe_lean.py`), in one
    GPU session: each graph of `names` with its sources and their distances (`data.suite_graphs`),
    scipy's Dijkstra on one core (the median over 8 of the sources, as suite kernels times it), the
    shipped table's one-query best and its timing by the sweep's timer (5 repetitions; printed),
    and the graph's offsets, columns and weights on the GPU (int32 device pointers). A graph of
    `given` (name: `LaunchConfig`) takes that configuration instead, solved from its vertex 0 alone
    (a path graph's floor: one queued vertex an iteration)."""
    import statistics

    import numpy as np
    import pycuda.gpuarray as gpuarray

    from autotune.gpu import CudaEventTimer, device_description, gpu_session, open_solver
    from autotune.measure import Protocol
    from autotune.reference.cache import ReferenceCache
    from benchmarks.kernels import scipy_ms

    with gpu_session(0) as device:
        gpu = device_description(device)
        _, table = data.load_shipped_table(gpu)
        for name, graph, sources, expected in data.suite_graphs(names, sample):
            if given and name in given:
                sources = (0,)
                expected = ReferenceCache(None).distances(graph, sources)
            cpu = statistics.median(scipy_ms(graph, list(sources[:8])))
            tuned = (given or {}).get(name) or table.lookup(graph, queries=1, device=gpu,
                                                            allow_other_device=False).config
            with open_solver(graph, tuned.algorithm) as solver:
                base = CudaEventTimer(solver, sources, Protocol(sample=len(sources), min_repetitions=5,
                                                                max_repetitions=5), expected=expected).measure(tuned)
            print(f"{name}: n {graph.n_vertices}, m {graph.n_edges}, scipy {cpu:.4f} ms, tuned {tuned.params} "
                  f"{base.status} {base.ms_per_sssp:.4f} ms ({cpu / base.ms_per_sssp:.1f}x scipy), "
                  f"iterations {base.iterations}", flush=True)
            arrays = [gpuarray.to_gpu(np.ascontiguousarray(a, dtype=np.int32))
                      for a in (graph.row_offsets, graph.columns, graph.weights)]
            yield name, graph, sources, expected, cpu, tuned, base, [a.gpudata for a in arrays]


def build_probe(source: Any, options: Sequence[str], name: str) -> Any:
    """The kernel `name` of a probe's CUDA file `source` (a Path), compiled with `options` and the
    shipped kernels' headers on the include path."""
    from pycuda.compiler import SourceModule

    from autotune.resources import kernels_dir

    return SourceModule(source.read_text(), options=list(options), no_extern_c=True,
                        include_dirs=[str(kernels_dir())]).get_function(name)


def timed_solves(launch: Any, n: int, sources: Sequence[int], expected: dict, passes: int = PASSES
                 ) -> tuple[Any, str | None]:
    """A probe kernel's one queries: `launch(source, out, stats)` (the distances into `out`, n
    int32; into `stats`, 4 int32 zeroed before each solve, the iterations at 0 and a failure at 3),
    each source once to warm up, then `passes` passes over them, each solve timed by CUDA events
    around its launch and checked against `expected`. ((median, least, most ms, median
    iterations), None), or (None, why) at the first failure."""
    import statistics

    import numpy as np
    import pycuda.driver as cuda
    import pycuda.gpuarray as gpuarray

    out, stats = gpuarray.empty(n, np.int32), gpuarray.zeros(4, np.int32)
    start, stop = cuda.Event(), cuda.Event()
    times, iterations = [], []
    for rep in range(passes + 1):
        for source in sources:
            stats.fill(0)
            start.record()
            launch(source, out, stats)
            stop.record()
            stop.synchronize()
            got, counts = out.get(), stats.get()
            if counts[3] or not np.array_equal(got, expected[source]):
                wrong = int(np.count_nonzero(got != expected[source]))
                return None, f"source {source}: failure {int(counts[3])}, {wrong} distances differ"
            if rep:
                times.append(stop.time_since(start))
                iterations.append(int(counts[0]))
    return (statistics.median(times), min(times), max(times), statistics.median(iterations)), None


def print_fastest(rows: Sequence[tuple], failed: Sequence[tuple], cpu_ms: float, tuned_ms: float, describe: Any,
                  steps: str = "iterations") -> None:
    """A one-query kernel probe's six fastest rows ((median, least, most ms, median `steps`, *the
    configuration), `describe(*configuration)` naming it), each against scipy and the tuned one
    query, then how many configurations failed and the first four."""
    for r in sorted(rows)[:6]:
        print(f"    {r[0]:.4f} ms (min {r[1]:.4f}, max {r[2]:.4f}, {r[3]:.0f} {steps}): {describe(*r[4:])}; "
              f"{cpu_ms / r[0]:.1f}x scipy, {tuned_ms / r[0]:.2f}x tuned", flush=True)
    print("    failed:", len(failed), list(failed[:4]), flush=True)
